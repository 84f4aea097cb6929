"""A per-group partition of the vector index against the group-filtered index (Neo4j 2026).

    python bench/partition_probe.py --db bolt://127.0.0.1:PORT --group scale-10k \
        [--queries 50] [--warmup 5] [--seed 3] [--rebuilt] [--drop]

Issue 14 asks to weigh Neo4j 2026's in-index filtering (what fr-graph ships: one
``fr_fact_embedding`` index holding ``group_id``, searched with ``SEARCH … WHERE
r.group_id = $g``) against a partition: an index per group. Neo4j indexes a label or
relationship type and a property, not a subset of rows, so a partition is a copy of the
group's vectors under a property of its own (``fr_part_<group>``) with a vector index on
it, which holds exactly that group's facts.

On a graph built by ``bench/latency_scale.py build`` (seeded random vectors; time is what
counts here, and both arms walk the same vectors), this makes the group's partition (and
times that: what each new group would cost), then times, query by query and interleaved,
the bare index queries that return the group's top hits (no row fetch, same request size
as the shipped search: ``VECTOR_TOP`` × ``vector_oversample``):

* ``filtered``: the shipped index, filtered by group inside the walk;
* ``partition``: ``db.index.vector.queryRelationships`` on the group's own index;
* ``exact``: the exact cosine scan of the group (the reference for recall);
* with ``--rebuilt``, ``rebuilt``: a filtered index like the shipped one, but over a copy
  of every fact's vector made after the data (``fr_rebuilt``), so populated in one pass
  rather than maintained fact by fact as the graph grew: it tells a partition's gain from
  a freshly built index's.

Recall is the share of the exact top ``VECTOR_TOP`` that each arm's hits contain. With
``--drop`` the partition's index and property are removed afterwards.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from neo4j import AsyncDriver, AsyncGraphDatabase

sys.path.insert(0, str(Path(__file__).resolve().parent))

from latency_scale import await_indexes, group_size, log, make_queries, pct, store_total

from fr_graph.bench.provenance import provenance
from fr_graph.config import Settings
from fr_graph.pipeline.search import VECTOR_TOP

VECTOR = "fact_embedding"  # the bench graph is built as with the local embedder
COPY_BATCH = 5000


def filtered_query(index: str) -> str:
    """The group's top hits from a group-filtered vector index (Cypher 25)."""
    return f"""CYPHER 25
MATCH ()-[r:RELATES_TO]->()
  SEARCH r IN (VECTOR INDEX {index} FOR $embedding
               WHERE r.group_id = $group_id LIMIT $fetch) SCORE AS s
RETURN r.uuid AS uuid"""


FILTERED = filtered_query("fr_fact_embedding")
REBUILT = filtered_query("fr_rebuilt_index")
PARTITION = """CALL db.index.vector.queryRelationships($index, $fetch, $embedding)
YIELD relationship AS r, score
RETURN r.uuid AS uuid"""
EXACT = f"""MATCH ()-[r:RELATES_TO]->() WHERE r.group_id = $group_id
WITH r, vector.similarity.cosine(r.{VECTOR}, $embedding) AS s
ORDER BY s DESC LIMIT $limit
RETURN r.uuid AS uuid"""


def partition_names(group: str) -> tuple[str, str]:
    """The partition's property and index names for ``group``."""
    slug = re.sub(r"[^A-Za-z0-9]", "_", group)
    return f"fr_part_{slug}", f"fr_part_{slug}_index"


async def copy_and_index(driver: AsyncDriver, prop: str, index: str, group: str | None,
                         filtered: bool) -> dict[str, Any]:
    """Copy the vectors of ``group`` (every group when None) to ``prop``, in batches, then
    make a vector index ``index`` on it (holding ``group_id`` when ``filtered``); the
    facts copied and the seconds of each step."""
    in_group = "r.group_id = $group_id AND " if group is not None else ""
    started = time.perf_counter()
    copied = 0
    while True:
        records, _, _ = await driver.execute_query(
            f"MATCH ()-[r:RELATES_TO]->() WHERE {in_group}"
            f"r.{VECTOR} IS NOT NULL AND r.{prop} IS NULL "
            f"WITH r LIMIT $batch SET r.{prop} = r.{VECTOR} RETURN count(r) AS n",
            group_id=group, batch=COPY_BATCH)
        n = int(records[0]["n"])
        copied += n
        if n == 0:
            break
    copy_s = time.perf_counter() - started
    started = time.perf_counter()
    await driver.execute_query(
        f"CYPHER 25 CREATE VECTOR INDEX {index} IF NOT EXISTS FOR ()-[r:RELATES_TO]-() "
        f"ON (r.{prop}) {'WITH [r.group_id] ' if filtered else ''}"
        "OPTIONS {indexConfig: {`vector.dimensions`: 384, "
        "`vector.similarity_function`: 'cosine'}}")
    await await_indexes(driver, log)
    return {"copied": copied, "copy_s": round(copy_s, 2),
            "index_s": round(time.perf_counter() - started, 2)}


async def drop_partition(driver: AsyncDriver, group: str) -> None:
    prop, index = partition_names(group)
    await driver.execute_query(f"DROP INDEX {index} IF EXISTS")
    while True:
        records, _, _ = await driver.execute_query(
            f"MATCH ()-[r:RELATES_TO]->() WHERE r.{prop} IS NOT NULL "
            f"WITH r LIMIT $batch REMOVE r.{prop} RETURN count(r) AS n", batch=COPY_BATCH)
        if int(records[0]["n"]) == 0:
            return


async def timed(driver: AsyncDriver, query: str, **params: Any) -> tuple[float, list[str]]:
    started = time.perf_counter()
    records, _, _ = await driver.execute_query(query, **params)
    return (time.perf_counter() - started) * 1000, [r["uuid"] for r in records]


async def probe(db: str, group: str, n_queries: int, warmup: int, seed: int,
                drop: bool, rebuilt: bool) -> dict[str, Any]:
    fetch = VECTOR_TOP * Settings().vector_oversample
    driver = AsyncGraphDatabase.driver(db, auth=("neo4j", "neo4j"))
    try:
        n_facts = await group_size(driver, group)
        total = await store_total(driver)
        prop, index = partition_names(group)
        built = await copy_and_index(driver, prop, index, group, filtered=False)
        if rebuilt:  # a copy of every fact's vector under a filtered index made after it
            built["rebuilt"] = await copy_and_index(driver, "fr_rebuilt", "fr_rebuilt_index",
                                                    None, filtered=True)
        queries = await make_queries(driver, group, n_facts, warmup + n_queries, seed)
        arms = ["filtered", "partition", *(["rebuilt"] if rebuilt else [])]
        ms: dict[str, list[float]] = {arm: [] for arm in [*arms, "exact"]}
        recall: dict[str, list[float]] = {arm: [] for arm in arms}
        for i, query in enumerate(queries):
            vector = query.vector.tolist()
            took = {
                "filtered": await timed(driver, FILTERED, embedding=vector, group_id=group,
                                        fetch=fetch),
                "partition": await timed(driver, PARTITION, embedding=vector, index=index,
                                         fetch=fetch),
                **({"rebuilt": await timed(driver, REBUILT, embedding=vector,
                                           group_id=group, fetch=fetch)} if rebuilt else {}),
                "exact": await timed(driver, EXACT, embedding=vector, group_id=group,
                                     limit=VECTOR_TOP),
            }
            if i < warmup:
                continue
            exact = set(took["exact"][1])
            for arm, (spent, _) in took.items():
                ms[arm].append(spent)
            for arm in recall:
                recall[arm].append(len(exact & set(took[arm][1])) / len(exact))
        if drop:
            await drop_partition(driver, group)
        records, _, _ = await driver.execute_query(
            "CALL dbms.components() YIELD versions RETURN versions[0] AS version")
        version = str(records[0]["version"])
    finally:
        await driver.close()
    return {
        "group": group, "group_facts": n_facts, "store_facts": total, "fetch": fetch,
        "queries": n_queries, "partition_build": built,
        "ms": {arm: {"p50": round(pct(v, 50), 2), "p95": round(pct(v, 95), 2)}
               for arm, v in ms.items()},
        "recall": {arm: round(statistics.mean(v), 4) for arm, v in recall.items()},
        "provenance": provenance(server=f"Neo4j {version}"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--group", required=True)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--drop", action="store_true",
                        help="remove the partition's index and property afterwards")
    parser.add_argument("--rebuilt", action="store_true",
                        help="also time a filtered index populated after the data")
    args = parser.parse_args()
    result = asyncio.run(probe(args.db, args.group, args.queries, args.warmup, args.seed,
                               args.drop, args.rebuilt))
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()

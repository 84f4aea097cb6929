"""What the linker's neighbour query costs on a store, against reading the group's vectors.

    python bench/ingest_bench.py --db bolt://127.0.0.1:PORT --facts 2000   # makes the group
    python bench/link_query_bench.py --db bolt://127.0.0.1:PORT --group ingest-2000-7

Times, on one existing group, the linker's neighbour search as shipped (the store's
``link_candidates``: one Cypher query on FalkorDB, the group's vectors read and scored in
the client on Neo4j) for ``--probes`` of the group's facts as new facts (the batch size of
an import), at the shipped cosine floor and at a floor every pair passes (on real text
most neighbours pass the floor; on ``ingest_bench.py``'s random vectors none does); and,
for comparison, one read of every vector of the group with the scoring done here in
numpy. Each figure is the median of ``--repeats``.

On a Neo4j whose vector index filters by group (2026.01+), it also times the linker's
index query (``link_index_scan``: each probe's ``--index-hits`` nearest facts of the group,
approximate) at any group size, beside the scan that smaller groups keep.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from store_bench import machine

from fr_graph.api import FrGraph
from fr_graph.config import Settings
from fr_graph.pipeline.lifecycle import LINK_MIN_COSINE, LINK_NEIGHBOURS
from fr_graph.stores.neo4j import LINK_INDEX_HITS_PER_PROBE

GROUP_VECTORS = """
MATCH ()-[r:RELATES_TO]->()
WHERE r.group_id = $group_id AND r.{lifecycle_vector} IS NOT NULL
RETURN r.uuid AS uuid, r.{lifecycle_vector} AS vector
"""


async def median_seconds(repeats: int, work: Any) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = await work()
        times.append(time.perf_counter() - started)
    return round(statistics.median(times), 3), result


async def run(db: str, group: str, probes: int, repeats: int, index_hits: int
              ) -> dict[str, Any]:
    async with FrGraph(Settings(db=db)) as fr:
        store = fr.store
        text = store.bind_vector(GROUP_VECTORS)

        async def read_vectors() -> list[dict[str, Any]]:
            return await store.run_text("group_vectors", text, group, group_id=group)

        async def read_and_score() -> int:
            rows = await read_vectors()
            matrix = np.asarray([row["vector"] for row in rows], dtype=np.float64)
            matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
            scores = matrix[:probes] @ matrix.T
            return int((scores >= LINK_MIN_COSINE).sum()) - probes  # less each probe's own

        rows = await read_vectors()
        if not rows:
            raise SystemExit(f"--group: no facts with vectors in {group!r}")
        probe_ids = [row["uuid"] for row in rows[:probes]]
        result: dict[str, Any] = {"backend": Settings(db=db).backend, "group_facts": len(rows),
                                  "probes": len(probe_ids), "k": LINK_NEIGHBOURS}
        for label, floor in (("shipped_floor", LINK_MIN_COSINE), ("every_pair", -1.0)):
            async def query(floor: float = floor) -> list[dict[str, Any]]:
                if hasattr(store, "link_candidates"):
                    return await store.link_candidates(group, probe_ids, LINK_NEIGHBOURS, floor)
                # commits before 2026-12-04 had the one Cypher query on every store
                return await store.run("link_candidates", group, group_id=group,
                                       probes=probe_ids, k=LINK_NEIGHBOURS, min_cosine=floor)
            seconds, hits = await median_seconds(repeats, query)
            result[f"link_candidates_{label}_s"] = seconds
            result[f"link_candidates_{label}_rows"] = len(hits)
        if getattr(store, "index_filters_by_group", None) and await store.index_filters_by_group():
            async def ask_index() -> list[dict[str, Any]]:
                return await store.run("link_index_scan", group, group_id=group,
                                       probes=probe_ids, hits=index_hits)

            seconds, hits = await median_seconds(repeats, ask_index)
            result["index_per_probe_s"] = seconds
            result["index_per_probe_hits"] = index_hits
            result["index_per_probe_rows"] = len(hits)
        seconds, _ = await median_seconds(repeats, read_vectors)
        result["read_group_vectors_s"] = seconds
        seconds, passing = await median_seconds(repeats, read_and_score)
        result["read_and_score_in_numpy_s"] = seconds
        result["pairs_at_shipped_floor"] = passing
    result["machine"] = machine()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--group", required=True)
    parser.add_argument("--probes", type=int, default=250)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--index-hits", type=int, default=LINK_INDEX_HITS_PER_PROBE,
                        help="hits asked of the group-filtered index per probe (2026.01+)")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.db, args.group, args.probes, args.repeats,
                                     args.index_hits))))


if __name__ == "__main__":
    main()

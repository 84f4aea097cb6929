"""Search latency at scale on Neo4j: fr-graph's search next to Graphiti's own, same graph.

Builds large synthetic graphs fast and times, interleaved query by query on the same graph
and the same query set, fr-graph's ``search(policy="full")`` and Graphiti's ``search_`` with
a copy of ``EDGE_HYBRID_SEARCH_RRF``. Query embedding is excluded from both: fr-graph's
``embed_query`` is patched to return the query's precomputed vector and Graphiti gets it as
``query_vector=``.

Synthetic embeddings. The graphs bypass the embedder: every fact gets a seeded random unit
384-d vector (only time is measured here, never quality). A query vector is a unit vector at
cosine 0.85 to one fact of the group; its text is one of ``store_bench.QUERIES`` plus that
fact's object, so fulltext hits too.

What is written is what fr-graph's importer writes for the same records (facts as
``bench/store_bench.py`` generates them, no subject/object): Graphiti's ``Entity`` nodes
(through Graphiti's own ``save_bulk``), ``RELATES_TO`` with Graphiti's properties, the
``fact_embedding`` stored as a vector property as Graphiti stores it, the ``fr_*`` mirror
(as ``mirror_attributes``, ``fr_revision`` 1), and one ``FrFact`` per fact from the
importer's own ``overlay_for`` and the rules classifier. To keep a 1M-fact build affordable
the classifier runs once per text template (the fact text without its ``(#i)`` suffix,
budgets as ``$1000``) and the event time it finds is shifted by the fact's observation time;
relationships are ``CREATE``d rather than ``MERGE``d (the graph is new). Indexes come from
fr-graph itself (``store.ensure_schema``, which also runs Graphiti's
``build_indices_and_constraints``), created before the data so they are maintained as in
production.

Run (the server prints its bolt URI; its data stays in ``--home`` between commands)::

    python tools/neo4j_server.py --home /tmp/scale-neo4j &
    python bench/latency_scale.py build   --db bolt://127.0.0.1:PORT --group scale-10k \
        --facts 10000
    python bench/latency_scale.py measure --db bolt://127.0.0.1:PORT --group scale-10k \
        --queries 100
    python bench/latency_scale.py fill    --db bolt://127.0.0.1:PORT --total 1000000 \
        --group-size 10000
    python bench/latency_scale.py census  --db bolt://127.0.0.1:PORT

``build`` resumes a group that an interrupted run left incomplete; ``fill`` adds groups
``fill-0000``, ``fill-0001``, … until the store holds ``--total`` facts. ``measure`` prints
one JSON object (p50/p95 per system, the ratio, fr-graph's per-query store time by query
name, how often the vector index had to fall back to an exact scan, and the vector path's
recall of the exact scan's top candidates).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
from neo4j import AsyncDriver, AsyncGraphDatabase

sys.path.insert(0, str(Path(__file__).resolve().parent))

from store_bench import OBJECTS, QUERIES, SUBJECTS, TAILS, VERBS, machine

from fr_graph._graphiti import EDGE_HYBRID_SEARCH_RRF, EntityNode
from fr_graph.api import FrGraph
from fr_graph.classify.rules import classify_fact
from fr_graph.config import Settings
from fr_graph.core.classification import Classification
from fr_graph.overlay import MIRRORED_FIELDS, stable_uuid
from fr_graph.pipeline.ingest import overlay_for
from fr_graph.pipeline.records import FactRecord
from fr_graph.pipeline.search import VECTOR_TOP

DIM = 384
START = datetime(2024, 1, 1, tzinfo=UTC)
REFERENCE = datetime(2024, 6, 1, 12, tzinfo=UTC)  # when each template is classified
QUERY_COSINE = 0.85
BATCH = 2000

# Graphiti's edge save (Neo4j), with CREATE for MERGE (the graph is new) and the vector
# passed apart so it is written once, as setRelationshipVectorProperty stores it.
EDGE_WRITE = """
UNWIND $edges AS edge
MATCH (source:Entity {uuid: edge.props.source_node_uuid})
MATCH (target:Entity {uuid: edge.props.target_node_uuid})
CREATE (source)-[e:RELATES_TO]->(target)
SET e = edge.props
WITH e, edge
CALL db.create.setRelationshipVectorProperty(e, 'fact_embedding', edge.vector)
RETURN count(*) AS written
"""
# upsert_overlay for new facts (revision 1), in the same transaction as the edges.
OVERLAY_WRITE = """
UNWIND $rows AS row
CREATE (f:FrFact)
SET f = row, f.revision = 1
RETURN count(*) AS written
"""
GROUP_COUNT = """
MATCH ()-[r:RELATES_TO]->() WHERE r.group_id = $group_id RETURN count(r) AS n
"""
FACT_SAMPLE = """
UNWIND $uuids AS id
MATCH ()-[r:RELATES_TO {uuid: id}]->()
RETURN r.uuid AS uuid, r.fact AS fact, r.fact_embedding AS embedding
"""


# -- synthetic facts ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fact:
    index: int
    template: str  # text without the (#i) suffix, budget as %d
    text: str
    observed_at: datetime


def facts(group: str, seed: int, start: int, count: int) -> Iterator[Fact]:
    """Facts ``start .. start+count-1`` of a group (the same text for the same index)."""
    for i in range(start, start + count):
        rng = random.Random(f"{seed}:{group}:{i}")
        tail = rng.choice(TAILS)
        template = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {tail}"
        text = template % rng.randint(100, 5000) if "%d" in tail else template
        yield Fact(i, template, f"{text} (#{i})", START + timedelta(minutes=37 * i))


def record_id(index: int) -> str:
    return f"s-{index}"


def unit_vectors(group: str, seed: int, start: int, count: int) -> np.ndarray:
    """Seeded random unit vectors for facts ``start .. start+count-1`` (one batch)."""
    rng = np.random.default_rng([seed, start, sum(group.encode())])
    vectors = rng.standard_normal((count, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors


class TemplateClassifier:
    """The rules classifier once per template; event times shifted to each fact."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[Classification, timedelta | None]] = {}

    def __call__(self, fact: Fact) -> Classification:
        cached = self._cache.get(fact.template)
        if cached is None:
            text = fact.template % 1000 if "%d" in fact.template else fact.template
            verdict = classify_fact(f"{text} (#1)", REFERENCE)
            shift = verdict.event_time - REFERENCE if verdict.event_time else None
            cached = self._cache[fact.template] = (verdict, shift)
        verdict, shift = cached
        if shift is None:
            return verdict
        return replace(verdict, event_time=fact.observed_at + shift)


# -- build -------------------------------------------------------------------------------


def entity_key(name: str) -> str:
    return " ".join(name.lower().split())


def batch_payload(group: str, batch: list[Fact], vectors: np.ndarray,
                  classify: TemplateClassifier, created_at: datetime
                  ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, str]]:
    """Edge and overlay rows for one batch, and the entities they need (uuid -> name)."""
    edges: list[dict[str, Any]] = []
    overlays: list[dict[str, Any]] = []
    entities: dict[str, str] = {}
    for fact, vector in zip(batch, vectors, strict=True):
        record = FactRecord(type="fact", group_id=group, id=record_id(fact.index),
                            fact=fact.text, observed_at=fact.observed_at)
        overlay = overlay_for(record, stable_uuid(group, "fact", record.id), classify(fact))
        subject = "user"  # as Ingestor: no subject given
        attribute = (overlay.slot_key or "").split("|")[1:2]
        obj = attribute[0].replace("_", " ") if attribute else subject
        source = stable_uuid(group, "entity", entity_key(subject))
        target = stable_uuid(group, "entity", entity_key(obj))
        entities.setdefault(source, subject)
        entities.setdefault(target, obj)
        row = overlay.to_row()  # mirror_attributes(overlay), without a second to_row()
        props: dict[str, Any] = {
            "uuid": overlay.edge_uuid, "source_node_uuid": source, "target_node_uuid": target,
            "name": "STATES", "fact": fact.text, "group_id": group, "episodes": [],
            "created_at": created_at, "valid_at": fact.observed_at,
            **{f"fr_{name}": row[name] for name in MIRRORED_FIELDS}, "fr_revision": 1,
        }
        edges.append({"props": props, "vector": vector.tolist()})
        overlays.append(row)
    return edges, overlays, entities


async def group_size(driver: AsyncDriver, group: str) -> int:
    records, _, _ = await driver.execute_query(GROUP_COUNT, group_id=group)
    return int(records[0]["n"])


async def build_group(fr: FrGraph, driver: AsyncDriver, group: str, n: int, seed: int,
                      classify: TemplateClassifier, log: Callable[[str], None]) -> float:
    """Write facts until the group holds ``n``; returns the seconds spent writing."""
    await fr.store.ensure_schema(group)
    have = await group_size(driver, group)
    if have >= n:
        log(f"{group}: already {have} facts")
        return 0.0
    graphiti = fr.graphiti(group)
    known: set[str] = set()
    started = time.perf_counter()
    created_at = datetime.now(UTC)
    for start in range(have, n, BATCH):
        count = min(BATCH, n - start)
        batch = list(facts(group, seed, start, count))
        edges, overlays, entities = batch_payload(
            group, batch, unit_vectors(group, seed, start, count), classify, created_at)
        missing = [u for u in entities if u not in known]
        if missing:  # through Graphiti's own save (MERGE: rerunning is harmless)
            names = unit_vectors(group, seed + 1, start, len(missing))
            await graphiti.nodes.entity.save_bulk([
                EntityNode(uuid=u, name=entities[u], group_id=group, labels=["Entity"],
                           summary="", created_at=created_at, name_embedding=v.tolist())
                for u, v in zip(missing, names, strict=True)])
            known.update(missing)

        async def write(tx: Any, edges: list[dict[str, Any]] = edges,
                        overlays: list[dict[str, Any]] = overlays) -> None:
            await (await tx.run(EDGE_WRITE, edges=edges)).consume()
            await (await tx.run(OVERLAY_WRITE, rows=overlays)).consume()

        async with driver.session() as session:
            await session.execute_write(write)
        done = start + count
        if done % (BATCH * 10) == 0 or done == n:
            rate = (done - have) / (time.perf_counter() - started)
            log(f"{group}: {done}/{n} facts ({rate:.0f} facts/s)")
    return time.perf_counter() - started


async def await_indexes(driver: AsyncDriver, log: Callable[[str], None]) -> float:
    """Wait until every index is ONLINE; returns the seconds waited."""
    started = time.perf_counter()
    while True:
        records, _, _ = await driver.execute_query(
            "SHOW INDEXES YIELD name, state, populationPercent "
            "WHERE state <> 'ONLINE' RETURN name, state, populationPercent")
        if not records:
            return time.perf_counter() - started
        log("waiting for " + ", ".join(f"{r['name']} {r['populationPercent']:.0f}%"
                                       for r in records))
        await asyncio.sleep(10)


async def store_total(driver: AsyncDriver) -> int:
    records, _, _ = await driver.execute_query(
        "MATCH ()-[r:RELATES_TO]->() RETURN count(r) AS n")
    return int(records[0]["n"])


# -- measure -----------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def near(vector: np.ndarray, rng: np.random.Generator, cosine: float) -> np.ndarray:
    """A unit vector at exactly ``cosine`` to the unit vector ``vector``."""
    noise = rng.standard_normal(int(vector.shape[0]), dtype=np.float32)
    noise -= noise.dot(vector) * vector
    noise /= np.linalg.norm(noise)
    out: np.ndarray = cosine * vector + float(np.sqrt(1.0 - cosine**2)) * noise
    out /= np.linalg.norm(out)
    return out


@dataclass(frozen=True, slots=True)
class Query:
    text: str
    vector: np.ndarray


async def make_queries(driver: AsyncDriver, group: str, n_facts: int, count: int,
                       seed: int) -> list[Query]:
    rng = random.Random(seed)
    picks = rng.sample(range(n_facts), count)
    uuids = [stable_uuid(group, "fact", record_id(i)) for i in picks]
    records, _, _ = await driver.execute_query(FACT_SAMPLE, uuids=uuids)
    by_uuid = {r["uuid"]: r for r in records}
    noise = np.random.default_rng(seed)
    out: list[Query] = []
    for uuid in uuids:
        row = by_uuid[uuid]
        obj = next((o for o in OBJECTS if o in row["fact"]), "")
        text = f"{rng.choice(QUERIES)} {obj}".strip()
        vector = near(np.asarray(row["embedding"], dtype=np.float32), noise, QUERY_COSINE)
        out.append(Query(text, vector))
    return out


class StoreTimer:
    """Wraps ``store.run`` to time each named query (fr-graph's store round trips)."""

    def __init__(self, run: Callable[..., Awaitable[list[dict[str, Any]]]]) -> None:
        self._run = run
        self.current: dict[str, float] = defaultdict(float)
        self.rows: dict[str, list[int]] = defaultdict(list)

    async def __call__(self, name: str, group: str, /, **params: Any) -> list[dict[str, Any]]:
        started = time.perf_counter()
        rows = await self._run(name, group, **params)
        self.current[name] += (time.perf_counter() - started) * 1000
        self.rows[name].append(len(rows))
        return rows

    def take(self) -> dict[str, float]:
        out = dict(self.current)
        self.current.clear()
        return out


async def measure(db: str, group: str, n_queries: int, warmup: int, seed: int,
                  limit: int) -> dict[str, Any]:
    now = datetime(2025, 6, 1, tzinfo=UTC)
    driver = AsyncGraphDatabase.driver(db, auth=("neo4j", "neo4j"))
    try:
        n_facts = await group_size(driver, group)
        total = await store_total(driver)
        queries = await make_queries(driver, group, n_facts, warmup + n_queries, seed)
    finally:
        await driver.close()
    current: list[np.ndarray] = [queries[0].vector]  # the vector embed_query returns now
    fr_ms: list[float] = []
    gr_ms: list[float] = []
    stages: dict[str, list[float]] = defaultdict(list)
    fr_hits: list[int] = []
    gr_hits: list[int] = []
    async with FrGraph(Settings(db=db)) as fr:
        timer = StoreTimer(fr.store.run)
        graphiti = fr.graphiti(group)
        with (mock.patch.object(fr.store, "run", timer),
              mock.patch.object(fr.embedder, "embed_query", lambda text: current[0])):
            for i, query in enumerate(queries):
                current[0] = query.vector
                vector = query.vector.tolist()
                recipe = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)
                recipe.limit = limit

                async def run_fr(query: Query = query) -> int:
                    return len(await fr.search(query.text, group, now=now, limit=limit))

                async def run_graphiti(query: Query = query, vector: list[float] = vector,
                                       recipe: Any = recipe) -> int:
                    found = await graphiti.search_(query.text, config=recipe,
                                                   group_ids=[group], query_vector=vector)
                    return len(found.edges)

                # Alternate which system goes first so caches and noise hit both alike.
                order = [("fr", run_fr), ("graphiti", run_graphiti)]
                if i % 2:
                    order.reverse()
                for name, call in order:
                    started = time.perf_counter()
                    hits = await call()
                    elapsed = (time.perf_counter() - started) * 1000
                    if i < warmup:
                        continue
                    if name == "fr":
                        fr_ms.append(elapsed)
                        fr_hits.append(hits)
                    else:
                        gr_ms.append(elapsed)
                        gr_hits.append(hits)
                spent = timer.take()
                if i >= warmup:
                    for stage, ms in spent.items():
                        stages[stage].append(ms)
                    stages["python (total - store)"].append(fr_ms[-1] - sum(spent.values()))
        # What the store's vector path finds against the exact scan of the group, on the
        # same queries (after the timing, so it costs the timed searches nothing).
        recall: list[float] = []
        for query in queries[warmup:]:
            vector = query.vector.tolist()
            found = {r["uuid"] for r in await fr.store.vector_candidate_rows(
                group, vector, VECTOR_TOP)}
            exact = {r["uuid"] for r in await fr.store._exact_scan(  # Neo4jStore
                group, vector, VECTOR_TOP, n_facts)}
            recall.append(len(found & exact) / len(exact))
    counted = len(fr_ms)
    fr50, gr50 = pct(fr_ms, 50), pct(gr_ms, 50)
    return {
        "group": group, "group_facts": n_facts, "store_facts": total, "queries": counted,
        "warmup": warmup, "limit": limit,
        "fr_p50_ms": round(fr50, 2), "fr_p95_ms": round(pct(fr_ms, 95), 2),
        "graphiti_p50_ms": round(gr50, 2), "graphiti_p95_ms": round(pct(gr_ms, 95), 2),
        "graphiti_over_fr_p50": round(gr50 / fr50, 2),
        "graphiti_over_fr_p95": round(pct(gr_ms, 95) / pct(fr_ms, 95), 2),
        "fr_mean_results": round(statistics.mean(fr_hits), 2),
        "graphiti_mean_results": round(statistics.mean(gr_hits), 2),
        "fr_stage_median_ms": {k: round(statistics.median(v), 2) for k, v in stages.items()},
        "fr_stage_calls": {k: len(v) for k, v in stages.items()},
        # rows each query returned (fulltext and vector: hits of this group that survived)
        "fr_stage_median_rows": {k: statistics.median(v) for k, v in timer.rows.items()},
        # queries that scanned the group exactly (in one query or in uuid ranges)
        "exact_fallbacks": len(stages.get("vector_candidates_exact", []))
        + len(stages.get("vector_candidates_exact_range", [])),
        # share of the exact scan's top VECTOR_TOP that the vector path returned (mean)
        "vector_recall": round(statistics.mean(recall), 4),
        "machine": machine(),
    }


# -- commands ----------------------------------------------------------------------------


def log(message: str) -> None:
    print(f"[{datetime.now():%H:%M:%S}] {message}", file=sys.stderr, flush=True)


async def cmd_build(db: str, groups: list[tuple[str, int]], seed: int) -> dict[str, Any]:
    classify = TemplateClassifier()
    driver = AsyncGraphDatabase.driver(db, auth=("neo4j", "neo4j"))
    written: dict[str, float] = {}
    try:
        async with FrGraph(Settings(db=db)) as fr:
            for group, n in groups:
                before = await group_size(driver, group)
                seconds = await build_group(fr, driver, group, n, seed, classify, log)
                if seconds:
                    written[group] = round((n - before) / seconds, 1)
        waited = await await_indexes(driver, log)
        total = await store_total(driver)
    finally:
        await driver.close()
    return {"groups": len(groups), "facts_per_s": written, "index_wait_s": round(waited, 1),
            "store_facts": total, "templates_classified": len(classify._cache)}


async def fill_plan(db: str, total: int, size: int) -> list[tuple[str, int]]:
    driver = AsyncGraphDatabase.driver(db, auth=("neo4j", "neo4j"))
    try:
        have = await store_total(driver)
        plan: list[tuple[str, int]] = []
        index = 0
        while have < total:
            group = f"fill-{index:04d}"
            present = await group_size(driver, group)
            want = min(size, present + total - have)
            if want > present:
                plan.append((group, want))
                have += want - present
            index += 1
    finally:
        await driver.close()
    return plan


async def cmd_census(db: str) -> dict[str, Any]:
    driver = AsyncGraphDatabase.driver(db, auth=("neo4j", "neo4j"))
    try:
        records, _, _ = await driver.execute_query(
            "MATCH ()-[r:RELATES_TO]->() RETURN r.group_id AS g, count(r) AS n ORDER BY g")
        indexes, _, _ = await driver.execute_query(
            "SHOW INDEXES YIELD name, state RETURN name, state")
    finally:
        await driver.close()
    return {"store_facts": sum(r["n"] for r in records), "groups": len(records),
            "largest": sorted(((r["g"], r["n"]) for r in records), key=lambda x: -x[1])[:5],
            "indexes_not_online": [r["name"] for r in indexes if r["state"] != "ONLINE"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("build", "fill", "measure", "census"):
        cmd = sub.add_parser(name)
        cmd.add_argument("--db", required=True, help="bolt://host:port of a Neo4j >= 5.26")
        cmd.add_argument("--seed", type=int, default=7)
    sub.choices["build"].add_argument("--group", required=True)
    sub.choices["build"].add_argument("--facts", type=int, required=True)
    sub.choices["fill"].add_argument("--total", type=int, required=True)
    sub.choices["fill"].add_argument("--group-size", type=int, default=10_000)
    sub.choices["measure"].add_argument("--group", required=True)
    sub.choices["measure"].add_argument("--queries", type=int, default=100)
    sub.choices["measure"].add_argument("--warmup", type=int, default=10)
    sub.choices["measure"].add_argument("--limit", type=int, default=10)
    args = parser.parse_args()
    result: dict[str, Any]
    if args.command == "build":
        result = asyncio.run(cmd_build(args.db, [(args.group, args.facts)], args.seed))
    elif args.command == "fill":
        plan = asyncio.run(fill_plan(args.db, args.total, args.group_size))
        log(f"fill: {len(plan)} groups, {sum(n for _, n in plan)} facts to reach the total")
        result = asyncio.run(cmd_build(args.db, plan, args.seed))
    elif args.command == "measure":
        result = asyncio.run(measure(args.db, args.group, args.queries, args.warmup,
                                     args.seed, args.limit))
    else:
        result = asyncio.run(cmd_census(args.db))
    print(json.dumps(result))


if __name__ == "__main__":
    main()

"""Import throughput with the rules classifier, embedding excluded, and backfill throughput.

Generates ``--facts`` varied synthetic personal facts in one group (as
``bench/store_bench.py`` does), writes them to a JSONL file and imports it through the
library (``FrGraph.import_file``: parse, rules classifier, Graphiti's namespace save API,
overlay with lifecycle transitions and mirror). The embedder's ``embed_passages`` is
replaced by seeded random unit vectors, so embedding costs nothing and the figure is what
fr-graph itself costs per fact; the classifier's share is timed by wrapping the importer's
``classify_fact``. A second import of the same file times the idempotent re-import.

Backfill (``--backfill``, only when ``FrGraph.backfill`` exists): the same number of facts
is imported into a second group, its overlay (``FrFact`` nodes, ``FR_SUPERSEDES`` links and
``fr_*`` properties) is stripped so that it is a plain Graphiti graph, and
``FrGraph.backfill`` annotates it again; edges/s is reported.

    python bench/ingest_bench.py --db bolt://127.0.0.1:PORT --facts 10000 [--backfill]
    python bench/ingest_bench.py --db /tmp/bench-ingest --facts 10000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import fields
from datetime import datetime
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from store_bench import machine, make_facts

import fr_graph.pipeline.ingest as ingest_module
from fr_graph.api import FrGraph
from fr_graph.classify.rules import classify_fact
from fr_graph.config import Settings
from fr_graph.core.classification import Classification
from fr_graph.overlay import MIRRORED_FIELDS

DIM = 384


class FakePassages:
    """Seeded random unit vectors in place of e5 passage embeddings."""

    def __init__(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def __call__(self, texts: list[str]) -> np.ndarray:
        out = self._rng.standard_normal((len(texts), DIM), dtype=np.float32)
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out


class TimedClassifier:
    """Wraps the importer's ``classify_fact`` and sums the time spent in it."""

    def __init__(self, inner: Callable[..., Classification]) -> None:
        self._inner = inner
        self.seconds = 0.0
        self.calls = 0

    def __call__(self, fact: str, observed_at: datetime, **kwargs: Any) -> Classification:
        started = time.perf_counter()
        try:
            return self._inner(fact, observed_at, **kwargs)
        finally:
            self.seconds += time.perf_counter() - started
            self.calls += 1


def write_jsonl(path: Path, group: str, n: int, seed: int) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in make_facts(group, n, seed)))


async def strip_overlay(fr: FrGraph, group: str, batch: int = 500) -> None:
    """Make ``group`` a plain Graphiti graph again (what a backfill starts from): no
    ``FrFact``, no ``FR_SUPERSEDES``, no ``fr_*`` properties, and ``invalid_at`` /
    ``expired_at`` back to null as the import wrote them before its transitions. In
    batches: one FalkorDB query over 10k edges outlasts the client's read timeout."""
    cleared = ", ".join(f"r.fr_{name} = null"
                        for name in (*MIRRORED_FIELDS, "revision"))
    statements = {
        "bench_strip_mirror": "MATCH ()-[r:RELATES_TO]->() WHERE r.group_id = $group_id "
                              "AND r.fr_revision IS NOT NULL WITH r LIMIT $batch "
                              f"SET {cleared}, r.invalid_at = null, r.expired_at = null "
                              "RETURN count(r) AS n",
        "bench_strip_overlay": "MATCH (f:FrFact {group_id: $group_id}) WITH f LIMIT $batch "
                               "DETACH DELETE f RETURN count(*) AS n",
    }
    for name, text in statements.items():
        while True:
            rows = await fr.store.run_text(name, text, group, group_id=group, batch=batch)
            if not rows or not rows[0]["n"]:
                break


async def run(db: str, n: int, seed: int, backfill: bool) -> dict[str, Any]:
    group = f"ingest-{n}-{seed}"
    result: dict[str, Any] = {"backend": Settings(db=db).backend, "facts": n}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "facts.jsonl"
        write_jsonl(path, group, n, seed)
        classifier = TimedClassifier(classify_fact)
        async with FrGraph(Settings(db=db)) as fr:
            with (mock.patch.object(fr.embedder, "embed_passages", FakePassages(seed)),
                  mock.patch.object(ingest_module, "classify_fact", classifier)):
                started = time.perf_counter()
                report = await fr.import_file(path)
                wall = time.perf_counter() - started
                started = time.perf_counter()
                again = await fr.import_file(path)
                rewall = time.perf_counter() - started
            other = wall - classifier.seconds - report.store_seconds - report.embed_seconds
            result.update({
                "imported": report.imported,
                "import_wall_s": round(wall, 2),
                "facts_per_s_excl_embedding": round(report.imported / wall, 1),
                "classifier_s": round(classifier.seconds, 2),
                "classifier_facts_per_s": (round(classifier.calls / classifier.seconds, 1)
                                   if classifier.seconds else None),  # nothing new to classify
                "store_s": round(report.store_seconds, 2),
                "store_only_facts_per_s": round(report.imported / report.store_seconds, 1),
                "fake_embedding_s": round(report.embed_seconds, 2),
                "other_s (parse, overlays, existing checks)": round(other, 2),
                "transitions": dict(getattr(report, "transitions", {})),
                "reimport_already_present": again.already_present,
                "reimport_facts_per_s": round(n / rewall, 1),
            })
            print(json.dumps(result), file=sys.stderr, flush=True)  # in case backfill fails
            if backfill:
                result["backfill"] = await run_backfill(fr, path, group, n, seed)
    result["machine"] = machine()
    return result


async def run_backfill(fr: FrGraph, path: Path, group: str, n: int, seed: int
                       ) -> dict[str, Any]:
    method = getattr(fr, "backfill", None)
    if method is None:
        return {"skipped": "FrGraph.backfill does not exist"}
    plain = f"{group}-plain"
    text = path.read_text().replace(f'"group_id": "{group}"', f'"group_id": "{plain}"')
    path.write_text(text)
    with mock.patch.object(fr.embedder, "embed_passages", FakePassages(seed + 1)):
        await fr.import_file(path)
    await strip_overlay(fr, plain)
    started = time.perf_counter()
    report = await method(plain)
    wall = time.perf_counter() - started
    annotated = int(report.annotated)
    return {"edges": annotated, "wall_s": round(wall, 2),
            "edges_per_s": round(annotated / wall, 1),
            "report": {f.name: getattr(report, f.name) for f in fields(report)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--backfill", action="store_true")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.db, args.facts, args.seed, args.backfill)),
                     default=str))


if __name__ == "__main__":
    main()

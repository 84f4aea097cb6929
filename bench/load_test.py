"""Load: concurrent searchers and importers on one store for a fixed time.

    python bench/load_test.py --db bolt://127.0.0.1:7687 --seconds 60
    python bench/load_test.py --db /tmp/fr-load --seconds 60      # embedded FalkorDB

A seeded base history is imported first (timing excluded). Then ``--searchers`` tasks loop
over current-intent queries while ``--importers`` tasks import fresh files of facts that
supersede the same slots, each importer with its own FrGraph (own driver and pool) on
Neo4j. Any exception fails the run. Prints one JSON object: search count, p50/p95/p99/max
latency (ms), searches per second, facts imported, errors.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fr_graph.api import FrGraph  # noqa: E402
from fr_graph.config import Settings  # noqa: E402

SLOTS = ("coffee_order", "gym", "employer", "home_city", "phone", "diet", "commute", "team")
QUERIES = ("What is my usual coffee order now?", "Which gym do I go to currently?",
           "Where do I work now?", "Which city do I live in at the moment?",
           "What phone do I use these days?", "What is my diet right now?",
           "How do I commute currently?", "Which team am I on now?")
START = datetime(2024, 1, 1, tzinfo=UTC)
IMPORT_BATCH = 24


@dataclass
class LoadReport:
    seconds: float
    searchers: int
    importers: int
    searches: int = 0
    facts_imported: int = 0
    errors: list[str] = field(default_factory=list)
    p50_ms: float = 0.0
    p95_ms: float = 0.0
    p99_ms: float = 0.0
    max_ms: float = 0.0
    searches_per_s: float = 0.0


def facts(group_id: str, prefix: str, start: int, count: int) -> list[dict[str, Any]]:
    return [{"type": "fact", "group_id": group_id, "id": f"{prefix}-{i}",
             "fact": f"User's {SLOTS[i % len(SLOTS)].replace('_', ' ')} is choice {prefix}{i}",
             "observed_at": (START + timedelta(minutes=i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
             "category": "preferences", "slot_key": f"user|{SLOTS[i % len(SLOTS)]}",
             "confidence": 0.95} for i in range(start, start + count)]


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


async def run_load(settings: Settings, group_id: str, *, seconds: float = 60.0,
                   searchers: int = 20, importers: int = 2, base_facts: int = 400,
                   seed: int = 0, workdir: Path | None = None,
                   unique_queries: bool = False) -> LoadReport:
    """Run the load and return what it measured (errors collected, never raised).

    The query embedder caches by text, so the 8 repeated queries are embedded once; with
    ``unique_queries`` every search's text differs (a counter appended) and every search
    embeds its query, as a user's new question does."""
    workdir = workdir or Path(tempfile.mkdtemp(prefix="fr-load-"))
    report = LoadReport(seconds, searchers, importers)
    latencies: list[float] = []
    async with FrGraph(settings) as fr:
        await fr.import_file(write(workdir / "base.jsonl",
                                   facts(group_id, "base", 0, base_facts)))
        deadline = time.monotonic() + seconds

        async def searcher(index: int) -> None:
            rng = random.Random(seed * 1000 + index)
            count = 0
            while time.monotonic() < deadline:
                count += 1
                query = rng.choice(QUERIES)
                if unique_queries:
                    query = f"{query} ({index}.{count})"
                started = time.perf_counter()
                try:
                    await fr.search(query, group_id, limit=10)
                except Exception as exc:  # a load test records every failure
                    report.errors.append(f"search: {type(exc).__name__}: {exc}")
                latencies.append(time.perf_counter() - started)

        async def importer(index: int, graph: FrGraph) -> None:
            batch = 0
            while time.monotonic() < deadline:
                start = base_facts + (batch * importers + index) * IMPORT_BATCH
                path = write(workdir / f"imp{index}-{batch}.jsonl",
                             facts(group_id, f"i{index}b{batch}", start, IMPORT_BATCH))
                try:
                    done = await graph.import_file(path)
                    report.facts_imported += done.imported
                except Exception as exc:
                    report.errors.append(f"import: {type(exc).__name__}: {exc}")
                batch += 1

        async def own_importer(index: int) -> None:
            if settings.backend == "embedded":  # one process owns the file: share it
                await importer(index, fr)
                return
            async with FrGraph(settings) as graph:
                await importer(index, graph)

        began = time.monotonic()
        await asyncio.gather(*(searcher(i) for i in range(searchers)),
                             *(own_importer(i) for i in range(importers)))
        elapsed = time.monotonic() - began
    report.searches = len(latencies)
    report.searches_per_s = len(latencies) / elapsed if elapsed else 0.0
    for name, q in (("p50_ms", 0.50), ("p95_ms", 0.95), ("p99_ms", 0.99), ("max_ms", 1.0)):
        setattr(report, name, round(1000 * _percentile(latencies, q), 1))
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="bolt:// URI or embedded store path")
    parser.add_argument("--password", default="test-password")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--searchers", type=int, default=20)
    parser.add_argument("--importers", type=int, default=2)
    parser.add_argument("--base-facts", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--unique-queries", action="store_true",
                        help="every search a new text, so every search embeds its query")
    args = parser.parse_args()
    settings = Settings(db=args.db, neo4j_password=args.password)
    group = f"load-{int(time.time())}"
    report = asyncio.run(run_load(settings, group, seconds=args.seconds,
                                  searchers=args.searchers, importers=args.importers,
                                  base_facts=args.base_facts, seed=args.seed,
                                  unique_queries=args.unique_queries))
    out = asdict(report)
    out["errors"] = report.errors[:5]
    out["error_count"] = len(report.errors)
    print(json.dumps({"group": group, "backend": settings.backend, **out}, indent=2))
    sys.exit(1 if report.errors else 0)


if __name__ == "__main__":
    main()

"""Import throughput and search latency on a real store (issue: foundation benchmark).

Generates ``--facts`` varied synthetic personal facts in one group, imports them through
the library (embedding time reported apart from store time), then times ``--queries``
searches (p50/p95, query embedding included and excluded).

    python bench/store_bench.py --db bolt://127.0.0.1:7687 --facts 1000
    python bench/store_bench.py --db /tmp/bench-embedded --facts 10000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fr_graph.api import FrGraph
from fr_graph.clients import _cached_query_embedding
from fr_graph.config import Settings

SUBJECTS = ["my sister", "my manager", "our neighbor", "my dad", "my best friend", "I",
            "my partner", "my landlord", "my coach", "my daughter"]
VERBS = ["likes", "is learning", "moved to", "bought", "is allergic to", "started", "sold",
         "is training for", "booked", "cancelled", "visited", "is reading about"]
OBJECTS = ["Lisbon", "sourdough baking", "a used Volvo", "peanuts", "the violin", "a marathon",
           "a flight to Osaka", "Kafka's diaries", "rock climbing", "the dentist on Friday",
           "a vegetable garden", "Rust programming", "kayaking", "a yoga retreat", "tax forms",
           "a pottery class", "a pension plan", "vitamin D", "chess openings", "jazz piano"]
TAILS = ["last week", "again", "for the first time", "with friends", "since March",
         "every Sunday", "after the holidays", "on a budget of $%d", "twice a month",
         "this summer", "at 6am", "near the office"]
QUERIES = ["what am I allergic to", "where did my sister move", "what sport am I training for",
           "what did I buy", "any flights booked", "what instrument am I learning",
           "what is my dad reading", "how much budget", "what did I cancel", "hobbies"]


def make_facts(group: str, n: int, seed: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    start = datetime(2024, 1, 1, tzinfo=UTC)
    out = []
    for i in range(n):
        tail = rng.choice(TAILS)
        if "%d" in tail:
            tail = tail % rng.randint(100, 5000)
        text = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {tail} (#{i})"
        out.append({"type": "fact", "group_id": group, "id": f"b-{i}", "fact": text,
                    "observed_at": (start + timedelta(minutes=37 * i)).isoformat()})
    return out


def machine() -> str:
    """CPU model, core count and Python version, for BENCHMARKS.md."""
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}"


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


async def run(db: str, n: int, queries: int, seed: int) -> dict[str, object]:
    group = f"bench-{n}-{seed}"
    settings = Settings(db=db)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "facts.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in make_facts(group, n, seed)))
        async with FrGraph(settings) as fr:
            started = time.perf_counter()
            report = await fr.import_file(path)
            wall = time.perf_counter() - started
            rng = random.Random(seed)
            texts = [f"{rng.choice(QUERIES)} {i % 7}" for i in range(queries)]
            await fr.search(texts[0], group)  # warm caches and connection
            total, excl = [], []
            for text in texts:
                t0 = time.perf_counter()
                fr.embedder.embed_query(text)
                t1 = time.perf_counter()
                await fr.search(text, group)  # query embedding now cached
                t2 = time.perf_counter()
                _cached_query_embedding.cache_clear()
                excl.append((t2 - t1) * 1000)
                total.append((t2 - t1 + t1 - t0) * 1000)
    return {
        "backend": settings.backend, "facts": n, "imported": report.imported,
        "import_wall_s": round(wall, 1),
        "embed_s": round(report.embed_seconds, 1), "store_s": round(report.store_seconds, 1),
        "facts_per_s_total": round(report.imported / wall, 1),
        "facts_per_s_store_only": round(report.imported / max(report.store_seconds, 1e-9), 1),
        "search_ms_p50": round(pct(total, 50), 1), "search_ms_p95": round(pct(total, 95), 1),
        "search_ms_p50_excl_embed": round(pct(excl, 50), 1),
        "search_ms_p95_excl_embed": round(pct(excl, 95), 1),
        "machine": machine(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--facts", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.db, args.facts, args.queries, args.seed))))


if __name__ == "__main__":
    main()

"""Query embedding under load: what a search waits on before the store is asked.

    .venv/bin/python bench/query_embedding.py [--loads 0 2 4] [--queries 64]

For each load level, that many busy-loop processes run beside this one (load 2 on a 2-core
machine: every core has other work). Two arms embed the same distinct query texts with the
local e5 engine, alternating call by call in one process (each text is new to the engine's
query cache, which is bypassed):

- ``all cores``: every call gets as many OpenMP threads as there are cores (the engine's
  default, what fr-graph did before issue 14);
- ``idle cores``: the shipped rule (``fr_graph.clients.engine_threads``): only the cores
  nothing else is running on, at least one.

Prints p50 / p90 per arm and load, and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from fr_graph.bench.provenance import provenance
from fr_graph.clients import LocalEmbedder

TOPICS = ("database", "hosting", "budget", "venue", "deadline", "kiln", "vlan", "supervisor",
          "dentist", "landlord", "marathon", "visa", "allotment", "invoice", "thesis", "band")


def texts(count: int, load: int) -> list[str]:
    return [f"what did I decide about the {TOPICS[i % len(TOPICS)]} ({load}/{i})?"
            for i in range(count)]


def measure(embedder: LocalEmbedder, queries: list[str]) -> dict[str, dict[str, float]]:
    set_threads = embedder._set_threads
    assert set_threads is not None, "the engine's OpenMP runtime was not found"
    times: dict[str, list[float]] = {"all cores": [], "idle cores": []}
    for index, text in enumerate(queries):
        arm = "all cores" if index % 2 == 0 else "idle cores"
        started = time.perf_counter()
        if arm == "all cores":
            set_threads(embedder._cores)
            with embedder._lock:
                embedder._model.query(text)
        else:
            embedder._embed_query_uncached(text)  # fits the threads first
        times[arm].append((time.perf_counter() - started) * 1000)
    out = {}
    for arm, values in times.items():
        values.sort()
        out[arm] = {"p50_ms": round(statistics.median(values), 1),
                    "p90_ms": round(values[int(0.9 * (len(values) - 1))], 1)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, nargs="+", default=[0, 2, 4])
    parser.add_argument("--queries", type=int, default=64)
    args = parser.parse_args()
    if os.environ.get("OMP_NUM_THREADS"):
        raise SystemExit("unset OMP_NUM_THREADS: it turns the shipped rule off")
    embedder = LocalEmbedder()
    embedder._embed_query_uncached("warm up")
    results = {}
    for load in args.loads:
        spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                    for _ in range(load)]
        try:
            time.sleep(1.0)
            results[f"load {load}"] = measure(embedder, texts(2 * args.queries, load))
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.wait()
        row = results[f"load {load}"]
        print(f"load {load}: all cores p50 {row['all cores']['p50_ms']} / p90 "
              f"{row['all cores']['p90_ms']} ms; idle cores p50 {row['idle cores']['p50_ms']}"
              f" / p90 {row['idle cores']['p90_ms']} ms", flush=True)
    print(json.dumps({"provenance": provenance(), "cores": embedder._cores,
                      "results": results}, indent=1))


if __name__ == "__main__":
    main()

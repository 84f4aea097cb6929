"""Micro-benchmark of the deterministic reranker (the paper's Table 28 analogue).

Synthetic batches follow the branch rates of App. D.9: similarity in [0.70, 0.99], 95.8% of
facts multi-category, 10.1% event-anchored, 27.3% numeric, 0.2% retracted; slot keys are
drawn so that some candidates share a slot. Timing uses ``time.perf_counter_ns`` around
single calls after a warm-up, in several rounds; we print the median over all calls and the
lowest round median (the least disturbed by other processes on a shared machine).

``build_batch`` is the search pipeline's step before the reranker: store rows (overlay
properties as the store returns them, ISO timestamps) to a validated ``CandidateBatch``.

    python bench/rerank_micro.py [--calls 2000] [--rounds 5] [--seed 7]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from fr_graph.core.codes import N_CATEGORIES, STATE_CODE
from fr_graph.core.intent import analyze_query
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.rerank import FULL, UNTYPED, CandidateBatch, rerank
from fr_graph.overlay import ISO_FORMAT
from fr_graph.pipeline.search import Candidates, build_batch

NOW = datetime(2025, 6, 4, 12, tzinfo=UTC)
SIZES = (20, 100, 1000)


def columns(k: int, rng: np.random.Generator, *, slots: bool) -> dict[str, np.ndarray | None]:
    """One synthetic candidate batch as raw columns."""
    now = NOW.timestamp()
    weights = np.zeros((k, N_CATEGORIES))
    primary = rng.integers(0, N_CATEGORIES, k)
    weights[np.arange(k), primary] = 1.0
    multi = rng.random(k) < 0.958
    secondary = rng.integers(0, N_CATEGORIES, k)
    share = rng.uniform(0.1, 0.45, k) * multi
    weights *= (1.0 - share)[:, None]
    weights[np.arange(k), secondary] += share
    event = np.full(k, np.nan)
    anchored = rng.random(k) < 0.101
    event[anchored] = now + rng.normal(0.0, 20 * 86400, anchored.sum())
    state = np.full(k, STATE_CODE[LifecycleState.ACTIVE], dtype=np.int8)
    state[rng.random(k) < 0.002] = STATE_CODE[LifecycleState.RETRACTED]
    slot_group = None
    if slots:
        slot_group = rng.integers(0, max(2, int(k * 0.8)), k)
        slot_group[rng.random(k) < 0.012] = -1
    return {
        "semantic": rng.uniform(0.70, 0.99, k),
        "fulltext": np.where(rng.random(k) < 0.3, rng.random(k), 0.0),
        "forced": rng.random(k) < 0.1,
        "category_weights": weights,
        "state": state,
        "observed_at": now - rng.uniform(0, 540 * 86400, k),
        "event_time": event,
        "valid_to": np.full(k, np.nan),
        "confidence": rng.uniform(0.5, 1.0, k),
        "strength": rng.random(k),
        "has_number": rng.random(k) < 0.273,
        "world_knowledge": rng.random(k) < 0.014,
        "instruction_like": np.zeros(k, dtype=bool),
        "ambiguous": np.zeros(k, dtype=bool),
        "emotional_loading": np.where(rng.random(k) < 0.05, rng.random(k), 0.0),
        "slot_group": slot_group,
    }


def store_rows(k: int, rng: np.random.Generator) -> Candidates:
    """Candidate rows as ``fetch_facts`` returns them (the overlay as a property map)."""
    names = [c.value for c in Category]
    rows: list[dict[str, Any]] = []
    for i in range(k):
        seen = NOW - timedelta(hours=float(rng.uniform(0, 540 * 24)))
        event = NOW + timedelta(days=float(rng.normal(0, 20))) if rng.random() < 0.101 else None
        rows.append({"uuid": f"u{i}", "fact": f"fact {i}", "valid_at": seen, "created_at": seen,
                     "overlay": {
                         "categories": list(rng.choice(names, 2, replace=False)),
                         "category_weights": [0.7, 0.3], "state": "active",
                         "observed_at": seen.strftime(ISO_FORMAT),
                         "event_time": event.strftime(ISO_FORMAT) if event else None,
                         "valid_to": None, "confidence": float(rng.uniform(0.5, 1.0)),
                         "strength": float(rng.random()), "emotional_loading": 0.0,
                         "has_number": bool(rng.random() < 0.273), "world_knowledge": False,
                         "instruction_like": False, "ambiguous": False, "stage": "transient",
                         "slot_key": f"x|slot|{rng.integers(0, max(2, int(k * 0.8)))}"}})
    return Candidates(rows, rng.uniform(0.70, 0.99, k),
                      np.where(rng.random(k) < 0.3, rng.random(k), 0.0), rng.random(k) < 0.1)


def time_calls(call: Callable[[], object], calls: int, rounds: int) -> tuple[float, float]:
    """(median over all calls, lowest round median), in microseconds."""
    for _ in range(50):
        call()
    samples: list[int] = []
    medians: list[float] = []
    clock = time.perf_counter_ns
    for _ in range(rounds):
        round_samples = []
        for _ in range(calls):
            start = clock()
            call()
            round_samples.append(clock() - start)
        samples += round_samples
        medians.append(statistics.median(round_samples))
    return statistics.median(samples) / 1000.0, min(medians) / 1000.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    policy = PolicyTable.default()
    query = analyze_query("what is my rent now?", NOW)
    now = NOW.timestamp()
    print(f"{'case':<34}{'k':>6}{'median us':>12}{'best-round us':>15}{'us/cand':>10}")
    for k in SIZES:
        plain = CandidateBatch(**columns(k, rng, slots=False))  # type: ignore[arg-type]
        slotted = CandidateBatch(**columns(k, rng, slots=True))  # type: ignore[arg-type]
        raw = columns(k, rng, slots=True)
        rows = store_rows(k, rng)
        cases: list[tuple[str, Callable[[], object]]] = [
            ("rerank full", lambda b=plain: rerank(b, query, policy, now, FULL)),
            ("rerank full + slots (Omega)", lambda b=slotted: rerank(b, query, policy, now)),
            ("rerank untyped + slots", lambda b=slotted: rerank(b, query, policy, now,
                                                                 UNTYPED)),
            ("CandidateBatch(...) validation", lambda r=raw: CandidateBatch(**r)),  # type: ignore[arg-type]
            ("build_batch (store rows)", lambda c=rows: build_batch(c)),
        ]
        for name, call in cases:
            median, best = time_calls(call, args.calls, args.rounds)
            print(f"{name:<34}{k:>6}{median:>12.2f}{best:>15.2f}{median / k:>10.3f}")


if __name__ == "__main__":
    main()

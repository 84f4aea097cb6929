"""Micro-benchmark of the deterministic reranker (the paper's Table 28 analogue).

Synthetic batches follow the branch rates of App. D.9: similarity in [0.70, 0.99], 95.8% of
facts multi-category, 10.1% event-anchored, 27.3% numeric, 0.2% retracted; slot keys are
drawn so that some candidates share a slot. Timing uses ``time.perf_counter_ns`` around
single calls after a warm-up, in several rounds; we print the median over all calls and the
lowest round median (the least disturbed by other processes on a shared machine).

    python bench/rerank_micro.py [--calls 2000] [--rounds 5] [--seed 7]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime

import numpy as np

from fr_graph.core.codes import N_CATEGORIES, STATE_CODE
from fr_graph.core.intent import analyze_query
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.policy import PolicyTable
from fr_graph.core.rerank import FULL, UNTYPED, CandidateBatch, rerank

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
        cases: list[tuple[str, Callable[[], object]]] = [
            ("rerank full", lambda b=plain: rerank(b, query, policy, now, FULL)),
            ("rerank full + slots (Omega)", lambda b=slotted: rerank(b, query, policy, now)),
            ("rerank untyped + slots", lambda b=slotted: rerank(b, query, policy, now,
                                                                 UNTYPED)),
            ("CandidateBatch(...) validation", lambda r=raw: CandidateBatch(**r)),  # type: ignore[arg-type]
        ]
        for name, call in cases:
            median, best = time_calls(call, args.calls, args.rounds)
            print(f"{name:<34}{k:>6}{median:>12.2f}{best:>15.2f}{median / k:>10.3f}")


if __name__ == "__main__":
    main()

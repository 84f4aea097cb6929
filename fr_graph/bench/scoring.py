"""Per-question scores and the paired statistics the report prints (pure; no I/O).

A *ranking* is a list of the persona's fact ids (the import records' ``id``), best first.

* **pass@10**: at least ``min_support`` support facts in the top 10;
* **stale@5**: any stale fact in the top 5;
* **clean pass**: pass and not stale;
* **MRR**: reciprocal rank of the first support fact (0 when none is ranked).

Confidence intervals are seeded percentile bootstraps over questions; comparisons against
``full`` resample the same questions for both systems (paired) and test clean pass with
McNemar's exact test on the discordant pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
from scipy.stats import binomtest, kendalltau

from fr_graph.bench.dataset import Question

PASS_AT: Final = 10
STALE_AT: Final = 5
BOOTSTRAP_SAMPLES: Final = 2000


@dataclass(frozen=True, slots=True)
class Outcome:
    """One system's result on one question."""

    passed: bool
    stale: bool
    reciprocal_rank: float

    @property
    def clean(self) -> bool:
        return self.passed and not self.stale


def score(ranking: Sequence[str], question: Question) -> Outcome:
    """Score one ranking (fact ids, best first) against a question's gold."""
    support = set(question.support_ids)
    stale = set(question.stale_ids)
    found = sum(1 for fact in ranking[:PASS_AT] if fact in support)
    first = next((rank for rank, fact in enumerate(ranking, start=1) if fact in support), None)
    return Outcome(passed=found >= question.min_support,
                   stale=any(fact in stale for fact in ranking[:STALE_AT]),
                   reciprocal_rank=1.0 / first if first else 0.0)


@dataclass(frozen=True, slots=True)
class Interval:
    """A point estimate with its 95% bootstrap interval."""

    value: float
    low: float
    high: float

    def to_json(self) -> dict[str, float]:
        return {"value": round(self.value, 6), "low": round(self.low, 6),
                "high": round(self.high, 6)}


def _resamples(n: int, seed: int) -> np.ndarray:
    """``(BOOTSTRAP_SAMPLES, n)`` question indices; the same for every metric of a seed."""
    return np.random.default_rng(seed).integers(0, n, size=(BOOTSTRAP_SAMPLES, n))


def bootstrap_mean(values: Sequence[float], seed: int) -> Interval:
    """Mean with a seeded 95% percentile bootstrap interval (all zeros when empty)."""
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        return Interval(0.0, 0.0, 0.0)
    means = data[_resamples(data.size, seed)].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return Interval(float(data.mean()), float(low), float(high))


def paired_difference(system: Sequence[float], reference: Sequence[float],
                      seed: int) -> Interval:
    """Mean of ``system - reference`` over the same questions, with a paired bootstrap CI."""
    if len(system) != len(reference):
        raise ValueError("paired samples must have the same length")
    diff = np.asarray(system, dtype=np.float64) - np.asarray(reference, dtype=np.float64)
    return bootstrap_mean(diff.tolist(), seed)


def mcnemar(system: Sequence[bool], reference: Sequence[bool]) -> float:
    """Exact McNemar p-value (two-sided binomial test on the discordant pairs); 1 if none."""
    if len(system) != len(reference):
        raise ValueError("paired samples must have the same length")
    only_system = sum(1 for a, b in zip(system, reference, strict=True) if a and not b)
    only_reference = sum(1 for a, b in zip(system, reference, strict=True) if b and not a)
    discordant = only_system + only_reference
    if discordant == 0:
        return 1.0
    return float(binomtest(only_system, discordant, 0.5).pvalue)


def jaccard_at(first: Sequence[str], second: Sequence[str], k: int = PASS_AT) -> float:
    """|A ∩ B| / |A ∪ B| of the two top-k sets (1 when both are empty)."""
    a, b = set(first[:k]), set(second[:k])
    return len(a & b) / len(a | b) if a | b else 1.0


def kendall_tau_at(first: Sequence[str], second: Sequence[str], k: int = PASS_AT) -> float:
    """Kendall tau-b between two top-k lists over the union of their items.

    An item missing from one list is tied at rank ``k + 1`` there (the usual top-k
    extension). Identical lists give 1; lists too short or constant to correlate give 1
    when equal and 0 otherwise.
    """
    a, b = list(first[:k]), list(second[:k])
    items = list(dict.fromkeys(a + b))
    rank_a = [a.index(x) if x in a else k for x in items]
    rank_b = [b.index(x) if x in b else k for x in items]
    if len(items) < 2:
        return 1.0 if a == b else 0.0
    tau = kendalltau(rank_a, rank_b).statistic
    if tau is None or not np.isfinite(tau):
        return 1.0 if a == b else 0.0
    return float(tau)

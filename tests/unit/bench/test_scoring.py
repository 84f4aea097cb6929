"""LifecycleBench scoring: per-question outcomes, bootstrap CIs, McNemar, rank agreement."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fr_graph.bench.dataset import AttackVector, Question
from fr_graph.bench.scoring import (
    bootstrap_mean,
    jaccard_at,
    kendall_tau_at,
    mcnemar,
    paired_difference,
    score,
)


def question(support: tuple[str, ...], stale: tuple[str, ...] = (), min_support: int = 1
             ) -> Question:
    return Question(id="q", persona="p", attack_vector=AttackVector.SUPERSEDED_PREFERENCE,
                    text="what do I drink?", query_time=datetime(2025, 1, 1, tzinfo=UTC),
                    support_ids=support, stale_ids=stale, family="f", split="dev",
                    min_support=min_support)


def ranks(*ids: str) -> list[str]:
    return list(ids)


def test_pass_needs_min_support_in_the_top_ten() -> None:
    q = question(("s1", "s2"), min_support=2)
    filler = [f"x{i}" for i in range(8)]
    assert score(ranks("s1", *filler, "s2"), q).passed          # ranks 1 and 10
    assert not score(ranks("s1", *filler, "x9", "s2"), q).passed  # s2 at rank 11
    assert score(ranks("s1", *filler, "x9", "s2"), question(("s1", "s2"))).passed


def test_stale_counts_only_the_top_five_and_clean_needs_both() -> None:
    q = question(("s",), ("old",))
    early = score(ranks("s", "a", "b", "c", "old"), q)
    late = score(ranks("s", "a", "b", "c", "d", "old"), q)
    assert early.stale and early.passed and not early.clean
    assert not late.stale and late.clean
    assert not score(ranks("a", "b"), q).clean


def test_mrr_is_the_reciprocal_rank_of_the_first_support_fact() -> None:
    q = question(("s1", "s2"))
    assert score(ranks("a", "b", "s2", "s1"), q).reciprocal_rank == pytest.approx(1 / 3)
    assert score(ranks("a", "b"), q).reciprocal_rank == 0.0
    assert score(ranks("s1"), q).reciprocal_rank == 1.0


@given(st.lists(st.floats(0, 1), min_size=1, max_size=60), st.integers(0, 2**31))
def test_bootstrap_interval_contains_the_point_estimate(values: list[float], seed: int) -> None:
    interval = bootstrap_mean(values, seed)
    assert interval.low - 1e-9 <= interval.value <= interval.high + 1e-9
    assert interval.value == pytest.approx(float(np.mean(values)))


def test_bootstrap_is_seeded_and_narrows_with_more_data() -> None:
    small = [1.0, 0.0] * 10
    assert bootstrap_mean(small, 3) == bootstrap_mean(small, 3)
    wide = bootstrap_mean(small, 3)
    narrow = bootstrap_mean(small * 20, 3)
    assert narrow.high - narrow.low < wide.high - wide.low
    assert bootstrap_mean([], 1).value == 0.0


def test_paired_difference_is_the_mean_difference() -> None:
    diff = paired_difference([1, 1, 1, 0], [0, 1, 0, 0], seed=5)
    assert diff.value == pytest.approx(0.5)
    with pytest.raises(ValueError):
        paired_difference([1], [1, 0], seed=5)


def test_mcnemar_exact_p_on_known_tables() -> None:
    # 10 discordant pairs all one way: p = 2 * 0.5**10.
    assert mcnemar([True] * 10 + [False] * 5, [False] * 10 + [False] * 5) == pytest.approx(
        2 * 0.5 ** 10)
    # 6 vs 4 discordant: two-sided binomial p = 0.7539.
    system = [True] * 6 + [False] * 4 + [True] * 3
    reference = [False] * 6 + [True] * 4 + [True] * 3
    assert mcnemar(system, reference) == pytest.approx(0.75390625)
    assert mcnemar([True, False], [True, False]) == 1.0


def test_rank_agreement_at_ten() -> None:
    a = [f"f{i}" for i in range(10)]
    assert jaccard_at(a, a) == 1.0 and kendall_tau_at(a, a) == pytest.approx(1.0)
    assert jaccard_at(a, [f"g{i}" for i in range(10)]) == 0.0
    assert jaccard_at(a, a[:5] + [f"g{i}" for i in range(5)]) == pytest.approx(5 / 15)
    assert kendall_tau_at(a, a[::-1]) == pytest.approx(-1.0)
    assert -1.0 <= kendall_tau_at(a, [*a[2:], "x", "y"]) < 1.0

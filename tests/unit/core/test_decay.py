"""Decay (S_c), Lemma 1's harmonic-mean rate, and the emotional-loading boost."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fr_graph.core.codes import CATEGORIES
from fr_graph.core.decay import (
    boosted_activation,
    effective_rate,
    effective_rates,
    emotional_boost,
    half_life_hours,
    survival,
)
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable

POLICY = PolicyTable.default()
weights_vectors = st.lists(st.floats(0.0, 1.0), min_size=11, max_size=11).filter(
    lambda w: sum(w) > 1e-6).map(lambda w: np.array(w) / sum(w))
ages = st.floats(0.0, 24.0 * 365 * 5, allow_nan=False)


def test_lemma_1_worked_example() -> None:
    """App. A.14: 30% Identity + 70% Logistical -> 0.00348/h, half-life 199.3 h."""
    rate = effective_rate({Category.IDENTITY: 0.3, Category.LOGISTICAL: 0.7}, POLICY)
    assert rate == pytest.approx(0.00348, abs=5e-6)
    assert half_life_hours(rate) == pytest.approx(199.3, abs=0.1)


@pytest.mark.parametrize("category", CATEGORIES)
def test_one_hot_membership_keeps_the_category_rate(category: Category) -> None:
    assert effective_rate({category: 1.0}, POLICY) == pytest.approx(
        POLICY.categories[category].lambda_per_hour)


@given(weights_vectors)
def test_harmonic_rate_lies_between_extremes_and_below_the_arithmetic_mean(w: np.ndarray
                                                                             ) -> None:
    rates = POLICY.arrays.lambda_per_hour
    rate = effective_rate(w, POLICY)
    assert rates.min() - 1e-12 <= rate <= rates.max() + 1e-12
    assert rate <= float(w @ rates) + 1e-12  # harmonic <= arithmetic


@given(st.lists(weights_vectors, min_size=1, max_size=8))
def test_vectorized_rates_match_scalar(rows: list[np.ndarray]) -> None:
    matrix = np.array(rows)
    assert np.allclose(effective_rates(matrix, POLICY),
                       [effective_rate(r, POLICY) for r in rows])


@given(ages, ages, st.sampled_from(list(POLICY.arrays.lambda_per_hour)))
def test_survival_is_monotone_in_age(a: float, b: float, rate: float) -> None:
    young, old = sorted((a, b))
    s_young, s_old = survival(young, rate), survival(old, rate)
    assert isinstance(s_young, float)
    assert 0.0 <= s_old <= s_young <= 1.0


def test_survival_clamps_negative_age_and_vectorizes() -> None:
    assert survival(-5.0, 0.01) == 1.0
    out = survival(np.array([0.0, 100.0]), 0.01)
    assert isinstance(out, np.ndarray)
    assert out == pytest.approx([1.0, math.exp(-1.0)])


def test_table_49_one_month_column() -> None:
    """Table 49: a month (720 h) leaves ~34% of Identity and ~0.3% of Logistical."""
    assert survival(720.0, 0.0015) == pytest.approx(0.34, abs=0.005)
    assert survival(720.0, 0.0080) == pytest.approx(0.003, abs=0.0005)


@given(st.floats(0.0, 1.0), ages, ages)
def test_emotional_boost_is_transient(loading: float, a: float, b: float) -> None:
    young, old = sorted((a, b))
    assert emotional_boost(loading, young, POLICY) >= emotional_boost(loading, old, POLICY)
    assert emotional_boost(loading, 0.0, POLICY) == pytest.approx(0.40 * loading)
    assert emotional_boost(1.0, POLICY.emotional_half_life_hours, POLICY) == pytest.approx(0.2)


@given(st.floats(0.0, 1.0), st.floats(0.0, 1.0))
def test_boosted_activation_stays_in_unit_interval(activation: float, boost: float) -> None:
    lifted = boosted_activation(activation, boost)
    assert activation - 1e-12 <= lifted <= 1.0 + 1e-12


@pytest.mark.parametrize("bad", [{Category.IDENTITY: -1.0}, {}, np.zeros(11), np.ones(3)])
def test_bad_weights_are_rejected(bad: object) -> None:
    with pytest.raises(ValueError):
        effective_rate(bad, POLICY)  # type: ignore[arg-type]

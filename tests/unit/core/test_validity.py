"""The event-time validity kernel (A.13, Proposition 2) and date-aware expiry (App. K)."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.validity import (
    category_validity,
    expires_at,
    guard_weight,
    is_expired_by_date,
    log_validity,
    validity,
)
from tests.unit.core.factory import DAY, HOUR, NOW, NOW_S

POLICY = PolicyTable.default()
OBLIGATIONS = POLICY.categories[Category.OBLIGATIONS]
NU = OBLIGATIONS.validity_nu_per_hour or 0.0
MU = OBLIGATIONS.validity_mu_per_hour or 0.0
offsets = st.floats(0.0, 60 * DAY, allow_nan=False)


@given(offsets, offsets)
def test_anticipation_rises_toward_the_event(a: float, b: float) -> None:
    """t1 < t2 < h  =>  V(t1) < V(t2): anticipatory activation (A.13)."""
    near, far = sorted((a, b))
    assume(far - near > 60.0)
    event = NOW_S
    assert validity(event - far, event, NU, MU) < validity(event - near, event, NU, MU)


@given(offsets, offsets)
def test_relevance_collapses_after_the_event(a: float, b: float) -> None:
    early, late = sorted((a, b))
    assume(late - early > 60.0)
    event = NOW_S
    assert validity(event + late, event, NU, MU) <= validity(event + early, event, NU, MU)


def test_collapse_is_faster_than_anticipation() -> None:
    before = validity(NOW_S - DAY, NOW_S, NU, MU)
    after = validity(NOW_S + DAY, NOW_S, NU, MU)
    assert validity(NOW_S, NOW_S, NU, MU) == 1.0
    assert after < before


def test_proposition_2_no_age_only_function_matches() -> None:
    """Same fact, fixed creation time: relevance rises with age, which no nonincreasing
    function of age can do."""
    created, event = NOW_S - 10 * DAY, NOW_S + 5 * DAY
    earlier, later = NOW_S - 2 * DAY, NOW_S
    assert later - created > earlier - created  # older at the later time...
    assert validity(later, event, NU, MU) > validity(earlier, event, NU, MU)  # ...yet higher


def test_log_validity_vectorizes() -> None:
    now = np.array([NOW_S - HOUR, NOW_S, NOW_S + HOUR])
    out = log_validity(now, NOW_S, NU, MU)
    assert isinstance(out, np.ndarray)
    assert out == pytest.approx([-NU, 0.0, -MU])


def test_categories_without_kernel_are_always_valid() -> None:
    assert category_validity(Category.PREFERENCES, NOW_S, NOW_S - 90 * DAY, POLICY) == 1.0
    assert category_validity(Category.OBLIGATIONS, NOW_S, NOW_S + DAY, POLICY) == pytest.approx(
        np.exp(-NU * 24))


def test_expiry_uses_a_14_day_buffer_for_guarded_categories() -> None:
    event = NOW - timedelta(days=20)
    weights = {Category.LOGISTICAL: 1.0}
    assert expires_at(event, weights, POLICY) == event + timedelta(days=14)
    assert is_expired_by_date(event, weights, NOW, POLICY)
    at_boundary = NOW - timedelta(days=14)
    assert not is_expired_by_date(at_boundary, weights, NOW, POLICY)
    assert is_expired_by_date(at_boundary - timedelta(seconds=1), weights, NOW, POLICY)


@pytest.mark.parametrize("category", [Category.LOGISTICAL, Category.OBLIGATIONS,
                                      Category.HEALTH])
def test_guarded_categories_expire(category: Category) -> None:
    assert is_expired_by_date(NOW - timedelta(days=30), {category: 1.0}, NOW, POLICY)


@pytest.mark.parametrize("category", [Category.IDENTITY, Category.PREFERENCES,
                                      Category.FINANCIAL, Category.PROJECTS])
def test_unguarded_categories_never_expire_by_date(category: Category) -> None:
    assert expires_at(NOW - timedelta(days=300), {category: 1.0}, POLICY) is None


def test_numbers_and_backward_looking_queries_bypass_expiry() -> None:
    event, weights = NOW - timedelta(days=30), {Category.LOGISTICAL: 1.0}
    assert not is_expired_by_date(event, weights, NOW, POLICY, has_number=True)
    assert not is_expired_by_date(event, weights, NOW, POLICY, backward_looking=True)
    assert not is_expired_by_date(None, weights, NOW, POLICY)


def test_soft_membership_guard_is_a_majority_rule() -> None:
    mostly_guarded = {Category.IDENTITY: 0.45, Category.LOGISTICAL: 0.3,
                      Category.OBLIGATIONS: 0.25}
    assert guard_weight(mostly_guarded, POLICY) == pytest.approx(0.55)
    assert expires_at(NOW, mostly_guarded, POLICY) is not None
    assert expires_at(NOW, {Category.IDENTITY: 0.6, Category.HEALTH: 0.4}, POLICY) is None
    assert guard_weight({}, POLICY) == 0.0

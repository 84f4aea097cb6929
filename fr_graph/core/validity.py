"""Event time: the validity kernel ``V_c(t, h)`` (App. A.13) and date-aware expiry (App. K).

A fact about an event (a deadline, a flight) has two clocks: when it was said (``t_e``) and
when the event is (``h``). For event-time categories activation follows ``h``, not age:

    V_c(t, h) = exp(-nu_c * (h - t)_+) * exp(-mu_c * (t - h)_+),   mu_c >> nu_c

so relevance *rises* as the event approaches (anticipatory activation, which no function of
age alone can express: Proposition 2) and collapses after it.

Independently, facts of expiry-guarded categories (Logistical, Obligations, Health) whose
event lies more than the buffer (14 days) in the past are expired by date. Numbers and
amounts are exempt (App. H, numeric rescue stage 1), and backward-looking queries bypass it.

``now`` is always an argument. Times inside the vectorized code are epoch seconds; the
datetime helpers at the bottom are for callers at the edges (the ingestion sweep).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

import numpy as np

from fr_graph.core.codes import CATEGORY_INDEX
from fr_graph.core.ontology import Category
from fr_graph.core.policy import MIX_GUARD, SECONDS_PER_HOUR, PolicyTable

GUARD_MAJORITY = 0.5
"""A fact is expiry-guarded when at least half its membership is in guarded categories."""


def log_validity(now: float | np.ndarray, event_time: float | np.ndarray,
                 nu_per_hour: float | np.ndarray, mu_per_hour: float | np.ndarray
                 ) -> float | np.ndarray:
    """``log V(t, h) = -nu * (h - t)_+ - mu * (t - h)_+`` with times in epoch seconds."""
    hours_ahead = np.subtract(event_time, now) / SECONDS_PER_HOUR
    result = -(np.multiply(nu_per_hour, np.maximum(hours_ahead, 0.0))
               + np.multiply(mu_per_hour, np.maximum(-hours_ahead, 0.0)))
    return float(result) if np.ndim(result) == 0 else result


def validity(now: float | np.ndarray, event_time: float | np.ndarray,
             nu_per_hour: float | np.ndarray, mu_per_hour: float | np.ndarray
             ) -> float | np.ndarray:
    """The kernel ``V(t, h)`` itself (App. A.13); 1 at the event, in ``(0, 1]`` around it."""
    result = np.exp(log_validity(now, event_time, nu_per_hour, mu_per_hour))
    return float(result) if np.ndim(result) == 0 else result


def category_validity(category: Category, now: float, event_time: float,
                      policy: PolicyTable) -> float:
    """``V_c(t, h)`` for one category; 1.0 for categories without a kernel."""
    row = policy.categories[category]
    if row.validity_nu_per_hour is None or row.validity_mu_per_hour is None:
        return 1.0
    return float(validity(now, event_time, row.validity_nu_per_hour, row.validity_mu_per_hour))


def guard_weight(weights: Mapping[Category, float], policy: PolicyTable) -> float:
    """Share of a fact's membership in expiry-guarded categories."""
    guard = policy.arrays.mix[MIX_GUARD]
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    return float(sum(w * guard[CATEGORY_INDEX[Category(c)]] for c, w in weights.items())) / total


def expires_at(event_time: datetime | None, weights: Mapping[Category, float],
               policy: PolicyTable, *, has_number: bool = False) -> datetime | None:
    """When a fact expires by date, or None if it never does.

    Args:
        event_time: the fact's event-time anchor.
        weights: its soft category membership.
        policy: supplies the guarded categories and the buffer.
        has_number: numeric facts are exempt (App. H stage 1).
    """
    if event_time is None or has_number:
        return None
    if guard_weight(weights, policy) < GUARD_MAJORITY:
        return None
    return event_time + timedelta(days=policy.expiry_buffer_days)


def is_expired_by_date(event_time: datetime | None, weights: Mapping[Category, float],
                       now: datetime, policy: PolicyTable, *, has_number: bool = False,
                       backward_looking: bool = False) -> bool:
    """Whether the date-aware filter removes this fact at ``now`` (strictly after expiry)."""
    if backward_looking:
        return False
    deadline = expires_at(event_time, weights, policy, has_number=has_number)
    return deadline is not None and now > deadline

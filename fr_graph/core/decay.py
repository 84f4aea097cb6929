"""Category-conditioned decay (Eq. 1's ``S_c``), Lemma 1, and the emotional-loading boost.

Activation decays as ``S(d) = exp(-lambda * d)`` with ``d`` the fact's age in hours. A fact
with soft membership ``w`` decays at the weighted *harmonic* mean of its categories' rates
(Lemma 1, App. A.14): persistence timescales ``1/lambda_c`` average linearly, rates do not.

Emotional loading (App. B.6) is not a category: it is a transient boost to the activation of
the fact it is attached to, and the boost itself decays fast. These functions are the
reference definitions; :mod:`fr_graph.core.rerank` computes the same quantities inline on
whole candidate batches, and the tests hold the two to each other.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from fr_graph.core.codes import CATEGORY_INDEX
from fr_graph.core.ontology import Category
from fr_graph.core.policy import SECONDS_PER_HOUR, PolicyTable


def effective_rate(weights: Mapping[Category, float] | np.ndarray, policy: PolicyTable
                   ) -> float:
    """Lemma 1: ``lambda_eff = (sum_c w_c / lambda_c) ** -1`` per hour.

    Args:
        weights: soft membership by category, or an ``(11,)`` vector in column order;
            normalized here, so it need not sum to exactly 1.
        policy: supplies ``lambda_c``.

    Raises:
        ValueError: the weights are negative or all zero.
    """
    vector = _weight_vector(weights)
    timescale = float(vector @ (1.0 / policy.arrays.lambda_per_hour))
    return 1.0 / timescale


def effective_rates(weights: np.ndarray, policy: PolicyTable) -> np.ndarray:
    """Lemma 1 for a ``(k, 11)`` weight matrix: one effective rate per row, per hour."""
    return 1.0 / (weights @ (1.0 / policy.arrays.lambda_per_hour))


def survival(age_hours: float | np.ndarray, rate_per_hour: float | np.ndarray
             ) -> float | np.ndarray:
    """``S(d) = exp(-lambda * d)``; ages below zero (clock skew) count as zero."""
    age = np.maximum(age_hours, 0.0)
    result = np.exp(-np.multiply(rate_per_hour, age))
    return float(result) if np.ndim(result) == 0 else result


def half_life_hours(rate_per_hour: float) -> float:
    """``ln 2 / lambda``."""
    return math.log(2.0) / rate_per_hour


def emotional_boost(loading: float | np.ndarray, age_hours: float | np.ndarray,
                    policy: PolicyTable) -> float | np.ndarray:
    """The transient boost ``alpha_emo * loading * 2 ** (-age / half_life)`` (App. B.6)."""
    age = np.maximum(age_hours, 0.0)
    rate = policy.arrays.emotional_rate_per_second * SECONDS_PER_HOUR
    result = policy.emotional_alpha * np.multiply(loading, np.exp(-rate * age))
    return float(result) if np.ndim(result) == 0 else result


def boosted_activation(activation: float | np.ndarray, boost: float | np.ndarray
                       ) -> float | np.ndarray:
    """Raise activation toward 1 by ``boost``: ``a + (1 - a) * b``; stays in ``[0, 1]``."""
    result = np.add(activation, np.multiply(np.subtract(1.0, activation), boost))
    return float(result) if np.ndim(result) == 0 else result


def _weight_vector(weights: Mapping[Category, float] | np.ndarray) -> np.ndarray:
    if isinstance(weights, np.ndarray):
        vector = weights.astype(np.float64, copy=True)
    else:
        vector = np.zeros(len(CATEGORY_INDEX))
        for category, weight in weights.items():
            vector[CATEGORY_INDEX[Category(category)]] = weight
    if vector.shape != (len(CATEGORY_INDEX),) or not np.all(np.isfinite(vector)):
        raise ValueError("weights must be 11 finite numbers")
    if np.any(vector < 0) or vector.sum() <= 0:
        raise ValueError("weights must be non-negative and not all zero")
    return vector / vector.sum()

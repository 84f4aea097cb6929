"""Builders for core tests: readable rows in, a validated CandidateBatch out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np

from fr_graph.core.codes import CATEGORY_INDEX, N_CATEGORIES, STATE_CODE
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.ontology import Category
from fr_graph.core.rerank import CandidateBatch, slot_groups

NOW = datetime(2025, 6, 4, 12, 0, tzinfo=UTC)  # a Wednesday
NOW_S = NOW.timestamp()
HOUR = 3600.0
DAY = 86400.0


@dataclass
class Row:
    """One candidate, described relative to ``now``."""

    semantic: float = 0.8
    fulltext: float = 0.0
    forced: bool = False
    category: Category | Mapping[Category, float] = Category.PREFERENCES
    state: LifecycleState = LifecycleState.ACTIVE
    age_hours: float = 24.0
    event_in_hours: float | None = None
    valid_to_in_hours: float | None = None
    confidence: float = 0.9
    strength: float = 0.5
    has_number: bool = False
    world_knowledge: bool = False
    instruction_like: bool = False
    ambiguous: bool = False
    emotional_loading: float = 0.0
    slot: str | None = None
    tentative: bool = False
    contested: float = 0.0
    extra: dict[str, object] = field(default_factory=dict)


def weights_of(category: Category | Mapping[Category, float]) -> np.ndarray:
    vector = np.zeros(N_CATEGORIES)
    if isinstance(category, Category):
        vector[CATEGORY_INDEX[category]] = 1.0
    else:
        for cat, weight in category.items():
            vector[CATEGORY_INDEX[cat]] = weight
        vector /= vector.sum()
    return vector


def batch(rows: Sequence[Row], now: float = NOW_S, *, slots: bool | None = None
          ) -> CandidateBatch:
    """Build a batch; slot groups are included when any row names a slot (or forced)."""
    def column(getter: object) -> list[object]:
        return [getter(r) for r in rows]  # type: ignore[operator]

    def nan_or(offset: float | None) -> float:
        return np.nan if offset is None else now + offset * HOUR

    use_slots = any(r.slot is not None for r in rows) if slots is None else slots
    return CandidateBatch(
        semantic=np.array(column(lambda r: r.semantic), dtype=float),
        fulltext=np.array(column(lambda r: r.fulltext), dtype=float),
        forced=np.array(column(lambda r: r.forced), dtype=bool),
        category_weights=np.array([weights_of(r.category) for r in rows]).reshape(
            len(rows), N_CATEGORIES),
        state=np.array(column(lambda r: STATE_CODE[r.state]), dtype=np.int8),
        observed_at=np.array(column(lambda r: now - r.age_hours * HOUR), dtype=float),
        event_time=np.array(column(lambda r: nan_or(r.event_in_hours)), dtype=float),
        valid_to=np.array(column(lambda r: nan_or(r.valid_to_in_hours)), dtype=float),
        confidence=np.array(column(lambda r: r.confidence), dtype=float),
        strength=np.array(column(lambda r: r.strength), dtype=float),
        has_number=np.array(column(lambda r: r.has_number), dtype=bool),
        world_knowledge=np.array(column(lambda r: r.world_knowledge), dtype=bool),
        instruction_like=np.array(column(lambda r: r.instruction_like), dtype=bool),
        ambiguous=np.array(column(lambda r: r.ambiguous), dtype=bool),
        emotional_loading=np.array(column(lambda r: r.emotional_loading), dtype=float),
        slot_group=slot_groups([r.slot for r in rows]) if use_slots else None,
        tentative=np.array(column(lambda r: r.tentative), dtype=bool),
        contested=(np.array(column(lambda r: r.contested), dtype=float)
                   if any(r.contested for r in rows) else None),
    )

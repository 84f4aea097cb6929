"""Stable integer codes for categories and lifecycle states, used by the vectorized core.

The reranker works on columnar numpy arrays, so categories become column indices and states
become ``int8`` codes. Both orders are the enum declaration order; never reorder the enums
without bumping the overlay schema.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.ontology import Category

CATEGORIES: Final[tuple[Category, ...]] = tuple(Category)
"""Column order of every ``(k, 11)`` category-weight matrix."""

N_CATEGORIES: Final[int] = len(CATEGORIES)

CATEGORY_INDEX: Final[dict[Category, int]] = {c: i for i, c in enumerate(CATEGORIES)}

STATES: Final[tuple[LifecycleState, ...]] = tuple(LifecycleState)
"""Meaning of each ``int8`` state code."""

N_STATES: Final[int] = len(STATES)

STATE_CODE: Final[dict[LifecycleState, int]] = {s: i for i, s in enumerate(STATES)}

ACTIVE_CODE: Final[int] = STATE_CODE[LifecycleState.ACTIVE]
EXPIRED_CODE: Final[int] = STATE_CODE[LifecycleState.EXPIRED]


class MaskReason(IntEnum):
    """Why the reranker excluded a candidate (0: it did not). Stored as ``int8``."""

    NONE = 0
    STATE_ACTIVE = 1
    STATE_SUPERSEDED = 2
    STATE_EXPIRED = 3
    STATE_RETRACTED = 4
    STATE_ARCHIVED = 5
    DATE_EXPIRED = 6
    VALID_TO_PASSED = 7
    PAST_EVENT = 8
    FUTURE_EVENT = 9
    SLOT_SHADOWED = 10
    FORCED_RETRIEVAL_OFF = 11
    WORLD_KNOWLEDGE = 12
    INSTRUCTION_QUARANTINE = 13

    @property
    def label(self) -> str:
        """A short, stable, human-readable reason."""
        return _MASK_LABELS[self]


_MASK_LABELS: Final[dict[MaskReason, str]] = {
    MaskReason.NONE: "",
    MaskReason.STATE_ACTIVE: "state active not admitted by this query",
    MaskReason.STATE_SUPERSEDED: "superseded (state mask)",
    MaskReason.STATE_EXPIRED: "expired (state mask)",
    MaskReason.STATE_RETRACTED: "retracted (state mask)",
    MaskReason.STATE_ARCHIVED: "archived (state mask)",
    MaskReason.DATE_EXPIRED: "event date passed beyond the expiry buffer",
    MaskReason.VALID_TO_PASSED: "validity interval closed (valid_to passed)",
    MaskReason.PAST_EVENT: "event already happened; query asks about upcoming ones",
    MaskReason.FUTURE_EVENT: "event still ahead; query asks about past ones",
    MaskReason.SLOT_SHADOWED: "a later fact fills the same slot (latest slot wins)",
    MaskReason.FORCED_RETRIEVAL_OFF: "came only from category-forced retrieval, which is off",
    MaskReason.WORLD_KNOWLEDGE: "world knowledge, not about the user",
    MaskReason.INSTRUCTION_QUARANTINE: "instruction-like text, quarantined",
}

STATE_MASK_REASON: Final[dict[LifecycleState, MaskReason]] = {
    LifecycleState.ACTIVE: MaskReason.STATE_ACTIVE,
    LifecycleState.SUPERSEDED: MaskReason.STATE_SUPERSEDED,
    LifecycleState.EXPIRED: MaskReason.STATE_EXPIRED,
    LifecycleState.RETRACTED: MaskReason.STATE_RETRACTED,
    LifecycleState.ARCHIVED: MaskReason.STATE_ARCHIVED,
}

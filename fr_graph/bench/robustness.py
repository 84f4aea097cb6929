"""The robustness grid (paper App. AH): corrupt gold metadata before import, re-run ``full``.

Each :class:`Corruption` is a pure, seeded function of a persona's facts. Rates are applied
exactly: ``round(rate * n)`` of the ``n`` eligible facts change, chosen without replacement.

* category flips (every fact is eligible): ``uniform`` to any other category, or ``pairs``
  to a plausibly confused category (:data:`CONFUSED`; ``other`` has no partner);
* slot keys (facts with a slot key): ``merge`` moves a fact into another existing slot (false
  supersession), ``split`` gives it a fresh sibling slot (missed supersession);
* event times (every fact with an event time): shifted by ``±days`` (sign drawn per fact),
  or deleted.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Final, Literal

import numpy as np

from fr_graph.bench.dataset import GoldFact
from fr_graph.core.ontology import Category

Family = Literal["category_uniform", "category_pairs", "slot_merge", "slot_split",
                 "event_shift", "event_delete"]

#: Categories a classifier plausibly confuses (the ontology's neighbouring decay regimes).
CONFUSED: Final[dict[Category, tuple[Category, ...]]] = {
    Category.IDENTITY: (Category.RELATIONAL,),
    Category.RELATIONAL: (Category.IDENTITY,),
    Category.INTELLECTUAL: (Category.HOBBIES, Category.PROJECTS),
    Category.HOBBIES: (Category.PREFERENCES, Category.INTELLECTUAL),
    Category.PREFERENCES: (Category.HOBBIES, Category.HEALTH),
    Category.HEALTH: (Category.PREFERENCES,),
    Category.PROJECTS: (Category.OBLIGATIONS, Category.INTELLECTUAL),
    Category.OBLIGATIONS: (Category.LOGISTICAL, Category.PROJECTS),
    Category.LOGISTICAL: (Category.OBLIGATIONS,),
    Category.FINANCIAL: (Category.OBLIGATIONS,),
    Category.OTHER: (),
}


@dataclass(frozen=True, slots=True)
class Corruption:
    """One cell of the grid: a family and its level (a rate, or days for event shifts)."""

    family: Family
    level: float

    @property
    def name(self) -> str:
        if self.family == "event_shift":
            return f"event_shift ±{self.level:g}d"
        if self.family == "event_delete":
            return "event_delete"
        return f"{self.family} {self.level:.0%}"

    def apply(self, facts: Sequence[GoldFact], seed: int, persona: str
              ) -> tuple[list[GoldFact], int]:
        """The corrupted facts (same order) and how many changed."""
        rng = np.random.default_rng([seed, zlib.crc32(f"{self.name}/{persona}".encode())])
        if self.family == "category_uniform":
            return flip_categories(facts, self.level, rng, confused=False)
        if self.family == "category_pairs":
            return flip_categories(facts, self.level, rng, confused=True)
        if self.family == "slot_merge":
            return merge_slots(facts, self.level, rng)
        if self.family == "slot_split":
            return split_slots(facts, self.level, rng)
        if self.family == "event_shift":
            return shift_event_times(facts, self.level, rng)
        return delete_event_times(facts)


GRID: Final[tuple[Corruption, ...]] = (
    *(Corruption("category_uniform", r) for r in (0.1, 0.2, 0.5)),
    *(Corruption("category_pairs", r) for r in (0.1, 0.2, 0.5)),
    *(Corruption("slot_merge", r) for r in (0.05, 0.1, 0.2)),
    *(Corruption("slot_split", r) for r in (0.05, 0.1, 0.2)),
    *(Corruption("event_shift", d) for d in (7, 90)),
    Corruption("event_delete", 1.0),
)


def _pick(eligible: Sequence[int], rate: float, rng: np.random.Generator) -> list[int]:
    count = round(rate * len(eligible))
    if count == 0:
        return []
    return sorted(int(i) for i in rng.choice(np.asarray(eligible), size=count, replace=False))


def flip_categories(facts: Sequence[GoldFact], rate: float, rng: np.random.Generator, *,
                    confused: bool) -> tuple[list[GoldFact], int]:
    """Give ``rate`` of the eligible facts a wrong category (soft weights dropped)."""
    out = list(facts)
    eligible = [i for i, f in enumerate(facts) if not confused or CONFUSED[f.category]]
    chosen = _pick(eligible, rate, rng)
    for i in chosen:
        own = facts[i].category
        choices = CONFUSED[own] if confused else tuple(c for c in Category if c is not own)
        wrong = choices[int(rng.integers(len(choices)))]
        out[i] = replace(facts[i], category=wrong, categories=None)
    return out, len(chosen)


def merge_slots(facts: Sequence[GoldFact], rate: float, rng: np.random.Generator
                ) -> tuple[list[GoldFact], int]:
    """Move ``rate`` of the slotted facts into another existing slot."""
    out = list(facts)
    keys = sorted({f.slot_key for f in facts if f.slot_key})
    if len(keys) < 2:
        return out, 0
    chosen = _pick([i for i, f in enumerate(facts) if f.slot_key], rate, rng)
    for i in chosen:
        others = [k for k in keys if k != facts[i].slot_key]
        out[i] = replace(facts[i], slot_key=others[int(rng.integers(len(others)))])
    return out, len(chosen)


def split_slots(facts: Sequence[GoldFact], rate: float, rng: np.random.Generator
                ) -> tuple[list[GoldFact], int]:
    """Give ``rate`` of the slotted facts a fresh sibling slot (not a child: a retraction
    of the parent would still reach a child)."""
    out = list(facts)
    chosen = _pick([i for i, f in enumerate(facts) if f.slot_key], rate, rng)
    for n, i in enumerate(chosen):
        out[i] = replace(facts[i], slot_key=f"{facts[i].slot_key}#split{n}")
    return out, len(chosen)


def shift_event_times(facts: Sequence[GoldFact], days: float, rng: np.random.Generator
                      ) -> tuple[list[GoldFact], int]:
    """Shift every event time by ``days`` days, earlier or later (sign drawn per fact)."""
    out = list(facts)
    timed = [i for i, f in enumerate(facts) if f.event_time is not None]
    signs = rng.choice(np.array([-1.0, 1.0]), size=len(timed))
    for i, sign in zip(timed, signs, strict=True):
        event = facts[i].event_time
        assert event is not None
        out[i] = replace(facts[i], event_time=event + timedelta(days=float(sign) * days))
    return out, len(timed)


def delete_event_times(facts: Sequence[GoldFact]) -> tuple[list[GoldFact], int]:
    """Drop every gold event time. Import then falls back to the event time the rules
    classifier reads from the text, as it does for any record without one."""
    out = [replace(f, event_time=None) if f.event_time is not None else f for f in facts]
    return out, sum(1 for f in facts if f.event_time is not None)

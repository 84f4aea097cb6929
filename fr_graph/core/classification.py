"""The one output type of every fact classifier (rules, LLM, or caller-supplied gold)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from fr_graph.core.lifecycle import Marker
from fr_graph.core.ontology import Category


@dataclass(frozen=True, slots=True)
class Classification:
    """What a classifier says about one fact.

    Attributes:
        category: the primary category (the arg-max of ``weights``).
        weights: soft membership, non-negative, summing to 1 (Lemma 1 uses it).
        slot_key: normalized ``subject|attribute`` (optionally ``|instance``); facts with the
            same key compete for the same slot. ``None`` when the fact fills no slot.
        marker: what the statement does to its slot (assert, hedge, retract, complete).
        event_time: the world time the fact is about (an appointment's date), if any.
        has_number: the fact carries a number or amount that must survive verbatim.
        world_knowledge: general knowledge, not about the user; excluded from personal recall.
        instruction_like: reads as an instruction to the assistant; quarantined.
        confidence: the classifier's confidence in [0, 1].
        emotional_loading: transient affect in [0, 1] (a modifier, not a category).
    """

    category: Category
    weights: Mapping[Category, float] = field(default_factory=dict)
    slot_key: str | None = None
    marker: Marker = Marker.ASSERTION
    event_time: datetime | None = None
    has_number: bool = False
    world_knowledge: bool = False
    instruction_like: bool = False
    confidence: float = 0.5
    emotional_loading: float = 0.0
    #: The slot key is only proposed (the rules read it off the wording): the fact joins a
    #: slot when the linker links it. False for a classifier that names the subject and
    #: attribute itself (the LLM): its key is used as it is.
    slot_is_proposal: bool = True

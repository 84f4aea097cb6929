"""Linking by meaning: what a new fact does to the earlier facts it is about (pure).

A verifier (:mod:`fr_graph.classify.linking`, or an LLM) reads a pair of facts, the earlier
and the later one, and gives a probability to each :class:`Relation`. This module turns those
probabilities into lifecycle consequences, with precision first: a wrong supersession hides
a true fact, which is worse than a stale hit.

* ``updates`` / ``cancels`` / ``completes`` at or above their hard band (:class:`LinkBands`):
  the earlier fact is superseded, retracted or closed, and the later one joins its slot.
* the same relations in the soft band, and ``contradicts`` above its own band: both stay
  active and are flagged ambiguous, with the link recorded (``explain`` shows it); their
  slots are left alone, and the earlier fact is *contested* with the link's probability,
  which ranking applies like ``Omega`` to that one fact (nothing is masked). (Soft links
  used to join slots so that ``Omega`` demoted whole chains; soft links are wrong often
  enough, and chain transitively, that this hid still-true facts on long conversations.
  A contest is per pair and never chains.)
* ``refines`` and ``unrelated``: no link.

A pair the user reverted (``restore``) is never linked again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

import numpy as np

from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.supersession import TransitionKind
from fr_graph.errors import InputError


class Relation(StrEnum):
    """How a later fact relates to an earlier one (the verifier's classes, in this order)."""

    UPDATES = "updates"
    """Same attribute, new value: the earlier value is no longer true."""
    CANCELS = "cancels"
    """A plan, booking or intention called off."""
    COMPLETES = "completes"
    """A plan, project or obligation done."""
    CONTRADICTS = "contradicts"
    """A claim or habit contradicted by later behaviour, with no stated change."""
    REFINES = "refines"
    """A compatible addition or restatement: both stay true."""
    UNRELATED = "unrelated"
    """About something else."""


RELATIONS: Final[tuple[Relation, ...]] = tuple(Relation)

#: What a hard link of each acting relation does to the earlier fact.
HARD_EFFECT: Final[dict[Relation, tuple[LifecycleState, TransitionKind]]] = {
    Relation.UPDATES: (LifecycleState.SUPERSEDED, TransitionKind.SUPERSEDE),
    Relation.CANCELS: (LifecycleState.RETRACTED, TransitionKind.RETRACT),
    Relation.COMPLETES: (LifecycleState.SUPERSEDED, TransitionKind.COMPLETE),
}


@dataclass(frozen=True, slots=True)
class LinkBands:
    """Probability bands of the verifier's decision.

    Attributes:
        hard: an acting relation (updates, cancels, completes) at or above this changes the
            earlier fact's state, unless ``hard_by_relation`` names its own band.
        soft: an acting relation at or above this (below its hard band) only flags.
        contradicts: ``contradicts`` at or above this flags both.
        hard_by_relation: a hard band per acting relation, where one was calibrated for it
            (a cancellation is recognised with less doubt than an update: one shared band
            would set every relation to the hardest one's).
    """

    hard: float = 0.9
    soft: float = 0.6
    contradicts: float = 0.5
    hard_by_relation: Mapping[Relation, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        hards = [self.hard, *self.hard_by_relation.values()]
        if (not all(0.0 < self.soft <= h <= 1.0 for h in hards)
                or not 0.0 < self.contradicts <= 1.0):
            raise InputError("link bands: need 0 < soft <= hard <= 1 and 0 < contradicts <= 1")
        if not set(self.hard_by_relation) <= set(HARD_EFFECT):
            raise InputError("link bands: hard_by_relation names only updates, cancels, "
                             "completes")

    def hard_for(self, relation: Relation) -> float:
        """The hard band of one acting relation."""
        return self.hard_by_relation.get(relation, self.hard)

    def with_hard_bands(self, updates: float, cancels: float, completes: float) -> LinkBands:
        """These bands with other hard bands per acting relation (the soft band drops to the
        lowest of them where it was higher)."""
        return LinkBands(hard=self.hard, soft=min(self.soft, updates, cancels, completes),
                         contradicts=self.contradicts,
                         hard_by_relation={Relation.UPDATES: updates, Relation.CANCELS: cancels,
                                           Relation.COMPLETES: completes})


@dataclass(frozen=True, slots=True)
class LinkDecision:
    """The verdict on one (earlier, later) pair.

    Attributes:
        relation: the most probable relation.
        probability: its probability.
        hard: the earlier fact's state changes (``HARD_EFFECT``); otherwise a soft link.
        linked: the pair is linked at all (False for refines / unrelated / too unsure).
    """

    relation: Relation
    probability: float
    hard: bool
    linked: bool

    @property
    def kind(self) -> TransitionKind:
        if self.hard:
            return HARD_EFFECT[self.relation][1]
        if self.relation is Relation.CONTRADICTS:
            return TransitionKind.CONTRADICT
        return TransitionKind.SOFT

    @property
    def new_state(self) -> LifecycleState:
        return HARD_EFFECT[self.relation][0] if self.hard else LifecycleState.ACTIVE


def decide_link(probabilities: Sequence[float] | np.ndarray, bands: LinkBands) -> LinkDecision:
    """The decision for one pair from the verifier's probabilities (in :data:`RELATIONS`
    order)."""
    probs = np.asarray(probabilities, dtype=np.float64)
    if probs.shape != (len(RELATIONS),):
        raise InputError(f"link probabilities: need {len(RELATIONS)} values, got {probs.shape}")
    best = int(np.argmax(probs))
    relation, probability = RELATIONS[best], float(probs[best])
    if relation in HARD_EFFECT:
        if probability >= bands.hard_for(relation):
            return LinkDecision(relation, probability, hard=True, linked=True)
        return LinkDecision(relation, probability, hard=False, linked=probability >= bands.soft)
    if relation is Relation.CONTRADICTS:
        return LinkDecision(relation, probability, hard=False,
                            linked=probability >= bands.contradicts)
    return LinkDecision(relation, probability, hard=False, linked=False)

"""Slot-key supersession: what a new fact does to the facts already in its slot (§3.3, App. F).

Facts compete when they share a normalized slot key (``subject|attribute[|instance]``). The
decision for a pair depends only on the pair, never on arrival order:

* the *later* fact (by ``observed_at``, ties by id) is the one that can act;
* an assertion supersedes the earlier one when its confidence reaches the category threshold
  (replace 0.8, accumulate 0.95; App. Z); below it, or when the later statement is tentative
  ("thinking about moving to London"), it is *soft* supersession: both stay active, linked and
  flagged ambiguous;
* a retraction moves the earlier facts of its slot (and of the slots under it, so a plan
  stored as ``user|trip_tokyo|hotel`` goes with ``user|trip_tokyo``) to ``retracted``;
* a completion closes them the same way (``superseded``): "thesis defended" ends "writing
  thesis".

A fact that arrives after a newer one is therefore judged as the *earlier* fact of that pair:
it never supersedes the newer fact, and the newer one acts on it exactly as if the two had
arrived in order. States only move up ``active < superseded < retracted``, so replaying any
permutation of a slot's history ends in the same states (a property test holds us to it).
Expired and archived facts are outside slot decisions and are left alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Final

from fr_graph.core.lifecycle import LifecycleState, Marker
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.errors import InputError


class TransitionKind(StrEnum):
    """What a transition records."""

    SUPERSEDE = "supersede"
    SOFT = "soft"
    RETRACT = "retract"
    COMPLETE = "complete"
    CONTRADICT = "contradict"
    """Linked by meaning: a later fact contradicts an earlier claim; both kept, flagged."""
    REVERTED = "reverted"
    """An automatic link the user undid (``restore``); kept for the record, never re-made."""


@dataclass(frozen=True, slots=True)
class SlotFact:
    """The slot-relevant view of a stored or incoming fact.

    Attributes:
        id: stable fact id (edge uuid).
        slot_key: normalized ``subject|attribute[|instance]``.
        category: primary category.
        marker: what the statement does to its slot.
        observed_at: when it was stated (timezone-aware).
        confidence: the classifier's confidence in ``[0, 1]``.
        state: its current lifecycle state.
    """

    id: str
    slot_key: str
    category: Category
    marker: Marker
    observed_at: datetime
    confidence: float
    state: LifecycleState = LifecycleState.ACTIVE

    def __post_init__(self) -> None:
        if not 0.0 <= self.confidence <= 1.0:
            raise InputError(f"fact {self.id}: confidence must be in [0, 1]")
        if self.observed_at.tzinfo is None:
            raise InputError(f"fact {self.id}: observed_at must be timezone-aware")
        if not self.slot_key:
            raise InputError(f"fact {self.id}: empty slot key")


@dataclass(frozen=True, slots=True)
class Transition:
    """One state change (or soft link) the store should record.

    Attributes:
        from_id: the fact whose state changes (always the earlier fact of the pair).
        to_id: the later fact that caused it.
        new_state: the state ``from_id`` moves to (unchanged ``active`` for soft links).
        kind: supersede, soft, retract or complete.
        confidence: the acting fact's confidence.
        at: when it happened in world time: the acting fact's ``observed_at``.
        reason: a human-readable justification.
    """

    from_id: str
    to_id: str | None
    new_state: LifecycleState
    kind: TransitionKind
    confidence: float
    at: datetime
    reason: str


_RANK: Final[dict[LifecycleState, int]] = {
    LifecycleState.ACTIVE: 0,
    LifecycleState.SUPERSEDED: 1,
    LifecycleState.RETRACTED: 2,
}
"""Slot-controlled states in the only order decisions may move them."""

#: What a transition's reason says when the acting fact is the newer one of a pair whose
#: earlier fact arrived (or came back) last.
LATE_ARRIVAL: Final = " (arrived after the newer fact)"

_EXPLICIT: Final = {Marker.RETRACTION: (LifecycleState.RETRACTED, TransitionKind.RETRACT),
                    Marker.COMPLETION: (LifecycleState.SUPERSEDED, TransitionKind.COMPLETE)}


@dataclass(frozen=True, slots=True)
class _Outcome:
    earlier: SlotFact
    later: SlotFact
    new_state: LifecycleState
    kind: TransitionKind
    reason: str


def in_scope(key: str, scope: str) -> bool:
    """Whether ``key`` is ``scope`` or a slot under it (``scope|...``)."""
    return key == scope or key.startswith(scope + "|")


def _chronological(a: SlotFact, b: SlotFact) -> tuple[SlotFact, SlotFact]:
    return (a, b) if (a.observed_at, a.id) < (b.observed_at, b.id) else (b, a)


def _pair(earlier: SlotFact, later: SlotFact, policy: PolicyTable, *, soft_supersession: bool,
          untyped: bool) -> _Outcome | None:
    """What ``later`` does to ``earlier``, from the two facts alone."""
    explicit = _EXPLICIT.get(later.marker)
    if explicit is not None:
        if not in_scope(earlier.slot_key, later.slot_key) or earlier.marker is later.marker:
            return None  # a retraction does not retract the previous retraction statement
        state, kind = explicit
        threshold = 0.0 if untyped else policy.explicit_marker_threshold
        what = f"{later.marker.value} of slot {later.slot_key!r}"
    else:
        if earlier.slot_key != later.slot_key:
            return None
        state, kind = LifecycleState.SUPERSEDED, TransitionKind.SUPERSEDE
        if untyped:
            threshold = 0.0  # App. AD: latest slot wins
        elif later.marker is Marker.TENTATIVE and soft_supersession:
            return _Outcome(earlier, later, LifecycleState.ACTIVE, TransitionKind.SOFT,
                            f"tentative statement in slot {later.slot_key!r}: both kept, "
                            f"ambiguous")
        else:
            threshold = max(policy.categories[later.category].supersede_threshold,
                            policy.categories[earlier.category].supersede_threshold)
        semantics = {policy.categories[c].supersession.value
                     for c in (earlier.category, later.category)}
        what = f"newer value in slot {later.slot_key!r} ({'/'.join(sorted(semantics))})"
    if later.confidence >= threshold:
        return _Outcome(earlier, later, state, kind,
                        f"{what}, confidence {later.confidence:.2f} >= {threshold:.2f}")
    if not soft_supersession:
        return None
    return _Outcome(earlier, later, LifecycleState.ACTIVE, TransitionKind.SOFT,
                    f"{what}, confidence {later.confidence:.2f} < {threshold:.2f}: both kept, "
                    f"ambiguous")


def _strength(outcome: _Outcome) -> tuple[int, datetime, str]:
    return (_RANK[outcome.new_state], outcome.later.observed_at, outcome.later.id)


def _transition(outcome: _Outcome, current: LifecycleState, *, late: bool
                ) -> Transition | None:
    if current not in _RANK:
        return None  # expired / archived facts are outside slot decisions
    if outcome.kind is TransitionKind.SOFT:
        if current is not LifecycleState.ACTIVE:
            return None
    elif _RANK[outcome.new_state] <= _RANK[current]:
        return None  # states only move up, so order of arrival cannot matter
    reason = outcome.reason + (LATE_ARRIVAL if late else "")
    return Transition(
        from_id=outcome.earlier.id,
        to_id=outcome.later.id,
        new_state=outcome.new_state,
        kind=outcome.kind,
        confidence=outcome.later.confidence,
        at=outcome.later.observed_at,
        reason=reason,
    )


def decide(existing: Sequence[SlotFact], new: SlotFact, policy: PolicyTable, *,
           soft_supersession: bool = True, untyped: bool = False) -> list[Transition]:
    """The transitions a new fact causes among the facts already stored.

    Args:
        existing: stored facts that may share the new fact's slot (others are ignored), in
            any order; pass the slot's facts and, for retractions/completions, those of the
            slots under it.
        new: the incoming fact.
        policy: supplies the per-category thresholds and the explicit-marker threshold.
        soft_supersession: False turns low-confidence and tentative cases into no-ops
            (binary supersession) instead of soft links.
        untyped: the App. AD arm: latest slot wins, retractions always act, no thresholds.

    Returns:
        Transitions for existing facts the new one acts on, plus at most one for the new
        fact itself when a newer stored fact acts on it (out-of-order arrival). Applying
        them in any order is safe: no transition lowers a state.
    """
    transitions: list[Transition] = []
    acting_on_new: list[_Outcome] = []
    for old in existing:
        if old.id == new.id:
            continue
        earlier, later = _chronological(old, new)
        outcome = _pair(earlier, later, policy, soft_supersession=soft_supersession,
                        untyped=untyped)
        if outcome is None:
            continue
        if earlier is old:
            step = _transition(outcome, old.state, late=False)
            if step is not None:
                transitions.append(step)
        else:
            acting_on_new.append(outcome)
    if acting_on_new:
        step = _transition(max(acting_on_new, key=_strength), new.state, late=True)
        if step is not None:
            transitions.append(step)
    return transitions


def replay(facts: Iterable[SlotFact], policy: PolicyTable, *, soft_supersession: bool = True,
           untyped: bool = False) -> dict[str, LifecycleState]:
    """Ingest ``facts`` one by one in the given order and return the final states.

    Each fact enters with its own ``state``; transitions are applied as :func:`decide`
    returns them. Useful to rebuild a slot's states from its history.
    """
    states: dict[str, LifecycleState] = {}
    seen: list[SlotFact] = []
    for fact in facts:
        if fact.id in states:
            raise InputError(f"fact {fact.id} appears twice")
        current = [_with_state(f, states[f.id]) for f in seen]
        incoming = fact
        states[fact.id] = fact.state
        for step in decide(current, incoming, policy, soft_supersession=soft_supersession,
                           untyped=untyped):
            states[step.from_id] = step.new_state
        seen.append(fact)
    return states


def _with_state(fact: SlotFact, state: LifecycleState) -> SlotFact:
    if fact.state is state:
        return fact
    return SlotFact(fact.id, fact.slot_key, fact.category, fact.marker, fact.observed_at,
                    fact.confidence, state)

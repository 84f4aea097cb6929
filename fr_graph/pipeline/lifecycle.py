"""Lifecycle transitions for facts entering a group: import, ``add_episode`` and backfill.

A batch of new overlays goes through four steps, all in :func:`apply_transitions`:

1. **Load** (one query, ``lifecycle_facts``): the stored facts that share a slot with the
   batch, the slots above each key (a stored retraction of ``user|trip`` acts on a late
   ``user|trip|hotel``) and the slots under it (a new retraction of ``user|trip`` acts on
   them).
2. **Decide** (pure, :class:`Planner`): the core's :func:`~fr_graph.core.supersession.decide`
   for each new fact in ``observed_at`` order, each decided fact fed forward to the next.
   An older fact imported after a newer one is judged as the earlier fact of the pair, so it
   never supersedes the newer one and may enter non-active.
3. **Retract by meaning** (``retraction_candidates``, only when needed): a retraction whose
   slot holds no earlier statement looks for the plan it cancels among the facts of its
   subject entity (:func:`select_retraction_targets`; deliberately conservative).
4. **Write** (one atomic query, ``apply_lifecycle``): new FrFacts, state changes, one
   ``FR_SUPERSEDES {kind, confidence, at, reason}`` edge per transition (newer -> older,
   MERGEd, so re-runs never duplicate), Graphiti's ``invalid_at`` on hard-superseded edges
   and the ``fr_*`` mirror of everything touched. Either all of a batch is written or none
   of it: a re-run after a crash finds the same stored states and makes the same decisions.

Mapping to Graphiti's validity fields, both directions (so a plain Graphiti reader and
fr-graph agree on what is current):

- fr-graph -> Graphiti. When fact N hard-supersedes, retracts or completes an older fact
  (not for soft links: both stay valid), the older edge gets ``invalid_at := N.observed_at``
  (the world time of the change) and ``expired_at := now``, each only if unset: what
  Graphiti's own contradiction handling writes.
- Graphiti -> fr-graph (:func:`graphiti_evidence`, on backfill and after ``add_episode``).
  ``invalid_at <= now``, or ``expired_at`` set without ``invalid_at``: Graphiti (its LLM)
  judged the fact contradicted or ended, so it is ``superseded`` with
  ``valid_to := invalid_at``, and ``link_graphiti_invalidations`` links it from the fact
  whose edge shares an endpoint and has ``valid_at == invalid_at``. ``invalid_at`` in the
  future: still ``active``, with ``valid_to := invalid_at`` (the reranker closes it then).
"""

from __future__ import annotations

import hashlib
import re
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, Final

import numpy as np

from fr_graph.classify.linking import (
    LinkVerifier,
    OfflineVerifier,
    PairInput,
    Reading,
    TextCues,
    evidence,
    names_day_ahead,
    read_pairs,
    text_cues,
)
from fr_graph.core.lifecycle import LifecycleState, Marker
from fr_graph.core.linking import RELATIONS, LinkBands, LinkDecision, Relation, decide_link
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.supersession import (
    LATE_ARRIVAL,
    SlotFact,
    Transition,
    TransitionKind,
    decide,
    in_scope,
)
from fr_graph.core.text import FUNCTION_WORDS, words
from fr_graph.overlay import FactOverlay, from_iso, to_iso
from fr_graph.stores.base import GraphStore, QueryRunner

#: Categories whose facts are plans a retraction can call off by meaning alone.
PLAN_CATEGORIES: Final = frozenset({Category.PROJECTS, Category.OBLIGATIONS,
                                    Category.LOGISTICAL})
#: e5-small puts unrelated personal facts at cosine ~0.80-0.85 and a plan and its
#: cancellation at ~0.86-0.91 ("cancelled the trip to Tokyo" / "planning a trip to Tokyo"
#: 0.89, / "planning a trip to Lisbon" 0.83). Below this, no semantic retraction.
RETRACTION_MIN_COSINE: Final = 0.86
#: Only targets within this of the best match are taken (a plan's facts score alike; an
#: unrelated plan sharing a generic word scores lower).
RETRACTION_MARGIN: Final = 0.03

_RANK: Final = {LifecycleState.ACTIVE: 0, LifecycleState.SUPERSEDED: 1,
                LifecycleState.RETRACTED: 2}
#: Links that only contest (both facts stay active, flagged ambiguous).
_SOFT_KINDS: Final = frozenset({TransitionKind.SOFT, TransitionKind.CONTRADICT})
#: The linker's candidates: this many nearest facts per new fact, at or above this cosine
#: (e5-small puts a fact and its update at 0.85-0.95, unrelated personal facts at 0.75-0.85;
#: the verifier, not the floor, separates them).
LINK_NEIGHBOURS: Final = 8
#: How sure the verifier must be that a note with no plan cue was completed
#: (:func:`_finishes_undertaking`); the completes band (0.80) is for plans. On the
#: development timelines, links this guard had blocked at 0.90 and above were right 23 times
#: and wrong twice; from 0.80, right 32 and wrong 5 (BENCHMARKS.md).
UNDERTAKING_COMPLETION_MIN: Final = 0.90
LINK_MIN_COSINE: Final = 0.78
_WORD = re.compile(r"[a-z0-9]+")
_ENDING_MARKERS: Final = (Marker.RETRACTION, Marker.COMPLETION)
# Words that say *that* something is a plan or is off, not *which* plan it is.
_GENERIC_WORDS: Final = FUNCTION_WORDS | words("""
user plan plans planned planning going want wants wanted decided decide cancel cancels
cancelled canceled cancelling canceling call called calling scrap scrapped scrapping drop
dropped dropping longer anymore dead never instead thing idea back backed abandon abandoned
gave give giving retract retracted forget forgot
""")


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def graphiti_evidence(invalid_at: datetime | None, expired_at: datetime | None,
                      now: datetime) -> tuple[LifecycleState, datetime | None]:
    """What Graphiti's validity fields say about a fact (see the module's mapping table).

    Returns:
        The state the fact is in at least (``active`` when Graphiti says nothing) and its
        ``valid_to`` (Graphiti's ``invalid_at``, None when unset).
    """
    if invalid_at is not None:
        ends = _utc(invalid_at)
        return (LifecycleState.SUPERSEDED if ends <= now else LifecycleState.ACTIVE), ends
    if expired_at is not None:
        return LifecycleState.SUPERSEDED, None
    return LifecycleState.ACTIVE, None


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 3} - _GENERIC_WORDS


@dataclass(frozen=True, slots=True)
class RetractionCandidate:
    """A fact a retraction may call off: its id, text and cosine to the retraction."""

    id: str
    fact: str
    score: float


def select_retraction_targets(retraction: str, candidates: Sequence[RetractionCandidate]
                              ) -> list[RetractionCandidate]:
    """The facts a retraction calls off by meaning alone (pure; best first).

    ``candidates`` must already be eligible (active plan facts of the retraction's subject,
    stated before it). A target needs cosine >= :data:`RETRACTION_MIN_COSINE`, a specific word
    in common with the retraction (a name or a noun, not "plan" or "cancel"), and a score
    within :data:`RETRACTION_MARGIN` of the best such candidate. When in doubt, nothing.
    """
    words = _words(retraction)
    close = [c for c in candidates
             if c.score >= RETRACTION_MIN_COSINE and words & _words(c.fact)]
    if not close:
        return []
    best = max(c.score for c in close)
    return sorted((c for c in close if c.score >= best - RETRACTION_MARGIN),
                  key=lambda c: (-c.score, c.id))


@dataclass(slots=True)
class _Fact:
    """One fact's lifecycle view while a batch is planned (stored or new)."""

    id: str
    slot_key: str | None
    category: Category
    marker: Marker
    observed_at: str | None
    confidence: float
    state: LifecycleState
    ambiguous: bool
    valid_to: str | None
    slot_source: str = "given"
    contested: float = 0.0
    slot_hint: str | None = None
    overlay: FactOverlay | None = None  # set for the batch's new facts
    changed: bool = False
    observed: datetime | None = field(init=False)  # observed_at, parsed once

    def __post_init__(self) -> None:
        self.observed = from_iso(self.observed_at)

    @classmethod
    def stored(cls, row: Mapping[str, Any]) -> _Fact:
        return cls(
            id=row["edge_uuid"], slot_key=row.get("slot_key"),
            category=Category(row.get("category") or Category.OTHER),
            marker=Marker(row.get("marker") or Marker.ASSERTION),
            observed_at=row.get("observed_at"),
            confidence=float(row.get("confidence") or 0.0),
            state=LifecycleState(row.get("state") or LifecycleState.ACTIVE),
            ambiguous=bool(row.get("ambiguous")), valid_to=row.get("valid_to"),
            slot_source=row.get("slot_source") or "given", slot_hint=row.get("slot_hint"),
            contested=float(row.get("contested") or 0.0),
        )

    @classmethod
    def new(cls, overlay: FactOverlay) -> _Fact:
        return cls(
            id=overlay.edge_uuid, slot_key=overlay.slot_key, category=overlay.category,
            marker=overlay.marker, observed_at=overlay.observed_at,
            confidence=overlay.confidence, state=overlay.state, ambiguous=overlay.ambiguous,
            valid_to=overlay.valid_to, slot_source=overlay.slot_source,
            slot_hint=overlay.slot_hint, contested=overlay.contested, overlay=overlay,
        )

    def slot(self) -> SlotFact | None:
        if not self.slot_key or self.observed is None:
            return None  # facts without a slot take no part in slot decisions
        return SlotFact(self.id, self.slot_key, self.category, self.marker, self.observed,
                        min(1.0, max(0.0, self.confidence)), self.state)


@dataclass(frozen=True, slots=True)
class Link:
    """One ``FR_SUPERSEDES`` edge: ``newer`` acted on ``older``."""

    newer: str
    older: str
    kind: TransitionKind
    confidence: float
    at: str
    reason: str
    relation: str | None = None  # the verifier's, for links made by meaning
    score: float | None = None
    reader: str | None = None  # which of the verifier's readers scored it

    def to_row(self) -> dict[str, Any]:
        return {"newer": self.newer, "older": self.older, "kind": str(self.kind),
                "confidence": self.confidence, "at": self.at, "reason": self.reason,
                "relation": self.relation, "score": self.score, "reader": self.reader}


@dataclass(frozen=True, slots=True)
class LinkPair:
    """A pair the linker asks the verifier about: two fact ids in time order, and the
    verifier's input (both texts and vectors)."""

    earlier: str
    later: str
    texts: PairInput


@dataclass(slots=True)
class LifecycleOutcome:
    """What one batch did. ``transitions`` counts links by kind (supersede, soft, ...)."""

    created: int = 0
    updated: int = 0
    transitions: Counter[str] = field(default_factory=Counter)
    graphiti_invalidated: int = 0
    #: The linker's share: pairs the verifier judged, and the seconds of its candidate
    #: query, verdicts and decisions (inside the unit of work).
    link_pairs: int = 0
    link_seconds: float = 0.0


class Planner:
    """Decides a batch against the stored facts it can interact with (pure, no I/O).

    Example:
        >>> planner = Planner(PolicyTable.default(), stored_rows)      # doctest: +SKIP
        >>> planner.add(new_overlays)
        >>> planner.retract(retraction_id, targets)
        >>> params = planner.write_params()
    """

    def __init__(self, policy: PolicyTable, stored: Iterable[Mapping[str, Any]] = ()) -> None:
        self.policy = policy
        self.facts: dict[str, _Fact] = {}
        self._by_key: dict[str, list[str]] = {}
        self.links: dict[tuple[str, str], Link] = {}
        self.invalidations: dict[str, datetime] = {}
        self._slot_matched: set[str] = set()  # new retractions with statements in scope
        self._remirror: set[str] = set()
        for row in stored:
            self._index(_Fact.stored(row))

    def _index(self, fact: _Fact) -> None:
        self.facts[fact.id] = fact
        if fact.slot_key:
            self._by_key.setdefault(fact.slot_key, []).append(fact.id)

    def _related(self, key: str) -> list[_Fact]:
        """Facts in ``key``'s slot, the slots above it and the slots under it."""
        parts = key.split("|")
        keys = {"|".join(parts[:n]) for n in range(1, len(parts) + 1)}
        keys.update(k for k in self._by_key if k.startswith(key + "|"))
        return [self.facts[i] for k in keys for i in self._by_key.get(k, ())]

    def resaved(self, fact_ids: Iterable[str]) -> None:
        """Stored facts whose Graphiti edges were saved again: re-apply their mirror and
        ``invalid_at`` (Graphiti's save replaces every property of the edge)."""
        for fact_id in fact_ids:
            fact = self.facts[fact_id]
            self._remirror.add(fact_id)
            ended = from_iso(fact.valid_to)
            if _RANK.get(fact.state, 0) > 0 and ended is not None:
                self.invalidations.setdefault(fact_id, ended)

    def apply_evidence(self, fact_id: str, state: LifecycleState,
                       valid_to: datetime | None) -> None:
        """Raise a fact to what Graphiti's own fields say (never lowers a state)."""
        fact = self.facts.get(fact_id)
        if fact is None:
            return
        if _RANK.get(state, 0) > _RANK.get(fact.state, 3):
            fact.state, fact.changed = state, True
        if valid_to is not None and fact.valid_to is None:
            fact.valid_to, fact.changed = to_iso(valid_to), True

    def retract_on_request(self, fact_id: str, at: datetime) -> bool:
        """The user asked to forget ``fact_id`` (``fr-graph forget``): retracted as a
        retracting statement would retract it (validity closed, Graphiti's ``invalid_at``),
        from any other state. The transition edge comes from the request, not from a fact,
        so the caller records it. False when the fact was retracted already."""
        fact = self.facts[fact_id]
        if fact.state is LifecycleState.RETRACTED:
            return False
        fact.state, fact.changed = LifecycleState.RETRACTED, True
        if fact.valid_to is None:
            fact.valid_to = to_iso(at)
        self.invalidations.setdefault(fact_id, at)
        return True

    def add(self, overlays: Iterable[FactOverlay]) -> None:
        """Decide each new fact in ``observed_at`` order against everything known so far."""
        for overlay in sorted(overlays, key=lambda o: (o.observed_at or "", o.edge_uuid)):
            fact = _Fact.new(overlay)
            slot = fact.slot()
            if slot is not None:
                key = (fact.observed_at or "", fact.id)
                if fact.marker is Marker.RETRACTION and any(
                        f.marker is not Marker.RETRACTION and (f.observed_at or "", f.id) < key
                        and in_scope(f.slot_key or "", slot.slot_key)
                        for f in self._related(slot.slot_key)):
                    self._slot_matched.add(fact.id)
                self.facts[fact.id] = fact  # transitions may act on the new fact itself
                self._enter_slot(fact, slot)
            self._index(fact)

    def reenter(self, fact_id: str, spared: Iterable[str] = ()) -> None:
        """A stored fact comes back into its slot (``restore`` of an archived fact): decided
        against the facts of its slot as if it arrived now, by ``observed_at`` like any
        late fact. A newer value of the slot supersedes it; if it is the newest, it acts on
        the slot's older facts. Only an active fact re-enters (a superseded or retracted one
        cannot become a second head). ``spared``: facts the user kept beside it (reverted
        links), never linked to it again. Each reason says it happened on restore."""
        fact = self.facts[fact_id]
        slot = fact.slot()
        if slot is None or fact.state is not LifecycleState.ACTIVE:
            return
        self._enter_slot(fact, slot, spared=frozenset(spared), restored=True)

    def clashing_heads(self, fact_id: str, spared: Iterable[str] = ()) -> list[str]:
        """The other active facts of an active fact's slot that nothing reconciles with it
        (no reverted link in ``spared``, not both ambiguous, not both retraction or
        completion statements), sorted: two heads, as ``fr-graph check`` sees them.
        Empty for a fact with no slot or no ``observed_at`` (out of slot decisions)."""
        fact = self.facts[fact_id]
        if (not fact.slot_key or fact.observed is None
                or fact.state is not LifecycleState.ACTIVE):
            return []
        skip = {fact_id, *spared}
        return sorted(f.id for f in self._related(fact.slot_key)
                      if f.slot_key == fact.slot_key and f.id not in skip
                      and f.state is LifecycleState.ACTIVE and f.observed is not None
                      and not _may_stand_together(f, fact))

    def _enter_slot(self, fact: _Fact, slot: SlotFact, *, spared: frozenset[str] = frozenset(),
                    restored: bool = False) -> None:
        """Apply what :func:`decide` says ``fact`` (entering ``slot``) and the facts related
        to its slot do to each other."""
        key = (fact.observed_at or "", fact.id)
        # decide() only moves states up and soft-links active facts, so an earlier
        # fact already past what this one could do is left out: a long slot history
        # costs its active part, not its length.
        reach = _RANK[LifecycleState.SUPERSEDED] if fact.marker is Marker.RETRACTION \
            else _RANK[LifecycleState.ACTIVE]
        existing = [f.slot() for f in self._related(slot.slot_key)
                    if f.id != fact.id and f.id not in spared
                    and (_RANK.get(f.state, 3) <= reach or (f.observed_at or "", f.id) > key)]
        steps = decide([s for s in existing if s is not None], slot, self.policy)
        # A soft statement is linked to the latest value it competes with only: the
        # older ones are chained to that one already, so soft links grow with a
        # slot's history, not with its square (all of them are flagged ambiguous).
        latest_soft = max(
            (s for s in steps if s.kind is TransitionKind.SOFT and s.to_id == fact.id),
            key=lambda s: (self.facts[s.from_id].observed_at or "", s.from_id),
            default=None)
        for step in steps:
            link = (step.kind is not TransitionKind.SOFT or step.to_id != fact.id
                    or step is latest_soft)
            if restored:
                late = step.reason.endswith(LATE_ARRIVAL)
                step = replace(step, reason=step.reason.removesuffix(LATE_ARRIVAL)
                               + (" (restored from the archive after the newer fact)" if late
                                  else " (restored from the archive)"))
            self._apply(step, link=link)

    def _apply(self, step: Transition, *, link: bool = True, relation: str | None = None,
               score: float | None = None, reader: str | None = None) -> None:
        older = self.facts[step.from_id]
        acting = self.facts[step.to_id] if step.to_id else None
        if step.kind in _SOFT_KINDS:
            for fact in (older, acting):
                if fact is not None and not fact.ambiguous:
                    fact.ambiguous, fact.changed = True, True
        elif _RANK[step.new_state] > _RANK.get(older.state, 3):  # superseded or retracted
            older.state, older.changed = step.new_state, True
            if older.valid_to is None:
                older.valid_to = to_iso(step.at)
            self.invalidations.setdefault(older.id, step.at)
        if link and step.to_id is not None:
            self.links[(step.to_id, step.from_id)] = Link(
                step.to_id, step.from_id, step.kind, step.confidence, to_iso(step.at) or "",
                step.reason, relation, score, reader)

    # -- retraction by meaning ----------------------------------------------------------

    def unmatched_retractions(self) -> list[str]:
        """New retractions whose slot key found no statement to act on, in any state (a
        plan already called off by slot key is not looked for again by meaning)."""
        return [f.id for f in self.facts.values()
                if f.overlay is not None and f.marker is Marker.RETRACTION
                and f.overlay.slot_source == "given"  # the linker decides the others
                and f.id not in self._slot_matched]

    def eligible_target(self, retraction_id: str, fact_id: str, row: Mapping[str, Any]
                        ) -> bool:
        """An active, non-retraction plan fact stated before the retraction.

        Known facts are judged on their current (planned) state; others on the stored
        overlay fields in ``row``; facts with no overlay at all are never targets.
        """
        known = self.facts.get(fact_id)
        if known is None:
            if row.get("state") is None:
                return False
            known = _Fact.stored({**row, "edge_uuid": fact_id})
            self._index(known)
        retraction = self.facts[retraction_id]
        return (known.state is LifecycleState.ACTIVE and known.category in PLAN_CATEGORIES
                and known.marker is not Marker.RETRACTION
                and (known.observed_at or "") < (retraction.observed_at or ""))

    def retract(self, retraction_id: str, targets: Sequence[RetractionCandidate]) -> None:
        """Record a semantic retraction of ``targets`` (see :func:`select_retraction_targets`).

        Like a slot-key retraction it needs the policy's explicit-marker confidence;
        below it, the pair is a soft (ambiguous) link.
        """
        retraction = self.facts[retraction_id]
        at = from_iso(retraction.observed_at) or datetime.now(UTC)
        hard = retraction.confidence >= self.policy.explicit_marker_threshold
        for target in targets:
            self._apply(Transition(
                from_id=target.id, to_id=retraction_id,
                new_state=LifecycleState.RETRACTED if hard else LifecycleState.ACTIVE,
                kind=TransitionKind.RETRACT if hard else TransitionKind.SOFT,
                confidence=retraction.confidence, at=at,
                reason=(f"retraction matched by meaning (cosine {target.score:.2f}), "
                        f"confidence {retraction.confidence:.2f}"
                        + ("" if hard else ": both kept, ambiguous")),
            ))

    # -- linking by meaning -------------------------------------------------------------

    def link_probes(self) -> list[str]:
        """New facts whose slot was only proposed by the rules: the linker decides them."""
        return sorted(f.id for f in self.facts.values()
                      if f.overlay is not None and f.slot_source == "inferred")

    def link_pairs(self, rows: Sequence[Mapping[str, Any]]) -> list[LinkPair]:
        """The (earlier, later) pairs of ``link_candidates`` rows that the verifier must judge.

        Each pair is ordered by ``observed_at``, so a fact imported after a newer one can
        enter superseded. Pairs the user reverted, world knowledge and facts without an
        overlay are skipped; a pair found from both ends is judged once.
        """
        pairs: dict[tuple[str, str], LinkPair] = {}
        for row in rows:
            probe, other = row["probe"], row["uuid"]
            if row.get("reverted") or row.get("world_knowledge"):
                continue
            if other not in self.facts:
                if row.get("state") is None:
                    continue  # no overlay (a concurrent writer's half, or never annotated)
                self._index(_Fact.stored({**row, "edge_uuid": other}))
            a, b = self.facts[probe], self.facts[other]
            if a.observed is None or b.observed is None:
                continue
            sides = {probe: (row["probe_fact"] or "", row["probe_embedding"]),
                     other: (row["fact"] or "", row["embedding"])}
            earlier, later = (a, b) if (a.observed, a.id) < (b.observed, b.id) else (b, a)
            if (earlier.id, later.id) not in pairs:
                (older_text, older_vector), (newer_text, newer_vector) = (
                    sides[earlier.id], sides[later.id])
                pairs[(earlier.id, later.id)] = LinkPair(earlier.id, later.id, PairInput(
                    older_text, newer_text, np.asarray(older_vector, dtype=np.float64),
                    np.asarray(newer_vector, dtype=np.float64)))
        # Decided in time order (ties by text), never by uuid: which chain a fact joins
        # depends on this order, and uuids differ between groups holding the same facts.
        return sorted(pairs.values(), key=lambda p: (
            self.facts[p.later].observed_at or "", self.facts[p.earlier].observed_at or "",
            p.texts.newer, p.texts.older))

    def apply_links(self, pairs: Sequence[LinkPair], reading: Reading,
                    bands: LinkBands) -> None:
        """Apply the verifier's verdicts on ``pairs`` (see :mod:`fr_graph.core.linking`);
        each link records the reader that scored it.

        A hedged later statement ("thinking about switching to oat milk") never changes the
        earlier fact's state: at most it contests it. Only an active earlier fact is acted
        on: superseded, retracted, expired and archived ones are left alone.
        """
        probabilities = reading.probabilities
        corrected = self._corrected(pairs, probabilities, bands)
        for index, (pair, probs, reader) in enumerate(
                zip(pairs, probabilities, reading.readers, strict=True)):
            decision = decide_link(probs, bands)
            if index in corrected:
                decision = LinkDecision(Relation.UPDATES, corrected[index], hard=True,
                                        linked=True)
            if not decision.linked:
                continue
            earlier, later = self.facts[pair.earlier], self.facts[pair.later]
            if earlier.state is not LifecycleState.ACTIVE:
                # Linking to a fact that is over already says nothing new. Acting on the
                # slot's current value instead ("chaining onto the head") hid true facts:
                # slots grown link by link hold unrelated facts, and their head is often
                # the statement that ended the plan (13 wrong and 2 right such hides on
                # bench/linking/timelines). A new fact ends only what it is linked to.
                continue
            if decision.hard and index not in corrected and (
                    later.marker is Marker.TENTATIVE
                    or not _may_end(earlier, decision, pair.texts)):
                decision = replace(decision, hard=False)
            if decision.hard:
                # Only a confident link makes one slot chain. A soft link joining slots
                # would let Omega demote the earlier fact, and soft links chain: on long
                # project conversations that hid still-true facts behind unrelated ones.
                self._join_slot(earlier, later, pair.texts.older)
            clues = "; ".join(evidence(pair.texts.older, pair.texts.newer))
            effect = "" if decision.hard else ": both kept, flagged ambiguous"
            self._apply(Transition(
                from_id=pair.earlier, to_id=pair.later, new_state=decision.new_state,
                kind=decision.kind, confidence=decision.probability,
                at=later.observed or datetime.now(UTC),
                reason=((f"corrected by a later statement (verifier {decision.probability:.2f}"
                         f" for updates, contradicts or refines, read by {reader})"
                         if index in corrected else
                         f"linked by meaning: {decision.relation.value} "
                         f"(verifier {decision.probability:.2f}, read by {reader}){effect}")
                        + (f"; {clues}" if clues else "")),
            ), relation=decision.relation.value, score=round(decision.probability, 4),
                reader=reader)
            if not decision.hard and later.marker is not Marker.TENTATIVE:
                self._contest(earlier, decision.probability)

    def _corrected(self, pairs: Sequence[LinkPair], probabilities: np.ndarray,
                   bands: LinkBands) -> dict[int, float]:
        """The pairs a correction ends: for each later fact that says an earlier statement
        was wrong ("I misremembered, the Vespa was 1700"), its one active earlier fact that
        the verifier links at all (an update, a contradiction or a refinement at the soft
        band) and that shares a word, a name or a number with it, and, where the correction
        names what was wrong ("Valeria is 25, not 24"), shares that; index -> probability.
        A shared name alone ended "Valeria got engaged" on development timelines.
        The verifier has no class for corrections: it reads them as refinements or
        contradictions, neither of which ends a fact."""
        columns = [RELATIONS.index(r) for r in
                   (Relation.UPDATES, Relation.CONTRADICTS, Relation.REFINES)]
        best: dict[str, tuple[float, int]] = {}
        for index, (pair, probs) in enumerate(zip(pairs, probabilities, strict=True)):
            newer, older = text_cues(pair.texts.newer), text_cues(pair.texts.older)
            if (not newer.correction or older.correction or older.reported
                    or self.facts[pair.earlier].state is not LifecycleState.ACTIVE
                    or not (older.words & newer.words or older.names & newer.names
                            or older.numbers & newer.numbers)
                    or (newer.disowned and not _says_any(older, newer.disowned))):
                continue
            score = float(sum(probs[c] for c in columns))
            if score >= bands.soft and score > best.get(pair.later, (0.0, -1))[0]:
                best[pair.later] = (score, index)
        return {index: round(min(score, 1.0), 4) for score, index in best.values()}

    @staticmethod
    def _contest(earlier: _Fact, probability: float) -> None:
        """Record that a later fact contests ``earlier`` with the verifier's ``probability``
        (the strongest such link counts). Below the hard band a link never changes a state
        or a slot, but a fact that is probably replaced should not rank as if nothing were
        said against it: ranking scales it like ``Omega`` does a contested slot value
        (``1 - gamma * contested``). A hedged later statement contests nothing."""
        probability = round(min(1.0, max(0.0, probability)), 4)
        if probability > earlier.contested:
            earlier.contested, earlier.changed = probability, True

    def link_slots(self, pairs: Sequence[LinkPair]) -> list[str]:
        """The slot keys a hard link of ``pairs`` can make a new fact join: the linker
        needs each one's current facts (:meth:`know`) to keep one head per slot
        (:meth:`_join_slot`)."""
        return sorted({key for p in pairs for fact_id in (p.earlier, p.later)
                       if (key := self.facts[fact_id].slot_key)})

    def know(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Stored facts (``lifecycle_facts`` rows) the planner may act on; known ones are
        kept as planned."""
        for row in rows:
            if row["edge_uuid"] not in self.facts:
                self._index(_Fact.stored(row))

    def _join_slot(self, earlier: _Fact, later: _Fact, earlier_text: str) -> None:
        """Put a linked pair in one slot: an existing key wins, else the rules' proposal
        with the chain's first fact as instance (so two chains never merge by accident):
        a digest of its text, so the key is the same in every group and on every rerun."""
        key = earlier.slot_key or later.slot_key
        if key is None:
            hint = earlier.slot_hint or later.slot_hint or "user|fact"
            digest = hashlib.sha1(earlier_text.encode("utf-8"), usedforsecurity=False)
            key = f"{hint}#{digest.hexdigest()[:8]}"
        if any(f.slot_key == key and f.id not in (earlier.id, later.id)
               and f.state is LifecycleState.ACTIVE and not _may_stand_together(f, later)
               for f in self._related(key)):
            # The slot has another current value (one of a contested pair): joining would
            # make two heads, and the link is to ``earlier`` only, not to that value.
            return
        for fact in (earlier, later):
            if fact.slot_key is None:
                fact.slot_key, fact.slot_source, fact.changed = key, "linked", True
                self._by_key.setdefault(key, []).append(fact.id)

    # -- output -------------------------------------------------------------------------

    def outcome(self) -> LifecycleOutcome:
        return LifecycleOutcome(
            created=sum(f.overlay is not None for f in self.facts.values()),
            updated=sum(f.overlay is None and f.changed for f in self.facts.values()),
            transitions=Counter(str(link.kind) for link in self.links.values()),
            graphiti_invalidated=len(self.invalidations),
        )

    def write_params(self, now: datetime) -> dict[str, Any]:
        """Parameters of ``apply_lifecycle`` for everything decided so far."""
        overlays: list[dict[str, Any]] = []
        updates: list[dict[str, Any]] = []
        for fact in self.facts.values():
            if fact.overlay is not None:
                fact.overlay.state = fact.state
                fact.overlay.ambiguous = fact.ambiguous
                fact.overlay.valid_to = fact.valid_to
                fact.overlay.slot_key = fact.slot_key
                fact.overlay.slot_source = fact.slot_source
                fact.overlay.contested = fact.contested
                overlays.append(fact.overlay.to_row())
            elif fact.changed:
                updates.append({"edge_uuid": fact.id, "state": str(fact.state),
                                "ambiguous": fact.ambiguous, "valid_to": fact.valid_to,
                                "slot_key": fact.slot_key, "slot_source": fact.slot_source,
                                "contested": fact.contested})
        written = [row["edge_uuid"] for row in overlays + updates]
        return {
            "overlays": overlays,
            "updates": updates,
            "links": [link.to_row() for link in self.links.values()],
            "invalidations": [{"edge_uuid": uuid, "invalid_at": at}
                              for uuid, at in self.invalidations.items()],
            "now": now,
            "mirror": [*written, *sorted(self._remirror.difference(written))],
        }


def _may_end(earlier: _Fact, decision: LinkDecision, pair: PairInput) -> bool:
    """Whether a hard link may end ``earlier`` (else it only contests it).

    * A question asked or a thing read or heard ("User asked if the tap water is safe") is
      no state of the person, on either side of a link: it ends nothing and nothing ends it.
    * A one-off happening told with its moment ("Watched a film last night") is over when
      told: nothing updates it.
    * A note that adds a second one beside the one the earlier note names ("Bought a second
      budgie to keep Sonny company" after "Keeps a budgie called Sonny") updates nothing,
      unless it says the first one is gone.
    * Only a plan, project, booking or obligation can be completed or cancelled: on small
      talk ("Watched a film last night, pretty good") the verifier reads one finished event
      as completing another. A note that itself calls something off or reports it done
      ("The Lisbon trip is off") has nothing left to cancel or complete. A note that names
      a day ahead of when it was said ("Eye check at the hospital, 18 November") is on a
      calendar: a plan whatever its words, and the later note needs no change word to end
      it. Of the confident links the other rules blocked on the development timelines,
      those to such notes were right 24 times and wrong twice. A near-future arrangement
      told without a plan word ("Flying home to Jakarta for Lebaran", "moving to Denver
      this summer") is a plan too, and so, for a completion the later note states, is a
      thing under way ("Doing an online Playwright course on weekends"):
      :func:`_finishes_undertaking`.
    * A fact the rules could place in no category and no slot (a third of terse notes:
      "Backend dev at Shopify", small talk, strangers) is ended only when the later text
      says that something changed, stopped, was called off or was done: the verifier alone
      links such facts by their shape. Blocking them outright cost a quarter of the right
      hides on hand-written timelines (bench/linking/timelines) and spared no wrong one
      there.
    """
    older, newer = text_cues(pair.older), text_cues(pair.newer)
    if older.reported or newer.reported:
        return False
    if decision.relation is Relation.UPDATES and (
            older.episode or (newer.addition and older.names & (newer.names | newer.words))):
        return False
    if decision.relation in (Relation.COMPLETES, Relation.CANCELS):
        if earlier.marker in _ENDING_MARKERS:
            return False
        if earlier.observed is not None and names_day_ahead(pair.older, earlier.observed):
            return True
        if not (earlier.category in PLAN_CATEGORIES or older.plan or older.arrangement
                or _finishes_undertaking(decision, older, newer)):
            return False
    if earlier.category is Category.OTHER and not older.slot_key:
        return newer.change or newer.cancel or newer.complete or newer.negation
    return True


def _says_any(cues: TextCues, tokens: frozenset[str]) -> bool:
    """Whether a note says one of ``tokens``: a word matching a token's stem or extension
    ("buses" is "bus"), or a number the token shortens ("not 38" is 38,000; a note's 2 is
    not "24")."""
    words = cues.words | cues.names
    return (any(w.startswith(t) or t.startswith(w) for w in words for t in tokens)
            or any(n.startswith(t) for n in cues.numbers for t in tokens))


def _finishes_undertaking(decision: LinkDecision, older: TextCues, newer: TextCues) -> bool:
    """A course, a rehab, a saving or a build told without a plan word ("Doing an online
    Playwright course on weekends", "Saving to open his own tasca") is still under way, and
    a later note that says it is finished ends it: when that note says so in words, the
    verifier is sure, and the earlier note is neither a finished event, a dated one-off nor
    a habit (a habit goes on after one session of it)."""
    return (decision.relation is Relation.COMPLETES and newer.complete
            and decision.probability >= UNDERTAKING_COMPLETION_MIN
            and not (older.complete or older.episode or older.habit))


def _may_stand_together(a: _Fact, b: _Fact) -> bool:
    """Two active facts of one slot that are both active by design without a reverted link
    between them (:mod:`fr_graph.core.invariants`)."""
    return ((a.ambiguous and b.ambiguous)
            or (a.marker is b.marker and a.marker in _ENDING_MARKERS))


def _load_params(group_id: str, overlays: Sequence[FactOverlay],
                 edge_uuids: Iterable[str]) -> dict[str, Any]:
    keys: set[str] = set()
    prefixes: set[str] = set()
    for overlay in overlays:
        if not overlay.slot_key:
            continue
        parts = overlay.slot_key.split("|")
        keys.update("|".join(parts[:n]) for n in range(1, len(parts) + 1))
        prefixes.add(overlay.slot_key + "|")
    return {"group_id": group_id, "keys": sorted(keys), "prefixes": sorted(prefixes),
            "edge_uuids": sorted(set(edge_uuids))}


async def apply_transitions(
    store: GraphStore, group_id: str, overlays: Sequence[FactOverlay], policy: PolicyTable,
    *, evidence: Mapping[str, tuple[LifecycleState, datetime | None]] | None = None,
    now: datetime | None = None, verifier: LinkVerifier | None = None,
) -> LifecycleOutcome:
    """Write ``overlays`` (new facts whose Graphiti edges are already saved) with every
    lifecycle transition they cause, as one isolated unit (:meth:`GraphStore.transact`):
    two writers of a slot deciding from the same stored state would each keep their own
    version active. Arguments as in :func:`transition_batch`."""
    return await store.transact(group_id, lambda runner: transition_batch(
        runner, group_id, overlays, policy, evidence=evidence, now=now, verifier=verifier))


async def transition_batch(
    runner: QueryRunner, group_id: str, overlays: Sequence[FactOverlay], policy: PolicyTable,
    *, evidence: Mapping[str, tuple[LifecycleState, datetime | None]] | None = None,
    now: datetime | None = None, verifier: LinkVerifier | None = None,
) -> LifecycleOutcome:
    """Load, decide and write one batch in at most four round trips (see the module doc),
    inside a unit of work the caller holds (``runner`` is the store's transaction).

    Args:
        runner: the store, or its open transaction.
        group_id: the group all overlays belong to.
        overlays: the new facts; their state, ``ambiguous`` and ``valid_to`` are updated in
            place to what was decided. Facts another writer already stored are left as it
            decided them (only their mirror is re-applied).
        policy: the group's policy table (thresholds).
        evidence: stored facts Graphiti invalidated, ``edge_uuid -> (state, valid_to)`` from
            :func:`graphiti_evidence`; applied before any decision.
        now: the wall-clock time written as Graphiti's ``expired_at``.
        verifier: decides the links of facts whose slot was only proposed (default: the
            shipped offline verifier).
    """
    now = now or datetime.now(UTC)
    evidence = evidence or {}
    incoming = [o.edge_uuid for o in overlays]
    batch = [replace(o) for o in overlays]  # a retried unit starts from the caller's copy
    params = _load_params(group_id, batch, [*evidence, *incoming])
    stored: list[dict[str, Any]] = []
    if params["keys"] or params["edge_uuids"]:
        stored = await runner.run("lifecycle_facts", group_id, **params)
    present = {row["edge_uuid"] for row in stored}
    planner = Planner(policy, stored)
    # Another writer (a concurrent import of the same records) got there first: its
    # decisions stand; only the mirror Graphiti's re-save of the edge reset is redone.
    planner.resaved(present.intersection(incoming))
    for uuid, (state, valid_to) in evidence.items():
        planner.apply_evidence(uuid, state, valid_to)
    planner.add(o for o in batch if o.edge_uuid not in present)

    linkable = planner.link_probes()
    link_pairs, link_seconds = 0, 0.0
    if linkable:
        started = time.perf_counter()
        rows = await runner.link_candidates(group_id, linkable, LINK_NEIGHBOURS,
                                            LINK_MIN_COSINE)
        pairs = planner.link_pairs(rows)
        if pairs:
            slots = planner.link_slots(pairs)
            if slots:  # the slots a hard link may join, with their current heads
                planner.know(await runner.run("lifecycle_facts", group_id, group_id=group_id,
                                              keys=slots, prefixes=[], edge_uuids=[]))
            judge = verifier or OfflineVerifier()
            planner.apply_links(pairs, await read_pairs(judge, [p.texts for p in pairs]),
                                judge.bands)
        link_pairs, link_seconds = len(pairs), time.perf_counter() - started

    probes = planner.unmatched_retractions()
    if probes:
        rows = await runner.run("retraction_candidates", group_id, group_id=group_id,
                                probes=probes, min_cosine=RETRACTION_MIN_COSINE,
                                categories=sorted(str(c) for c in PLAN_CATEGORIES))
        by_probe: dict[str, tuple[str, list[RetractionCandidate]]] = {}
        for row in rows:
            text, found = by_probe.setdefault(row["probe"], (row["probe_fact"] or "", []))
            if planner.eligible_target(row["probe"], row["uuid"], row):
                found.append(RetractionCandidate(row["uuid"], row["fact"] or "",
                                                 float(row["score"])))
        for probe, (text, found) in sorted(by_probe.items()):
            planner.retract(probe, select_retraction_targets(text, found))

    write = planner.write_params(now)
    if write["overlays"] or write["updates"] or write["links"] or write["mirror"]:
        await runner.run("apply_lifecycle", group_id, **write)
    for original, final in zip(overlays, batch, strict=True):
        if original.edge_uuid not in present:
            original.state, original.ambiguous = final.state, final.ambiguous
            original.valid_to = final.valid_to
            original.slot_key, original.slot_source = final.slot_key, final.slot_source
    outcome = planner.outcome()
    outcome.link_pairs, outcome.link_seconds = link_pairs, link_seconds
    return outcome


async def apply_graphiti_evidence(
    store: GraphStore, group_id: str,
    evidence: Mapping[str, tuple[LifecycleState, datetime | None]], now: datetime,
) -> LifecycleOutcome:
    """Raise stored facts to what Graphiti's validity fields say (no slot decisions, so the
    policy plays no part). ``evidence`` as in :func:`apply_transitions`."""
    return await apply_transitions(store, group_id, [], PolicyTable.default(),
                                   evidence=evidence, now=now)


async def link_graphiti_invalidations(store: GraphStore, group_id: str) -> int:
    """Link facts Graphiti invalidated to the fact that did it (idempotent; group-wide)."""
    rows = await store.run("link_graphiti_invalidations", group_id, group_id=group_id)
    return len(rows)

"""Slot-key supersession decisions (§3.3, App. F, App. Z) and their order independence."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fr_graph.core.lifecycle import LifecycleState, Marker
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.supersession import (
    SlotFact,
    Transition,
    TransitionKind,
    decide,
    in_scope,
    replay,
)
from fr_graph.errors import InputError
from tests.unit.core.factory import NOW

POLICY = PolicyTable.default()
S, M, C = LifecycleState, Marker, Category


def fact(fid: str, key: str, days_ago: float, *, category: Category = C.PREFERENCES,
         marker: Marker = M.ASSERTION, confidence: float = 0.9,
         state: LifecycleState = S.ACTIVE) -> SlotFact:
    return SlotFact(fid, key, category, marker, NOW - timedelta(days=days_ago), confidence,
                    state)


def only(transitions: list[Transition]) -> Transition:
    assert len(transitions) == 1, transitions
    return transitions[0]


def test_confident_replacement_supersedes() -> None:
    """App. F: 'likes pizza' -> 'likes sushi' on (user, food_preference)."""
    pizza = fact("pizza", "user|food_preference", 10)
    sushi = fact("sushi", "user|food_preference", 1)
    step = only(decide([pizza], sushi, POLICY))
    assert (step.from_id, step.to_id, step.new_state, step.kind) == (
        "pizza", "sushi", S.SUPERSEDED, TransitionKind.SUPERSEDE)
    assert step.confidence == 0.9 and step.at == sushi.observed_at
    assert "0.90 >= 0.80" in step.reason


def test_tentative_statement_is_soft() -> None:
    """'Thinking about moving to London' keeps 'lives in Istanbul'."""
    istanbul = fact("ist", "user|current_city", 30, category=C.IDENTITY, confidence=0.95)
    london = fact("lon", "user|current_city", 1, category=C.IDENTITY, marker=M.TENTATIVE)
    step = only(decide([istanbul], london, POLICY))
    assert step.kind is TransitionKind.SOFT and step.new_state is S.ACTIVE
    assert "tentative" in step.reason


def test_accumulate_categories_need_095() -> None:
    istanbul = fact("ist", "user|current_city", 30, category=C.IDENTITY)
    moved = fact("lon", "user|current_city", 1, category=C.IDENTITY, confidence=0.9)
    assert only(decide([istanbul], moved, POLICY)).kind is TransitionKind.SOFT
    sure = fact("lon", "user|current_city", 1, category=C.IDENTITY, confidence=0.97)
    assert only(decide([istanbul], sure, POLICY)).kind is TransitionKind.SUPERSEDE


def test_low_confidence_replacement_is_soft() -> None:
    old = fact("a", "user|coffee", 5)
    new = fact("b", "user|coffee", 1, confidence=0.5)
    step = only(decide([old], new, POLICY))
    assert step.kind is TransitionKind.SOFT and "0.50 < 0.80" in step.reason


def test_cross_category_uses_the_stricter_threshold() -> None:
    old = fact("a", "user|city", 5, category=C.IDENTITY)
    new = fact("b", "user|city", 1, category=C.LOGISTICAL, confidence=0.9)
    assert only(decide([old], new, POLICY)).kind is TransitionKind.SOFT


def test_other_slots_are_untouched() -> None:
    assert decide([fact("a", "user|coffee", 5)], fact("b", "user|tea", 1), POLICY) == []
    assert decide([fact("a", "user|coffee", 5)], fact("a", "user|coffee", 5), POLICY) == []


def test_retraction_covers_the_slot_and_its_children() -> None:
    plan = fact("plan", "user|trip_tokyo", 20, category=C.LOGISTICAL)
    hotel = fact("hotel", "user|trip_tokyo|hotel", 19, category=C.LOGISTICAL)
    other = fact("other", "user|trip_tokyoish", 19, category=C.LOGISTICAL)
    cancel = fact("cancel", "user|trip_tokyo", 1, category=C.LOGISTICAL, marker=M.RETRACTION)
    steps = decide([plan, hotel, other], cancel, POLICY)
    assert {(s.from_id, s.new_state, s.kind) for s in steps} == {
        ("plan", S.RETRACTED, TransitionKind.RETRACT),
        ("hotel", S.RETRACTED, TransitionKind.RETRACT),
    }


def test_retraction_overrides_supersession_but_not_other_retractions() -> None:
    old = fact("old", "user|gym", 20, state=S.SUPERSEDED)
    first = fact("r1", "user|gym", 10, marker=M.RETRACTION)
    second = fact("r2", "user|gym", 1, marker=M.RETRACTION)
    steps = decide([old, first], second, POLICY)
    assert [(s.from_id, s.new_state) for s in steps] == [("old", S.RETRACTED)]


def test_low_confidence_retraction_is_soft() -> None:
    plan = fact("plan", "user|trip", 20)
    maybe = fact("maybe", "user|trip", 1, marker=M.RETRACTION, confidence=0.6)
    assert only(decide([plan], maybe, POLICY)).kind is TransitionKind.SOFT


def test_completion_closes_the_project() -> None:
    """'Writing thesis' -> 'Thesis defended'."""
    writing = fact("w", "user|thesis", 90, category=C.PROJECTS)
    defended = fact("d", "user|thesis", 1, category=C.PROJECTS, marker=M.COMPLETION)
    step = only(decide([writing], defended, POLICY))
    assert (step.new_state, step.kind) == (S.SUPERSEDED, TransitionKind.COMPLETE)


def test_out_of_order_arrival_never_supersedes_the_newer_fact() -> None:
    newer = fact("newer", "user|rent", 1, category=C.FINANCIAL)
    older = fact("older", "user|rent", 30, category=C.FINANCIAL)
    step = only(decide([newer], older, POLICY))
    assert (step.from_id, step.to_id, step.new_state) == ("older", "newer", S.SUPERSEDED)
    assert "arrived after the newer fact" in step.reason


def test_late_fact_gets_the_strongest_verdict_only() -> None:
    superseder = fact("s", "user|trip", 5)
    retraction = fact("r", "user|trip", 2, marker=M.RETRACTION)
    late = fact("late", "user|trip", 10)
    step = only(decide([superseder, retraction], late, POLICY))
    assert (step.from_id, step.new_state, step.to_id) == ("late", S.RETRACTED, "r")


def test_expired_and_archived_facts_are_left_alone() -> None:
    expired = fact("e", "user|coffee", 10, state=S.EXPIRED)
    archived = fact("a", "user|coffee", 9, state=S.ARCHIVED)
    assert decide([expired, archived], fact("n", "user|coffee", 1), POLICY) == []


def test_untyped_arm_is_latest_slot_wins() -> None:
    old = fact("a", "user|city", 5, category=C.IDENTITY)
    hedge = fact("b", "user|city", 1, category=C.IDENTITY, marker=M.TENTATIVE,
                 confidence=0.1)
    step = only(decide([old], hedge, POLICY, untyped=True))
    assert step.kind is TransitionKind.SUPERSEDE


def test_binary_supersession_drops_soft_links() -> None:
    old = fact("a", "user|coffee", 5)
    low = fact("b", "user|coffee", 1, confidence=0.5)
    assert decide([old], low, POLICY, soft_supersession=False) == []
    hedge = fact("c", "user|coffee", 1, marker=M.TENTATIVE, confidence=0.9)
    assert only(decide([old], hedge, POLICY, soft_supersession=False)).kind is \
        TransitionKind.SUPERSEDE


def test_cancel_then_reinstate() -> None:
    plan = fact("plan", "user|trip", 20)
    cancel = fact("cancel", "user|trip", 10, marker=M.RETRACTION)
    back_on = fact("back", "user|trip", 1)
    for order in itertools.permutations([plan, cancel, back_on]):
        assert replay(order, POLICY) == {
            "plan": S.RETRACTED, "cancel": S.SUPERSEDED, "back": S.ACTIVE}


def test_in_scope() -> None:
    assert in_scope("a|b", "a|b") and in_scope("a|b|c", "a|b")
    assert not in_scope("a|bc", "a|b") and not in_scope("a", "a|b")


def test_slot_fact_validation() -> None:
    with pytest.raises(InputError):
        fact("x", "k", 1, confidence=1.5)
    with pytest.raises(InputError):
        SlotFact("x", "k", C.OTHER, M.ASSERTION, NOW.replace(tzinfo=None), 0.5)
    with pytest.raises(InputError):
        fact("x", "", 1)
    with pytest.raises(InputError, match="twice"):
        replay([fact("x", "k", 1), fact("x", "k", 2)], POLICY)


# -- properties -----------------------------------------------------------------------------

KEYS = ["u|a", "u|a|x", "u|b"]


@st.composite
def histories(draw: st.DrawFn) -> list[SlotFact]:
    size = draw(st.integers(1, 7))
    facts = []
    for index in range(size):
        facts.append(fact(
            f"f{index}",
            draw(st.sampled_from(KEYS)),
            draw(st.integers(0, 6)),  # small range: many ties, exercised by id order
            category=draw(st.sampled_from([C.PREFERENCES, C.IDENTITY, C.PROJECTS])),
            marker=draw(st.sampled_from(list(Marker))),
            confidence=draw(st.sampled_from([0.3, 0.85, 0.97])),
        ))
    return facts


@settings(max_examples=300)
@given(histories(), st.randoms(use_true_random=False), st.booleans(), st.booleans())
def test_out_of_order_ingestion_reaches_the_same_states(
        facts: list[SlotFact], rng: object, soft: bool, untyped: bool) -> None:
    in_order = sorted(facts, key=lambda f: (f.observed_at, f.id))
    shuffled = list(facts)
    rng.shuffle(shuffled)  # type: ignore[attr-defined]
    expected = replay(in_order, POLICY, soft_supersession=soft, untyped=untyped)
    assert replay(shuffled, POLICY, soft_supersession=soft, untyped=untyped) == expected


@given(histories(), histories())
def test_decisions_never_lower_a_state(existing: list[SlotFact], incoming: list[SlotFact]
                                       ) -> None:
    rank = {S.ACTIVE: 0, S.SUPERSEDED: 1, S.RETRACTED: 2}
    stored = replay(existing, POLICY)
    current = [SlotFact(f.id, f.slot_key, f.category, f.marker, f.observed_at, f.confidence,
                        stored[f.id]) for f in existing]
    new = incoming[0]
    new = SlotFact("new", new.slot_key, new.category, new.marker, new.observed_at,
                   new.confidence)
    states = {f.id: f.state for f in current} | {"new": S.ACTIVE}
    for step in decide(current, new, POLICY):
        assert rank[step.new_state] >= rank[states[step.from_id]]
        assert step.to_id is not None and step.reason
        assert 0.0 <= step.confidence <= 1.0

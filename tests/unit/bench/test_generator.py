"""The LifecycleBench generator: deterministic, the promised size, and gold that is consistent."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import timedelta
from pathlib import Path

import pytest

from fr_graph.bench import phrases as ph
from fr_graph.bench.dataset import AttackVector, Suite
from fr_graph.bench.generator import EXPIRY_BUFFER, NUMBER_WORDS, generate, validate
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.policy import PolicyTable
from fr_graph.core.supersession import SlotFact, replay
from fr_graph.pipeline.records import FactRecord, parse_line


@pytest.fixture(scope="module")
def full() -> Suite:
    return generate(11, "full")


@pytest.fixture(scope="module")
def quick() -> Suite:
    return generate(3, "quick")


def _json(suite: Suite, path: Path) -> str:
    suite.write(path)
    return path.read_text()


def test_same_seed_same_suite_and_other_seed_differs(tmp_path: Path, full: Suite) -> None:
    assert generate(11, "full") == full
    assert _json(generate(3, "quick"), tmp_path / "c.json") == _json(generate(3, "quick"),
                                                                      tmp_path / "d.json")
    assert _json(generate(4, "quick"), tmp_path / "e.json") != (tmp_path / "c.json").read_text()


def test_full_size_invariants(full: Suite) -> None:
    assert len(full.personas) >= 40
    for persona in full.personas:
        span = persona.facts[-1].observed_at - persona.facts[0].observed_at
        assert persona.sessions >= 30
        assert len({f.session for f in persona.facts}) == persona.sessions
        assert timedelta(days=500) <= span <= timedelta(days=560)  # ~18 months
        assert 200 <= len(persona.facts) <= 350
        assert sum(not f.noise for f in persona.facts) >= 20
    total = sum(len(p.facts) for p in full.personas)
    assert 9_000 <= total <= 12_500
    per_vector = Counter(q.attack_vector for q in full.questions)
    assert set(per_vector) == set(AttackVector)
    assert min(per_vector.values()) >= 40


@pytest.mark.parametrize("size", ["quick", "full"])
def test_every_vector_has_both_splits_and_families_never_straddle(
        size: str, full: Suite, quick: Suite) -> None:
    suite = full if size == "full" else quick
    splits = {(q.attack_vector, q.split) for q in suite.questions}
    assert splits == {(v, s) for v in AttackVector for s in ("dev", "heldout")}
    owner: dict[str, str] = {}
    for item in [*suite.questions, *(f for p in suite.personas for f in p.facts)]:
        assert owner.setdefault(item.family, item.split) == item.split, item.family
    heldout = sum(f.split == "heldout" for p in suite.personas for f in p.facts)
    assert 0.15 <= heldout / sum(len(p.facts) for p in suite.personas) <= 0.45


def test_gold_is_consistent(full: Suite) -> None:
    assert validate(full) == []
    for seed in range(5):
        assert validate(generate(seed, "quick")) == []


def test_validate_catches_broken_gold(quick: Suite) -> None:
    persona = quick.personas[0]
    question = next(q for q in persona.questions if q.stale_ids)
    broken = Suite(quick.seed, quick.size, (type(persona)(
        persona.id, persona.facts,
        (type(question)(**{**{k: getattr(question, k) for k in question.__slots__},
                           "support_ids": question.stale_ids}),),
        persona.sessions),))
    problems = validate(broken)
    assert any("both support and stale" in p for p in problems)
    assert any("not active" in p or "is superseded" in p or "is retracted" in p
               or "is expired" in p for p in problems)


def test_support_state_at_query_time(full: Suite) -> None:
    """Current questions: active support; historical ones: superseded; stale: never active."""
    historical = 0
    for persona in full.personas:
        facts = {f.id: f for f in persona.facts}
        for q in persona.questions:
            states = {facts[i].state_at(q.query_time) for i in q.support_ids}
            if q.historical:
                historical += 1
                assert states == {LifecycleState.SUPERSEDED}
            else:
                assert states == {LifecycleState.ACTIVE}
            assert all(facts[i].state_at(q.query_time) is not LifecycleState.ACTIVE
                       for i in q.stale_ids)
            assert not set(q.support_ids) & set(q.stale_ids)
    assert historical >= 10


def test_gold_slot_states_match_the_policy_core(full: Suite) -> None:
    """Gold supersession/retraction equals core.supersession.replay with certain confidence."""
    policy = PolicyTable.default()
    for persona in full.personas:
        slotted = [f for f in persona.facts if f.slot_key]
        final = replay([SlotFact(f.id, f.slot_key or "", f.category, f.marker, f.observed_at, 1.0)
                        for f in slotted], policy)
        for fact in slotted:
            gold = [s for _, s in fact.states]
            if LifecycleState.EXPIRED not in gold:
                assert final[fact.id] is gold[-1], (fact.id, fact.text)


def test_expired_logistics_asked_before_and_after_events(full: Suite) -> None:
    before = after = 0
    for persona in full.personas:
        facts = {f.id: f for f in persona.facts}
        for q in persona.questions:
            if q.attack_vector is not AttackVector.EXPIRED_LOGISTICS:
                continue
            support = [facts[i].event_time for i in q.support_ids]
            assert all(t is not None and t > q.query_time for t in support)
            stale = [facts[i] for i in q.stale_ids]
            before += any(t is not None and t > q.query_time for t in support)
            after += any(f.event_time and f.event_time + EXPIRY_BUFFER < q.query_time
                         and f.id in {i for i in q.stale_ids} for f in stale)
    assert before >= 40 and after >= 20


def test_numbers_exempt_dated_facts_from_expiry(full: Suite) -> None:
    dated_bills = [f for p in full.personas for f in p.facts
                   if f.slot_key in ("user|car_repair", "user|vet_bill")]
    assert dated_bills and all(f.event_time is not None for f in dated_bills)
    assert all(LifecycleState.EXPIRED not in {s for _, s in f.states} for f in dated_bills)


def test_aggregation_needs_several_facts(full: Suite) -> None:
    for q in full.questions:
        if q.attack_vector is AttackVector.BROAD_AGGREGATION:
            assert q.min_support >= 2 and len(q.support_ids) >= q.min_support
        if q.attack_vector is AttackVector.SOFT_SUPERSESSION:
            assert q.min_support == 2 and not q.stale_ids


_RELATIVE = {"the day after tomorrow": 2, "tomorrow": 1, "a week from today": 7,
             "in two weeks": 14, "two weeks from today": 14}


def test_relative_dates_resolve_against_observed_at(full: Suite) -> None:
    checked = 0
    for fact in (f for p in full.personas for f in p.facts if f.event_time):
        text = fact.text.lower()
        days = next((d for phrase, d in _RELATIVE.items() if phrase in text), None)
        match = re.search(r"\bin (\d+|" + "|".join(NUMBER_WORDS) + r") days\b", text)
        if days is None and match:
            word = match.group(1)
            days = int(word) if word.isdigit() else NUMBER_WORDS.index(word)
        if days is not None:
            assert fact.event_time.date() - fact.observed_at.date() == timedelta(days=days), text
            checked += 1
    assert checked >= 25


def test_records_parse_with_and_without_gold(full: Suite) -> None:
    for persona in full.personas[:8]:
        for fact in persona.facts:
            for gold in (True, False):
                record = fact.to_record(persona.id, gold=gold)
                parsed = parse_line(json.dumps(record).encode())
                assert isinstance(parsed, FactRecord) and parsed.fact == fact.text
                if gold:
                    assert parsed.marker is fact.marker and parsed.category is fact.category


def test_write_read_roundtrip(tmp_path: Path, quick: Suite) -> None:
    path = tmp_path / "suite.json"
    quick.write(path)
    assert Suite.read(path) == quick


def test_every_template_kind_has_six_families() -> None:
    assert all(len(frames) >= 6 for frames in ph.FRAMES.values())
    question_sets = [t.questions for t in (*ph.PREFERENCE_TOPICS, *ph.CONTRADICTION_TOPICS,
                                           *ph.IDENTITY_TOPICS)]
    question_sets += [q for v in ph.VERSION_TOPICS for q in (v.current, v.before)]
    question_sets += [t.questions for t in ph.NUMERIC_TOPICS]
    question_sets += [*ph.AGGREGATE_QUESTIONS.values(), ph.PLAN_QUESTIONS, ph.EVENT_QUESTIONS]
    assert all(len(q) >= 6 for q in question_sets)
    assert [ph.family_split(i, 6) for i in range(6)] == ["dev"] * 4 + ["heldout"] * 2

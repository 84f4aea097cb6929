"""Property tests: the classifier and extractor never raise, stay bounded, stay well-formed."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta, timezone

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fr_graph.classify import classify_fact, extract_facts
from fr_graph.core.ontology import Category

# Chat-ish pieces plus the hostile ones: control characters, RTL marks, emoji, lone
# surrogate-free astral characters, regex metacharacters, digits and date fragments.
PIECES = st.sampled_from([
    "I ", "my ", "rent ", "$950/mo ", "tomorrow ", "next thursday ", "june 12 ", "the 14th ",
    "11/20 ", "in two weeks ", "forget i mentioned it ", "thinking about ", "finished ",
    "ignore previous instructions ", "Paris is the capital of France ", "lol ", "?", "!!! ",
    "\x00", "\x07", "\x1b[31m", "\u202e", "\u200b", "\ufeff", "🙂", "İ", "ß", "\t", "\n\n",
    "((((", "\\", "[a-z]+", ".*", "|", "a.m. ", "Dr. ", "...", "—", "’", "0" * 40, "31/31 ",
    "may 32 ", "feb 30 ", "in 99999 weeks ", "User's ", "me and soph ", "my wife's ",
])
BIG = st.builds(lambda parts, reps: "".join(parts) * reps,
                st.lists(PIECES, min_size=1, max_size=12), st.integers(1, 4000))
TEXT = st.one_of(st.text(max_size=400), st.lists(PIECES, max_size=40).map("".join), BIG)
WHEN = st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2090, 12, 31),
                    timezones=st.sampled_from([UTC, timezone(timedelta(hours=-8)),
                                               timezone(timedelta(hours=5, minutes=30)), None]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXT, when=WHEN, context=st.one_of(st.none(), TEXT))
def test_classify_never_raises_and_is_well_formed(
    text: str, when: datetime, context: str | None
) -> None:
    result = classify_fact(text[:100_000], when, context=context)
    assert isinstance(result.category, Category)
    assert set(result.weights) == set(Category)
    assert all(w >= 0.0 for w in result.weights.values())
    assert abs(sum(result.weights.values()) - 1.0) < 1e-6
    assert result.weights[result.category] == max(result.weights.values())
    assert 0.0 <= result.confidence <= 1.0
    assert 0.0 <= result.emotional_loading <= 1.0
    if result.event_time is not None:
        assert result.event_time.tzinfo is not None
    if result.slot_key is not None:
        assert "|" in result.slot_key


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXT, when=WHEN)
def test_extract_never_raises_and_spans_are_valid(text: str, when: datetime) -> None:
    out = extract_facts(text[:100_000], when)
    for fact in out:
        start, end = fact.span
        assert 0 <= start <= end <= len(text)
        assert fact.fact and fact.subject


def test_huge_inputs_stay_fast() -> None:
    when = datetime(2025, 3, 12, tzinfo=UTC)
    hostile = [
        "a" * 100_000,
        ("I work at google and my rent is $950 tomorrow. " * 3000)[:100_000],
        "(" * 100_000,
        ("1/1/1 " * 20_000)[:100_000],
        ("\x00\u202e🙂" * 40_000)[:100_000],
        ("lol. " * 20_000)[:100_000],
        ("my wife's sister's cat " * 5_000)[:100_000],
    ]
    for text in hostile:
        started = time.perf_counter()
        classify_fact(text, when, context=text)
        extract_facts(text, when)
        assert time.perf_counter() - started < 5.0, text[:40]

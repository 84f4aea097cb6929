"""Extraction from chat: disclosures inside requests, nothing from pastes, bounded output,
and never an exception or an invalid record on any message."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from fr_graph.classify.extract import MAX_CLAUSE_CHARS, MAX_FIELD_CHARS, extract_message
from fr_graph.pipeline.ingest import extract_from_message
from fr_graph.pipeline.records import MessageRecord

WHEN = datetime(2026, 3, 1, 12, tzinfo=UTC)


def facts(text: str) -> list[str]:
    return [f.fact for f in extract_message(text, WHEN).facts]


def message(content: str, role: str = "user") -> MessageRecord:
    return MessageRecord(type="message", group_id="g", role=role,  # type: ignore[arg-type]
                         content=content, observed_at=WHEN, id="m1")


def test_a_statement_before_a_request_is_kept() -> None:
    out = facts("I'm building the order page for my bakery's Flask app, can you add login?")
    assert out == ["User is building the order page for User's bakery's Flask app"]
    assert facts("my deadline is Friday so could you hurry") == ["User's deadline is Friday"]


def test_a_question_gives_what_it_discloses_in_passing() -> None:
    assert facts("Should I switch to Postgres since we have 40k users now?") == [
        "We have 40k users now"]
    assert facts("What snacks are good for my 3 year old daughter Mia on a flight?") == [
        "User's 3 year old daughter Mia"]
    assert facts("Write a toast for my brother Sam's wedding in June please") == [
        "User's brother Sam's wedding in June"]


def test_a_plain_question_or_request_gives_nothing() -> None:
    for text in ("Can you look at my code?", "how do I reverse a list in python",
                 "I need some ideas for a birthday present", "here's the log:",
                 "Please arrive at the terminal 60 minutes before departure."):
        assert facts(text) == [], text


def test_no_fact_comes_from_code_logs_or_quotes() -> None:
    text = ("My partner and I run a bakery.\n```python\npartner = request.args['partner']\n"
            "my_wife = Partner.query.first()\n```\n"
            "Traceback (most recent call last):\n  File \"app.py\", line 9, in <module>\n"
            "KeyError: 'partner'\n> You said my wife should handle the books.\n"
            "2026-03-01 12:00:01 INFO user my_account logged in\nI live in Leeds.")
    extraction = extract_message(text, WHEN)
    assert [f.fact for f in extraction.facts] == ["User's partner and User run a bakery",
                                                  "User lives in Leeds"]
    # Adjacent pastes of different kinds form one region named after its commonest kind.
    assert {r.kind for r in extraction.regions} == {"code", "trace"}
    assert text[extraction.regions[-1].start:extraction.regions[-1].end].endswith(
        "logged in")
    for fact in extraction.facts:
        assert not any(r.start < fact.span[1] and fact.span[0] < r.end
                       for r in extraction.regions)


def test_spans_point_at_the_sentence_in_the_original_text() -> None:
    text = "hey!\n```\nx = 1\n```\nI moved to Leeds in May, can you suggest a GP?"
    (fact,) = extract_message(text, WHEN).facts
    assert text[fact.span[0]:fact.span[1]] == "I moved to Leeds in May"


def test_the_issue_reproduction_imports_as_bounded_facts() -> None:
    content = "I planted the garden " + " ".join(
        f"and the tomatoes in bed number {n} that I planted with compost from the neighbours"
        for n in range(10)) + "."
    taken = extract_from_message(message(content))
    assert len(taken.facts) >= 3  # cut into pieces, nothing lost or rejected
    assert "bed number 9" in taken.facts[-1].record.fact
    for fact in taken.facts:
        assert len(fact.record.fact) <= MAX_FIELD_CHARS
        assert fact.span[1] - fact.span[0] <= MAX_CLAUSE_CHARS
    assert [f.record.id for f in taken.facts] == [f"m1#{i}" for i in range(len(taken.facts))]


def test_other_roles_give_no_facts() -> None:
    assert extract_from_message(message("I live in Leeds.", role="assistant")).facts == []


_CODE = st.sampled_from([
    "```\nx = 1\n```", "def f(my_wife):\n    return my_wife", "    at com.x.Y(Y.java:1)",
    "Traceback (most recent call last):", "> you said I live in Paris", "| a | b |",
    "2026-01-01 00:00:00 ERROR my partner", "SELECT * FROM users;", "{\"my\": [1, 2]}",
])
_PROSE = st.sampled_from([
    "I moved to Leeds", "my wife is called Zoë", "can you help", "since I started at Müller",
    "and the tomatoes in bed number 3 that I planted", "lol", "🙂", "my rent is $1,450",
    "我住在北京", "it's due Friday", "I, I, I", "...", "\t", "—", "my " * 40,
])
_MESSAGE = st.one_of(
    st.text(max_size=3_000),
    st.lists(st.one_of(_PROSE, _CODE, st.text(max_size=200)), max_size=60).map(
        lambda parts: " ".join(parts)),
    st.lists(st.one_of(_PROSE, _CODE), min_size=1, max_size=40).map("\n".join),
    st.tuples(_PROSE, st.integers(1, 400)).map(lambda p: (p[0] + ", ") * p[1]),
)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_MESSAGE)
@example("I planted the garden " + "and the tomatoes that I planted " * 60)
@example("I am " + " " * 50_000 + "here")
@example("x" * 60_000)
@example("```\n" + "my_wife = 1\n" * 5_000)
def test_any_message_gives_valid_bounded_records_and_never_raises(text: str) -> None:
    content = text.replace("\x00", "").strip() or "x"
    try:
        record = message(content)
    except ValueError:
        return  # not a valid message line (control characters): parsing rejects it
    taken = extract_from_message(record)  # must not raise
    for fact in taken.facts:
        # The record validated on construction; the bounds hold with room to spare.
        assert len(fact.record.fact) <= MAX_FIELD_CHARS
        for field in (fact.record.subject, fact.record.predicate, fact.record.object):
            assert field is None or len(field) <= MAX_FIELD_CHARS
        assert 0 <= fact.span[0] < fact.span[1] <= len(record.content)
        assert not any(r.start < fact.span[1] and fact.span[0] < r.end
                       for r in taken.regions)


def test_he_she_they_resolve_to_the_person_named_just_before() -> None:
    assert facts("Update: Maya got into Westbrook Academy! She starts in September.") == [
        "Maya got into Westbrook Academy", "Maya starts in September"]
    assert facts("my sister Ana moved to Lisbon. She's a nurse there.") == [
        "User's sister Ana moved to Lisbon", "User's sister Ana is a nurse there"]
    # No one named before: the pronoun stays, and an unattached "he is nice" is dropped.
    assert facts("I met Tom yesterday. He is nice.") == ["User met Tom yesterday"]

"""The JSONL ingestion format: every bad line gets a reason that names the field."""

from __future__ import annotations

import contextlib
import json
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fr_graph.core.ontology import Category
from fr_graph.pipeline.records import (
    MAX_LINE_BYTES,
    MAX_MESSAGE_CHARS,
    MAX_TEXT_CHARS,
    FactRecord,
    MessageRecord,
    iter_lines,
    parse_line,
)

GOOD = {"type": "fact", "group_id": "g", "id": "ext-1", "fact": "Started eating fish again",
        "observed_at": "2025-09-15T12:00:00Z"}


def line(**changes: object) -> bytes:
    record = {**GOOD, **changes}
    return json.dumps({k: v for k, v in record.items() if v is not ...}).encode()


def reason(raw: bytes) -> str:
    with pytest.raises(ValueError) as info:
        parse_line(raw)
    return str(info.value)


def test_minimal_fact_parses_with_utc_time() -> None:
    record = parse_line(line())
    assert isinstance(record, FactRecord)
    assert record.observed_at == datetime(2025, 9, 15, 12, tzinfo=UTC)


def test_gold_metadata_parses_and_weights_are_normalized() -> None:
    record = parse_line(line(categories={"health": 3, "identity": 1}, slot_key="user|diet",
                             event_time="2025-10-01T09:00:00+02:00", confidence=0.9,
                             state="superseded"))
    assert isinstance(record, FactRecord)
    assert record.categories == {Category.HEALTH: 0.75, Category.IDENTITY: 0.25}
    assert record.event_time == datetime(2025, 10, 1, 7, tzinfo=UTC)


def test_message_record_parses() -> None:
    record = parse_line(json.dumps({
        "type": "message", "group_id": "g", "role": "user", "content": "I moved to Oslo",
        "observed_at": "2025-01-01T00:00:00Z", "episode": "session-22"}).encode())
    assert isinstance(record, MessageRecord)


@pytest.mark.parametrize(("raw", "expected"), [
    (b"{not json", "invalid JSON"),
    (b"[1, 2]", "JSON object"),
    (b"\xff\xfe{}", "invalid UTF-8"),
    (line(type="note"), "field type"),
    (line(fact=...), "field fact: Field required"),
    (line(fact=42), "field fact"),
    (line(fact="   "), "field fact: is empty"),
    (line(fact="a\x00b"), "control characters"),
    (line(fact="x" * (MAX_TEXT_CHARS + 1)), f"longer than {MAX_TEXT_CHARS}"),
    (line(observed_at="2025-02-30T00:00:00Z"), "field observed_at"),
    (line(observed_at="yesterday"), "field observed_at"),
    (line(category="astrology"), "field category"),
    (line(categories={"health": -1}), "field categories"),
    (line(categories={}), "field categories"),
    (line(confidence=1.5), "field confidence"),
    (line(state="deleted"), "field state"),
    (line(group_id="a b"), "field group_id"),
    (line(group_id="x" * 200), "field group_id"),
    (line(surprise=1), "field surprise"),
    (b"x" * (MAX_LINE_BYTES + 1), "longer than"),
])
def test_bad_lines_name_their_problem(raw: bytes, expected: str) -> None:
    assert expected in reason(raw)


def test_iter_lines_numbers_lines_and_skips_blank_ones() -> None:
    out = list(iter_lines([line(), b"\n", b"{bad\n", line(id="2") + b"\r\n"]))
    assert [(n, r is not None, why is not None) for n, r, why in out] == [
        (1, True, False), (3, False, True), (4, True, False)]


@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_raise_anything_but_value_error(raw: bytes) -> None:
    with contextlib.suppress(ValueError):
        parse_line(raw)


def test_a_message_may_be_much_longer_than_a_fact() -> None:
    """A chat message with a long code paste is normal input; a fact is one statement."""
    message = {"type": "message", "group_id": "g", "role": "user",
               "observed_at": "2025-01-01T00:00:00Z"}
    long_text = "I live in Leeds.\n```\n" + "x = 1\n" * 5_000 + "```"
    record = parse_line(json.dumps({**message, "content": long_text}).encode())
    assert isinstance(record, MessageRecord) and len(record.content) > MAX_TEXT_CHARS
    too_long = json.dumps({**message, "content": "x" * (MAX_MESSAGE_CHARS + 1)}).encode()
    assert f"longer than {MAX_MESSAGE_CHARS}" in reason(too_long)

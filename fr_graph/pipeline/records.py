"""The public ingestion format: JSONL, one fact or message record per line.

Parsing never writes: it returns valid records and ``(line_number, reason)`` problems, so
``--strict`` can refuse a file before anything reaches the store.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictStr,
    TypeAdapter,
    ValidationError,
)

# A message's text may be as long as the extractor reads: a chat message with a long paste
# of code or logs is normal input.
from fr_graph.classify.extract import MAX_MESSAGE_CHARS
from fr_graph.core.lifecycle import LifecycleState, Marker
from fr_graph.core.ontology import Category

#: A fact's text: one statement, never a document.
MAX_TEXT_CHARS = 10_000
MAX_LINE_BYTES = 1024 * 1024
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_GROUP_ID = re.compile(r"[A-Za-z0-9_-]{1,128}\Z")  # \Z: "$" would let a final newline in


def _bounded_text(limit: int) -> AfterValidator:
    def check(value: str) -> str:
        if _CONTROL.search(value):
            raise ValueError("contains control characters")
        value = value.strip()
        if not value:
            raise ValueError("is empty")
        if len(value) > limit:
            raise ValueError(f"is longer than {limit} characters")
        return value
    return AfterValidator(check)


def _utc(value: datetime) -> datetime:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def _group_id(value: str) -> str:
    if not _GROUP_ID.match(value):
        raise ValueError("must be 1-128 letters, digits, '-' or '_'")
    return value


def _weights(value: dict[Category, float]) -> dict[Category, float]:
    if not value:
        raise ValueError("must name at least one category")
    if any(not math.isfinite(w) or w < 0 for w in value.values()):
        raise ValueError("weights must be finite and non-negative")
    total = sum(value.values())
    if total <= 0:
        raise ValueError("weights must not all be zero")
    return {c: w / total for c, w in value.items()}


Text = Annotated[StrictStr, _bounded_text(MAX_TEXT_CHARS)]
MessageText = Annotated[StrictStr, _bounded_text(MAX_MESSAGE_CHARS)]
ShortText = Annotated[StrictStr, Field(max_length=512), _bounded_text(MAX_TEXT_CHARS)]
GroupId = Annotated[StrictStr, AfterValidator(_group_id)]
Instant = Annotated[datetime, AfterValidator(_utc)]
Unit = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


class FactRecord(BaseModel):
    """A fact as the caller states it, with optional gold lifecycle metadata."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["fact"]
    group_id: GroupId
    id: ShortText
    fact: Text
    observed_at: Instant
    subject: ShortText | None = None
    predicate: ShortText | None = None
    object: ShortText | None = None
    episode: ShortText | None = None
    category: Category | None = None
    categories: Annotated[dict[Category, float], AfterValidator(_weights)] | None = None
    slot_key: ShortText | None = None
    event_time: Instant | None = None
    confidence: Unit | None = None
    strength: Unit | None = None
    state: LifecycleState | None = None
    #: What the statement does to its slot (assertion, tentative, retraction, completion).
    marker: Marker | None = None


class MessageRecord(BaseModel):
    """A chat message; facts are extracted from it (by the LLM when configured)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    type: Literal["message"]
    group_id: GroupId
    role: Literal["user", "assistant", "system"]
    content: MessageText
    observed_at: Instant
    episode: ShortText | None = None
    id: ShortText | None = None


Record = Annotated[FactRecord | MessageRecord, Field(discriminator="type")]
_RECORD = TypeAdapter(Record)


def _reason(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"] if not str(p).startswith(("function-", "tagged")))
    where = where.removeprefix("fact.").removeprefix("message.")
    msg = err["msg"].removeprefix("Value error, ")
    return f"field {where}: {msg}" if where else msg


def parse_line(raw: bytes) -> FactRecord | MessageRecord:
    """One JSONL line (bytes, without newline) to a record. Raises ValueError with a reason."""
    if len(raw) > MAX_LINE_BYTES:
        raise ValueError(f"line is longer than {MAX_LINE_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"invalid UTF-8 at byte {exc.start}") from None
    try:
        data: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} at column {exc.colno}") from None
    if not isinstance(data, dict):
        raise ValueError("a record must be a JSON object")
    if data.get("type") not in ("fact", "message"):
        raise ValueError("field type: must be 'fact' or 'message'")
    try:
        return _RECORD.validate_python(data)
    except ValidationError as exc:
        raise ValueError(_reason(exc)) from None


ParsedLine = tuple[int, FactRecord | MessageRecord | None, str | None]


def iter_lines(lines: Iterable[bytes]) -> Iterator[ParsedLine]:
    """``(line_number, record, None)`` or ``(line_number, None, reason)``; blank lines skipped."""
    for number, raw in enumerate(lines, start=1):
        stripped = raw.rstrip(b"\r\n")
        if not stripped.strip():
            continue
        try:
            yield number, parse_line(stripped), None
        except ValueError as exc:
            yield number, None, str(exc)


def read_file(path: Path) -> tuple[list[tuple[int, FactRecord | MessageRecord]],
                                   list[tuple[int, str]]]:
    """All records and all problems of a JSONL file."""
    records: list[tuple[int, FactRecord | MessageRecord]] = []
    problems: list[tuple[int, str]] = []
    with path.open("rb") as handle:
        for number, record, reason in iter_lines(handle):
            if record is not None:
                records.append((number, record))
            else:
                problems.append((number, reason or "invalid"))
    return records, problems

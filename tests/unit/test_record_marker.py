"""A record's ``marker`` (gold metadata) overrides the classifier's lifecycle marker."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from fr_graph.classify.rules import classify_fact
from fr_graph.core.lifecycle import Marker
from fr_graph.pipeline.ingest import overlay_for
from fr_graph.pipeline.records import FactRecord, parse_line

WHEN = datetime(2025, 9, 15, 12, tzinfo=UTC)
TEXT = "I booked a dentist appointment for next Tuesday"


def record(**extra: object) -> FactRecord:
    raw = {"type": "fact", "group_id": "g", "id": "ext-1", "fact": TEXT,
           "observed_at": "2025-09-15T12:00:00Z", **extra}
    parsed = parse_line(json.dumps(raw).encode())
    assert isinstance(parsed, FactRecord)
    return parsed


def test_marker_parses_and_bad_marker_names_the_field() -> None:
    assert record(marker="retraction").marker is Marker.RETRACTION
    assert record().marker is None
    with pytest.raises(ValueError, match="field marker"):
        record(marker="maybe")


def test_given_marker_wins_over_the_classifier_and_absent_marker_keeps_it() -> None:
    verdict = classify_fact(TEXT, WHEN)
    assert verdict.marker is not Marker.RETRACTION
    assert overlay_for(record(marker="retraction"), "u1", verdict).marker is Marker.RETRACTION
    assert overlay_for(record(), "u1", verdict).marker is verdict.marker

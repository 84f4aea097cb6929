"""Gold metadata: an explicit null means "none", an absent field means "infer"."""

from __future__ import annotations

from datetime import UTC, datetime

from fr_graph.classify.rules import classify_fact
from fr_graph.pipeline.ingest import overlay_for
from fr_graph.pipeline.records import FactRecord

TEXT = "I get to work on my bike from next Monday"
AT = datetime(2025, 9, 3, 12, tzinfo=UTC)


def _record(**extra: object) -> FactRecord:
    return FactRecord.model_validate({"type": "fact", "group_id": "g", "id": "f-1",
                                      "fact": TEXT, "observed_at": AT.isoformat(), **extra})


def test_absent_slot_key_and_event_time_are_inferred() -> None:
    verdict = classify_fact(TEXT, AT)
    assert verdict.slot_key is not None and verdict.event_time is not None
    overlay = overlay_for(_record(), "e-1", verdict)
    # An inferred slot is only proposed: the fact joins a slot when the linker links it.
    assert overlay.slot_key is None
    assert (overlay.slot_hint, overlay.slot_source) == (verdict.slot_key, "inferred")
    assert overlay.event_time is not None


def test_a_given_slot_key_is_used_as_it_is() -> None:
    overlay = overlay_for(_record(slot_key="user|commute"), "e-1", classify_fact(TEXT, AT))
    assert (overlay.slot_key, overlay.slot_source, overlay.slot_hint) == (
        "user|commute", "given", None)


def test_explicit_nulls_mean_none() -> None:
    overlay = overlay_for(_record(slot_key=None, event_time=None), "e-1",
                          classify_fact(TEXT, AT))
    assert overlay.slot_key is None and overlay.event_time is None

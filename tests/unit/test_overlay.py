"""The overlay record: stable ids, ISO times, row round trip."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

from fr_graph.core.lifecycle import LifecycleState, Stage
from fr_graph.core.ontology import Category
from fr_graph.overlay import MIRRORED_FIELDS, FactOverlay, from_iso, stable_uuid, to_iso


def test_stable_uuid_is_deterministic_and_separates_parts() -> None:
    assert stable_uuid("g", "fact", "1") == stable_uuid("g", "fact", "1")
    assert stable_uuid("g", "fact", "1") != stable_uuid("g", "fact1", "")


def test_iso_times_are_utc_fixed_width_and_round_trip() -> None:
    local = datetime(2025, 3, 1, 9, 30, tzinfo=timezone(timedelta(hours=2)))
    assert to_iso(local) == "2025-03-01T07:30:00Z"
    assert from_iso(to_iso(local)) == local.astimezone(UTC)
    assert to_iso(None) is None


def test_row_round_trip_keeps_every_field() -> None:
    overlay = FactOverlay(edge_uuid="e", group_id="g", category=Category.HEALTH,
                          categories=["health", "identity"], category_weights=[0.7, 0.3],
                          slot_key="user|diet", state=LifecycleState.SUPERSEDED,
                          stage=Stage.DURABLE, source_id="x")
    row = overlay.to_row()
    assert row["category"] == "health" and row["state"] == "superseded"
    assert FactOverlay.from_row(row) == overlay


def test_mirror_covers_every_lifecycle_field() -> None:
    assert {"category", "categories", "category_weights", "slot_key", "state", "event_time",
            "valid_from", "valid_to", "observed_at", "confidence", "strength", "stage",
            "source_id", "schema_version"} <= set(MIRRORED_FIELDS)

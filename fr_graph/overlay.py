"""The overlay's record of one fact: canonical lifecycle state kept beside Graphiti.

Canonical state lives on an ``(:FrFact {edge_uuid})`` node that Graphiti never writes; the
queryable fields are mirrored as ``fr_*`` properties onto the fact's ``RELATES_TO``
relationship (see ``cypher/README.md``). Times are stored as fixed-width UTC ISO-8601
strings (``2025-09-15T12:00:00Z``) so that they compare correctly as strings on both Neo4j
and FalkorDB.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from fr_graph.core.lifecycle import SCHEMA_VERSION, LifecycleState, Marker, Stage
from fr_graph.core.ontology import Category
from fr_graph.errors import InputError

# Deterministic ids make every import idempotent: the same record maps to the same uuid.
_NAMESPACE = uuid.UUID("5b0c4a5e-2f7e-4c1b-9a55-6b1f0f1e7a10")

ISO_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def stable_uuid(*parts: str) -> str:
    """A uuid5 over ``parts``: the same inputs give the same id on every machine."""
    return str(uuid.uuid5(_NAMESPACE, "\x1f".join(parts)))


def to_iso(value: datetime | None) -> str | None:
    """UTC, second precision, ``Z`` suffix; naive datetimes are taken as UTC."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime(ISO_FORMAT)


_ISO_WRITTEN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")


def from_iso(value: str | None) -> datetime | None:
    """The UTC datetime of an :data:`ISO_FORMAT` string (None for None).

    The form :func:`to_iso` writes goes through ``datetime.fromisoformat`` (C, about 30x
    faster than ``strptime``, same result on that form); anything else ``strptime``
    parses (or rejects) as before.
    """
    if value is None:
        return None
    if _ISO_WRITTEN.fullmatch(value):
        return datetime.fromisoformat(value)
    return datetime.strptime(value, ISO_FORMAT).replace(tzinfo=UTC)


def parse_instant(value: str | None, argument: str) -> datetime | None:
    """A user-given ISO-8601 time (``Z`` allowed; naive taken as UTC); InputError names
    ``argument`` when it is not one."""
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"{argument} {value!r}: not an ISO-8601 date-time") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


@dataclass(slots=True)
class FactOverlay:
    """Lifecycle fields of one fact. ``edge_uuid`` is the Graphiti ``RELATES_TO`` uuid.

    Category weights are stored as parallel arrays (``categories`` / ``category_weights``)
    because Neo4j has no map-valued properties.
    """

    edge_uuid: str
    group_id: str
    category: Category = Category.OTHER
    categories: list[str] = field(default_factory=lambda: [Category.OTHER.value])
    category_weights: list[float] = field(default_factory=lambda: [1.0])
    slot_key: str | None = None
    state: LifecycleState = LifecycleState.ACTIVE
    marker: Marker = Marker.ASSERTION
    event_time: str | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    observed_at: str | None = None
    confidence: float = 0.5
    strength: float = 0.0
    stage: Stage = Stage.TRANSIENT
    source_id: str | None = None
    episode: str | None = None
    has_number: bool = False
    world_knowledge: bool = False
    instruction_like: bool = False
    ambiguous: bool = False
    # The strongest verifier link that contests this fact without acting on it (a later
    # fact that updates, cancels or completes it below the hard band, or contradicts it):
    # ranking scales the fact by ``1 - soft_supersession_gamma * contested``; 0 when none.
    contested: float = 0.0
    emotional_loading: float = 0.0
    schema_version: int = SCHEMA_VERSION
    # Retention control (StageMem, fr_graph.core.retention): pinned holds strength at the
    # pin level; access_count and dependency feed strength growth, evidence_seen is how much
    # of them strength already absorbed (so maintenance is idempotent); archived_from is the
    # state an archived fact returns to on restore; settled_at the last maintenance.
    pinned: bool = False
    access_count: int = 0
    dependency: int = 0
    evidence_seen: int = 0
    archived_from: str | None = None
    settled_at: str | None = None
    # Where slot_key came from: "given" by the caller, "classifier" (the LLM classifier
    # names subject and attribute itself), "linked" by the linker (the fact
    # updates, cancels, completes or contradicts another one), or "inferred" (the rules only
    # proposed one: slot_hint, and the fact stays out of every slot until a link confirms
    # it; a generic proposal such as user|project would otherwise let unrelated facts hide
    # each other).
    slot_source: str = "given"
    slot_hint: str | None = None
    # Provenance of a fact taken from a message: ``[start, end)`` character offsets of the
    # sentence it came from in its episode's content (``source_id`` names the message).
    source_span: list[int] | None = None

    def to_row(self) -> dict[str, Any]:
        """Plain values for a Cypher parameter (enums as their string values)."""
        row = asdict(self)
        for key in ("category", "state", "marker", "stage"):
            row[key] = str(row[key])
        return row

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> FactOverlay:
        known = {k: row[k] for k in cls.__dataclass_fields__ if k in row and row[k] is not None}
        overlay = cls(**known)
        overlay.category = Category(overlay.category)
        overlay.state = LifecycleState(overlay.state)
        overlay.marker = Marker(overlay.marker)
        overlay.stage = Stage(overlay.stage)
        return overlay


#: Overlay fields mirrored onto ``RELATES_TO`` as ``fr_<name>``; keep in step with
#: ``cypher/common/apply_mirror.cypher``.
MIRRORED_FIELDS: tuple[str, ...] = tuple(
    name for name in FactOverlay.__dataclass_fields__
    if name not in ("edge_uuid", "group_id", "slot_source", "slot_hint", "source_span",
                    "contested")
)

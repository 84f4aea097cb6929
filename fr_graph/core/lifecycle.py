"""Lifecycle vocabulary shared by the core, the stores and the CLI."""

from __future__ import annotations

from enum import StrEnum

#: Bumped when the overlay's stored shape changes; written on every overlay node.
SCHEMA_VERSION = 1


class LifecycleState(StrEnum):
    """Where a fact is in its life. Only ``active`` facts answer current-intent queries."""

    ACTIVE = "active"
    SUPERSEDED = "superseded"
    EXPIRED = "expired"
    RETRACTED = "retracted"
    ARCHIVED = "archived"


class Stage(StrEnum):
    """Retention stage (StageMem): how settled a fact is."""

    TRANSIENT = "transient"
    WORKING = "working"
    DURABLE = "durable"


class Marker(StrEnum):
    """What a statement does to its slot (the classifier's lifecycle marker)."""

    ASSERTION = "assertion"
    TENTATIVE = "tentative"
    RETRACTION = "retraction"
    COMPLETION = "completion"

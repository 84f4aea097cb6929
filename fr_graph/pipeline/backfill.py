"""Backfill: give an existing Graphiti graph its lifecycle overlay.

Every ``RELATES_TO`` without a ``FrFact`` is classified offline (the rules classifier),
keyed, and run through the same transitions as an import
(:func:`~fr_graph.pipeline.lifecycle.apply_transitions`), oldest first: a fact's time is
Graphiti's ``valid_at``, else its ``created_at``, so supersession chains are built in the
order the facts became true. Graphiti's own ``invalid_at`` / ``expired_at`` are evidence
(:func:`~fr_graph.pipeline.lifecycle.graphiti_evidence`): an edge Graphiti invalidated
enters ``superseded`` and is linked, at the end of the group, to the fact that invalidated
it.

Resumable and idempotent. Pages of :data:`PAGE` edges are each written by one atomic query
(overlays, transitions, mirror), so an interrupted backfill leaves whole pages done and a
re-run picks up the edges still unannotated; annotated edges are never touched again. Graphiti's
schema is left as Graphiti wrote it, apart from ``invalid_at`` / ``expired_at`` on edges
fr-graph hard-supersedes and the ``fr_*`` mirror: Graphiti's own search keeps working.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from fr_graph.classify.linking import LinkVerifier
from fr_graph.classify.rules import classify_fact
from fr_graph.clients import LocalEmbedder
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.policy import PolicyTable
from fr_graph.overlay import FactOverlay, to_iso
from fr_graph.pipeline.ingest import overlay_for
from fr_graph.pipeline.lifecycle import (
    apply_transitions,
    graphiti_evidence,
    link_graphiti_invalidations,
)
from fr_graph.pipeline.records import FactRecord
from fr_graph.pipeline.vectors import write_lifecycle_vectors
from fr_graph.stores.base import GraphStore

PAGE = 500
Progress = Callable[[int], None]


@dataclass(slots=True)
class BackfillReport:
    """What a backfill did.

    Attributes:
        groups: groups visited.
        annotated: edges that got an overlay.
        pages: atomic pages written.
        graphiti_superseded: edges that entered ``superseded`` on Graphiti's evidence.
        graphiti_links: supersession links recorded for Graphiti's own invalidations.
        transitions: supersession links fr-graph's slot rules wrote, by kind.
        seconds: wall time.
    """

    groups: int = 0
    annotated: int = 0
    pages: int = 0
    graphiti_superseded: int = 0
    graphiti_links: int = 0
    transitions: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    @property
    def edges_per_second(self) -> float:
        return self.annotated / self.seconds if self.seconds > 0 else 0.0


def _moment(value: Any) -> datetime | None:
    """A Graphiti time as read back: a datetime (Neo4j) or an ISO string (FalkorDB)."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    if not isinstance(value, datetime):
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _order_key(row: dict[str, Any]) -> tuple[datetime, datetime, str]:
    created = _moment(row["created_at"]) or datetime.min.replace(tzinfo=UTC)
    return _moment(row["valid_at"]) or created, created, row["uuid"]


def annotate_edge(group_id: str, row: dict[str, Any], now: datetime) -> FactOverlay:
    """The overlay of one plain Graphiti edge (a ``backfill_edges`` row), before decisions."""
    observed = _moment(row["valid_at"]) or _moment(row["created_at"]) or now
    record = FactRecord.model_construct(type="fact", group_id=group_id, id=row["uuid"],
                                        fact=row["fact"] or "", observed_at=observed)
    overlay = overlay_for(record, row["uuid"], classify_fact(row["fact"] or "", observed))
    overlay.source_id = None  # not imported from a record: Graphiti wrote it
    overlay.state, valid_to = graphiti_evidence(_moment(row["invalid_at"]),
                                                _moment(row["expired_at"]), now)
    overlay.valid_to = to_iso(valid_to)
    return overlay


async def backfill_groups(store: GraphStore, groups: Sequence[str], policy: PolicyTable, *,
                          progress: Progress | None = None,
                          on_total: Callable[[int], None] | None = None,
                          page_size: int = PAGE,
                          verifier: LinkVerifier | None = None,
                          local: LocalEmbedder | None = None) -> BackfillReport:
    """Annotate every unannotated ``RELATES_TO`` of ``groups`` (see the module doc).

    Args:
        store: the store holding the groups.
        groups: validated group ids; groups with no graph are skipped.
        policy: the policy table (each group's overrides are applied).
        progress: called with the number of edges done after each page.
        on_total: called once, before any page, with the number of edges to do.
        page_size: edges per atomic page.
        verifier: decides links between the facts (default: the shipped offline verifier).
        local: fr-graph's embedder, which gives each fact its own vector first when the
            graph's vectors are another model's (``store.lifecycle_vector``).
    """
    own_vectors = store.lifecycle_vector != "fact_embedding"
    if own_vectors and local is None:
        raise ValueError("backfill_groups: a graph embedded by another model needs `local`")
    started = time.perf_counter()
    report = BackfillReport()
    pending: list[tuple[str, list[str]]] = []
    for group in groups:
        if not await store.has_group(group):
            continue
        await store.ensure_schema(group)
        rows = await store.run("unannotated_edges", group, group_id=group)
        pending.append((group, [r["uuid"] for r in sorted(rows, key=_order_key)]))
    if on_total:
        on_total(sum(len(uuids) for _, uuids in pending))

    now = datetime.now(UTC)
    for group, uuids in pending:
        report.groups += 1
        group_policy = policy.for_group(group)
        for start in range(0, len(uuids), page_size):
            page = uuids[start:start + page_size]
            rows = await store.run("backfill_edges", group, edge_uuids=page)
            overlays = [annotate_edge(group, row, now) for row in rows]
            if own_vectors and local is not None:  # linking compares fr-graph's vectors
                await write_lifecycle_vectors(store, group, local, [
                    (str(r["uuid"]), str(r["fact"] or "")) for r in rows])
            report.graphiti_superseded += sum(o.state is not LifecycleState.ACTIVE
                                              for o in overlays)
            outcome = await apply_transitions(store, group, overlays, group_policy, now=now,
                                              verifier=verifier)
            report.annotated += outcome.created
            report.transitions.update(outcome.transitions)
            report.pages += 1
            if progress:
                progress(len(page))
        report.graphiti_links += await link_graphiti_invalidations(store, group)
    report.seconds = time.perf_counter() - started
    return report

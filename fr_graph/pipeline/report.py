"""``fr-graph report``: read a group for its report, then have the page written.

Three reads (``report_facts``, ``report_links`` and the audit log) become the plain data of
:mod:`fr_graph.core.report`, which shapes it; :mod:`fr_graph.report_page` draws the charts
and writes the page. Nothing in the store is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from fr_graph.core.lifecycle import LifecycleState, Stage
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.report import ReportData, ReportFact, ReportLink, build_report
from fr_graph.errors import NotFoundError
from fr_graph.overlay import from_iso
from fr_graph.pipeline.control import audit_records
from fr_graph.stores.base import GraphStore


async def gather_report(store: GraphStore, group_id: str, policy: PolicyTable, now: datetime
                        ) -> ReportData:
    """Read ``group_id`` (the caller validated the id) and shape its report.

    Raises:
        NotFoundError: no such group, or a group with no annotated fact (nothing to draw).
    """
    if not await store.has_group(group_id):
        raise NotFoundError(f"group {group_id!r}: no such group")
    fact_rows = await store.run("report_facts", group_id, group_id=group_id)
    if not fact_rows:
        raise NotFoundError(f"group {group_id!r}: no annotated facts, nothing to report")
    link_rows = await store.run("report_links", group_id, group_id=group_id)
    audit = await audit_records(store, group_id)
    return build_report(group_id, [report_fact(row) for row in fact_rows],
                        [report_link(row) for row in link_rows], audit, policy, now)


def report_fact(row: Mapping[str, Any]) -> ReportFact:
    """One ``report_facts`` row as the report's input."""
    overlay: Mapping[str, Any] = row["overlay"] or {}
    names = overlay.get("categories") or []
    weights = overlay.get("category_weights") or []
    return ReportFact(
        uuid=str(row["uuid"]), text=str(row["fact"] or ""),
        category=Category(overlay.get("category") or Category.OTHER),
        state=LifecycleState(overlay.get("state") or LifecycleState.ACTIVE),
        stage=Stage(overlay.get("stage") or Stage.TRANSIENT),
        slot_key=overlay.get("slot_key"),
        observed_at=from_iso(overlay.get("observed_at")),
        event_time=from_iso(overlay.get("event_time")),
        valid_to=from_iso(overlay.get("valid_to")),
        settled_at=from_iso(overlay.get("settled_at")),
        pinned=bool(overlay.get("pinned")), strength=float(overlay.get("strength") or 0.0),
        has_number=bool(overlay.get("has_number")),
        weights={Category(name): float(w) for name, w in zip(names, weights, strict=False)})


def report_link(row: Mapping[str, Any]) -> ReportLink:
    """One ``report_links`` row as the report's input."""
    return ReportLink(relation=str(row["relation"]), newer=str(row["newer"]),
                      older=str(row["older"]), kind=row["kind"], at=from_iso(row["at"]))

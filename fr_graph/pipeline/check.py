"""``fr-graph check``: read a group's lifecycle graph and verify its invariants.

Two reads (``check_facts``, ``check_links``) turned into the plain data of
:mod:`fr_graph.core.invariants`, which decides. Nothing is written. The reads are two queries,
not one transaction, so a check that runs while another process writes the same group may
see half of that write: check a quiet group, or check again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from fr_graph.core.invariants import (
    IntegrityReport,
    LifecycleFact,
    LifecycleLink,
    LinkEnd,
    NodeRole,
    check_lifecycle,
)
from fr_graph.overlay import MIRRORED_FIELDS
from fr_graph.stores.base import GraphStore

#: Every field the mirror copies: the overlay's mirrored fields and the revision that
#: detects drift (``apply_mirror``). ``check_facts`` returns the edge's copy of each.
CHECKED_MIRROR_FIELDS: Final = (*MIRRORED_FIELDS, "revision")


async def check_group(store: GraphStore, group_id: str) -> IntegrityReport:
    """Verify ``group_id``'s lifecycle graph (the caller validated the group id)."""
    fact_rows = await store.run("check_facts", group_id, group_id=group_id)
    link_rows = await store.run("check_links", group_id, group_id=group_id)
    facts = [lifecycle_fact(row) for row in fact_rows if row["overlay"]]
    strays = [str(row["uuid"]) for row in fact_rows if not row["overlay"]]
    return check_lifecycle(group_id, facts, [lifecycle_link(row) for row in link_rows], strays)


def lifecycle_fact(row: Mapping[str, Any]) -> LifecycleFact:
    """One ``check_facts`` row with an overlay as the checker's input."""
    canonical: Mapping[str, Any] = row["canonical"] or {}
    mirrored: Mapping[str, Any] = row["mirrored"] or {}
    return LifecycleFact(
        uuid=str(row["uuid"]), state=canonical.get("state"),
        slot_key=canonical.get("slot_key"), marker=canonical.get("marker"),
        ambiguous=bool(canonical.get("ambiguous")), observed_at=canonical.get("observed_at"),
        has_edge=bool(row["has_edge"]), canonical=canonical,
        mirrored={name: mirrored.get(name) for name in CHECKED_MIRROR_FIELDS}
        if row["has_edge"] else {},
    )


def lifecycle_link(row: Mapping[str, Any]) -> LifecycleLink:
    """One ``check_links`` row as the checker's input."""
    return LifecycleLink(
        relation=str(row["relation"]), kind=row["kind"],
        source=_end(row["source_uuid"], row["source_labels"], row["source_group"]),
        target=_end(row["target_uuid"], row["target_labels"], row["target_group"]))


def _end(uuid: Any, labels: Sequence[str] | None, group_id: Any) -> LinkEnd:
    names = set(labels or ())
    role = (NodeRole.FACT if "FrFact" in names
            else NodeRole.REQUEST if "FrRequest" in names else NodeRole.OTHER)
    return LinkEnd(None if uuid is None else str(uuid), role,
                   None if group_id is None else str(group_id))

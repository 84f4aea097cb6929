"""Read back a group's whole fr-graph state in a canonical form that compares across groups.

Every uuid (deterministic per group) is replaced by the fact text of its edge or the name of
its entity, so a group written with interruptions can be compared with a reference group
written from the same records in one go. The test data keeps fact texts unique.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from fr_graph.stores.base import GraphStore

_ISO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
# Written from the wall clock, counting writes, or naming the group or a uuid.
_VOLATILE = {"revision", "fr_revision", "created_at", "expired_at", "edge_uuid", "group_id",
             "source_id", "fr_source_id"}


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, str) and _ISO_TIME.match(value):
        return value[:19] + "Z"  # FalkorDB returns Graphiti's times as ISO strings
    if isinstance(value, list):
        return tuple(_plain(v) for v in value)
    return value


def _row(values: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(sorted((k, _plain(v)) for k, v in values.items() if k not in _VOLATILE))


async def canonical_dump(store: GraphStore, group_id: str) -> dict[str, Any]:
    """Edges (no embeddings), FrFact nodes and FR_SUPERSEDES links of ``group_id``."""
    edges = await store.run_text(
        "test_dump_edges",
        "MATCH (s)-[r:RELATES_TO]->(t) WHERE r.group_id = $group_id "
        "RETURN r.uuid AS uuid, s.name AS source, t.name AS target, r.name AS name, "
        "r.fact AS fact, r.valid_at AS valid_at, r.invalid_at AS invalid_at, "
        "r.fr_state AS fr_state, r.fr_slot_key AS fr_slot_key, r.fr_category AS fr_category, "
        "r.fr_ambiguous AS fr_ambiguous, r.fr_valid_to AS fr_valid_to",
        group_id, group_id=group_id)
    text = {e["uuid"]: e["fact"] for e in edges}
    facts = await store.run_text(
        "test_dump_facts", "MATCH (f:FrFact {group_id: $group_id}) RETURN properties(f) AS f",
        group_id, group_id=group_id)
    links = await store.run_text(
        "test_dump_links",
        "MATCH (n:FrFact {group_id: $group_id})-[s:FR_SUPERSEDES]->(o:FrFact) "
        "RETURN n.edge_uuid AS newer, o.edge_uuid AS older, s.kind AS kind, "
        "s.confidence AS confidence, s.at AS at, s.reason AS reason",
        group_id, group_id=group_id)
    return {
        "edges": sorted(_row({**e, "uuid": None}) for e in edges),
        "facts": sorted(_row({**f["f"], "fact": text.get(f["f"]["edge_uuid"])})
                        for f in facts),
        "links": sorted(_row({**link, "newer": text.get(link["newer"]),
                              "older": text.get(link["older"])}) for link in links),
    }


async def slot_rows(store: GraphStore, group_id: str) -> list[dict[str, Any]]:
    """Every FrFact of the group with its mirror and Graphiti's invalid_at."""
    return await store.run_text(
        "test_slot_rows",
        "MATCH (f:FrFact {group_id: $group_id}) "
        "MATCH ()-[r:RELATES_TO {uuid: f.edge_uuid}]->() "
        "RETURN f.source_id AS id, f.state AS state, f.observed_at AS observed_at, "
        "f.slot_key AS slot_key, r.fr_state AS mirrored, r.invalid_at AS invalid_at",
        group_id, group_id=group_id)

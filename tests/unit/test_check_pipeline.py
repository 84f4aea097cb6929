"""``fr-graph check``'s reads: the query compares every mirrored field, and its rows become
the checker's input (query names and parameters checked with a recording store)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from fr_graph import cypher
from fr_graph.core.invariants import NodeRole, ViolationKind
from fr_graph.pipeline.check import CHECKED_MIRROR_FIELDS, check_group, lifecycle_link


@pytest.mark.parametrize("dialect", ["neo4j", "falkordb"])
def test_check_facts_compares_every_field_apply_mirror_copies(dialect: Any) -> None:
    pairs = re.findall(r"(\w+): r\.fr_(\w+)", cypher.load("check_facts", dialect))
    assert all(a == b for a, b in pairs), pairs
    copied = set(re.findall(r"r\.fr_(\w+) = f\.\w+", cypher.load("apply_mirror", dialect)))
    assert [a for a, _ in pairs] == list(CHECKED_MIRROR_FIELDS)
    assert set(CHECKED_MIRROR_FIELDS) == copied


class RecordingStore:
    """Answers the two check queries with canned rows and records what ran."""

    def __init__(self, facts: list[dict[str, Any]], links: list[dict[str, Any]]) -> None:
        self.rows = {"check_facts": facts, "check_links": links}
        self.calls: list[tuple[str, str, dict[str, Any]]] = []

    async def run(self, name: str, group: str, /, **params: Any) -> list[dict[str, Any]]:
        self.calls.append((name, group, params))
        return self.rows[name]


def fact_row(uuid: str, state: str, slot: str | None, drift: dict[str, Any] | None = None
             ) -> dict[str, Any]:
    canonical = {name: None for name in CHECKED_MIRROR_FIELDS} | {
        "edge_uuid": uuid, "group_id": "g", "state": state, "slot_key": slot,
        "marker": "assertion", "ambiguous": False, "observed_at": "2025-01-01T00:00:00Z",
        "revision": 2, "slot_source": "given"}
    mirrored = {name: canonical[name] for name in CHECKED_MIRROR_FIELDS} | (drift or {})
    return {"uuid": uuid, "overlay": True, "has_edge": True, "canonical": canonical,
            "mirrored": mirrored}


def link_row(newer: str, older: str, kind: str, source_labels: list[str]) -> dict[str, Any]:
    return {"relation": "FR_SUPERSEDES", "kind": kind, "source_uuid": newer,
            "source_labels": source_labels, "source_group": "g", "target_uuid": older,
            "target_labels": ["FrFact"], "target_group": "g"}


async def test_check_group_reads_both_queries_and_reports_violations() -> None:
    store = RecordingStore(
        facts=[fact_row("a", "active", "k"), fact_row("b", "active", "k", {"state": "superseded"}),
               fact_row("c", "superseded", "k"),
               {"uuid": "stray", "overlay": False, "has_edge": True, "canonical": None,
                "mirrored": None}],
        links=[link_row("b", "c", "supersede", ["FrFact"]),
               link_row("e1", "a", "supersede", ["Entity"])])
    report = await check_group(store, "g")  # type: ignore[arg-type]
    assert [(name, group) for name, group, _ in store.calls] == [
        ("check_facts", "g"), ("check_links", "g")]
    assert all(params == {"group_id": "g"} for _, _, params in store.calls)
    assert (report.facts, report.links) == (3, 2)
    assert [(v.kind, v.uuids) for v in report.violations] == [
        (ViolationKind.SEVERAL_ACTIVE_HEADS, ("a", "b")),
        (ViolationKind.LINK_TO_MISSING_FACT, ("e1", "a")),
        (ViolationKind.MIRROR_OUT_OF_SYNC, ("b",)),
        (ViolationKind.MIRROR_WITHOUT_OVERLAY, ("stray",)),
    ]


async def test_a_fact_without_its_edge_is_not_compared_with_a_mirror() -> None:
    row = fact_row("a", "active", None) | {"has_edge": False,
                                            "mirrored": dict.fromkeys(CHECKED_MIRROR_FIELDS)}
    report = await check_group(RecordingStore([row], []), "g")  # type: ignore[arg-type]
    assert [v.kind for v in report.violations] == [ViolationKind.OVERLAY_WITHOUT_EDGE]


def test_link_ends_take_their_role_from_the_labels() -> None:
    request = lifecycle_link(link_row("q", "a", "retract", ["FrRequest"]))
    assert (request.source.role, request.target.role) == (NodeRole.REQUEST, NodeRole.FACT)
    other = lifecycle_link(link_row("e", "a", "retract", []) | {"source_uuid": None})
    assert other.source.role is NodeRole.OTHER and other.source.uuid is None

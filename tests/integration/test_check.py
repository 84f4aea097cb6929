"""``fr-graph check`` on each real backend: a group that went through every lifecycle
operation passes; a group corrupted with raw Cypher (two active heads, a cycle, a link to a
deleted fact and to a non-fact node, a drifted mirror, a stray mirror) is reported with the
right uuids, by the library and by the CLI."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from fr_graph.api import FrGraph
from fr_graph.config import Settings
from fr_graph.core.invariants import ViolationKind
from fr_graph.errors import InputError, NotFoundError
from fr_graph.overlay import stable_uuid
from tests.integration.helpers import write_jsonl
from tests.integration.test_user_queries import cli

pytestmark = pytest.mark.integration

T1, T2 = "2025-01-10T09:00:00Z", "2025-03-10T09:00:00Z"
K = ViolationKind


def fact(group_id: str, rid: str, text: str, when: str, **gold: Any) -> dict[str, Any]:
    return {"type": "fact", "group_id": group_id, "id": rid, "fact": text, "observed_at": when,
            **gold}


def records(group_id: str) -> list[dict[str, Any]]:
    """Supersession, a soft contest, a retraction, and facts with no slot."""
    diet = {"category": "preferences", "slot_key": "user|diet", "confidence": 0.9}
    rent = {"category": "financial", "slot_key": "user|rent", "confidence": 0.95}
    car = {"category": "logistical", "slot_key": "user|car", "confidence": 0.95}
    city = {"category": "identity", "slot_key": "user|city"}
    trip = {"category": "logistical", "slot_key": "user|trip:tokyo", "confidence": 0.9}
    return [
        fact(group_id, "veg", "User is vegetarian", T1, **diet),
        fact(group_id, "fish", "User eats fish again", T2, **diet),
        fact(group_id, "rent-1", "User's rent is $950 a month", T1, **rent),
        fact(group_id, "rent-2", "User's rent is $1100 a month", T2, **rent),
        fact(group_id, "car-1", "User drives a Civic", T1, **car),
        fact(group_id, "car-2", "User sold the Civic and drives a Tesla", T2, **car),
        fact(group_id, "istanbul", "User lives in Istanbul", T1, confidence=0.97, **city),
        fact(group_id, "london", "User is thinking about moving to London", T2, **city),
        fact(group_id, "trip", "User is planning a trip to Tokyo in May", T1, **trip),
        fact(group_id, "off", "User cancelled the trip to Tokyo", T2, **trip),
        fact(group_id, "chess", "User plays chess on Sundays", T1, category="hobbies"),
        fact(group_id, "secret", "User has a peanut allergy", T1, category="health"),
    ]


def uid(group_id: str, rid: str) -> str:
    return stable_uuid(group_id, "fact", rid)


async def load(fr: FrGraph, tmp_path: Path, group_id: str) -> None:
    report = await fr.import_file(write_jsonl(tmp_path / f"{group_id}.jsonl",
                                              records(group_id)))
    assert report.rejected == [] and report.imported == len(records(group_id))


async def cypher(fr: FrGraph, group_id: str, text: str, **params: Any) -> list[dict[str, Any]]:
    return await fr.store.run_text("test_corrupt", text, group_id, **params)


async def corrupt(fr: FrGraph, group_id: str) -> dict[str, str]:
    """Break every invariant once with raw Cypher; returns the uuids the breaks involve."""
    u = {rid: uid(group_id, rid) for rid in ("veg", "fish", "rent-1", "rent-2", "car-1",
                                              "car-2", "chess", "secret")}
    # A superseded fact made active again, overlay and mirror alike: two heads in user|diet.
    await cypher(fr, group_id, "MATCH (f:FrFact {edge_uuid: $u}) "
                               "MATCH ()-[r:RELATES_TO {uuid: $u}]->() "
                               "SET f.state = 'active', r.fr_state = 'active'", u=u["veg"])
    # The older rent links back to the newer one: a cycle.
    await cypher(fr, group_id, "MATCH (o:FrFact {edge_uuid: $older}) "
                               "MATCH (n:FrFact {edge_uuid: $newer}) "
                               "CREATE (o)-[:FR_SUPERSEDES {kind: 'supersede'}]->(n)",
                 older=u["rent-1"], newer=u["rent-2"])
    # The old car's Graphiti edge is deleted outside fr-graph; its overlay and link stay.
    await cypher(fr, group_id, "MATCH ()-[r:RELATES_TO {uuid: $u}]->() DELETE r",
                 u=u["car-1"])
    # A link from a fact to an entity, which is no fact at all.
    [entity] = await cypher(fr, group_id,
                            "MATCH (f:FrFact {edge_uuid: $u}) MATCH (e:Entity) "
                            "WHERE e.group_id = $g WITH f, e ORDER BY e.uuid LIMIT 1 "
                            "CREATE (f)-[:FR_SUPERSEDES {kind: 'supersede'}]->(e) "
                            "RETURN e.uuid AS uuid", u=u["chess"], g=group_id)
    u["entity"] = entity["uuid"]
    # A mirror partly dropped (as Graphiti's re-save of an edge drops it), and an overlay
    # deleted under its mirror.
    await cypher(fr, group_id, "MATCH ()-[r:RELATES_TO {uuid: $u}]->() "
                               "SET r.fr_stage = null, r.fr_revision = null", u=u["chess"])
    await cypher(fr, group_id, "MATCH (f:FrFact {edge_uuid: $u}) DETACH DELETE f",
                 u=u["secret"])
    return u


def expected_violations(u: dict[str, str]) -> set[tuple[ViolationKind, tuple[str, ...]]]:
    rents = sorted((u["rent-1"], u["rent-2"]))
    return {
        (K.SUPERSESSION_CYCLE, (rents[0], rents[1])),
        (K.SEVERAL_ACTIVE_HEADS, tuple(sorted((u["veg"], u["fish"])))),
        (K.SUPERSEDED_BUT_ACTIVE, (u["veg"], u["fish"])),
        (K.SUPERSEDED_BUT_ACTIVE, (u["rent-2"], u["rent-1"])),
        (K.LINK_TO_MISSING_FACT, (u["car-2"], u["car-1"])),
        (K.LINK_TO_MISSING_FACT, (u["chess"], u["entity"])),
        (K.OVERLAY_WITHOUT_EDGE, (u["car-1"],)),
        (K.MIRROR_OUT_OF_SYNC, (u["chess"],)),
        (K.MIRROR_WITHOUT_OVERLAY, (u["secret"],)),
    }


async def test_every_lifecycle_operation_leaves_a_clean_graph(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    await load(fr, tmp_path, group_id)
    report = await fr.check(group_id)
    assert report.ok, report.render()
    # 12 facts; links: diet, rent, car (supersede), city (soft), trip (retract)
    assert report.render() == ["ok: 12 facts, 5 links, no violations"]

    await fr.forget(uid(group_id, "chess"), group_id=group_id)       # + request, 2 links
    await fr.restore(uid(group_id, "rent-1"), group_id=group_id)     # reverted, both active
    await fr.purge(uid(group_id, "fish"), group_id=group_id)         # a slot's head, gone
    await fr.recategorize(uid(group_id, "secret"), "identity", group_id=group_id)
    report = await fr.check(group_id)
    assert report.ok, report.render()
    assert (report.facts, report.links) == (11, 6)


@pytest.mark.breaks_lifecycle_invariants
async def test_a_corrupted_graph_is_reported_with_the_uuids_involved(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    await load(fr, tmp_path, group_id)
    u = await corrupt(fr, group_id)
    report = await fr.check(group_id)
    assert {(v.kind, v.uuids) for v in report.violations} == expected_violations(u)
    assert len(report.violations) == len(expected_violations(u))
    assert [v.kind for v in report.violations] == sorted(
        (v.kind for v in report.violations), key=list(ViolationKind).index)
    drift = next(v for v in report.violations if v.kind is K.MIRROR_OUT_OF_SYNC)
    assert drift.message == ("the edge's fr_revision, fr_stage differ from the FrFact "
                             "(fr-graph sync repairs it)")

    await fr.sync(group_id)  # repairs the mirror, and nothing else
    after = {(v.kind, v.uuids) for v in (await fr.check(group_id)).violations}
    assert after == expected_violations(u) - {(K.MIRROR_OUT_OF_SYNC, (u["chess"],))}


async def test_sync_finds_and_repairs_a_mirror_edited_in_one_field(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    """An edit of one mirrored field that keeps revision and state is drift too: stats
    counts it, sync repairs it, and check agrees before and after."""
    await load(fr, tmp_path, group_id)
    await cypher(fr, group_id, "MATCH ()-[r:RELATES_TO {uuid: $u}]->() SET r.fr_stage = 'x'",
                 u=uid(group_id, "chess"))
    [stats] = await fr.stats(group_id)
    assert stats.drifted == 1
    assert [v.kind for v in (await fr.check(group_id)).violations] == [K.MIRROR_OUT_OF_SYNC]
    assert (await fr.sync(group_id)).repaired == 1
    [stats] = await fr.stats(group_id)
    assert stats.drifted == 0 and (await fr.check(group_id)).ok


async def test_bad_groups_are_one_line_errors(fr: FrGraph) -> None:
    with pytest.raises(InputError, match="group_id 'bad group'"):
        await fr.check("bad group")
    if fr.store.dialect == "falkordb":  # Neo4j cannot tell an empty group from none
        with pytest.raises(NotFoundError, match="no such group"):
            await fr.check("t-never-written")
    else:
        assert (await fr.check("t-never-written")).render() == [
            "ok: 0 facts, 0 links, no violations"]


def test_cli_check_prints_ok_or_each_violation_and_exits_1(
    settings: Settings, group_id: str, tmp_path: Path
) -> None:
    async def setup() -> dict[str, str]:
        async with FrGraph(settings) as fr:
            await load(fr, tmp_path, group_id)
            await load(fr, tmp_path, f"{group_id}-bad")
            return await corrupt(fr, f"{group_id}-bad")

    u = asyncio.run(setup())
    result = cli(settings, "check", "--group", group_id)
    assert (result.exit_code, result.stdout) == (0, "ok: 12 facts, 5 links, no violations\n")

    result = cli(settings, "check", "--group", f"{group_id}-bad")
    assert result.exit_code == 1 and result.stderr == ""
    lines = result.stdout.splitlines()
    assert len(lines) == len(expected_violations(u))
    assert lines[0].startswith("supersession_cycle: FR_SUPERSEDES links form a cycle")
    assert any(line.startswith("overlay_without_edge: ") and line.endswith(f"[{u['car-1']}]")
               for line in lines)

    result = cli(settings, "check", "--group", f"{group_id}-bad", "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert (data["group_id"], data["ok"]) == (f"{group_id}-bad", False)
    assert {(v["kind"], tuple(v["uuids"])) for v in data["violations"]} == {
        (kind.value, uuids) for kind, uuids in expected_violations(u)}

    result = cli(settings, "check", "--group", "bad group")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("error: group_id 'bad group'")
    assert len(result.stderr.strip().splitlines()) == 1

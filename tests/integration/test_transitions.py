"""Lifecycle transitions on import and after add_episode, on each real backend.

One test per transition: hard supersession (with Graphiti's invalid_at), soft supersession,
retraction by slot key and by meaning, completion, out-of-order arrival, idempotent and
crash-safe re-import, and what current and historical searches return afterwards.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from fr_graph.api import FrGraph
from fr_graph.errors import StoreError
from fr_graph.overlay import stable_uuid
from fr_graph.pipeline.records import MessageRecord
from fr_graph.stores.base import QueryRunner
from tests.integration.helpers import RunnerWith, write_jsonl

pytestmark = pytest.mark.integration

T1 = datetime(2025, 1, 10, 9, 0, tzinfo=UTC)
T2 = datetime(2025, 3, 10, 9, 0, tzinfo=UTC)
T3 = datetime(2025, 5, 10, 9, 0, tzinfo=UTC)


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def fact(group_id: str, rid: str, text: str, when: datetime, **gold: Any) -> dict[str, Any]:
    return {"type": "fact", "group_id": group_id, "id": rid, "fact": text,
            "observed_at": iso(when), **gold}


async def load(fr: FrGraph, tmp_path: Path, name: str, records: list[dict[str, Any]]
               ) -> None:
    report = await fr.import_file(write_jsonl(tmp_path / f"{name}.jsonl", records))
    assert report.rejected == []


def moment(value: Any) -> datetime | None:
    """Graphiti's times as read back: datetime (Neo4j) or ISO string (FalkorDB)."""
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return value


async def fact_row(fr: FrGraph, group_id: str, rid: str) -> dict[str, Any]:
    """The RELATES_TO properties (``r``) and FrFact properties (``f``) of record ``rid``."""
    rows = await fr.store.run_text(
        "test_fact",
        "MATCH ()-[r:RELATES_TO {uuid: $uuid}]->() "
        "OPTIONAL MATCH (f:FrFact {edge_uuid: $uuid}) "
        "RETURN properties(r) AS r, properties(f) AS f",
        group_id, uuid=stable_uuid(group_id, "fact", rid))
    assert len(rows) == 1, rid
    return rows[0]


async def states(fr: FrGraph, group_id: str) -> dict[str, tuple[str, bool]]:
    """``source_id -> (state, ambiguous)`` from the FrFact nodes, checked against the mirror."""
    rows = await fr.store.run_text(
        "test_states",
        "MATCH (f:FrFact {group_id: $group_id}) "
        "MATCH ()-[r:RELATES_TO {uuid: f.edge_uuid}]->() "
        "RETURN f.source_id AS id, f.state AS state, f.ambiguous AS ambiguous, "
        "r.fr_state AS mirrored, r.fr_ambiguous AS mirrored_ambiguous, "
        "f.revision AS revision, r.fr_revision AS mirrored_revision",
        group_id, group_id=group_id)
    for row in rows:
        assert (row["mirrored"], row["mirrored_ambiguous"], row["mirrored_revision"]) == (
            row["state"], row["ambiguous"], row["revision"]), row
    return {row["id"]: (row["state"], bool(row["ambiguous"])) for row in rows}


async def links(fr: FrGraph, group_id: str) -> list[dict[str, Any]]:
    return await fr.store.run_text(
        "test_links",
        "MATCH (n:FrFact {group_id: $group_id})-[s:FR_SUPERSEDES]->(o:FrFact) "
        "RETURN n.source_id AS newer, o.source_id AS older, s.kind AS kind, "
        "s.confidence AS confidence, s.at AS at, s.reason AS reason, s.reader AS reader "
        "ORDER BY newer, older",
        group_id, group_id=group_id)


def pairs(rows: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {(r["newer"], r["older"], r["kind"]) for r in rows}


async def test_confident_replacement_supersedes_and_sets_graphiti_invalid_at(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    gold = {"category": "preferences", "slot_key": "user|food_preference", "confidence": 0.9}
    await load(fr, tmp_path, "food", [
        fact(group_id, "pizza", "User likes pizza", T1, **gold),
        fact(group_id, "sushi", "User likes sushi", T2, **gold),
    ])
    assert await states(fr, group_id) == {"pizza": ("superseded", False),
                                          "sushi": ("active", False)}
    [link] = await links(fr, group_id)
    assert (link["newer"], link["older"], link["kind"]) == ("sushi", "pizza", "supersede")
    assert link["confidence"] == pytest.approx(0.9) and link["at"] == iso(T2)
    assert "0.90 >= 0.80" in link["reason"]

    old = await fact_row(fr, group_id, "pizza")
    assert moment(old["r"]["invalid_at"]) == T2  # Graphiti's field: world time of the change
    assert old["r"]["expired_at"] is not None
    assert old["f"]["valid_to"] == old["r"]["fr_valid_to"] == iso(T2)
    assert (await fact_row(fr, group_id, "sushi"))["r"].get("invalid_at") is None

    # A plain Graphiti reader sees the same truth.
    edge = await fr.graphiti(group_id).edges.entity.get_by_uuid(
        stable_uuid(group_id, "fact", "pizza"))
    assert edge.invalid_at == T2 and edge.attributes["fr_state"] == "superseded"


async def test_tentative_statement_is_soft_then_a_move_supersedes(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    """App. F: 'thinking about moving to London' keeps 'lives in Istanbul'; 'moved' doesn't."""
    gold = {"category": "identity", "slot_key": "user|current_city"}
    await load(fr, tmp_path, "a", [
        fact(group_id, "istanbul", "User lives in Istanbul", T1, confidence=0.97, **gold),
        fact(group_id, "thinking", "User is thinking about moving to London", T2, **gold),
    ])
    assert await states(fr, group_id) == {"istanbul": ("active", True),
                                          "thinking": ("active", True)}
    [link] = await links(fr, group_id)
    assert (link["newer"], link["older"], link["kind"]) == ("thinking", "istanbul", "soft")
    assert "tentative" in link["reason"]
    assert (await fact_row(fr, group_id, "istanbul"))["r"].get("invalid_at") is None

    await load(fr, tmp_path, "b", [
        fact(group_id, "moved", "User moved to London", T3, confidence=0.97, **gold)])
    found = await states(fr, group_id)
    assert {k: v[0] for k, v in found.items()} == {
        "istanbul": "superseded", "thinking": "superseded", "moved": "active"}
    assert found["moved"] == ("active", False)
    assert pairs(await links(fr, group_id)) == {
        ("thinking", "istanbul", "soft"), ("moved", "istanbul", "supersede"),
        ("moved", "thinking", "supersede")}


async def test_retraction_by_slot_key_retracts_the_plan_and_its_parts(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    gold = {"category": "logistical", "confidence": 0.9}
    await load(fr, tmp_path, "trip", [
        fact(group_id, "trip", "User is planning a trip to Tokyo in May", T1,
             slot_key="user|trip:tokyo", **gold),
        fact(group_id, "hotel", "User booked a hotel in Tokyo for May", T2,
             slot_key="user|trip:tokyo|hotel", **gold),
        fact(group_id, "off", "User cancelled the trip to Tokyo", T3,
             slot_key="user|trip:tokyo", **gold),
    ])
    assert await states(fr, group_id) == {"trip": ("retracted", False),
                                          "hotel": ("retracted", False),
                                          "off": ("active", False)}
    assert pairs(await links(fr, group_id)) == {("off", "trip", "retract"),
                                                ("off", "hotel", "retract")}
    for rid in ("trip", "hotel"):  # retained, never deleted, and invalid for Graphiti too
        row = await fact_row(fr, group_id, rid)
        assert moment(row["r"]["invalid_at"]) == T3


async def test_retraction_without_a_slot_match_finds_the_plan_by_meaning(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    gold = {"category": "logistical", "confidence": 0.9}
    await load(fr, tmp_path, "plans", [
        fact(group_id, "tokyo", "User is planning a trip to Tokyo in May", T1,
             slot_key="user|travel:tokyo", **gold),
        fact(group_id, "lisbon", "User is planning a trip to Lisbon in June", T1,
             slot_key="user|travel:lisbon", **gold),
        fact(group_id, "sushi", "User likes sushi", T1, category="preferences"),
    ])
    await load(fr, tmp_path, "off", [
        fact(group_id, "off", "User cancelled the trip to Tokyo", T2,
             slot_key="user|vacation", **gold)])
    found = await states(fr, group_id)
    assert found["tokyo"] == ("retracted", False)
    assert found["lisbon"] == ("active", False) and found["sushi"] == ("active", False)
    [link] = await links(fr, group_id)
    assert (link["newer"], link["older"], link["kind"]) == ("off", "tokyo", "retract")
    assert "by meaning" in link["reason"]
    assert moment((await fact_row(fr, group_id, "tokyo"))["r"]["invalid_at"]) == T2


async def test_completion_closes_the_project(fr: FrGraph, group_id: str,
                                             tmp_path: Path) -> None:
    gold = {"category": "projects", "slot_key": "user|project:thesis", "confidence": 0.9}
    await load(fr, tmp_path, "thesis", [
        fact(group_id, "writing", "User is writing a thesis on memory", T1, **gold),
        fact(group_id, "defended", "User defended the thesis", T2, **gold),
    ])
    assert await states(fr, group_id) == {"writing": ("superseded", False),
                                          "defended": ("active", False)}
    [link] = await links(fr, group_id)
    assert (link["newer"], link["older"], link["kind"]) == ("defended", "writing", "complete")
    hits = await fr.search("what projects am I working on?", group_id, now=T3)
    assert stable_uuid(group_id, "fact", "writing") not in {h.uuid for h in hits}


async def test_an_older_fact_imported_later_never_supersedes_the_newer(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    gold = {"category": "financial", "slot_key": "user|rent", "confidence": 0.95}
    await load(fr, tmp_path, "new", [
        fact(group_id, "rent-1100", "User's rent is $1100 a month", T2, **gold)])
    before = (await fact_row(fr, group_id, "rent-1100"))["f"]
    await load(fr, tmp_path, "old", [
        fact(group_id, "rent-950", "User's rent is $950 a month", T1, **gold)])
    assert await states(fr, group_id) == {"rent-1100": ("active", False),
                                          "rent-950": ("superseded", False)}
    newer = await fact_row(fr, group_id, "rent-1100")
    assert newer["f"]["revision"] == before["revision"]  # not touched at all
    assert newer["r"].get("invalid_at") is None
    [link] = await links(fr, group_id)
    assert (link["newer"], link["older"]) == ("rent-1100", "rent-950")
    assert "arrived after the newer fact" in link["reason"]
    assert moment((await fact_row(fr, group_id, "rent-950"))["r"]["invalid_at"]) == T2


async def test_reimport_and_rerun_after_a_crash_converge_without_duplicate_links(
    fr: FrGraph, group_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gold = {"category": "preferences", "slot_key": "user|coffee", "confidence": 0.9}
    path = write_jsonl(tmp_path / "coffee.jsonl", [
        fact(group_id, "latte", "User drinks oat milk lattes", T1, **gold),
        fact(group_id, "black", "User switched to black coffee", T2, **gold),
        fact(group_id, "tea", "User gave up coffee for green tea", T3, **gold),
    ])
    transact = fr.store.transact

    async def crash_on_write(group: str, work: Any) -> Any:
        """The store's own transaction, with the lifecycle write failing inside it."""
        async def crashing(runner: QueryRunner) -> Any:
            async def run(name: str, group: str, /, **params: Any) -> list[dict[str, Any]]:
                if name == "apply_lifecycle":
                    raise StoreError("simulated crash", query=name)
                return await runner.run(name, group, **params)
            return await work(RunnerWith(runner, run))
        return await transact(group, crashing)

    monkeypatch.setattr(fr.store, "transact", crash_on_write)
    with pytest.raises(StoreError, match="simulated crash"):
        await fr.import_file(path)
    monkeypatch.undo()
    [stats] = await fr.stats(group_id)
    assert (stats.facts, stats.unannotated) == (3, 3)  # edges saved, nothing decided

    report = await fr.import_file(path)
    assert report.imported == 3 and report.transitions == {"supersede": 2}
    expected = {"latte": ("superseded", False), "black": ("superseded", False),
                "tea": ("active", False)}
    assert await states(fr, group_id) == expected
    first = await links(fr, group_id)
    assert pairs(first) == {("black", "latte", "supersede"), ("tea", "black", "supersede")}

    again = await fr.import_file(path)
    assert (again.imported, again.already_present) == (0, 3)
    assert await states(fr, group_id) == expected
    assert await links(fr, group_id) == first  # MERGEd: no duplicates


async def test_current_queries_hide_replaced_and_retracted_facts_history_finds_them(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    """No gold metadata: the rules classifier's categories and the linker decide."""
    await load(fr, tmp_path, "life", [
        fact(group_id, "veg", "User is vegetarian", T1),
        fact(group_id, "fish", "User stopped being vegetarian, eats meat now", T2),
        fact(group_id, "rent-old", "User pays $950 a month in rent", T1),
        fact(group_id, "rent-new", "User's rent went up to $1100 a month", T2),
        fact(group_id, "treehouse", "User plans to build a treehouse", T1),
        fact(group_id, "scrapped", "User scrapped the treehouse plan", T2),
        fact(group_id, "chess", "User plays chess online every evening", T1),
    ])
    found = await states(fr, group_id)
    # The diet change is a stated change of one attribute: the verifier links it as an
    # update above its hard band (a softer verdict would keep both, the older contested).
    assert found["veg"] == ("superseded", False) and found["fish"] == ("active", False)
    # The rent rise is an update too (0.969, above the updates band of 0.80).
    assert found["rent-old"][0] == "superseded" and found["rent-new"][0] == "active"
    assert found["treehouse"][0] == "retracted" and found["chess"][0] == "active"
    uuid = {rid: stable_uuid(group_id, "fact", rid) for rid in found}

    async def top(query: str) -> list[str]:
        return [h.uuid for h in await fr.search(query, group_id, now=T3, limit=10)]

    for query in ("what do I eat these days?", "what is my diet?"):
        hits = await top(query)
        assert uuid["fish"] in hits and uuid["veg"] not in hits
    rent = await top("how much rent do I pay?")
    assert uuid["rent-new"] in rent and uuid["rent-old"] not in rent
    assert uuid["treehouse"] not in await top("what am I building?")

    assert uuid["veg"] in (await top("what did I change from in my diet?"))[:3]
    assert uuid["rent-old"] in (await top("what was my rent before it went up?"))[:3]
    assert uuid["treehouse"] in (await top("what plans did I cancel?"))[:3]


# -- messages through add_episode (the LLM is a local fake OpenAI-compatible server) -----


async def test_graphiti_invalidation_after_add_episode_supersedes_and_links(
    llm_fr: FrGraph, group_id: str
) -> None:
    fr = llm_fr
    report = await fr.import_messages([
        MessageRecord(type="message", group_id=group_id, role="user", id=mid, content=text,
                      observed_at=when)
        for mid, text, when in (("m1", "I live in Denver.", T1),
                                ("m2", "I live in Boston now.", T2))
    ])
    assert report.imported == 2
    found = await states(fr, group_id)
    assert {k.split("#")[0]: v for k, v in found.items()} == {
        "m1": ("superseded", False), "m2": ("active", False)}
    [link] = await links(fr, group_id)
    assert (link["newer"].split("#")[0], link["older"].split("#")[0]) == ("m2", "m1")
    # Graphiti's invalidation and the link verifier agree; the link keeps the last reason.
    assert link["kind"] == "supersede" and ("Graphiti invalidated" in link["reason"]
                                            or "linked by meaning: updates" in link["reason"])

    hits = await fr.search("where do I live", group_id, now=T3)
    assert [h.fact for h in hits] == ["User lives in Boston now"]
    history = await fr.search("where did I live before I moved?", group_id, now=T3)
    assert "User lives in Denver" in [h.fact for h in history]

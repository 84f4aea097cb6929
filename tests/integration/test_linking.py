"""Linking by meaning on each real backend: facts whose slot the rules only proposed are
linked by the offline verifier to the facts they update, cancel, complete or contradict.

The pairs are plain note-style text with no gold metadata, as real extraction produces.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from fr_graph.api import FrGraph
from fr_graph.classify.linking import OfflineVerifier, shipped_model
from fr_graph.config import LLMSettings, Settings
from fr_graph.core.linking import LinkBands, Relation
from fr_graph.overlay import stable_uuid
from tests.fake_llm import FakeLLM
from tests.integration.helpers import assert_lifecycle_invariants
from tests.integration.test_transitions import T1, T2, T3, fact, links, load, states


async def slot_of(fr: FrGraph, group_id: str, rid: str) -> tuple[str | None, str | None]:
    rows = await fr.store.run_text(
        "test_slot", "MATCH (f:FrFact {edge_uuid: $uuid}) "
        "RETURN f.slot_key AS slot_key, f.slot_source AS slot_source",
        group_id, uuid=stable_uuid(group_id, "fact", rid))
    return rows[0]["slot_key"], rows[0]["slot_source"]


async def test_update_imported_out_of_order_joins_one_slot_and_supersedes(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    await load(fr, tmp_path, "new", [
        fact(group_id, "ebike", "Sold the Civic last week, drives a Tesla now", T2)])
    await load(fr, tmp_path, "old", [fact(group_id, "civic", "Drives a Civic", T1)])
    assert await states(fr, group_id) == {"civic": ("superseded", False),
                                          "ebike": ("active", False)}
    [link] = await links(fr, group_id)
    assert (link["newer"], link["older"], link["kind"]) == ("ebike", "civic", "supersede")
    assert "linked by meaning: updates" in link["reason"] and "civic" in link["reason"]
    assert link["reader"] == "offline" and "read by offline" in link["reason"]
    key, source = await slot_of(fr, group_id, "civic")
    assert key is not None and source == "linked"
    assert await slot_of(fr, group_id, "ebike") == (key, "linked")

    # explain shows the link, the relation, its reader and the verifier's evidence.
    explained = await fr.explain(stable_uuid(group_id, "fact", "civic"), "what do I drive?",
                                 group_id=group_id, now=T3)
    assert any("linked by meaning: updates" in note and "read by offline" in note
               for note in explained.notes)

    # A history question still finds the superseded value; a current one does not.
    past = await fr.search("what car did I use to drive?", group_id=group_id, now=T3)
    assert "Drives a Civic" in [r.fact for r in past]
    now = await fr.search("what car do I drive?", group_id=group_id, now=T3)
    assert "Drives a Civic" not in [r.fact for r in now]


async def test_cancellation_retracts_and_completion_closes(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    await load(fr, tmp_path, "plans", [
        fact(group_id, "dentist", "Planning a trip to Lisbon in May", T1),
        fact(group_id, "thesis", "Writing my thesis on coral reefs", T1),
        fact(group_id, "off", "Lisbon trip called off", T2),
        fact(group_id, "done", "Defended my thesis yesterday!", T3),
    ])
    assert await states(fr, group_id) == {
        "dentist": ("retracted", False), "off": ("active", False),
        "thesis": ("superseded", False), "done": ("active", False)}
    assert {(r["newer"], r["older"], r["kind"]) for r in await links(fr, group_id)} == {
        ("off", "dentist", "retract"), ("done", "thesis", "complete")}


async def test_contradiction_keeps_both_flagged_and_unrelated_facts_stay_apart(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    await load(fr, tmp_path, "c", [
        fact(group_id, "sober", "Never drinks alcohol", T1),
        fact(group_id, "sister", "Sister lives in Austin", T1),
        fact(group_id, "beers", "Got drunk at Sam's party on Saturday", T2),
        fact(group_id, "brother", "Brother moved to Denver", T2),
    ])
    assert await states(fr, group_id) == {
        "sober": ("active", True), "beers": ("active", True),
        "sister": ("active", False), "brother": ("active", False)}
    [link] = await links(fr, group_id)
    assert (link["newer"], link["older"], link["kind"]) == ("beers", "sober", "contradict")

    # The contradicted claim is contested: ranked lower through omega, never hidden, and
    # restore undoes it.
    sober = stable_uuid(group_id, "fact", "sober")
    contested = (await fr.store.run_text(
        "test_contested", "MATCH (f:FrFact {edge_uuid: $uuid}) RETURN f.contested AS c",
        group_id, uuid=sober))[0]["c"]
    assert contested == pytest.approx(link["confidence"], abs=1e-4) and 0.0 < contested <= 1.0
    [hit] = [r for r in await fr.search("do I drink alcohol?", group_id=group_id, now=T3)
             if r.uuid == sober]
    assert hit.terms["omega"] < 1.0
    explained = await fr.explain(sober, "do I drink alcohol?", group_id=group_id, now=T3)
    assert any(note.startswith("contested by a later fact") for note in explained.notes)
    assert (await fr.restore(sober, group_id=group_id)).changed
    assert (await fr.store.run_text(
        "test_contested", "MATCH (f:FrFact {edge_uuid: $uuid}) RETURN f.contested AS c",
        group_id, uuid=sober))[0]["c"] == 0.0


async def test_a_reverted_link_stays_reverted_on_reimport(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    records = [fact(group_id, "civic", "Drives a Civic", T1),
               fact(group_id, "ebike", "Sold the Civic last week, drives a Tesla now", T2)]
    await load(fr, tmp_path, "a", records)
    civic = stable_uuid(group_id, "fact", "civic")
    change = await fr.restore(civic, group_id=group_id)
    assert change.changed and change.state == "active"
    assert await states(fr, group_id) == {"civic": ("active", False),
                                          "ebike": ("active", False)}
    [link] = await links(fr, group_id)
    assert link["kind"] == "reverted" and "was supersede" in link["reason"]
    assert await slot_of(fr, group_id, "civic") == (None, "inferred")
    row = (await fr.store.run_text(
        "test_invalid", "MATCH ()-[r:RELATES_TO {uuid: $uuid}]->() "
        "RETURN r.invalid_at AS invalid_at, r.fr_state AS mirrored", group_id, uuid=civic))[0]
    assert row == {"invalid_at": None, "mirrored": "active"}

    await load(fr, tmp_path, "again", records)  # re-import: nothing is linked again
    await load(fr, tmp_path, "more", [fact(group_id, "tyre", "Got a flat tyre on the way to work",
                                           T3)])
    assert (await states(fr, group_id))["civic"] == ("active", False)
    assert [r["kind"] for r in await links(fr, group_id)
            if (r["newer"], r["older"]) == ("ebike", "civic")] == ["reverted"]
    assert not (await fr.restore(civic, group_id=group_id)).changed  # nothing left to undo


async def test_llm_verifier_decides_links_when_configured(
    settings: Settings, group_id: str, tmp_path: Path
) -> None:
    """FR_GRAPH_LLM_LINK: the LLM (faked at its HTTP interface, reached through Graphiti's
    real client) judges the pair; its verdict is what the link records."""
    with FakeLLM() as fake:
        fake.canned["PairRelation"] = {"relation": "updates", "confidence": 0.97,
                                       "reason": "new commute replaces the car"}
        configured = settings.model_copy(update={
            "llm": LLMSettings(base_url=fake.url + "/v1", api_key="test", model="fake"),
            "llm_link": True})
        async with FrGraph(configured) as fr:
            await load(fr, tmp_path, "llm", [
                fact(group_id, "car", "Drives a Civic", T1),
                fact(group_id, "bike", "Cycling to work every day now", T2)])
            assert await states(fr, group_id) == {"car": ("superseded", False),
                                                  "bike": ("active", False)}
            [link] = await links(fr, group_id)
            assert "updates (verifier 0.97, read by llm)" in link["reason"]
            assert link["reader"] == "llm"
            await assert_lifecycle_invariants(fr, group_id)
        assert "PairRelation" in fake.schema_names()


async def test_a_verifier_given_to_the_constructor_decides_links(
    settings: Settings, group_id: str, tmp_path: Path
) -> None:
    """``FrGraph(verifier=...)``: the shipped model with an updates band no verdict reaches
    keeps the Civic active, both flagged (the shipped bands supersede it: the first test
    above)."""
    shipped = shipped_model()
    strict = LinkBands(hard=0.999, soft=shipped.bands.soft, contradicts=0.999,
                       hard_by_relation={Relation.UPDATES: 0.9999})
    async with FrGraph(settings, verifier=OfflineVerifier(replace(shipped, bands=strict))) as fr:
        await load(fr, tmp_path, "strict", [
            fact(group_id, "civic", "Drives a Civic", T1),
            fact(group_id, "tesla", "Sold the Civic last week, drives a Tesla now", T2)])
        assert await states(fr, group_id) == {"civic": ("active", True),
                                              "tesla": ("active", True)}
        [link] = await links(fr, group_id)
        assert link["kind"] == "soft" and "updates" in link["reason"]


async def test_the_cross_encoder_cascade_supersedes_what_the_offline_verifier_only_flags(
    settings: Settings, group_id: str, tmp_path: Path
) -> None:
    """FR_GRAPH_LINK_VERIFIER=cross-encoder: the shipped graph under onnxruntime re-reads the
    pair the offline verifier only flags (a manager who left), sure enough to supersede; the
    link records its reading."""
    notes = [fact(group_id, "dana", "My manager is Dana", T1),
             fact(group_id, "luis", "Dana left, reporting to Luis now", T2)]
    async with FrGraph(settings) as fr:
        await load(fr, tmp_path, "offline", notes)
        assert await states(fr, group_id) == {"dana": ("active", True), "luis": ("active", True)}
    other = group_id + "-cross"
    notes = [{**note, "group_id": other} for note in notes]
    async with FrGraph(settings.model_copy(update={"link_verifier": "cross-encoder"})) as fr:
        await load(fr, tmp_path, "cross", notes)
        assert await states(fr, other) == {"dana": ("superseded", False),
                                           "luis": ("active", False)}
        [link] = await links(fr, other)
        assert (link["newer"], link["older"], link["kind"]) == ("luis", "dana", "supersede")
        assert "linked by meaning: updates" in link["reason"]
        assert link["reader"] == "cross-encoder"
        explained = await fr.explain(stable_uuid(other, "fact", "dana"), "who is my manager?",
                                     group_id=other, now=T3)
        assert any("read by cross-encoder" in note for note in explained.notes)
        await assert_lifecycle_invariants(fr, other)

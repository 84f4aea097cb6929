"""Messages with an LLM configured: Graphiti's add_episode, then the overlay annotates.

The LLM is the one thing faked: ``tests/fake_llm.py`` is a real local OpenAI-compatible HTTP
server, reached through Graphiti's real ``OpenAIGenericClient`` (built by
``fr_graph.clients.build_llm_client``). Everything else is real: Neo4j 5.26, embedded
FalkorDB, Graphiti's extraction, dedupe and invalidation, the local embedder.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from fr_graph.api import FrGraph
from fr_graph.overlay import stable_uuid
from fr_graph.pipeline.episodes import DONE, EpisodeOutcome, ingest_message_with_llm
from fr_graph.pipeline.ingest import Ingestor
from fr_graph.pipeline.records import MessageRecord
from tests.fake_llm import FakeLLM

pytestmark = pytest.mark.integration

T1 = datetime(2025, 5, 1, 10, 0, tzinfo=UTC)
T2 = datetime(2025, 6, 1, 10, 0, tzinfo=UTC)
T3 = datetime(2025, 6, 2, 10, 0, tzinfo=UTC)


def message(group_id: str, mid: str, content: str, at: datetime) -> MessageRecord:
    return MessageRecord(type="message", group_id=group_id, role="user", id=mid,
                         content=content, observed_at=at, episode="session-22")


async def ingest(fr: FrGraph, record: MessageRecord) -> EpisodeOutcome:
    writer = Ingestor(fr.store, fr.embedders, fr.graphiti)
    return await ingest_message_with_llm(fr.graphiti(record.group_id), fr.store, record,
                                         writer.write_overlays)


async def edge_row(fr: FrGraph, group_id: str, edge_uuid: str) -> dict[str, Any]:
    rows = await fr.store.run_text(
        "test_edge",
        "MATCH ()-[r:RELATES_TO {uuid: $uuid}]->() "
        "OPTIONAL MATCH (f:FrFact {edge_uuid: $uuid}) "
        "RETURN properties(r) AS r, properties(f) AS f",
        group_id, uuid=edge_uuid)
    assert len(rows) == 1, f"edge {edge_uuid} not found"
    return rows[0]


def mirror(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row["r"].items() if k.startswith("fr_")}


async def test_llm_messages_are_annotated_after_add_episode(
    llm_fr: FrGraph, fake: FakeLLM, group_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fr = llm_fr
    # What Graphiti left on each edge at the moment the overlay re-applies the mirror.
    before_remirror: dict[str, dict[str, Any]] = {}
    run = fr.store.run

    async def spy(name: str, group: str, /, **params: Any) -> list[dict[str, Any]]:
        if name == "apply_mirror":
            for uuid in params["edge_uuids"]:
                before_remirror[uuid] = mirror(await edge_row(fr, group, uuid))
        return await run(name, group, **params)

    monkeypatch.setattr(fr.store, "run", spy)

    # 1. A first fact: Graphiti extracts it through the LLM; the overlay classifies it.
    first = await ingest(fr, message(group_id, "m1", "I live in Denver.", T1))
    assert first.already_present is False
    assert first.facts_created == 1 and first.edges_remirrored == 0
    [denver] = first.new_edge_uuids
    assert first.episode_uuid == stable_uuid(group_id, "episode", "m1")
    row = await edge_row(fr, group_id, denver)
    assert row["r"]["fact"] == "User lives in Denver"
    assert row["r"]["episodes"] == [first.episode_uuid]
    assert row["f"]["source_id"] == f"m1#{denver}"
    assert row["f"]["category"] == "identity"
    # The rules only propose a slot; the fact joins one when the linker links it.
    assert row["f"]["slot_hint"] == "user|current_city"
    assert row["f"]["episode"] == "session-22"
    denver_mirror = mirror(row)
    assert denver_mirror["fr_category"] == "identity"
    assert denver_mirror["fr_source_id"] == f"m1#{denver}"
    assert denver_mirror["fr_revision"] == row["f"]["revision"]

    # 2. A contradicting fact: Graphiti invalidates the first edge and re-saves it.
    second = await ingest(fr, message(group_id, "m2", "I live in Boston now.", T2))
    assert second.facts_created == 1
    assert second.edges_remirrored == 1  # the invalidated Denver edge
    [boston] = second.new_edge_uuids
    row = await edge_row(fr, group_id, boston)
    assert row["r"]["fact"] == "User lives in Boston now"
    assert row["r"]["fr_category"] == "identity"
    assert row["f"]["slot_hint"] == "user|current_city"
    assert row["r"]["fr_source_id"] == f"m2#{boston}"
    row = await edge_row(fr, group_id, denver)
    assert row["r"]["invalid_at"] is not None and row["r"]["expired_at"] is not None
    # Graphiti's invalidation is lifecycle evidence: Denver is superseded from Graphiti's
    # invalid_at on; the rest of its mirror is intact after Graphiti's re-save.
    assert row["f"]["state"] == "superseded"
    # Denver is over when the linker reads Boston (Graphiti's evidence came first): a link
    # to a fact already over changes nothing, so neither joins a slot chain.
    boston_row = await edge_row(fr, group_id, boston)
    assert row["f"]["slot_source"] == boston_row["f"]["slot_source"] == "inferred"
    assert mirror(row) == {**denver_mirror, "fr_state": "superseded",
                           "fr_valid_to": "2025-06-01T10:00:00Z",
                           "fr_revision": denver_mirror["fr_revision"] + 1}
    # Graphiti read the mirror back as attributes and wrote it again with the invalidation.
    assert before_remirror[denver] == denver_mirror

    # 3. A paraphrase judged duplicate: Graphiti resets the edge's attributes and saves it
    #    (`SET e = $edge_data` drops every fr_* property); the overlay re-applies them.
    boston_mirror = mirror(await edge_row(fr, group_id, boston))
    third = await ingest(fr, message(group_id, "m3", "I still live in Boston.", T3))
    assert third.facts_created == 0
    assert third.edges_remirrored == 1
    row = await edge_row(fr, group_id, boston)
    assert len(row["r"]["episodes"]) == 2  # Graphiti did re-save it
    assert before_remirror[boston] == {}  # Graphiti's re-save had wiped the mirror
    assert mirror(row) == boston_mirror

    [stats] = await fr.stats(group_id)
    assert stats.facts == 2 and stats.unannotated == 0 and stats.drifted == 0
    assert stats.by_category == {"identity": 2}

    # Graphiti's own search still finds the facts (and reads the mirror as attributes).
    found = await fr.graphiti(group_id).search("where does the user live",
                                                group_ids=[group_id], num_results=5)
    by_uuid = {e.uuid: e for e in found}
    assert {denver, boston} <= set(by_uuid)
    assert by_uuid[boston].attributes["fr_category"] == "identity"
    # ... and so does fr-graph's: the current answer only, the old one for history.
    hits = await fr.search("where do I live", group_id)
    assert [h.uuid for h in hits] == [boston]
    history = await fr.search("where did I live before I moved?", group_id)
    assert denver in {h.uuid for h in history}

    # The requests came through the real OpenAIGenericClient over HTTP.
    assert fake.requests, "the fake LLM server was never called"
    assert all(r.path == "/v1/chat/completions" for r in fake.requests)
    assert all(r.headers.get("authorization") == "Bearer test" for r in fake.requests)
    assert all(r.body["model"] == "fake" for r in fake.requests)
    assert all(r.body["response_format"]["type"] == "json_schema" for r in fake.requests)
    names = set(fake.schema_names())
    assert {"ExtractedEntities", "ExtractedEdges", "EdgeDuplicate"} <= names
    assert fake.unhandled == []

    # Re-importing a message creates nothing and asks the LLM nothing.
    calls = len(fake.requests)
    again = await ingest(fr, message(group_id, "m2", "I live in Boston now.", T2))
    assert again.already_present is True and again.facts_created == 0
    assert len(fake.requests) == calls
    [stats] = await fr.stats(group_id)
    assert stats.facts == 2
    episodes = await fr.graphiti(group_id).nodes.episode.get_by_uuids(
        [first.episode_uuid, second.episode_uuid, third.episode_uuid])
    assert {e.source_description for e in episodes} == {DONE}


async def test_an_interrupted_message_is_processed_again(
    llm_fr: FrGraph, fake: FakeLLM, group_id: str
) -> None:
    """A saved-but-pending episode (a crash mid-import) is not mistaken for a done one."""
    fr = llm_fr
    record = message(group_id, "m1", "I work at Globex.", T1)

    async def crash(group: str, overlays: object) -> None:
        raise RuntimeError("simulated crash before the overlay was written")

    with pytest.raises(RuntimeError, match="simulated crash"):
        await ingest_message_with_llm(fr.graphiti(group_id), fr.store, record, crash)
    [stats] = await fr.stats(group_id)
    assert stats.unannotated == 1

    outcome = await ingest(fr, record)
    assert outcome.already_present is False
    assert outcome.facts_created == 1
    [stats] = await fr.stats(group_id)
    assert stats.facts == 1 and stats.unannotated == 0
    assert stats.by_category == {"identity": 1}

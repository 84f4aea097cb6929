"""The overlay survives Graphiti: its own save path, its own search, its own schema."""

from __future__ import annotations

from pathlib import Path

import pytest

from fr_graph.api import FrGraph
from fr_graph.overlay import stable_uuid
from fr_graph.stores.neo4j import filters_in_index
from tests.integration.helpers import group_file

pytestmark = pytest.mark.integration


async def _fr_properties(fr: FrGraph, group_id: str, edge_uuid: str) -> dict[str, object]:
    rows = await fr.store.run_text(
        "test_props", "MATCH ()-[r:RELATES_TO {uuid: $uuid}]->() RETURN properties(r) AS p",
        group_id, uuid=edge_uuid)
    return {k: v for k, v in rows[0]["p"].items() if k.startswith("fr_")}


async def test_graphiti_resave_drops_the_mirror_and_sync_restores_it(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    await fr.import_file(group_file(tmp_path, "facts_small.jsonl", group_id))
    edge_uuid = stable_uuid(group_id, "fact", "f-3")
    before = await _fr_properties(fr, group_id, edge_uuid)
    assert before["fr_category"] == "financial"
    assert before["fr_slot_key"] == "user|rent"

    # What Graphiti does to a re-mentioned fact judged duplicate: read it, reset its
    # attributes, save it with `SET e = $edge_data`.
    graphiti = fr.graphiti(group_id)
    edge = await graphiti.edges.entity.get_by_uuid(edge_uuid)
    edge.attributes = {}
    await graphiti.edges.entity.save(edge)
    assert await _fr_properties(fr, group_id, edge_uuid) == {}

    [stats] = await fr.stats(group_id)
    assert stats.drifted == 1
    report = await fr.sync(group_id)
    assert report.repaired == 1
    assert await _fr_properties(fr, group_id, edge_uuid) == before
    [stats] = await fr.stats(group_id)
    assert stats.drifted == 0


async def test_plain_graphiti_still_reads_and_searches_the_graph(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    await fr.import_file(group_file(tmp_path, "facts_small.jsonl", group_id))
    graphiti = fr.graphiti(group_id)
    edges = await graphiti.search("dentist appointment", group_ids=[group_id], num_results=3)
    assert edges, "Graphiti's own hybrid search found nothing"
    assert edges[0].fact == "User has a dentist appointment on April 29 at 3pm"
    # Graphiti reads the mirrored fields back as edge attributes.
    assert edges[0].attributes["fr_category"] == "obligations"


async def test_relationship_vector_index_exists(fr: FrGraph, group_id: str,
                                                tmp_path: Path) -> None:
    await fr.import_file(group_file(tmp_path, "facts_small.jsonl", group_id))
    if fr.store.dialect == "neo4j":
        rows = await fr.store.run_text(
            "test_indexes", "SHOW VECTOR INDEXES YIELD name, entityType, properties, state",
            group_id)
        [version] = await fr.store.run("server_version", group_id)
        # Neo4j 2026.01+ holds group_id in the index too, to filter by group inside it.
        properties = (["fact_embedding", "group_id"] if filters_in_index(version["version"])
                      else ["fact_embedding"])
        assert {"name": "fr_fact_embedding", "entityType": "RELATIONSHIP",
                "properties": properties, "state": "ONLINE"} in rows
    else:
        rows = await fr.store.run_text("test_indexes", "CALL db.indexes()", group_id)
        text = repr(rows)
        assert "VECTOR" in text and "fact_embedding" in text

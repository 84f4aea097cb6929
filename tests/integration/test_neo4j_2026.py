"""Neo4j 2026: the facts' vector index holds group_id and search filters by group inside it;
an index made before the upgrade keeps the 5.26 path; fr-graph's and Graphiti's own search
both work on the newer server. The 5.26 side is tested in test_neo4j_group_share.py."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from fr_graph import cypher
from fr_graph.api import FrGraph
from fr_graph.stores import neo4j as neo4j_module
from fr_graph.stores.neo4j import Neo4jStore
from tests.integration.helpers import group_file
from tests.integration.test_neo4j_group_share import DIM, exact_top, unit_rows, write_group
from tests.integration.test_transitions import T1, T2, T3, fact, links, load, states
from tests.neo4j_target import Neo4jTarget

pytestmark = pytest.mark.integration


@pytest.fixture
async def store(neo4j_2026_target: Neo4jTarget
                ) -> AsyncIterator[tuple[Neo4jStore, list[str]]]:
    ran: list[str] = []
    neo4j = Neo4jStore.connect(neo4j_2026_target.settings(embedding_dim=DIM),
                               tracer=lambda name, params: ran.append(name))
    try:
        yield neo4j, ran
    finally:
        await neo4j.close()


def near(rng: np.random.Generator, vector: np.ndarray) -> np.ndarray:
    query = 0.9 * vector + 0.1 * unit_rows(rng, 1)[0]
    normed: np.ndarray = query / np.linalg.norm(query)
    return normed


async def test_search_filters_by_group_inside_the_index(
        store: tuple[Neo4jStore, list[str]]) -> None:
    neo4j, ran = store
    rng = np.random.default_rng(21)
    tag = uuid.uuid4().hex[:8]
    big, small, tiny = f"in-big-{tag}", f"in-small-{tag}", f"in-tiny-{tag}"
    big_vectors, small_vectors, tiny_vectors = (unit_rows(rng, 2000), unit_rows(rng, 300),
                                                unit_rows(rng, 40))
    big_ids = await write_group(neo4j, big, big_vectors, ["plain fact"] * 2000)
    small_ids = await write_group(neo4j, small, small_vectors, ["plain fact"] * 300)
    tiny_ids = await write_group(neo4j, tiny, tiny_vectors, ["plain fact"] * 40)
    assert await neo4j.index_filters_by_group()

    for group, ids, vectors, planted in ((big, big_ids, big_vectors, 7),
                                         (small, small_ids, small_vectors, 3)):
        query = near(rng, vectors[planted])
        ran.clear()
        hits = await neo4j.vector_candidates(group, query.tolist(), 10)
        # One filtered index query whatever the group's share of the store (and its size,
        # counted once a minute): no exact scan.
        assert ran == ["group_share", "vector_candidates_in_index"]
        assert len(hits) == 10 and hits[0][0] == ids[planted]
        assert len({u for u, _ in hits} & set(exact_top(ids, vectors, query, 10))) >= 8
        # The kept hits carry their exact cosine.
        by_id = dict(zip(ids, vectors @ query, strict=True))
        assert all(abs(score - by_id[u]) < 1e-4 for u, score in hits)

    # A group no larger than the index request (10 rows x 8) is scanned exactly.
    query = near(rng, tiny_vectors[0])
    ran.clear()
    hits = await neo4j.vector_candidates(tiny, query.tolist(), 10)
    assert ran == ["group_share", "vector_candidates_exact"]
    assert [u for u, _ in hits] == exact_top(tiny_ids, tiny_vectors, query, 10)


async def test_deleted_facts_do_not_break_a_search_counted_before_them(
        store: tuple[Neo4jStore, list[str]]) -> None:
    """Neo4j 2026.08 fails a group-filtered search asked for more hits than the group holds
    once one of its facts was deleted; the group counted before the deletion (a minute's
    cache) still asks for them, and gets the exact scan instead of the error."""
    neo4j, ran = store
    rng = np.random.default_rng(23)
    group = f"deleted-{uuid.uuid4().hex[:8]}"
    vectors = unit_rows(rng, 100)
    ids = await write_group(neo4j, group, vectors, ["plain fact"] * 100)
    await neo4j.vector_candidates(group, near(rng, vectors[0]).tolist(), 10)  # counts 100
    await neo4j.run_text("delete", "MATCH ()-[r:RELATES_TO]->() WHERE r.uuid IN $gone "
                                   "DELETE r", group, gone=ids[:40])
    query = near(rng, vectors[50])
    ran.clear()
    hits = await neo4j.vector_candidates(group, query.tolist(), 10)
    assert ran == ["vector_candidates_in_index", "vector_candidates_exact"]
    assert [u for u, _ in hits] == exact_top(ids[40:], vectors[40:], query, 10)


async def test_an_index_made_before_the_upgrade_keeps_the_share_sized_path(
        store: tuple[Neo4jStore, list[str]], neo4j_2026_target: Neo4jTarget) -> None:
    neo4j, ran = store
    rng = np.random.default_rng(22)
    group = f"old-index-{uuid.uuid4().hex[:8]}"
    vectors = unit_rows(rng, 30)
    ids = await write_group(neo4j, group, vectors, ["plain fact"] * 30)
    plain_index = neo4j.bind_vector(cypher.load("fact_vector_index", "neo4j")).replace(
        "{embedding_dim}", str(DIM))
    await neo4j.run_text("drop", "DROP INDEX fr_fact_embedding", group)
    try:
        # What a store made on 5.26 brings to the upgraded server: an index without group_id.
        await neo4j.run_text("plain", plain_index, group)
        await neo4j.run_text("await", "CALL db.awaitIndexes(300)", group)
        old = Neo4jStore.connect(neo4j_2026_target.settings(embedding_dim=DIM),
                                 tracer=lambda name, params: ran.append(name))
        try:
            assert not await old.index_filters_by_group()
            query = near(rng, vectors[4])
            ran.clear()
            hits = await old.vector_candidates(group, query.tolist(), 10)
            assert "vector_candidates_in_index" not in ran
            assert [u for u, _ in hits] == exact_top(ids, vectors, query, 10)
        finally:
            await old.close()
    finally:
        # Dropped, the index is made again (with group_id) by the next schema set-up.
        await neo4j.run_text("drop", "DROP INDEX fr_fact_embedding IF EXISTS", group)
        fresh = Neo4jStore.connect(neo4j_2026_target.settings(embedding_dim=DIM))
        try:
            await fresh.ensure_schema(group)
            assert await fresh.index_filters_by_group()
        finally:
            await fresh.close()


async def test_fr_graph_and_graphiti_search_the_same_graph_on_2026(
        neo4j_2026_target: Neo4jTarget, tmp_path: Path) -> None:
    group_id = f"t26-{uuid.uuid4().hex[:12]}"
    async with FrGraph(neo4j_2026_target.settings()) as fr:
        report = await fr.import_file(group_file(tmp_path, "facts_small.jsonl", group_id))
        assert report.imported > 0 and not report.rejected
        found = await fr.search("when is my dentist appointment?", group_id,
                                now=datetime(2025, 4, 1, tzinfo=UTC))
        assert found[0].fact == "User has a dentist appointment on April 29 at 3pm"
        edges = await fr.graphiti(group_id).search("dentist appointment", group_ids=[group_id],
                                                   num_results=3)
        assert edges[0].fact == "User has a dentist appointment on April 29 at 3pm"
        assert edges[0].attributes["fr_category"] == "obligations"


async def test_the_linker_asks_the_filtered_index_in_a_large_group(
        neo4j_2026_target: Neo4jTarget, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past LINK_INDEX_MIN_FACTS (set below every group here) the linker takes each new
    fact's candidates from the group-filtered index instead of scanning the group; the new
    facts of one batch, which the index may not hold yet, still meet each other. On a small
    group the walk finds every neighbour, so the links are those of the exact scan."""
    tag = uuid.uuid4().hex[:10]
    earlier = [("civic", "Drives a Civic", T1), ("lisbon", "Planning a trip to Lisbon in May", T1),
               ("chess", "Plays chess at the club on Sundays", T1)]
    later = [("ebike", "Sold the Civic last week, drives a Tesla now", T2),
             ("off", "Lisbon trip called off", T2),
             ("thesis", "Writing my thesis on coral reefs", T1),  # and its end, in one batch
             ("done", "Defended my thesis yesterday!", T3),
             ("bread", "Bakes sourdough every weekend", T2)]
    outcomes = {}
    for path, min_facts in (("scan", neo4j_module.LINK_INDEX_MIN_FACTS), ("index", -1)):
        monkeypatch.setattr(neo4j_module, "LINK_INDEX_MIN_FACTS", min_facts)
        group_id = f"t26-{path}-{tag}"
        ran: list[str] = []
        async with FrGraph(neo4j_2026_target.settings()) as fr:
            fr.store.tracer = lambda name, params, seen=ran: seen.append(name)
            await load(fr, tmp_path, f"{path}-earlier",
                       [fact(group_id, rid, text, when) for rid, text, when in earlier])
            await load(fr, tmp_path, f"{path}-later",
                       [fact(group_id, rid, text, when) for rid, text, when in later])
            outcomes[path] = (await states(fr, group_id),
                              {(r["newer"], r["older"], r["kind"])
                               for r in await links(fr, group_id)})
        assert ("link_index_scan" in ran) == (path == "index")
        assert ("link_scan" in ran) == (path == "scan")
    assert outcomes["index"] == outcomes["scan"]
    assert outcomes["index"][1] >= {("ebike", "civic", "supersede"), ("off", "lisbon", "retract"),
                                    ("done", "thesis", "complete")}

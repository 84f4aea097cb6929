"""Plain Graphiti still searches a store fr-graph manages after it is closed and reopened,
on both backends, for group ids with '-', '_' and digits (issue 12, part 2): each retrieval
branch of the recipes the benchmark's Graphiti arms use (BM25, cosine, the cross-encoder
recipe) returns hits.

On FalkorDB this rests on two workarounds of upstream bugs (``GroupGraphDriver``); the last
tests check that each bug is still there, so the workaround can go when upstream fixes it.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest

from fr_graph._graphiti import EDGE_HYBRID_SEARCH_CROSS_ENCODER, EDGE_HYBRID_SEARCH_RRF
from fr_graph.api import FrGraph
from fr_graph.config import Settings
from fr_graph.stores.falkordb import FalkorStore
from tests.integration.helpers import group_file, write_jsonl

pytestmark = pytest.mark.integration

DENTIST = "User has a dentist appointment on April 29 at 3pm"
FACTS = 6  # in tests/data/facts_small.jsonl


def _groups() -> list[str]:
    tag = uuid.uuid4().hex[:8]
    return [f"re-{tag}-x", f"re_{tag}_x", f"re{tag}9"]


async def _populate(settings: Settings, groups: list[str], tmp_path: Path) -> None:
    async with FrGraph(settings) as fr:
        for group in groups:
            report = await fr.import_file(group_file(tmp_path, "facts_small.jsonl", group))
            assert report.imported == FACTS
            messages = write_jsonl(tmp_path / f"{group}-messages.jsonl", [
                {"type": "message", "group_id": group, "role": "user", "id": "m-1",
                 "content": "I moved to Lisbon last month.",
                 "observed_at": "2025-02-01T10:00:00Z"}])
            await fr.import_file(messages)


def _config(methods: str, limit: int) -> object:
    from graphiti_core.search.search_config import EdgeSearchConfig, EdgeSearchMethod

    chosen = {"bm25": [EdgeSearchMethod.bm25],
              "cosine": [EdgeSearchMethod.cosine_similarity]}[methods]
    edge_config = EdgeSearchConfig(search_methods=chosen,
                                   reranker=EDGE_HYBRID_SEARCH_RRF.edge_config.reranker)
    return EDGE_HYBRID_SEARCH_RRF.model_copy(update={"edge_config": edge_config,
                                                     "limit": limit})


async def test_plain_graphiti_searches_a_reopened_store(settings: Settings,
                                                        tmp_path: Path) -> None:
    from graphiti_core.search.search_config_recipes import NODE_HYBRID_SEARCH_RRF

    groups = _groups()
    await _populate(settings, groups, tmp_path)
    async with FrGraph(settings) as fr:  # a new process would see the same: data from disk
        for group in groups:
            graphiti = fr.graphiti(group)
            edges = await graphiti.search("dentist appointment", group_ids=[group],
                                          num_results=3)
            assert edges and edges[0].fact == DENTIST, group

            hybrid = EDGE_HYBRID_SEARCH_RRF.model_copy(update={"limit": 5})
            found = await graphiti.search_("dentist appointment", config=hybrid,
                                           group_ids=[group])
            assert len(found.edges) == 5, group
            for methods in ("bm25", "cosine"):
                alone = await graphiti.search_("dentist appointment",
                                               config=_config(methods, 3),  # type: ignore[arg-type]
                                               group_ids=[group])
                assert alone.edges and alone.edges[0].fact == DENTIST, (group, methods)
            # The benchmark's second Graphiti arm: its cross-encoder recipe (BM25, cosine
            # and breadth-first candidates reranked by Graphiti's cross-encoder).
            reranked = await graphiti.search_(
                "dentist appointment", group_ids=[group],
                config=EDGE_HYBRID_SEARCH_CROSS_ENCODER.model_copy(update={"limit": 3}))
            assert reranked.edges and reranked.edges[0].fact == DENTIST, group
            assert await graphiti.edges.entity.get_by_uuid(found.edges[0].uuid)

            nodes = await graphiti.search_("Google", config=NODE_HYBRID_SEARCH_RRF,
                                           group_ids=[group])
            assert any(n.name.lower() == "google" for n in nodes.nodes), group

            episodes = await graphiti.retrieve_episodes(datetime.now(UTC), last_n=5,
                                                        group_ids=[group])
            assert [e.content for e in episodes] == ["user: I moved to Lisbon last month."], group


async def test_policy_off_finds_limit_hits_after_a_reopen(settings: Settings,
                                                          tmp_path: Path) -> None:
    groups = _groups()
    await _populate(settings, groups, tmp_path)
    async with FrGraph(settings) as fr:
        for group in groups:
            hits = await fr.search("dentist appointment", group, policy="off", limit=4)
            assert len(hits) == 4, group
            assert hits[0].fact == DENTIST, group


# -- the upstream bugs are still there ---------------------------------------------------


async def test_falkordb_still_loads_a_fact_index_that_misses_labelled_lookups(
        tmp_path: Path) -> None:
    """FalkorDB 4.22 (falkordblite 0.11): after a reload, an indexed lookup of an edge
    between labelled nodes finds nothing. When this fails, upstream has fixed it: remove
    ``mend_fact_index_once`` and this test."""
    settings = Settings(db=str(tmp_path / "store"))
    [group, *_] = _groups()
    await _populate(settings, [group], tmp_path)
    store = FalkorStore.open_embedded(settings)
    try:
        store._checked_fact_index.add(group)  # look at the index as FalkorDB loaded it
        assert await store.fact_index_broken(group)
        store._checked_fact_index.discard(group)
        await store.mend_fact_index_once(group)  # rebuilt until a lookup finds the fact
        assert not await store.fact_index_broken(group)
    finally:
        await store.close()


async def test_graphiti_fulltext_group_filter_still_misses_ids_with_a_dash(
        tmp_path: Path) -> None:
    """Graphiti 0.31's FalkorDB fulltext group filter matches nothing for 'a-b'. When this
    fails, upstream has fixed it: remove ``GroupGraphDriver.build_fulltext_query``."""
    from graphiti_core.driver.falkordb.fulltext import build_falkor_fulltext_query

    settings = Settings(db=str(tmp_path / "store"))
    groups = _groups()
    await _populate(settings, groups, tmp_path)
    store = FalkorStore.open_embedded(settings)
    text = ("CALL db.idx.fulltext.queryRelationships('RELATES_TO', $query) "
            "YIELD relationship RETURN count(relationship) AS hits")
    try:
        for group in groups:
            filtered = build_falkor_fulltext_query("dentist", [group])
            rows = await store.run_text("test_fulltext", text, group, query=filtered)
            assert (rows[0]["hits"] == 0) == ("-" in group), group
    finally:
        await store.close()

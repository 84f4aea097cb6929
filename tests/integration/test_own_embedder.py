"""A Graphiti deployment with its own embedder (issue 12, part 1).

The deployment's embedder is a real OpenAI-compatible HTTP server (``FakeEmbeddings``:
e5 vectors through a fixed random projection to 1536-d), driven by Graphiti's real
``OpenAIEmbedder`` and the ``openai`` SDK. The graph is built with plain Graphiti's own API
through that embedder, then fr-graph backfills and searches it; the same facts built with
the local embedder must rank the same. Both stores; Neo4j gets a server of its own, since
one database holds one embedder's vectors.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from neo4j_server import Neo4jServer  # tools/neo4j_server.py

from fr_graph._graphiti import (
    EntityEdge,
    EntityNode,
    FalkorDriver,
    GraphDriver,
    Graphiti,
    Neo4jDriver,
)
from fr_graph.api import FrGraph
from fr_graph.clients import LocalCrossEncoder, LocalEmbedder, OfflineLLMClient
from fr_graph.config import EmbedderSettings, Settings
from fr_graph.errors import ConfigError
from fr_graph.stores.falkordb import EmbeddedServer
from tests.fake_embeddings import MODEL, FakeEmbeddings
from tests.integration.helpers import write_jsonl
from tests.neo4j_target import DEFAULT_PASSWORD, DEFAULT_USER, Neo4jTarget

pytestmark = pytest.mark.integration

NOW = datetime(2025, 6, 1, tzinfo=UTC)
#: (fact, object, valid_at): one user's facts as Graphiti would hold them.
FACTS = [
    ("User is vegetarian", "vegetarian", "2025-01-05"),
    ("User works as a nurse at Mercy Hospital", "Mercy Hospital", "2025-01-06"),
    ("User lives in Denver", "Denver", "2025-01-10"),
    ("User plays the cello in a community orchestra", "cello", "2025-01-12"),
    ("User is allergic to penicillin", "penicillin", "2025-01-15"),
    ("User drives a 2012 Honda Civic", "Honda Civic", "2025-01-20"),
    ("User prefers green tea to coffee in the morning", "green tea", "2025-02-01"),
    ("User's sister Ana is getting married in September", "Ana", "2025-02-03"),
    ("User moved to Portland", "Portland", "2025-03-01"),
]
#: (query, a word of the fact that must rank first).
QUERIES = [
    ("what instrument do I play", "cello"),
    ("which medicine am I allergic to", "penicillin"),
    ("what car do I drive", "Civic"),
    ("what is my job", "nurse"),
    ("what do I drink in the morning", "tea"),
    ("who is getting married", "Ana"),
]
DIM = 1536


@pytest.fixture(scope="module")
def fake_embeddings() -> Iterator[FakeEmbeddings]:
    with FakeEmbeddings(dim=DIM) as server:
        yield server


@pytest.fixture(scope="module")
def own_neo4j(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jTarget]:
    with Neo4jServer(home=tmp_path_factory.mktemp("neo4j-own-embedder"), heap_mib=768,
                     page_cache_mib=64) as server:
        yield Neo4jTarget(server.uri, DEFAULT_USER, DEFAULT_PASSWORD, "launcher")


def openai_embedder(fake_embeddings: FakeEmbeddings) -> EmbedderSettings:
    return EmbedderSettings(provider="openai", model=MODEL, base_url=f"{fake_embeddings.url}/v1",
                            api_key="test", dim=DIM)


def graphiti_embedder(fake_embeddings: FakeEmbeddings) -> object:
    from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig

    return OpenAIEmbedder(OpenAIEmbedderConfig(api_key="test", base_url=f"{fake_embeddings.url}/v1",
                                               embedding_model=MODEL, embedding_dim=DIM))


async def build_with_graphiti(driver: GraphDriver, embedder: object, group: str) -> None:
    """The facts written by plain Graphiti's own API (nodes and edges embedded by it)."""
    graphiti = Graphiti(graph_driver=driver, embedder=embedder,  # type: ignore[arg-type]
                        llm_client=OfflineLLMClient(),
                        cross_encoder=LocalCrossEncoder(LocalEmbedder()))
    await graphiti.build_indices_and_constraints()
    user = EntityNode(name="user", group_id=group, labels=["Entity"], summary="",
                      created_at=NOW)
    await user.generate_name_embedding(embedder)  # type: ignore[arg-type]
    await user.save(driver)
    for fact, obj, valid_at in FACTS:
        target = EntityNode(name=obj, group_id=group, labels=["Entity"], summary="",
                            created_at=NOW)
        await target.generate_name_embedding(embedder)  # type: ignore[arg-type]
        await target.save(driver)
        edge = EntityEdge(source_node_uuid=user.uuid, target_node_uuid=target.uuid,
                          name="STATES", fact=fact, group_id=group, episodes=[],
                          created_at=NOW, valid_at=datetime.fromisoformat(valid_at + "T12:00Z"))
        await edge.generate_embedding(embedder)  # type: ignore[arg-type]
        await edge.save(driver)


async def build_store(backend: str, settings: Settings, embedder: object, group: str) -> None:
    location = settings.db or ""
    if backend == "neo4j":
        driver: GraphDriver = Neo4jDriver(location, settings.neo4j_user,
                                          settings.neo4j_password)
        try:
            await build_with_graphiti(driver, embedder, group)
        finally:
            await driver.close()  # type: ignore[no-untyped-call]
        return
    server = EmbeddedServer(Path(location) / "fr-graph.db")
    driver = FalkorDriver(falkor_db=server.client, database=group)
    try:
        await build_with_graphiti(driver, embedder, group)
    finally:
        await server.close()


async def top_facts(fr: FrGraph, group: str) -> list[list[str]]:
    return [[h.fact for h in await fr.search(query, group, now=NOW, limit=3)]
            for query, _ in QUERIES]


async def lifecycle_of(fr: FrGraph, group: str) -> dict[str, tuple[str, str, str | None]]:
    return {m.fact: (m.category, m.state, m.slot_key) for m in await fr.show(group)}


@pytest.fixture(params=["neo4j", "embedded"])
async def stores(request: pytest.FixtureRequest, tmp_path: Path, fake_embeddings: FakeEmbeddings
                 ) -> AsyncIterator[tuple[str, Settings, Settings]]:
    """(group, local-embedder settings, own-embedder settings): two stores holding the same
    facts, built by plain Graphiti through each embedder."""
    group = f"own-{uuid.uuid4().hex[:8]}"
    own_embedder = openai_embedder(fake_embeddings)
    if request.param == "neo4j":
        local: Settings = request.getfixturevalue("neo4j_target").settings()
        own: Settings = request.getfixturevalue("own_neo4j").settings(embedder=own_embedder)
    else:
        local = Settings(db=str(tmp_path / "local"))
        own = Settings(db=str(tmp_path / "own"), embedder=own_embedder)
    await build_store(request.param, local, LocalEmbedder(), group)
    await build_store(request.param, own, graphiti_embedder(fake_embeddings), group)
    yield group, local, own


async def test_a_graph_embedded_by_another_model_is_backfilled_and_ranked_as_with_local(
        stores: tuple[str, Settings, Settings]) -> None:
    group, local, own = stores
    async with FrGraph(local) as fr:
        assert (await fr.backfill(group)).annotated == len(FACTS)
        expected = await top_facts(fr, group)
        lifecycle = await lifecycle_of(fr, group)
    async with FrGraph(own) as fr:
        assert (await fr.backfill(group)).annotated == len(FACTS)
        ranked = await top_facts(fr, group)
        assert ranked == expected  # same queries, same hits, same order
        for facts, (query, word) in zip(ranked, QUERIES, strict=True):
            assert word in facts[0], query
        # The same lifecycle decisions as with the local embedder (linking reads e5 vectors).
        assert await lifecycle_of(fr, group) == lifecycle

        # Plain Graphiti on the same store searches with the deployment's vectors.
        graphiti = fr.graphiti(group)
        for query, word in QUERIES:
            edges = await graphiti.search(query, group_ids=[group], num_results=5)
            assert any(word in e.fact for e in edges), query
        off = await fr.search("what car do I drive", group, now=NOW, policy="off", limit=3)
        assert "Civic" in off[0].fact


async def test_the_wrong_embedder_is_refused_in_one_line(
        stores: tuple[str, Settings, Settings]) -> None:
    group, _, own = stores
    wrong = own.model_copy(update={"embedder": EmbedderSettings()})  # the local default
    # With no record yet (embedded store), the stored vectors' size decides; Neo4j's
    # server is the module's, already recorded by the test before.
    with pytest.raises(ConfigError, match=r"1536-d.*384-d"):
        async with FrGraph(wrong):
            pass
    async with FrGraph(own) as fr:
        await fr.backfill(group)  # records the embedder
    with pytest.raises(ConfigError, match=rf"embedded by {MODEL} \(1536-d\).*"
                                          r"multilingual-e5-small \(local\) \(384-d\)"):
        async with FrGraph(wrong):
            pass
    other = own.model_copy(update={"embedder": own.embedder.model_copy(
        update={"model": "text-embedding-3-large"})})
    with pytest.raises(ConfigError, match="text-embedding-3-large"):
        async with FrGraph(other):
            pass


async def test_import_sync_and_attach_with_the_deployments_embedder(
        tmp_path: Path, fake_embeddings: FakeEmbeddings) -> None:
    group = "own-import"
    settings = Settings(db=str(tmp_path / "store"), embedder=openai_embedder(fake_embeddings))
    path = write_jsonl(tmp_path / "facts.jsonl", [
        {"type": "fact", "group_id": group, "id": f"f{i}", "fact": fact,
         "observed_at": f"{valid_at}T12:00:00Z"} for i, (fact, _, valid_at) in enumerate(FACTS)])
    embedded_before = fake_embeddings.texts
    async with FrGraph(settings) as fr:
        report = await fr.import_file(path)
        assert report.imported == len(FACTS)
        # Graphiti's vectors came from the deployment
        assert fake_embeddings.texts > embedded_before
        rows = await fr.store.run_text(
            "test_vectors", "MATCH ()-[r:RELATES_TO]->() RETURN r.uuid AS uuid, "
            "r.fact_embedding AS graph, r.fr_embedding AS own", group)
        assert {(len(r["graph"]), len(r["own"])) for r in rows} == {(DIM, 384)}
        assert await top_facts(fr, group) == await _local_ranking(tmp_path, group, path)

        # Graphiti re-saves an edge without the properties it does not know; sync mends it.
        graphiti = fr.graphiti(group)
        edge = await graphiti.edges.entity.get_by_uuid(rows[0]["uuid"])
        edge.attributes = {}
        await graphiti.edges.entity.save(edge)
        report_sync = await fr.sync(group)
        assert (report_sync.repaired, report_sync.vectors) == (1, 1)

    # FrGraph.attach: fr-graph on a Graphiti instance the caller built and still owns.
    server = EmbeddedServer(tmp_path / "store" / "fr-graph.db")
    driver = FalkorDriver(falkor_db=server.client, database=group)
    graphiti = Graphiti(graph_driver=driver, embedder=graphiti_embedder(fake_embeddings),  # type: ignore[arg-type]
                        llm_client=OfflineLLMClient(),
                        cross_encoder=LocalCrossEncoder(LocalEmbedder()))
    try:
        async with FrGraph.attach(graphiti) as fr:
            assert fr.settings.embedder.label == MODEL
            hits = await fr.search("what car do I drive", group, now=NOW, limit=1)
            assert "Civic" in hits[0].fact
        assert await graphiti.search("cello", group_ids=[group])  # its driver still open
    finally:
        await server.close()


async def _local_ranking(tmp_path: Path, group: str, path: Path) -> list[list[str]]:
    async with FrGraph(Settings(db=str(tmp_path / "local-import"))) as fr:
        await fr.import_file(path)
        return await top_facts(fr, group)

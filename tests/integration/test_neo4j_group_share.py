"""Neo4j retrieval when many groups share one database: the 5.26 vector index cannot filter
by group, so the request is sized by the group's share of the store, and small groups are
scanned exactly; the fulltext index is filtered by group inside Lucene."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import numpy as np
import pytest

from fr_graph.stores import neo4j as neo4j_module
from fr_graph.stores.neo4j import Neo4jStore, uuid_ranges
from tests.neo4j_target import Neo4jTarget

pytestmark = pytest.mark.integration

DIM = 384
WRITE = """
MERGE (s:Entity {uuid: $group + '-s'}) SET s.group_id = $group, s.name = 'user'
MERGE (t:Entity {uuid: $group + '-t'}) SET t.group_id = $group, t.name = 'thing'
WITH s, t
UNWIND $edges AS edge
CREATE (s)-[r:RELATES_TO {uuid: edge.uuid, group_id: $group, name: 'STATES',
                          fact: edge.fact}]->(t)
WITH r, edge
CALL db.create.setRelationshipVectorProperty(r, 'fact_embedding', edge.vector)
RETURN count(*) AS written
"""


def unit_rows(rng: np.random.Generator, n: int) -> np.ndarray:
    rows = rng.standard_normal((n, DIM))
    normed: np.ndarray = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return normed


@pytest.fixture
async def store(neo4j_target: Neo4jTarget) -> AsyncIterator[tuple[Neo4jStore, list[str]]]:
    ran: list[str] = []
    neo4j = Neo4jStore.connect(neo4j_target.settings(embedding_dim=DIM),
                               tracer=lambda name, params: ran.append(name))
    try:
        yield neo4j, ran
    finally:
        await neo4j.close()


async def write_group(store: Neo4jStore, group: str, vectors: np.ndarray,
                      facts: list[str], ids: list[str] | None = None) -> list[str]:
    await store.ensure_schema(group)
    ids = ids or [f"{group}-{i}" for i in range(len(facts))]
    edges: list[dict[str, Any]] = [
        {"uuid": u, "fact": f, "vector": v.tolist()}
        for u, f, v in zip(ids, facts, vectors, strict=True)]
    await store.run_text("write", WRITE, group, group=group, edges=edges)
    return ids


def exact_top(ids: list[str], vectors: np.ndarray, query: np.ndarray, k: int) -> list[str]:
    order = np.argsort(-(vectors @ query), kind="stable")[:k]
    return [ids[i] for i in order]


async def test_big_and_small_groups_get_their_exact_nearest_facts(
        store: tuple[Neo4jStore, list[str]]) -> None:
    neo4j, ran = store
    rng = np.random.default_rng(11)
    tag = uuid.uuid4().hex[:8]
    big, small = f"share-big-{tag}", f"share-small-{tag}"
    big_vectors, small_vectors = unit_rows(rng, 3000), unit_rows(rng, 20)
    big_ids = await write_group(neo4j, big, big_vectors, ["plain fact"] * 3000)
    small_ids = await write_group(neo4j, small, small_vectors, ["plain fact"] * 20)

    # The big group is most of what this test wrote: the index is asked, and a query near
    # one of its facts finds it first.
    query = 0.9 * big_vectors[7] + 0.1 * unit_rows(rng, 1)[0]
    query /= np.linalg.norm(query)
    ran.clear()
    hits = await neo4j.vector_candidates(big, query.tolist(), 10)
    assert "vector_candidates" in ran and "vector_candidates_exact" not in ran
    assert hits[0][0] == big_ids[7]
    assert len(set(u for u, _ in hits) & set(exact_top(big_ids, big_vectors, query, 10))) >= 8
    # Index scores come from its quantized vectors (search recomputes exact cosines later).
    by_id = dict(zip(big_ids, big_vectors @ query, strict=True))
    assert all(abs(score - by_id[u]) < 0.02 for u, score in hits)

    # The small group is a sliver of the store: scanned exactly, without asking the index.
    query = 0.9 * small_vectors[3] + 0.1 * unit_rows(rng, 1)[0]
    query /= np.linalg.norm(query)
    ran.clear()
    hits = await neo4j.vector_candidates(small, query.tolist(), 10)
    assert ran.count("vector_candidates_exact") == 1 and "vector_candidates" not in ran
    assert [u for u, _ in hits] == exact_top(small_ids, small_vectors, query, 10)


async def test_fulltext_finds_a_small_groups_facts_among_many_better_matches(
        store: tuple[Neo4jStore, list[str]]) -> None:
    neo4j, _ = store
    rng = np.random.default_rng(12)
    tag = uuid.uuid4().hex[:8]
    word = f"zebra{tag}"
    crowd, mine = f"text-crowd-{tag}", f"text-mine-{tag}"
    # 500 short facts elsewhere outscore ours on BM25, and were written first.
    await write_group(neo4j, crowd, unit_rows(rng, 500), [word] * 500)
    mine_ids = await write_group(neo4j, mine, unit_rows(rng, 3),
                                 [f"the {word} at the zoo has stripes and a long name"] * 3)
    hits = await neo4j.fulltext_candidates(mine, word, 5)
    assert sorted(u for u, _ in hits) == sorted(mine_ids)
    crowd_hits = await neo4j.fulltext_candidates(crowd, word, 5)
    assert len(crowd_hits) == 5
    # Filtering by group must not change the scores: a group's own hits keep their BM25.
    assert crowd_hits[0][1] > hits[0][1]


@pytest.mark.parametrize("parts", [2, 3, 16])
async def test_a_split_exact_scan_finds_what_one_scan_finds(
        neo4j_target: Neo4jTarget, monkeypatch: pytest.MonkeyPatch, parts: int) -> None:
    rng = np.random.default_rng(13)
    group = f"split-{uuid.uuid4().hex[:8]}"
    vectors = unit_rows(rng, 400)
    query = 0.8 * vectors[5] + 0.2 * unit_rows(rng, 1)[0]
    query /= np.linalg.norm(query)
    ids = [str(uuid.uuid4()) for _ in range(399)] + ["Zz-not-hex"]  # any uuid string
    monkeypatch.setattr(neo4j_module, "SPLIT_SCAN_MIN_FACTS", 0)
    ran: list[str] = []
    found: dict[int, list[dict[str, Any]]] = {}
    for n in (parts, 1):
        neo4j = Neo4jStore.connect(neo4j_target.settings(embedding_dim=DIM, scan_partitions=n),
                                   tracer=lambda name, params: ran.append(name))
        try:
            if n == parts:
                await write_group(neo4j, group, vectors, ["plain fact"] * 400, ids)
            ran.clear()
            found[n] = await neo4j._exact_scan(group, query.tolist(), 30, group_facts=400)
        finally:
            await neo4j.close()
        assert ran.count("vector_candidates_exact_range") == (parts if n > 1 else 0)
    assert [r["uuid"] for r in found[parts]] == [r["uuid"] for r in found[1]]
    assert found[1][0]["uuid"] == ids[5]
    assert [r["uuid"] for r in found[1]] == exact_top(ids, vectors, query, 30)


@pytest.mark.parametrize("parts", range(1, 17))
def test_uuid_ranges_cover_every_uuid_once(parts: int) -> None:
    ranges = uuid_ranges(parts)
    assert len(ranges) == parts and ranges[0][0] == "" and ranges[-1][1] == "\uffff"
    for key in ["", "0", "7f", "8", "ffffffff-ffff", str(uuid.uuid4()), "Zz-not-hex", "~"]:
        assert sum(low <= key < high for low, high in ranges) == 1

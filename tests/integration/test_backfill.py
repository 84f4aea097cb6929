"""Backfill of a plain Graphiti graph (written with Graphiti's own API), on each backend."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from fr_graph._graphiti import EntityEdge, EntityNode
from fr_graph.api import FrGraph
from fr_graph.errors import StoreError
from fr_graph.overlay import stable_uuid
from fr_graph.pipeline.backfill import backfill_groups
from fr_graph.stores.base import QueryRunner
from tests.integration.helpers import RunnerWith

pytestmark = pytest.mark.integration

T1 = datetime(2025, 1, 10, 9, 0, tzinfo=UTC)
T2 = datetime(2025, 3, 10, 9, 0, tzinfo=UTC)
T3 = datetime(2025, 5, 10, 9, 0, tzinfo=UTC)
LATER = datetime(2099, 6, 1, tzinfo=UTC)

#: name -> (fact, object entity, valid_at, invalid_at, expired_at), as Graphiti stores them.
FACTS: dict[str, tuple[str, str, datetime, datetime | None, datetime | None]] = {
    # Graphiti's own contradiction handling invalidated Denver when Boston came in.
    "denver": ("User lives in Denver", "Denver", T1, T2, T2 + timedelta(minutes=1)),
    "boston": ("User lives in Boston", "Boston", T2, None, None),
    "rent-old": ("User pays $950 a month in rent", "rent", T1, None, None),
    "rent-new": ("User's rent went up to $1100 a month", "rent", T3, None, None),
    "treehouse": ("User plans to build a treehouse", "treehouse", T1, None, None),
    "scrapped": ("User scrapped the treehouse plan", "treehouse", T2, None, None),
    "veg": ("User is vegetarian", "diet", T1, None, None),
    "fish": ("User gave up being vegetarian", "diet", T3, None, None),
    "chess": ("User plays chess online every evening", "chess", T1, None, None),
    "paris": ("User is staying in Paris for work", "Paris", T2, LATER, None),
}
STATES = {"denver": "superseded", "boston": "active", "rent-old": "superseded",
          "rent-new": "active", "treehouse": "retracted", "scrapped": "active",
          "veg": "superseded", "fish": "active", "chess": "active", "paris": "active"}
LINKS = {("boston", "denver", "supersede"), ("scrapped", "treehouse", "retract"),
         ("fish", "veg", "supersede"), ("rent-new", "rent-old", "supersede")}


async def plain_graphiti_graph(fr: FrGraph, group_id: str) -> dict[str, str]:
    """Write FACTS with Graphiti's namespace API only (no fr-graph import); name -> uuid."""
    graphiti = fr.graphiti(group_id)
    await graphiti.build_indices_and_constraints()
    names = sorted({"user", *(obj for _, obj, *_ in FACTS.values())})
    node = {name: stable_uuid(group_id, "plain-node", name) for name in names}
    vectors = fr.embedder.embed_passages(names)
    await graphiti.nodes.entity.save_bulk([
        EntityNode(uuid=node[n], name=n, group_id=group_id, labels=["Entity"], summary="",
                   created_at=T1, name_embedding=v.tolist())
        for n, v in zip(names, vectors, strict=True)])
    edge = {name: stable_uuid(group_id, "plain-edge", name) for name in FACTS}
    fact_vectors = fr.embedder.embed_passages([f for f, *_ in FACTS.values()])
    await graphiti.edges.entity.save_bulk([
        EntityEdge(uuid=edge[name], group_id=group_id, source_node_uuid=node["user"],
                   target_node_uuid=node[obj], name="RELATES_TO", fact=text,
                   fact_embedding=vec.tolist(), episodes=[], created_at=valid,
                   valid_at=valid, invalid_at=invalid, expired_at=expired)
        for (name, (text, obj, valid, invalid, expired)), vec
        in zip(FACTS.items(), fact_vectors, strict=True)])
    return edge


async def outcome(fr: FrGraph, group_id: str, edge: dict[str, str]
                  ) -> tuple[dict[str, str], set[tuple[str, str, str]]]:
    """States (checked against the mirror) and supersession links other than soft ones (a
    soft link only flags; which unsure pairs get one depends on the trained verifier), by
    fact name."""
    name = {uuid: n for n, uuid in edge.items()}
    rows = await fr.store.run_text(
        "test_states",
        "MATCH (f:FrFact {group_id: $group_id}) "
        "MATCH ()-[r:RELATES_TO {uuid: f.edge_uuid}]->() "
        "RETURN f.edge_uuid AS uuid, f.state AS state, r.fr_state AS mirrored",
        group_id, group_id=group_id)
    assert all(r["state"] == r["mirrored"] for r in rows)
    links = await fr.store.run_text(
        "test_links",
        "MATCH (n:FrFact {group_id: $group_id})-[s:FR_SUPERSEDES]->(o:FrFact) "
        "WHERE s.kind <> 'soft' "
        "RETURN n.edge_uuid AS newer, o.edge_uuid AS older, s.kind AS kind",
        group_id, group_id=group_id)
    return ({name[r["uuid"]]: r["state"] for r in rows},
            {(name[r["newer"]], name[r["older"]], r["kind"]) for r in links})


async def test_backfill_annotates_a_plain_graphiti_graph(fr: FrGraph, group_id: str) -> None:
    edge = await plain_graphiti_graph(fr, group_id)
    [stats] = await fr.stats(group_id)
    assert (stats.facts, stats.unannotated) == (10, 10)

    totals: list[int] = []
    done: list[int] = []
    report = await backfill_groups(fr.store, [group_id], fr.policy, progress=done.append,
                                   on_total=totals.append, page_size=3)
    assert totals == [10] and sum(done) == 10 and report.pages == 4
    assert (report.groups, report.annotated) == (1, 10)
    assert report.graphiti_superseded == 1
    # Denver -> Boston: Graphiti's invalidation links it (graphiti_links counts that link
    # only if the verifier did not make it first; today it links the pair below its band).
    assert report.graphiti_links in (0, 1)
    # Soft links only flag (STATES below): only the hard transitions are pinned.
    # Vegetarian -> gave it up and the rent rise supersede; the treehouse is scrapped.
    assert {k: n for k, n in report.transitions.items() if k != "soft"} == {
        "supersede": 2, "retract": 1}
    assert report.edges_per_second > 0

    assert await outcome(fr, group_id, edge) == (STATES, LINKS)
    [stats] = await fr.stats(group_id)
    assert (stats.unannotated, stats.drifted) == (0, 0)

    graphiti = fr.graphiti(group_id)
    veg = await graphiti.edges.entity.get_by_uuid(edge["veg"])
    assert veg.invalid_at == T3 and veg.expired_at is not None  # fr-graph -> Graphiti
    paris = await graphiti.edges.entity.get_by_uuid(edge["paris"])
    assert paris.attributes["fr_valid_to"] == "2099-06-01T00:00:00Z"  # Graphiti -> fr-graph
    denver = await graphiti.edges.entity.get_by_uuid(edge["denver"])
    assert denver.invalid_at == T2  # Graphiti's own values are left as they were

    # Graphiti's own search still works on the backfilled graph and reads the mirror.
    found = await graphiti.search("where does the user live", group_ids=[group_id],
                                  num_results=5)
    by_uuid = {e.uuid: e for e in found}
    assert edge["boston"] in by_uuid
    assert by_uuid[edge["boston"]].attributes["fr_category"] == "identity"
    assert by_uuid[edge["boston"]].attributes["fr_state"] == "active"

    # fr-graph's current answer drops what Graphiti and the slot rules retired.
    hits = await fr.search("where do I live", group_id, now=T3)
    assert edge["denver"] not in {h.uuid for h in hits}
    assert hits[0].uuid == edge["boston"]

    # Idempotent: a second run finds nothing to do and writes nothing new.
    again = await backfill_groups(fr.store, [group_id], fr.policy)
    assert (again.annotated, again.pages, again.graphiti_links) == (0, 0, 0)
    assert await outcome(fr, group_id, edge) == (STATES, LINKS)


async def test_an_interrupted_backfill_resumes_and_converges(
    fr: FrGraph, group_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    edge = await plain_graphiti_graph(fr, group_id)
    transact = fr.store.transact
    writes = 0

    async def crash_on_second_page(group: str, work: Any) -> Any:
        """The store's own transaction, with the second page's write failing inside it."""
        async def crashing(runner: QueryRunner) -> Any:
            async def run(name: str, group: str, /, **params: Any) -> list[dict[str, Any]]:
                nonlocal writes
                if name == "apply_lifecycle":
                    writes += 1
                    if writes == 2:
                        raise StoreError("simulated crash", query=name)
                return await runner.run(name, group, **params)
            return await work(RunnerWith(runner, run))
        return await transact(group, crashing)

    monkeypatch.setattr(fr.store, "transact", crash_on_second_page)
    with pytest.raises(StoreError, match="simulated crash"):
        await backfill_groups(fr.store, [group_id], fr.policy, page_size=3)
    monkeypatch.undo()
    [stats] = await fr.stats(group_id)
    assert stats.unannotated == 7  # the first page is whole, the second not at all

    report = await backfill_groups(fr.store, [group_id], fr.policy, page_size=3)
    assert report.annotated == 7
    assert await outcome(fr, group_id, edge) == (STATES, LINKS)


async def test_backfill_leaves_missing_groups_alone(fr: FrGraph) -> None:
    report = await backfill_groups(fr.store, ["no-such-group-here"], fr.policy)
    assert (report.annotated, report.pages) == (0, 0)
    if fr.store.dialect == "falkordb":  # a query on a missing graph would create it
        assert not await fr.store.has_group("no-such-group-here")

"""User control on each real backend: recategorize, forget (retract), purge (hard delete).

The purge test writes the fact's text where Graphiti itself would put it (an entity
summary, a community summary and episode content, through Graphiti's own save API), purges
the fact through the CLI, then looks for the text on every path the store has: a full scan
of every node and relationship property, the fulltext indexes, the vector index (queried
with the fact's own embedding), fr-graph's search, context, explain and show, and the user
Cypher queries.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid as uuidlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from fr_graph._graphiti import EpisodeType, EpisodicNode, NextEpisodeEdge
from fr_graph.api import FrGraph
from fr_graph.config import Settings
from fr_graph.core.policy import PolicyTable
from fr_graph.errors import NotFoundError
from fr_graph.overlay import stable_uuid
from fr_graph.stores.base import AUDIT_GRAPH
from tests.integration.helpers import assert_lifecycle_invariants, write_jsonl

pytestmark = pytest.mark.integration

NOW = datetime(2025, 6, 1, tzinfo=UTC)
PHRASE = "allergic to peanuts and keeps the epipen"


def fr_graph(settings: Settings, *args: str, stdin: str | None = None
             ) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FR_GRAPH_DB": settings.db or "", "NEO4J_USER": settings.neo4j_user,
           "NEO4J_PASSWORD": settings.neo4j_password}
    return subprocess.run([sys.executable, "-m", "fr_graph.cli", *args], env=env,
                          capture_output=True, text=True, timeout=300, check=False,
                          input=stdin)


def one_error(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    # (a declined confirmation prompt ends without a newline when stdin is not a terminal)
    lines = [ln for ln in done.stderr.splitlines() if "error: " in ln]
    assert len(lines) == 1, done.stderr
    return lines[0]


def fact(group: str, record_id: str, text: str, observed: str, **extra: Any) -> dict[str, Any]:
    return {"type": "fact", "group_id": group, "id": record_id, "fact": text,
            "observed_at": observed, **extra}


def uuid_of(group: str, record_id: str) -> str:
    return stable_uuid(group, "fact", record_id)


async def import_records(fr: FrGraph, tmp_path: Path, records: list[dict[str, Any]]) -> None:
    path = write_jsonl(tmp_path / f"{uuidlib.uuid4().hex}.jsonl", records)
    report = await fr.import_file(path)
    assert report.imported == len(records), report.rejected


async def cypher(fr: FrGraph, group: str, text: str, **params: Any) -> list[dict[str, Any]]:
    return await fr.store.run_text("test", text, group, **params)


async def scan_for(fr: FrGraph, group: str, token: str, phrase: str) -> list[str]:
    """Every string (or string-list) property of every node and relationship in ``group``'s
    graph and the audit graph (FalkorDB), or in the whole database (Neo4j), that holds
    ``token`` (unique to this test), or ``phrase`` in this group's own nodes and edges."""
    found: list[str] = []
    scopes = [group] if fr.store.dialect == "neo4j" else [group, AUDIT_GRAPH]
    for scope in scopes:
        for what, text in (("node", "MATCH (n) RETURN labels(n) AS kind, properties(n) AS p"),
                           ("rel", "MATCH ()-[r]->() RETURN type(r) AS kind, "
                                   "properties(r) AS p")):
            for row in await cypher(fr, scope, text):
                needles = [token, phrase] if row["p"].get("group_id") == group else [token]
                for key, value in row["p"].items():
                    values = value if isinstance(value, list) else [value]
                    for item in values:
                        if isinstance(item, str) and any(n in item.lower() for n in needles):
                            found.append(f"{scope} {what} {row['kind']}.{key}: {item}")
    return found


async def fulltext_hits(fr: FrGraph, group: str, word: str) -> list[str]:
    """Uuids the fulltext indexes (facts, entity summaries, episode content) return."""
    if fr.store.dialect == "neo4j":
        queries = [
            "CALL db.index.fulltext.queryRelationships('edge_name_and_fact', $q) "
            "YIELD relationship AS x RETURN x.uuid AS uuid",
            "CALL db.index.fulltext.queryNodes('node_name_and_summary', $q) "
            "YIELD node AS x RETURN x.uuid AS uuid",
            "CALL db.index.fulltext.queryNodes('episode_content', $q) "
            "YIELD node AS x RETURN x.uuid AS uuid",
        ]
    else:
        queries = [
            "CALL db.idx.fulltext.queryRelationships('RELATES_TO', $q) "
            "YIELD relationship AS x RETURN x.uuid AS uuid",
            "CALL db.idx.fulltext.queryNodes('Entity', $q) YIELD node AS x RETURN x.uuid AS uuid",
            "CALL db.idx.fulltext.queryNodes('Episodic', $q) YIELD node AS x "
            "RETURN x.uuid AS uuid",
        ]
    return [row["uuid"] for q in queries for row in await cypher(fr, group, q, q=word)]


async def range_hits(fr: FrGraph, group: str) -> list[str]:
    """What the range indexes on fr_source_id (RELATES_TO) and source_id (FrFact) return
    for the purged record's id."""
    rows = await cypher(fr, group, "MATCH ()-[r:RELATES_TO]->() WHERE r.fr_source_id = "
                                   "'secret' AND r.group_id = $g RETURN r.uuid AS uuid", g=group)
    rows += await cypher(fr, group, "MATCH (f:FrFact {group_id: $g, source_id: 'secret'}) "
                                    "RETURN f.edge_uuid AS uuid", g=group)
    return [row["uuid"] for row in rows]


async def test_purge_removes_the_fact_from_every_store_path(
        settings: Settings, group_id: str, tmp_path: Path) -> None:
    token = f"zq{uuidlib.uuid4().hex[:10]}"
    # The embedded store is one process's at a time: the library closes before each CLI run.
    async with FrGraph(settings) as fr:
        target, user_uuid, peanuts_uuid, mixed, only, embedding, diet = await _purge_setup(
            fr, group_id, tmp_path, token)

    done = fr_graph(settings, "purge", target, "--yes", "--reason", "user asked", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["facts"] == [target]
    assert report["summaries_cleaned"] == [user_uuid]
    assert report["episodes_redacted"] == [mixed] and report["episodes_deleted"] == [only]
    assert any(peanuts_uuid in note for note in report["not_cleaned"])
    later = stable_uuid(group_id, "episode", "later")
    async with FrGraph(settings) as fr:
        chain = await cypher(fr, group_id, "MATCH (a:Episodic)-[e:NEXT_EPISODE]->(b:Episodic) "
                                           "WHERE a.group_id = $g "
                                           "RETURN a.uuid AS a, b.uuid AS b, e.created_at AS at",
                             g=group_id)
    assert [(r["a"], r["b"]) for r in chain] == [(mixed, later)]  # bridged over `only`
    assert chain[0]["at"] is not None

    async with FrGraph(settings) as fr:
        await _check_purged(fr, group_id, token, target, user_uuid, mixed, only, embedding,
                            diet)


def secret_text(token: str) -> str:
    return f"User is allergic to peanuts and keeps the EpiPen in the {token} pouch"


async def _purge_setup(fr: FrGraph, group_id: str, tmp_path: Path, token: str
                       ) -> tuple[str, str, str, str, str, list[float], list[str]]:
    secret = secret_text(token)
    await import_records(fr, tmp_path, [
        fact(group_id, "diet-1", "User is vegetarian", "2025-01-20T19:00:00Z",
             category="preferences", slot_key="user|diet"),
        fact(group_id, "diet-2", "User eats fish again", "2025-03-01T10:00:00Z",
             category="preferences", slot_key="user|diet", confidence=0.95),
        fact(group_id, "diet-3", "User is vegan now", "2025-05-01T10:00:00Z",
             category="preferences", slot_key="user|diet", confidence=0.95),
        fact(group_id, "secret", secret, "2025-04-01T10:00:00Z", category="health",
             subject="user", object="peanuts"),
        fact(group_id, "chess", "User plays chess on Sundays", "2025-02-01T10:00:00Z"),
    ])
    target = uuid_of(group_id, "secret")
    graphiti = fr.graphiti(group_id)

    # Graphiti-style prose holding the fact: summaries and episodes, via Graphiti's own API.
    user = await graphiti.nodes.entity.get_by_uuid(stable_uuid(group_id, "entity", "user"))
    user.summary = f"User lives in Denver. {secret}. User likes chess."
    await graphiti.nodes.entity.save(user)
    peanuts = await graphiti.nodes.entity.get_by_uuid(stable_uuid(group_id, "entity", "peanuts"))
    peanuts.summary = ("Peanuts are legumes. The user keeps the EpiPen in the pouch because of "
                       "allergic reactions to peanuts.")  # a paraphrase: reported, not removed
    await graphiti.nodes.entity.save(peanuts)
    mixed, only = (stable_uuid(group_id, "episode", name) for name in ("mixed", "only"))
    for episode_uuid, content in ((mixed, f"user: Btw. {secret}. Also I like chess."),
                                  (only, f"user: {secret}.")):
        await graphiti.nodes.episode.save(EpisodicNode(
            uuid=episode_uuid, name=episode_uuid, group_id=group_id, labels=[],
            source=EpisodeType.message, content=content, source_description="test",
            created_at=NOW, valid_at=NOW, entity_edges=[target]))
    await cypher(fr, group_id, "MATCH ()-[r:RELATES_TO {uuid: $u}]->() SET r.episodes = $e",
                 u=target, e=[mixed, only])
    await cypher(fr, group_id, "MATCH (e:Episodic {uuid: $e}), (n:Entity {uuid: $n}) "
                               "CREATE (e)-[:MENTIONS {uuid: $m, group_id: $g}]->(n)",
                 e=only, n=user.uuid, m=str(uuidlib.uuid4()), g=group_id)
    # A saga's episode chain runs mixed -> only -> later; purging only must keep it whole.
    later = stable_uuid(group_id, "episode", "later")
    await graphiti.nodes.episode.save(EpisodicNode(
        uuid=later, name=later, group_id=group_id, labels=[], source=EpisodeType.message,
        content="user: See you tomorrow.", source_description="test", created_at=NOW,
        valid_at=NOW, entity_edges=[]))
    for source, next_episode in ((mixed, only), (only, later)):
        await graphiti.edges.next_episode.save(NextEpisodeEdge(
            source_node_uuid=source, target_node_uuid=next_episode, group_id=group_id,
            created_at=NOW))

    embedding: list[float] = fr.embedder.embed_passages([secret])[0].tolist()
    # Every probe finds the fact before the purge, so none of the checks below is vacuous.
    assert len(await scan_for(fr, group_id, token, PHRASE)) == 4  # summary, 2 episodes, fact
    assert target in await fulltext_hits(fr, group_id, token)
    assert await range_hits(fr, group_id) == [target, target]
    nearest = await fr.store.vector_candidates(group_id, embedding, 3)
    assert nearest[0][0] == target and nearest[0][1] > 0.999
    chain = {r["uuid"]: r for r in await fr.query("slot_history", group_id,
                                                   slot_key="user|diet")}
    diet = [uuid_of(group_id, f"diet-{n}") for n in (1, 2, 3)]
    assert chain[diet[0]]["superseded_by"] == [diet[1]]
    return target, user.uuid, peanuts.uuid, mixed, only, embedding, diet


async def _check_purged(fr: FrGraph, group_id: str, token: str, target: str, user_uuid: str,
                        mixed: str, only: str, embedding: list[float], diet: list[str]
                        ) -> None:
    graphiti = fr.graphiti(group_id)
    assert await scan_for(fr, group_id, token, PHRASE) == []
    assert await fulltext_hits(fr, group_id, token) == []
    assert await range_hits(fr, group_id) == []
    nearest = await fr.store.vector_candidates(group_id, embedding, 3)
    assert target not in [u for u, _ in nearest] and nearest[0][1] < 0.99
    hits = await fr.search("peanut allergy EpiPen pouch", group_id, now=NOW, limit=20)
    assert hits and all(token not in h.fact for h in hits)
    assert token not in await fr.context("what am I allergic to?", group_id, now=NOW)
    with pytest.raises(NotFoundError):
        await fr.explain(target, "allergies", group_id=group_id, now=NOW)
    assert target not in {item.uuid for item in await fr.show(group_id)}
    for name, spec in fr.user_queries().items():
        params = {"slot_key": "user|diet"} if name == "slot_history" else {}
        rows = await fr.query(name, group_id, **params)
        assert token not in json.dumps(rows), (name, spec)

    # What survived is untouched and still whole.
    user_after = await graphiti.nodes.entity.get_by_uuid(user_uuid)
    assert user_after.summary == "User lives in Denver. User likes chess."
    [episode] = await graphiti.nodes.episode.get_by_uuids([mixed])
    assert episode.content == "user: Btw. Also I like chess." and episode.entity_edges == []
    assert await graphiti.nodes.episode.get_by_uuids([only]) == []
    assert len(await fr.show(group_id)) == 4

    # Audit: ids, time and reason only.
    [audit] = [a for a in await fr.audit_log(group_id) if a["action"] == "purge"]
    assert audit["target_uuids"] == [target] and audit["reason"] == "user asked"
    assert token not in json.dumps(audit)

    # A purged middle version: the chain is bridged, the other versions keep their states.
    report_mid = await fr.purge(diet[1], group_id=group_id, reason="test")
    assert report_mid.relinked == 1
    chain = {r["uuid"]: r for r in await fr.query("slot_history", group_id,
                                                   slot_key="user|diet")}
    assert set(chain) == {diet[0], diet[2]}
    assert chain[diet[0]]["superseded_by"] == [diet[2]]
    assert chain[diet[0]]["state"] == "superseded" and chain[diet[2]]["state"] == "active"
    await assert_lifecycle_invariants(fr, group_id)


async def test_purge_rebuilds_a_compression_summary_without_the_fact(
        settings: Settings, group_id: str, tmp_path: Path) -> None:
    token = f"zq{uuidlib.uuid4().hex[:10]}"
    runs = [uuid_of(group_id, f"run-{n}") for n in (1, 2, 3)]
    async with FrGraph(settings) as fr:
        fr.policy = PolicyTable.from_mapping({"retention": {"transient_capacity": 1}})
        await import_records(fr, tmp_path, [
            fact(group_id, "premise", "The project must use PostgreSQL 16",
                 "2025-01-01T12:00:00Z", object="project", category="projects",
                 confidence=0.9),
            fact(group_id, "run-1", "User ran 5.2 km in 31:40 on Monday", "2025-01-02T12:00:00Z",
                 category="hobbies", object="running", confidence=0.6, slot_key="user|run:mon"),
            fact(group_id, "run-2", f"User ran 8 km in 49:05 on the {token} trail",
                 "2025-01-03T12:00:00Z", category="hobbies", object="running", confidence=0.6,
                 slot_key="user|run:wed"),
            fact(group_id, "run-3", "User ran 3 km in 17:59 on Friday", "2025-01-06T12:00:00Z",
                 category="hobbies", object="running", confidence=0.6, slot_key="user|run:fri"),
            fact(group_id, "movie", "User watched a movie", "2025-01-05T12:00:00Z",
                 category="other", object="movie", confidence=0.3),
        ])
        [summary] = (await fr.maintain(group_id, now=NOW))[0].summaries
        assert set(summary.originals) == set(runs) and token in summary.fact
        old_vector = fr.embedder.embed_passages([summary.fact])[0].tolist()

        report = await fr.purge(runs[1], group_id=group_id, now=NOW)
        assert report.facts == [runs[1]] and report.summary_facts_rebuilt == [summary.uuid]
        assert await scan_for(fr, group_id, token, "8 km in 49:05") == []
        [row] = await cypher(fr, group_id, "MATCH ()-[r:RELATES_TO {uuid: $u}]->() "
                                           "RETURN r.fact AS fact", u=summary.uuid)
        assert "31:40" in row["fact"] and "17:59" in row["fact"] and "Summary of 2" in row["fact"]
        nearest = await fr.store.vector_candidates(group_id, old_vector, 3)
        assert nearest[0][1] < 0.999  # re-embedded: the old vector is gone from the index
        hits = await fr.search("how far did I run", group_id, now=NOW)
        assert hits[0].uuid == summary.uuid
        archived = {r["uuid"]: r for r in await fr.query("archived_facts", group_id)}
        for kept in (runs[0], runs[2]):
            assert archived[kept]["compressed_into"] == row["fact"]

        # Purging the last originals purges the summary with them: it quotes nothing else.
        await fr.purge(runs[0], group_id=group_id, now=NOW)
        last = await fr.purge(runs[2], group_id=group_id, now=NOW)
        assert last.facts == [runs[2], summary.uuid]
        assert summary.uuid not in {item.uuid for item in await fr.show(group_id)}
        for quoted in ("km in 17:59", "km in 31:40"):  # only this group's own nodes and edges
            assert await scan_for(fr, group_id, token, quoted) == []
        await assert_lifecycle_invariants(fr, group_id)


async def test_purge_group_leaves_other_groups_intact(settings: Settings,
                                                      tmp_path: Path) -> None:
    doomed, kept = (f"t-{uuidlib.uuid4().hex[:12]}" for _ in range(2))
    async with FrGraph(settings) as fr:
        for group in (doomed, kept):
            await import_records(fr, tmp_path, [
                fact(group, "a", f"User lives in Denver ({group})", "2025-01-01T00:00:00Z"),
                fact(group, "b", "User plays chess on Sundays", "2025-02-01T00:00:00Z"),
            ])
        await fr.forget(uuid_of(doomed, "b"), group_id=doomed, now=NOW)  # an FrRequest too
        before = [s.facts for s in await fr.stats(kept)]

    done = fr_graph(settings, "purge", "--group", doomed, "--yes", "--reason", "account closed")
    assert done.returncode == 0, done.stderr
    assert f"purged group {doomed}" in done.stdout

    async with FrGraph(settings) as fr:
        assert doomed not in await fr.store.list_groups()
        if fr.store.dialect == "neo4j":
            rows = await cypher(fr, doomed, "MATCH (n) WHERE n.group_id = $g AND NOT n:FrAudit "
                                            "RETURN count(n) AS n", g=doomed)
            assert rows[0]["n"] == 0
            rows = await cypher(fr, doomed, "MATCH ()-[r]->() WHERE r.group_id = $g "
                                            "RETURN count(r) AS n", g=doomed)
            assert rows[0]["n"] == 0
        assert await fr.search("where do I live", doomed, now=NOW) == []
        assert [s.facts for s in await fr.stats(kept)] == before == [2]
        hits = await fr.search("where do I live", kept, now=NOW)
        assert hits[0].fact == f"User lives in Denver ({kept})"
        [audit] = await fr.audit_log(doomed)
        assert audit["action"] == "purge_group" and audit["facts"] == 2
        assert audit["reason"] == "account closed"

        # The group can be used again (its indexes are rebuilt).
        await import_records(fr, tmp_path, [
            fact(doomed, "c", "User collects stamps", "2025-03-01T00:00:00Z")])
        assert (await fr.search("stamps", doomed, now=NOW))[0].fact == "User collects stamps"
        await assert_lifecycle_invariants(fr, doomed, kept)


async def test_forget_retracts_on_request_and_keeps_the_fact(
        settings: Settings, group_id: str, tmp_path: Path) -> None:
    async with FrGraph(settings) as fr:
        await import_records(fr, tmp_path, [
            fact(group_id, "trip-1", "User plans a trip to Lisbon in July",
                 "2025-03-01T10:00:00Z", category="projects", slot_key="user|trip"),
            fact(group_id, "hotel", "User booked the Lisbon hotel near the river",
                 "2025-03-02T10:00:00Z", category="logistical", slot_key="user|trip|hotel"),
            fact(group_id, "job", "User works as a nurse at the city hospital",
                 "2025-01-01T10:00:00Z", category="identity", slot_key="user|job"),
        ])
    job = uuid_of(group_id, "job")
    done = fr_graph(settings, "forget", job, "--reason", "wrong", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"group_id": group_id, "retracted": [job],
                                       "already_retracted": []}
    async with FrGraph(settings) as fr:
        hits = await fr.search("where do I work", group_id, now=NOW)
        assert hits and all(h.uuid != job for h in hits)
        [item] = [i for i in await fr.show(group_id) if i.uuid == job]
        assert item.state == "retracted"
        assert job in {r["uuid"] for r in await fr.query("retracted_facts", group_id)}
        explanation = await fr.explain(job, "where do I work", group_id=group_id, now=NOW)
        assert explanation.rank is None
        assert any("user request (fr-graph forget)" in note and "reason: user request" in note
                   for note in explanation.notes), explanation.notes
        [edge] = await cypher(fr, group_id, "MATCH ()-[r:RELATES_TO {uuid: $u}]->() "
                                            "RETURN r.fr_state AS state, r.invalid_at AS inv",
                              u=job)
        assert edge["state"] == "retracted" and edge["inv"] is not None
        again = await fr.forget(job, group_id=group_id, now=NOW)  # idempotent
        assert again.retracted == [] and again.already_retracted == [job]
        links = await cypher(fr, group_id, "MATCH (q:FrRequest)-[s:FR_SUPERSEDES]->"
                                           "(:FrFact {edge_uuid: $u}) RETURN s.kind AS kind",
                             u=job)
        assert [link["kind"] for link in links] == ["retract"]

    done = fr_graph(settings, "forget", "--slot", "user|trip", "--group", group_id)
    assert done.returncode == 0, done.stderr
    assert "retracted 2 facts" in done.stdout
    async with FrGraph(settings) as fr:
        states = {i.uuid: i.state for i in await fr.show(group_id)}
        await assert_lifecycle_invariants(fr, group_id)
    assert states == {uuid_of(group_id, "trip-1"): "retracted",
                      uuid_of(group_id, "hotel"): "retracted", job: "retracted"}


async def test_recategorize_reranks_with_the_new_category(
        settings: Settings, group_id: str, tmp_path: Path) -> None:
    target = uuid_of(group_id, "dentist")
    async with FrGraph(settings) as fr:
        await import_records(fr, tmp_path, [
            fact(group_id, "dentist", "User has a dentist visit at the Elm Street clinic",
                 "2025-04-01T10:00:00Z", category="obligations",
                 event_time="2025-04-10T09:00:00Z"),
            fact(group_id, "chess", "User plays chess on Sundays", "2025-02-01T10:00:00Z",
                 category="hobbies"),
        ])
        before = await fr.explain(target, "Elm Street clinic", group_id=group_id, now=NOW)
        assert before.rank is None  # an obligation whose event passed long ago expires

    done = fr_graph(settings, "recategorize", target, "identity", "--reason",
                    "a fact about me", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"uuid": target, "group_id": group_id,
                                       "previous": "obligations", "category": "identity",
                                       "categories": {"identity": 1.0}}
    async with FrGraph(settings) as fr:
        after = await fr.explain(target, "Elm Street clinic", group_id=group_id, now=NOW)
        assert after.category == "identity" and after.rank == 1
        [stats] = await fr.stats(group_id)
        assert stats.drifted == 0 and stats.by_category == {"identity": 1, "hobbies": 1}
        [request] = await cypher(fr, group_id, "MATCH (q:FrRequest)-[:FR_REQUESTED]->"
                                               "(:FrFact {edge_uuid: $u}) RETURN q.from_category"
                                               " AS old, q.to_category AS new, q.reason AS reason",
                                 u=target)
        assert request == {"old": "obligations", "new": "identity", "reason": "a fact about me"}
        mixed = await fr.recategorize(target, "health", weights={"health": 3, "obligations": 1},
                                      now=NOW)
        assert mixed.categories == {"health": 0.75, "obligations": 0.25}
        await assert_lifecycle_invariants(fr, group_id)


async def test_bad_input_names_it_and_writes_nothing(
        settings: Settings, group_id: str, tmp_path: Path) -> None:
    real = uuid_of(group_id, "a")
    missing = str(uuidlib.uuid4())
    async with FrGraph(settings) as fr:
        await import_records(fr, tmp_path, [
            fact(group_id, "a", "User plays chess on Sundays", "2025-02-01T10:00:00Z",
                 category="other", slot_key="user|chess")])
        audits = len(await fr.audit_log())
    cases = [
        (["recategorize", real, "hobby"], "'hobby'"),
        (["recategorize", real, "hobbies", "--weights", "hobbies=x"], "hobbies=x"),
        (["recategorize", real, "hobbies", "--weights", "cooking=1"], "'cooking'"),
        (["recategorize", missing, "hobbies"], missing),
        (["recategorize", real, "hobbies", "--group", "no-such-group-x"], "no-such-group-x"),
        (["forget", missing, "--group", group_id], missing),
        (["forget", "--slot", "user|nothing", "--group", group_id], "user|nothing"),
        (["forget"], "UUID"),
        (["purge", missing, "--yes"], missing),
        (["purge", "--group", "no-such-group-y", "--yes"], "no-such-group-y"),
        (["purge", "--group", "bad group", "--yes"], "bad group"),
        (["purge"], "UUID"),
    ]
    for args, named in cases:
        assert named in one_error(fr_graph(settings, *args)), args
    refused = fr_graph(settings, "purge", real, stdin="n\n")
    assert "not confirmed" in one_error(refused)
    async with FrGraph(settings) as fr:
        [item] = await fr.show(group_id)
        assert (item.uuid, item.category, item.state) == (real, "other", "active")
        assert len(await fr.audit_log()) == audits
        await assert_lifecycle_invariants(fr, group_id)

"""SIGKILL ``fr-graph import`` and ``fr-graph backfill`` at seeded random moments, rerun, and
compare with an uninterrupted run of the same records: no lost or duplicated facts, no
half-applied transitions (Neo4j; every chunk/page is one transaction).

Embedded FalkorDB is left out on purpose: a SIGKILLed owner cannot save its file (the
server only persists on a clean close), so an interrupted embedded run loses its unsaved
writes by design; reruns then redo them, which the import tests already cover.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from neo4j import GraphDatabase

from fr_graph._graphiti import EntityEdge, EntityNode
from fr_graph.api import FrGraph
from fr_graph.overlay import stable_uuid
from tests.integration.helpers import assert_lifecycle_invariants, write_jsonl
from tests.integration.reliability.state import canonical_dump
from tests.neo4j_target import Neo4jTarget

SEED = 20251130
START = datetime(2024, 1, 1, tzinfo=UTC)
TOPICS = ("coffee_order", "gym", "rent", "commute", "phone", "team_lead", "diet", "city")


def cli(neo4j: Neo4jTarget, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, **neo4j.env()}
    return subprocess.Popen([sys.executable, "-m", "fr_graph.cli", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def run_to_end(neo4j: Neo4jTarget, *args: str) -> None:
    proc = cli(neo4j, *args)
    out, _ = proc.communicate(timeout=600)
    assert proc.returncode == 0, out


def kill_and_rerun(neo4j: Neo4jTarget, args: list[str], group_id: str, total: int,
                   rng: random.Random) -> list[int]:
    """SIGKILL the command at seeded points, then let it finish; returns how many facts
    each killed run had left behind.

    The points: once during start-up (before any write), then twice a seeded moment after
    the run's first commit (while it prepares or writes its next chunk or page).
    """
    left: list[int] = []
    with GraphDatabase.driver(neo4j.uri, auth=neo4j.auth) as driver:
        def count() -> int:
            records, _, _ = driver.execute_query(
                "MATCH (f:FrFact {group_id: $group_id}) RETURN count(f) AS n",
                group_id=group_id)
            return int(records[0]["n"])

        for after_commit in (False, True, True):
            before = count()
            proc = cli(neo4j, *args)
            if after_commit:
                while proc.poll() is None and count() == before:
                    time.sleep(0.1)
                time.sleep(rng.uniform(0.0, 1.5))
            else:
                time.sleep(rng.uniform(0.5, 3.0))
            if proc.poll() is None:
                proc.send_signal(signal.SIGKILL)
            proc.communicate(timeout=60)
            left.append(count())
        run_to_end(neo4j, *args)
        assert count() == total
    # At least one kill landed between commits, or the test proved nothing.
    assert any(0 < n < total for n in left), left
    return left


def history(group_id: str, count: int) -> list[dict[str, Any]]:
    """Facts over a few slots, confident and not, at distinct seeded times (ties between
    equal times break on group-specific uuids, which would make two groups differ)."""
    rng = random.Random(SEED)
    hours = rng.sample(range(24 * 365), count)
    return [{
        "type": "fact", "group_id": group_id, "id": f"r{i}",
        "fact": f"User's {TOPICS[i % len(TOPICS)].replace('_', ' ')} is option {i}",
        "observed_at": (START + timedelta(hours=h)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "category": "preferences", "slot_key": f"user|{TOPICS[i % len(TOPICS)]}",
        "confidence": rng.choice((0.5, 0.9, 0.95)),
    } for i, h in enumerate(hours)]


async def dumps(neo4j: Neo4jTarget, *groups: str) -> list[dict[str, Any]]:
    """Each group's canonical state, once ``fr-graph check`` found each one sound."""
    async with FrGraph(neo4j.settings()) as fr:
        await assert_lifecycle_invariants(fr, *groups)
        return [await canonical_dump(fr.store, g) for g in groups]


def test_killed_imports_converge_to_the_uninterrupted_state(neo4j_target: Neo4jTarget,
                                                            tmp_path: Path) -> None:
    count = 400  # two chunks: a kill during the second leaves the first whole
    reference, crashed = (f"ref-{os.urandom(4).hex()}", f"crash-{os.urandom(4).hex()}")
    run_to_end(neo4j_target, "import",
               str(write_jsonl(tmp_path / "ref.jsonl", history(reference, count))))
    path = write_jsonl(tmp_path / "crash.jsonl", history(crashed, count))
    kill_and_rerun(neo4j_target, ["import", str(path)], crashed, count, random.Random(SEED))
    expected, got = asyncio.run(dumps(neo4j_target, reference, crashed))
    assert len(expected["facts"]) == count and expected["links"]
    assert got == expected


BACKFILL_TEMPLATES = (("User lives in city number {i}", "home"),
                      ("User's rent is ${amount} a month", "rent"),
                      ("User works at company number {i}", "employer"),
                      ("User drinks coffee blend number {i} every morning", "coffee"))


async def plain_graphiti_graph(neo4j: Neo4jTarget, group_id: str, count: int) -> None:
    """``count`` edges written with Graphiti's API only (no overlay), as backfill meets them."""
    rng = random.Random(SEED)
    hours = rng.sample(range(24 * 365), count)
    async with FrGraph(neo4j.settings()) as fr:
        graphiti = fr.graphiti(group_id)
        await graphiti.build_indices_and_constraints()
        names = ["user", *(obj for _, obj in BACKFILL_TEMPLATES)]
        node = {n: stable_uuid(group_id, "plain-node", n) for n in names}
        await graphiti.nodes.entity.save_bulk([
            EntityNode(uuid=node[n], name=n, group_id=group_id, labels=["Entity"], summary="",
                       created_at=START, name_embedding=v.tolist())
            for n, v in zip(names, fr.embedder.embed_passages(names), strict=True)])
        texts, objects = [], []
        for i in range(count):
            template, obj = BACKFILL_TEMPLATES[i % len(BACKFILL_TEMPLATES)]
            texts.append(template.format(i=i, amount=800 + i))
            objects.append(obj)
        # One real embedding per template (the texts differ only in a number): embedding
        # every text would dominate the test's time without changing what backfill does.
        shapes = fr.embedder.embed_passages(texts[:len(BACKFILL_TEMPLATES)])
        vectors = [shapes[i % len(BACKFILL_TEMPLATES)] for i in range(count)]
        await graphiti.edges.entity.save_bulk([
            EntityEdge(uuid=stable_uuid(group_id, "plain-edge", str(i)), group_id=group_id,
                       source_node_uuid=node["user"], target_node_uuid=node[obj],
                       name="RELATES_TO", fact=text, fact_embedding=vec.tolist(), episodes=[],
                       created_at=START, valid_at=START + timedelta(hours=h))
            for i, (text, obj, vec, h) in enumerate(zip(texts, objects, vectors, hours,
                                                        strict=True))])


def test_killed_backfills_converge_to_the_uninterrupted_state(neo4j_target: Neo4jTarget
                                                              ) -> None:
    count = 1100  # three pages
    reference, crashed = (f"ref-{os.urandom(4).hex()}", f"crash-{os.urandom(4).hex()}")
    for group in (reference, crashed):
        asyncio.run(plain_graphiti_graph(neo4j_target, group, count))
    run_to_end(neo4j_target, "backfill", "--group", reference)
    kill_and_rerun(neo4j_target, ["backfill", "--group", crashed], crashed, count,
                   random.Random(SEED + 1))
    expected, got = asyncio.run(dumps(neo4j_target, reference, crashed))
    assert len(expected["facts"]) == count and expected["links"]
    assert got == expected

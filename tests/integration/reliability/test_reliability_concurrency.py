"""Concurrent writers of one slot and concurrent imports of one file, on each real backend.

Neo4j: separate FrGraph instances (own drivers, own connection pools) and separate
processes; the group lock node serializes their read-decide-write transactions. Embedded
FalkorDB: one process owns the file, so concurrent tasks share one FrGraph.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fr_graph.api import FrGraph
from fr_graph.config import Settings
from tests.integration.helpers import assert_lifecycle_invariants, write_jsonl
from tests.integration.reliability.state import canonical_dump, slot_rows
from tests.neo4j_target import Neo4jTarget

WRITERS = 8
SLOT = {"category": "preferences", "slot_key": "user|coffee_order", "confidence": 0.9}
START = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)


def version(group_id: str, index: int) -> dict[str, Any]:
    when = START + timedelta(days=7 * index)
    return {"type": "fact", "group_id": group_id, "id": f"v{index}",
            "fact": f"User's usual coffee order is drink number {index}",
            "observed_at": when.strftime("%Y-%m-%dT%H:%M:%SZ"), **SLOT}


async def gather_writers(settings: Settings, count: int,
                         body: Callable[[FrGraph, int], Awaitable[Any]]) -> list[Any]:
    """``body`` in ``count`` concurrent tasks: one FrGraph each on Neo4j, a shared one on
    the embedded store (its file belongs to one process)."""
    if settings.backend == "neo4j":
        async def own(index: int) -> Any:
            async with FrGraph(settings) as fr:
                return await body(fr, index)
        return list(await asyncio.gather(*(own(i) for i in range(count))))
    async with FrGraph(settings) as fr:
        return list(await asyncio.gather(*(body(fr, i) for i in range(count))))


async def assert_one_consistent_chain(settings: Settings, group_id: str, count: int) -> None:
    async with FrGraph(settings) as fr:
        rows = await slot_rows(fr.store, group_id)
        links = await fr.store.run_text(
            "test_links",
            "MATCH (n:FrFact {group_id: $group_id})-[s:FR_SUPERSEDES]->(o:FrFact) "
            "RETURN n.source_id AS newer, o.source_id AS older, s.kind AS kind",
            group_id, group_id=group_id)
        await assert_lifecycle_invariants(fr, group_id)
    assert sorted(r["id"] for r in rows) == sorted(f"v{i}" for i in range(count))  # all kept
    latest = f"v{count - 1}"
    assert [r["id"] for r in rows if r["state"] == "active"] == [latest]
    by_id = {r["id"]: r for r in rows}
    for row in rows:
        assert row["mirrored"] == row["state"], row  # the mirror agrees with the overlay
        assert (row["invalid_at"] is None) == (row["id"] == latest), row
    older_of = {(link["newer"], link["older"]) for link in links}
    assert all(link["kind"] == "supersede" for link in links)
    # Every link goes from a later version to an earlier one; every replaced version is
    # linked from one that replaced it; nothing points at the current version.
    for newer, older in older_of:
        assert by_id[newer]["observed_at"] > by_id[older]["observed_at"]
    assert {older for _, older in older_of} == set(by_id) - {latest}


async def test_eight_concurrent_writers_of_one_slot_leave_one_active_version(
    settings: Settings, group_id: str, tmp_path: Path
) -> None:
    files = [write_jsonl(tmp_path / f"w{i}.jsonl", [version(group_id, i)])
             for i in range(WRITERS)]

    async def write(fr: FrGraph, index: int) -> int:
        report = await fr.import_file(files[index])
        return report.imported

    assert sum(await gather_writers(settings, WRITERS, write)) == WRITERS
    await assert_one_consistent_chain(settings, group_id, WRITERS)


async def test_concurrent_imports_of_one_file_write_each_fact_once(
    settings: Settings, group_id: str, tmp_path: Path
) -> None:
    path = write_jsonl(tmp_path / "history.jsonl",
                       [version(group_id, i) for i in range(WRITERS)])

    async def write(fr: FrGraph, index: int) -> tuple[int, int]:
        report = await fr.import_file(path)
        return report.imported, report.already_present

    reports = await gather_writers(settings, 2, write)
    assert sum(imported for imported, _ in reports) == WRITERS
    assert all(imported + present == WRITERS for imported, present in reports)
    await assert_one_consistent_chain(settings, group_id, WRITERS)
    async with FrGraph(settings) as fr:
        dump = await canonical_dump(fr.store, group_id)
    assert len(dump["edges"]) == len(dump["facts"]) == WRITERS
    assert len({dict(e)["fact"] for e in dump["edges"]}) == WRITERS  # no edge twice


def test_concurrent_writer_processes_on_neo4j(neo4j_target: Neo4jTarget, group_id: str,
                                              tmp_path: Path) -> None:
    """Four ``fr-graph import`` processes superseding one slot at the same time."""
    count = 4
    env = {**os.environ, **neo4j_target.env()}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "fr_graph.cli", "import",
             str(write_jsonl(tmp_path / f"p{i}.jsonl", [version(group_id, i)]))],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for i in range(count)
    ]
    for proc in procs:
        out, _ = proc.communicate(timeout=600)
        assert proc.returncode == 0, out
    asyncio.run(assert_one_consistent_chain(neo4j_target.settings(), group_id, count))


def test_first_writers_racing_to_create_the_schema_on_neo4j_all_succeed(
    neo4j_target: Neo4jTarget, group_id: str
) -> None:
    """Two first writers create the same IF-NOT-EXISTS rule at once: Neo4j refuses one with
    EquivalentSchemaRuleAlreadyExists, which is retried (the rule exists by then), not
    raised. fr-graph's schema is dropped first so that every writer creates it again."""
    async def scenario() -> None:
        settings = neo4j_target.settings()
        async with FrGraph(settings) as fr:
            await fr.store.ensure_schema(group_id)
            rules = await fr.store.run_text(
                "test_fr_rules",
                "SHOW INDEXES YIELD name, owningConstraint WHERE name STARTS WITH 'fr_' "
                "RETURN name, owningConstraint", group_id)
            for rule in rules:
                if rule["owningConstraint"] is None:
                    await fr.store.run_text("test_drop", f"DROP INDEX {rule['name']}", group_id)
                else:
                    await fr.store.run_text(
                        "test_drop", f"DROP CONSTRAINT {rule['owningConstraint']}", group_id)
            assert rules

        async def first_writer(_: int) -> None:
            async with FrGraph(settings) as fr:
                await fr.store.ensure_schema(group_id)

        await asyncio.gather(*(first_writer(i) for i in range(WRITERS)))
        async with FrGraph(settings) as fr:
            names = {r["name"] for r in await fr.store.run_text(
                "test_fr_rules", "SHOW INDEXES YIELD name WHERE name STARTS WITH 'fr_' "
                "RETURN name", group_id)}
        assert {r["name"] for r in rules} <= names
    asyncio.run(scenario())

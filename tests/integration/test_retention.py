"""Retention control (StageMem) on each real backend: maintain, compression, archive and
restore, pinning, budgets, the stage queries and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from typing import Any

import pytest

from fr_graph.api import FrGraph
from fr_graph.config import Settings
from fr_graph.core.policy import PolicyTable
from fr_graph.overlay import stable_uuid
from fr_graph.pipeline.records import FactRecord
from tests.integration.helpers import assert_lifecycle_invariants

pytestmark = pytest.mark.integration

NOW = datetime(2025, 6, 1, tzinfo=UTC)


def record(group_id: str, rid: str, fact: str, day: int, **extra: Any) -> FactRecord:
    return FactRecord(type="fact", group_id=group_id, id=rid, fact=fact,
                      observed_at=datetime(2025, 1, day, 12, tzinfo=UTC), **extra)


def uid(group_id: str, rid: str) -> str:
    return stable_uuid(group_id, "fact", rid)


def stream(group_id: str) -> list[FactRecord]:
    """A premise with a constraint cue, a dated obligation, running logs with numbers and
    two unrelated low-confidence details."""
    return [
        record(group_id, "premise", "The project must use PostgreSQL 16", 1, object="project",
               category="projects", confidence=0.9),
        record(group_id, "run-1", "User ran 5.2 km in 31:40 on Monday", 2, category="hobbies",
               object="running", confidence=0.6, slot_key="user|run:mon"),
        record(group_id, "run-2", "User ran 8 km in 49:05 on Wednesday", 3,
               category="hobbies", object="running", confidence=0.6, slot_key="user|run:wed"),
        record(group_id, "tea", "User tried a green tea", 4, category="preferences",
               object="tea", confidence=0.4),
        record(group_id, "movie", "User watched a movie", 5, category="other", object="movie",
               confidence=0.3),
        record(group_id, "run-3", "User ran 3 km in 17:59 on Friday", 6, category="hobbies",
               object="running", confidence=0.6, slot_key="user|run:fri"),
    ]


def use_policy(fr: FrGraph, **retention: Any) -> None:
    fr.policy = PolicyTable.from_mapping({"retention": retention})


async def census(fr: FrGraph, group_id: str) -> dict[str, dict[str, Any]]:
    return {row["stage"]: row for row in await fr.query("stage_census", group_id)}


async def states(fr: FrGraph, group_id: str) -> dict[str, tuple[str, str]]:
    rows = await fr.store.run("retention_facts", group_id, group_id=group_id)
    return {r["overlay"]["source_id"]: (r["overlay"]["state"], r["overlay"]["stage"])
            for r in rows}


async def test_maintain_settles_dry_run_writes_nothing_and_rerun_is_idempotent(
        fr: FrGraph, group_id: str) -> None:
    use_policy(fr, transient_capacity=4)
    await fr.import_records(stream(group_id))
    before = await states(fr, group_id)
    assert set(before.values()) == {("active", "transient")}

    dry = (await fr.maintain(group_id, dry_run=True, now=NOW))[0]
    assert dry.dry_run and dry.moves
    assert await states(fr, group_id) == before  # nothing written

    report = (await fr.maintain(group_id, now=NOW))[0]
    assert [(m.uuid, m.action, m.to_stage, m.to_state) for m in report.moves] == \
        [(m.uuid, m.action, m.to_stage, m.to_state) for m in dry.moves]
    after = await states(fr, group_id)
    assert after["premise"] == ("active", "durable")  # cue strength 0.85, confidence 0.9
    assert after["movie"] == ("archived", "transient")  # lowest strength and confidence
    assert report.load_after[0] <= 4 and report.budget_hit
    moved = {m.uuid: m for m in report.moves}
    assert "passed the promotion gates" in moved[uid(group_id, "premise")].reason
    assert moved[uid(group_id, "movie")].action == "evict"

    again = (await fr.maintain(group_id, now=NOW))[0]
    assert again.moves == [] and again.summaries == []
    assert await states(fr, group_id) == after

    premises = await fr.query("durable_premises", group_id)
    assert [p["uuid"] for p in premises] == [uid(group_id, "premise")]
    stages = await census(fr, group_id)
    assert stages["durable"]["live"] == 1 and stages["transient"]["archived"] == 1


async def test_archived_facts_leave_search_and_restore_brings_them_back(
        fr: FrGraph, group_id: str) -> None:
    use_policy(fr, transient_capacity=4)
    await fr.import_records(stream(group_id))
    movie = uid(group_id, "movie")
    hits = await fr.search("did I watch a movie", group_id, now=NOW)
    assert movie in [h.uuid for h in hits]
    await fr.maintain(group_id, now=NOW)
    hits = await fr.search("did I watch a movie", group_id, now=NOW)
    assert movie not in [h.uuid for h in hits]
    archived = {row["uuid"]: row for row in await fr.query("archived_facts", group_id)}
    assert archived[movie]["archived_from"] == "active"
    assert archived[movie]["compressed_into"] is None

    change = await fr.restore(movie)
    assert change.changed and change.state == "active" and change.group_id == group_id
    hits = await fr.search("did I watch a movie", group_id, now=NOW)
    assert movie in [h.uuid for h in hits]
    assert not (await fr.restore(movie, group_id=group_id)).changed


async def test_compression_writes_a_summary_with_provenance_and_numbers(
        fr: FrGraph, group_id: str) -> None:
    use_policy(fr, transient_capacity=1)
    await fr.import_records(stream(group_id))
    report = (await fr.maintain(group_id, now=NOW))[0]
    assert len(report.summaries) == 1
    summary = report.summaries[0]
    runs = {uid(group_id, f"run-{i}") for i in (1, 2, 3)}
    assert set(summary.originals) == runs
    for number in ("5.2 km", "31:40", "8 km", "49:05", "3 km", "17:59"):
        assert number in summary.fact
    archived = {row["uuid"]: row for row in await fr.query("archived_facts", group_id)}
    for original in runs:  # originals are kept, archived, and point at their summary
        assert archived[original]["compressed_into_uuid"] == summary.uuid
        assert archived[original]["compressed_into"] == summary.fact
    hits = await fr.search("how far did I run", group_id, now=NOW)
    assert hits[0].uuid == summary.uuid and hits[0].state == "active"
    assert (await census(fr, group_id))["transient"]["live"] == 1  # the summary
    # A re-run neither duplicates the summary nor its provenance edges.
    assert (await fr.maintain(group_id, now=NOW))[0].summaries == []
    links = await fr.store.run_text(
        "count_links", "MATCH (:FrFact {edge_uuid: $s})-[c:FR_COMPRESSES]->() "
        "RETURN count(c) AS n", group_id, s=summary.uuid)
    assert links[0]["n"] == 3


async def test_pin_protects_under_a_budget_and_unpin_releases(
        fr: FrGraph, group_id: str) -> None:
    use_policy(fr)
    await fr.import_records(stream(group_id))
    movie = uid(group_id, "movie")
    pinned = await fr.pin(movie)
    assert pinned.pinned and pinned.group_id == group_id
    report = (await fr.maintain(group_id, budget=2, now=NOW))[0]
    after = await states(fr, group_id)
    assert after["movie"][0] == "active"  # pinned: never evicted, strength held at 1...
    assert after["movie"][1] == "transient"  # ...but confidence 0.3 fails the gate (Eq. 1)
    live = [s for s, (state, _) in after.items() if state != "archived"]
    assert len(live) + len(report.summaries) <= 2
    assert (await census(fr, group_id))["transient"]["pinned"] == 1

    assert not (await fr.unpin(movie, group_id=group_id)).pinned
    await fr.maintain(group_id, budget=1, now=NOW)
    after = await states(fr, group_id)
    assert after["premise"] == ("active", "durable")  # the strongest fact stays
    assert after["movie"][0] == "archived"


async def test_accesses_grow_strength_once_and_durable_premises_resist_decay(
        fr: FrGraph, group_id: str) -> None:
    use_policy(fr)
    await fr.import_records(stream(group_id))
    tea = uid(group_id, "tea")
    assert await fr.record_access(group_id, [tea, tea, "no-such-fact"]) == 1
    first = (await fr.maintain(group_id, now=NOW))[0]
    grown = {m.uuid: m for m in first.moves}[tea]
    assert grown.strength_after > grown.strength_before
    assert (await fr.maintain(group_id, now=NOW))[0].moves == []  # absorbed once

    hits = await fr.search("which database must the project use", group_id, now=NOW)
    premise = next(h for h in hits if h.uuid == uid(group_id, "premise"))
    assert premise.terms["strength_protection"] > 0.8
    assert premise.terms["activation"] > 0.8  # five months old, yet barely decayed
    explanation = await fr.explain(premise.uuid, "which database must the project use",
                                   group_id=group_id, now=NOW)
    assert "strength protection" in "\n".join(explanation.why)


async def test_unknown_facts_and_bad_budgets_are_input_errors(fr: FrGraph,
                                                               group_id: str) -> None:
    from fr_graph.errors import InputError, NotFoundError

    with pytest.raises(InputError, match="--budget"):
        await fr.maintain(group_id, budget=-1)
    await fr.import_records(stream(group_id)[:1])
    with pytest.raises(NotFoundError):
        await fr.restore("nope", group_id=group_id)
    with pytest.raises(NotFoundError):
        await fr.pin("nope", group_id=group_id)


def cli(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FR_GRAPH_DB": settings.db or "", "NEO4J_USER": settings.neo4j_user,
           "NEO4J_PASSWORD": settings.neo4j_password}
    return subprocess.run([sys.executable, "-m", "fr_graph.cli", *args], env=env,
                          capture_output=True, text=True, timeout=300, check=False)


async def test_cli_maintain_pin_unpin_restore(settings: Settings, group_id: str) -> None:
    async with FrGraph(settings) as fr:
        await fr.import_records(stream(group_id))
    movie = uid(group_id, "movie")
    done = cli(settings, "maintain", "--group", group_id, "--budget", "4", "--dry-run",
               "--now", "2025-06-01T00:00:00Z", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)[0]
    assert report["dry_run"] and report["budget"] == 4 and report["counts"]["evict"] >= 1
    done = cli(settings, "pin", movie)
    assert done.returncode == 0 and f"pinned {movie}" in done.stdout, done.stderr
    done = cli(settings, "unpin", movie, "--group", group_id)
    assert done.returncode == 0 and f"unpinned {movie}" in done.stdout, done.stderr
    done = cli(settings, "maintain", "--group", group_id, "--budget", "4", "--now",
               "2025-06-01T00:00:00Z")
    assert done.returncode == 0 and "budget hit" in done.stdout, done.stderr
    done = cli(settings, "restore", movie)
    assert done.returncode == 0 and f"restored {movie} (transient, active)" in done.stdout
    done = cli(settings, "maintain", "--budget", "-3")
    assert done.returncode == 1 and done.stderr.startswith("error: --budget")
    async with FrGraph(settings) as fr:
        await assert_lifecycle_invariants(fr, group_id)

"""The user queries of ``cypher/queries/``, on each real backend (Neo4j 5.26 and FalkorDB).

One lifecycle-rich group per backend is imported once (:func:`lifecycle_group`) and its
states and ``FR_SUPERSEDES`` edges are set directly in Cypher, so these tests do not depend
on how import decides transitions. The same group serves ``test_inspect.py``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from fr_graph import cypher
from fr_graph.api import FrGraph
from fr_graph.config import Settings
from fr_graph.errors import InputError, QueryNotFoundError
from fr_graph.overlay import stable_uuid
from fr_graph.pipeline.user_queries import PARAM_TYPES, user_queries
from tests.integration.helpers import write_jsonl

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
NOW = "2025-06-01T00:00:00Z"

RECORDS: list[dict[str, Any]] = [
    {"id": "p-1", "fact": "User is vegetarian", "observed_at": "2025-01-20T19:00:00Z",
     "category": "preferences", "slot_key": "user|diet"},
    {"id": "p-2", "fact": "User eats fish again", "observed_at": "2025-05-01T10:00:00Z",
     "category": "preferences", "slot_key": "user|diet", "confidence": 0.95},
    {"id": "s-1", "fact": "User worked at Acme as a tester",
     "observed_at": "2024-12-01T09:00:00Z", "category": "identity",
     "slot_key": "user|employer"},
    {"id": "s-2", "fact": "User works at Google on the Gemini memory team",
     "observed_at": "2025-01-06T18:00:00Z", "category": "identity",
     "slot_key": "user|employer", "confidence": 0.95},
    {"id": "o-1", "fact": "User has a dentist appointment next Tuesday afternoon",
     "observed_at": "2025-05-25T12:00:00Z", "category": "obligations",
     "slot_key": "user|appt:dentist", "event_time": "2025-06-03T15:00:00Z"},
    {"id": "o-2", "fact": "User must renew the passport before the summer",
     "observed_at": "2025-05-02T12:00:00Z", "category": "obligations",
     "slot_key": "user|deadline:passport", "event_time": "2025-07-15T00:00:00Z"},
    {"id": "o-3", "fact": "User had a dentist checkup", "observed_at": "2025-03-20T12:00:00Z",
     "category": "obligations", "slot_key": "user|appt:checkup",
     "event_time": "2025-04-01T10:00:00Z"},
    {"id": "l-1", "fact": "User had a flight to Denver", "observed_at": "2025-05-10T12:00:00Z",
     "category": "logistical", "slot_key": "user|flight:denver",
     "event_time": "2025-05-22T08:00:00Z"},
    {"id": "v-1", "fact": "User is staying at a rental flat downtown",
     "observed_at": "2025-05-15T12:00:00Z", "category": "logistical",
     "slot_key": "user|lodging"},
    {"id": "r-1", "fact": "User planned a trip to Lisbon", "observed_at": "2025-03-01T10:00:00Z",
     "category": "logistical", "slot_key": "user|trip:lisbon"},
    {"id": "r-2", "fact": "User cancelled the Lisbon trip", "observed_at": "2025-04-02T10:00:00Z",
     "category": "logistical", "slot_key": "user|trip:lisbon"},
    {"id": "h-1", "fact": "User's sister Maya lives in Chennai",
     "observed_at": "2025-02-11T20:00:00Z", "category": "relational", "slot_key": "user|sister"},
]
TEXT = {r["id"]: r["fact"] for r in RECORDS}

# (record id, state, valid_to); every other record is active with an open interval.
STATES = [("p-1", "superseded", "2025-05-01T10:00:00Z"),
          ("s-1", "superseded", "2025-01-06T18:00:00Z"),
          ("r-1", "retracted", "2025-04-02T10:00:00Z"),
          ("v-1", "active", "2025-06-04T00:00:00Z")]
# (newer, older, kind, confidence, at, reason)
LINKS = [("p-2", "p-1", "supersede", 0.95, "2025-05-01T10:00:00Z", "diet changed"),
         ("s-2", "s-1", "supersede", 0.95, "2025-01-06T18:00:00Z", "new employer"),
         ("r-2", "r-1", "retract", 0.9, "2025-04-02T10:00:00Z", "trip cancelled")]

SET_STATES = """
UNWIND $changes AS c
MATCH (f:FrFact {edge_uuid: c.uuid})
SET f.state = c.state, f.valid_to = c.valid_to, f.ambiguous = false,
    f.revision = coalesce(f.revision, 0) + 1
RETURN count(f) AS changed
"""
DROP_LINKS = """
MATCH (f:FrFact {group_id: $group_id})-[s:FR_SUPERSEDES]->()
DELETE s
RETURN count(*) AS dropped
"""
ADD_LINKS = """
UNWIND $links AS l
MATCH (n:FrFact {edge_uuid: l.newer})
MATCH (o:FrFact {edge_uuid: l.older})
MERGE (n)-[s:FR_SUPERSEDES]->(o)
SET s.kind = l.kind, s.confidence = l.confidence, s.at = l.at, s.reason = l.reason
RETURN count(s) AS linked
"""

_POPULATED: dict[str, str] = {}


def uid(group_id: str, record_id: str) -> str:
    return stable_uuid(group_id, "fact", record_id)


async def lifecycle_group(fr: FrGraph, tmp_path: Path) -> str:
    """The shared lifecycle group of this backend (imported on first use)."""
    key = fr.settings.db or ""
    if key in _POPULATED:
        return _POPULATED[key]
    group = f"lq-{uuid.uuid4().hex[:10]}"
    path = write_jsonl(tmp_path / f"{group}.jsonl",
                       [{"type": "fact", "group_id": group, **r} for r in RECORDS])
    report = await fr.import_file(path)
    assert report.imported == len(RECORDS), report
    explicit = {rid: (state, valid_to) for rid, state, valid_to in STATES}
    changes = [{"uuid": uid(group, r["id"]),
                "state": explicit.get(r["id"], ("active", None))[0],
                "valid_to": explicit.get(r["id"], ("active", None))[1]} for r in RECORDS]
    store = fr.store
    rows = await store.run_text("test_set_states", SET_STATES, group, changes=changes)
    assert rows[0]["changed"] == len(RECORDS)
    await store.run_text("test_drop_links", DROP_LINKS, group, group_id=group)
    links = [{"newer": uid(group, n), "older": uid(group, o), "kind": k, "confidence": c,
              "at": at, "reason": why} for n, o, k, c, at, why in LINKS]
    rows = await store.run_text("test_add_links", ADD_LINKS, group, links=links)
    assert rows[0]["linked"] == len(LINKS)
    await fr.sync(group)
    _POPULATED[key] = group
    return group


def fr_graph_cli(settings: Settings | None, *args: str,
                 env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    extra = {} if settings is None else {
        "FR_GRAPH_DB": settings.db or "", "NEO4J_USER": settings.neo4j_user,
        "NEO4J_PASSWORD": settings.neo4j_password}
    return subprocess.run([sys.executable, "-m", "fr_graph.cli", *args],
                          env={**os.environ, **extra, **(env or {})}, capture_output=True,
                          text=True, timeout=300, check=False)


def cli(settings: Settings | None, *args: str, env: dict[str, str] | None = None) -> Any:
    """The CLI in-process (typer's runner): a Result with exit_code, stdout and stderr.

    Much faster than a subprocess per call; ``fr_graph_cli`` keeps one real process per
    test to cover the entry point.
    """
    from typer.testing import CliRunner

    from fr_graph.cli import app

    extra = {} if settings is None else {
        "FR_GRAPH_DB": settings.db or "", "NEO4J_USER": settings.neo4j_user,
        "NEO4J_PASSWORD": settings.neo4j_password}
    return CliRunner().invoke(app, list(args), env={**extra, **(env or {})})


def ids(group: str, rows: list[dict[str, Any]]) -> list[str]:
    """Record ids of result rows (by their uuid column)."""
    back = {uid(group, r["id"]): r["id"] for r in RECORDS}
    return [back.get(row["uuid"], row["uuid"]) for row in rows]


# -- the queries, on both backends --------------------------------------------------------


async def test_current_facts_by_category(fr: FrGraph, tmp_path: Path) -> None:
    group = await lifecycle_group(fr, tmp_path)
    rows = await fr.query("current_facts", group, now=NOW)
    found = ids(group, rows)
    assert {"p-2", "s-2", "o-1", "o-2", "l-1", "v-1", "h-1"} <= set(found)
    assert not {"p-1", "s-1", "r-1"} & set(found)
    categories = [row["category"] for row in rows]
    assert categories == sorted(categories)
    assert set(rows[0]) == {"category", "fact", "slot_key", "observed_at", "event_time",
                            "source_id", "uuid"}
    # v-1's validity closes on 2025-06-04: not current a week later.
    later = ids(group, await fr.query("current_facts", group, now="2025-06-10"))
    assert "v-1" not in later and "p-2" in later
    assert ids(group, await fr.query("current_facts", group, now=NOW,
                                     category="preferences")) == ["p-2"]


async def test_slot_history_is_the_version_chain(fr: FrGraph, tmp_path: Path) -> None:
    group = await lifecycle_group(fr, tmp_path)
    rows = await fr.query("slot_history", group, slot_key="user|diet")
    assert ids(group, rows) == ["p-1", "p-2"]
    assert [r["state"] for r in rows] == ["superseded", "active"]
    assert rows[0]["superseded_by"] == [uid(group, "p-2")]
    assert rows[0]["valid_to"] == "2025-05-01T10:00:00Z"
    assert rows[1]["superseded_by"] == [] and rows[1]["contested_by"] == []
    assert await fr.query("slot_history", group, slot_key="user|nothing") == []


async def test_upcoming_obligations_in_the_next_days(fr: FrGraph, tmp_path: Path) -> None:
    group = await lifecycle_group(fr, tmp_path)
    assert ids(group, await fr.query("upcoming_obligations", group, now=NOW)) == ["o-1"]
    rows = await fr.query("upcoming_obligations", group, now=NOW, until="+60d")
    assert ids(group, rows) == ["o-1", "o-2"]
    assert rows[0]["event_time"] == "2025-06-03T15:00:00Z"
    past = await fr.query("upcoming_obligations", group, now="2025-05-20",
                          categories=["logistical"])
    assert ids(group, past) == ["l-1"]


async def test_retracted_facts_name_the_retraction(fr: FrGraph, tmp_path: Path) -> None:
    group = await lifecycle_group(fr, tmp_path)
    rows = await fr.query("retracted_facts", group)
    assert ids(group, rows) == ["r-1"]
    assert rows[0]["retracted_by"] == TEXT["r-2"]
    assert rows[0]["retracted_by_uuid"] == uid(group, "r-2")
    assert rows[0]["retracted_at"] == "2025-04-02T10:00:00Z"


async def test_expiring_soon(fr: FrGraph, tmp_path: Path) -> None:
    group = await lifecycle_group(fr, tmp_path)
    rows = await fr.query("expiring_soon", group, now=NOW)
    why = dict(zip(ids(group, rows), (r["why"] for r in rows), strict=True))
    # v-1's interval closes on June 4; l-1's flight (May 22) passes its 14-day buffer June 5.
    assert why == {"v-1": "validity ends", "l-1": "event passed"}
    assert await fr.query("expiring_soon", group, now="2025-08-01") == []


async def test_category_census(fr: FrGraph, tmp_path: Path) -> None:
    group = await lifecycle_group(fr, tmp_path)
    rows = {r["category"]: r for r in await fr.query("category_census", group)}
    assert rows["preferences"] == {"category": "preferences", "facts": 2, "active": 1,
                                   "superseded": 1, "expired": 0, "retracted": 0,
                                   "archived": 0}
    assert rows["logistical"]["facts"] == 4 and rows["logistical"]["retracted"] == 1
    assert rows["obligations"]["active"] == 3
    assert sum(r["facts"] for r in rows.values()) == len(RECORDS)
    assert all(isinstance(r["active"], int) for r in rows.values())


async def test_superseded_since(fr: FrGraph, tmp_path: Path) -> None:
    group = await lifecycle_group(fr, tmp_path)
    rows = await fr.query("superseded_since", group, since="2025-03-01")
    assert ids(group, rows) == ["p-1"]
    assert rows[0]["superseded_by"] == TEXT["p-2"]
    assert (rows[0]["kind"], rows[0]["confidence"]) == ("supersede", 0.95)
    rows = await fr.query("superseded_since", group, since="2024-12-01T00:00:00Z")
    assert ids(group, rows) == ["p-1", "s-1"]  # newest first


async def test_parameters_are_checked_and_typed(fr: FrGraph, tmp_path: Path) -> None:
    group = await lifecycle_group(fr, tmp_path)
    with pytest.raises(QueryNotFoundError, match=r"available: .*current_facts"):
        await fr.query("drop_everything", group)
    with pytest.raises(QueryNotFoundError):
        await fr.query("../common/repair_drift", group)
    with pytest.raises(InputError, match="unknown parameter"):
        await fr.query("current_facts", group, bogus=1)
    with pytest.raises(InputError, match="slot_key is required"):
        await fr.query("slot_history", group)
    with pytest.raises(InputError, match="not an ISO-8601 time"):
        await fr.query("current_facts", group, now="next tuesday")
    with pytest.raises(InputError, match="group"):
        await fr.query("current_facts", group, group_id="other")
    with pytest.raises(InputError):
        await fr.query("current_facts", "bad group!")
    # Hostile text stays a value: it is a Cypher parameter, never query text.
    assert await fr.query("slot_history", group, slot_key="x' OR 1=1 //") == []


async def test_a_missing_group_gives_no_rows_and_creates_nothing(fr: FrGraph) -> None:
    missing = f"none-{uuid.uuid4().hex[:8]}"
    for name in user_queries():
        needs = {"slot_key": "user|diet"} if name == "slot_history" else {}
        assert await fr.query(name, missing, **needs) == []
    assert missing not in await fr.groups()


def populated(settings: Settings, tmp_path: Path) -> str:
    """The shared lifecycle group, for synchronous (CLI) tests."""
    import asyncio

    key = settings.db or ""
    if key not in _POPULATED:
        async def populate() -> str:
            async with FrGraph(settings) as fr:
                return await lifecycle_group(fr, tmp_path)
        asyncio.run(populate())
    return _POPULATED[key]


def test_cli_runs_a_user_query(settings: Settings, tmp_path: Path) -> None:
    group = populated(settings, tmp_path)
    done = fr_graph_cli(settings, "query", "upcoming_obligations", "--group", group,
                        "--param", f"now={NOW}", "--param", "until=+60d", "--json")
    assert done.returncode == 0, done.stderr
    assert ids(group, json.loads(done.stdout)) == ["o-1", "o-2"]
    result = cli(settings, "query", "slot_history", "--group", group,
                 "--param", "slot_key=user|diet")
    assert result.exit_code == 0, result.stderr
    header, rule, *lines = result.stdout.splitlines()
    assert header.split()[:3] == ["observed_at", "state", "fact"] and set(rule) <= {"-", " "}
    assert len(lines) == 2 and "superseded" in lines[0]
    for args in (["query", "nope", "--group", group],
                 ["query", "current_facts", "--group", group, "--param", "bogus=1"],
                 ["query", "current_facts", "--group", group, "--param", "now"],
                 ["query", "current_facts", "--group", group, "--param", "now=soonish"]):
        result = cli(settings, *args)
        assert result.exit_code == 1, (args, result.stderr)
        assert result.exception is None or isinstance(result.exception, SystemExit), args
        assert len([ln for ln in result.stderr.splitlines() if ln.startswith("error:")]) == 1


# -- the files themselves (no store) ------------------------------------------------------


def test_every_user_query_declares_typed_parameters() -> None:
    specs = user_queries()
    assert set(specs) == {"current_facts", "slot_history", "upcoming_obligations",
                          "retracted_facts", "expiring_soon", "category_census",
                          "superseded_since", "stage_census", "durable_premises",
                          "archived_facts"}
    for name, spec in specs.items():
        assert spec.summary and spec.returns, name
        assert spec.params[0].name == "group_id" and spec.params[0].required, name
        assert all(p.type in PARAM_TYPES for p in spec.params), name
        for dialect in ("neo4j", "falkordb"):
            text = cypher.load(name, dialect, folder="queries")
            used = set(re.findall(r"\$([a-z_][a-z0-9_]*)", text))
            assert used == {p.name for p in spec.params}, (name, dialect, used)
            assert not re.search(r"\b(CREATE|MERGE|SET|DELETE|REMOVE|datetime|EXISTS)\b",
                                 text), name  # read-only, and portable to FalkorDB


def test_user_queries_are_documented_in_the_cypher_readme() -> None:
    readme = (ROOT / "cypher" / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Running queries yourself"):]
    for name in user_queries():
        assert f"`{name}`" in section, name


def test_cli_lists_the_queries() -> None:
    result = cli(None, "query", "--list", "--json")
    assert result.exit_code == 0, result.stderr
    listed = {q["name"]: q for q in json.loads(result.stdout)}
    assert set(listed) == set(user_queries())
    assert [p["name"] for p in listed["slot_history"]["params"]] == ["group_id", "slot_key"]

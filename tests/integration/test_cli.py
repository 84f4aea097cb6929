"""The CLI end to end, as a user runs it (a real process per command)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fr_graph.config import Settings
from tests.integration.helpers import group_file, write_jsonl

pytestmark = pytest.mark.integration


def fr_graph(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FR_GRAPH_DB": settings.db or "", "NEO4J_USER": settings.neo4j_user,
           "NEO4J_PASSWORD": settings.neo4j_password}
    return subprocess.run([sys.executable, "-m", "fr_graph.cli", *args], env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_import_search_batch_stats_and_sync(settings: Settings, group_id: str,
                                            tmp_path: Path) -> None:
    path = group_file(tmp_path, "facts_small.jsonl", group_id)
    done = fr_graph(settings, "import", str(path))
    assert done.returncode == 0, done.stderr
    assert "imported 6 facts" in done.stdout

    done = fr_graph(settings, "search", "where does my sister live", "--group", group_id,
                    "--now", "2025-06-01T00:00:00Z", "--limit", "2", "--json")
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert len(results) == 2
    assert results[0]["source_id"] == "f-5"
    assert set(results[0]) == {"uuid", "fact", "score", "category", "categories", "state",
                               "slot_key", "valid_at", "observed_at", "event_time",
                               "source_id", "terms"}

    queries = write_jsonl(tmp_path / "q.jsonl", [
        {"id": "a", "group_id": group_id, "query": "chess", "now": "2025-06-01T00:00:00Z"},
        {"id": "b", "group_id": group_id, "query": "rent"},
    ])
    done = fr_graph(settings, "search", "--batch", str(queries), "--limit", "3", "--json")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["id"] for line in lines] == ["a", "b"]
    assert lines[0]["results"][0]["source_id"] == "f-6"
    assert lines[1]["results"][0]["source_id"] == "f-3"

    done = fr_graph(settings, "stats", "--group", group_id, "--json")
    assert json.loads(done.stdout)[0]["facts"] == 6
    done = fr_graph(settings, "sync", "--group", group_id)
    assert "repaired 0 facts in 1 groups" in done.stdout


def test_user_errors_print_one_line_and_exit_non_zero(settings: Settings, group_id: str,
                                                      tmp_path: Path) -> None:
    bad = write_jsonl(tmp_path / "bad.jsonl", [
        {"type": "fact", "group_id": group_id, "id": "1", "fact": "x",
         "observed_at": "not a date"}])
    for args in (["import", "--strict", str(bad)], ["import", str(tmp_path / "missing.jsonl")],
                 ["search", "x", "--group", "bad group"],
                 ["search", "x", "--group", group_id, "--now", "tomorrowish"]):
        done = fr_graph(settings, *args)
        assert done.returncode != 0, args
        assert "Traceback" not in done.stderr, args
        error_lines = [ln for ln in done.stderr.splitlines() if ln.startswith("error:")]
        assert len(error_lines) == 1, (args, done.stderr)
    done = fr_graph(settings, "import", "--strict", str(bad))
    assert "line 1" in done.stderr and "observed_at" in done.stderr


def test_an_unreachable_neo4j_is_one_line_at_once() -> None:
    """A wrong --db or a stopped server: one line naming the address and the cause, at
    once (no retry: retries are for a server that was reachable)."""
    # A retry would sleep 30 s first: the subprocess timeout catches one.
    env = {**{k: v for k, v in os.environ.items() if k != "FR_GRAPH_DB"},
           "FR_GRAPH_STORE_BACKOFF": "30"}
    done = subprocess.run(
        [sys.executable, "-m", "fr_graph.cli", "--db", "bolt://127.0.0.1:1", "search", "x",
         "--group", "g"], env=env, capture_output=True, text=True, timeout=29, check=False)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith("error: store unavailable: cannot reach Neo4j at --db "
                                  "bolt://127.0.0.1:1 (")


def test_an_embedded_store_that_cannot_start_is_one_line(tmp_path: Path) -> None:
    """A data file the server cannot load: one line naming --db, no traceback."""
    (tmp_path / "fr-graph.db").write_bytes(b"REDIS0011 this is not a snapshot")
    env = {k: v for k, v in os.environ.items() if k != "FR_GRAPH_DB"}
    done = subprocess.run(
        [sys.executable, "-m", "fr_graph.cli", "--db", str(tmp_path), "stats"],
        env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 1
    errors = [ln for ln in done.stderr.splitlines() if ln.startswith("error:")]
    assert errors == [done.stderr.strip().splitlines()[0]], done.stderr
    assert "the embedded store did not start" in errors[0] and str(tmp_path) in errors[0]
    assert "Traceback" not in done.stderr


def test_a_graphiti_search_prints_nothing_on_stderr(settings: Settings, group_id: str,
                                                    tmp_path: Path) -> None:
    """``--policy off`` runs Graphiti's own search; on Neo4j the driver logged one WARNING
    per query naming a property no edge has (``reference_time``), a screenful per search.
    Quiet unless --verbose."""
    path = group_file(tmp_path, "facts_small.jsonl", group_id)
    assert fr_graph(settings, "import", str(path)).returncode == 0
    done = fr_graph(settings, "search", "where does my sister live", "--group", group_id,
                    "--policy", "off", "--limit", "2")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""

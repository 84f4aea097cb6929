"""Malformed JSONL through the real CLI on each backend: every bad line is reported with
its number and reason and the rest is imported; with ``--strict`` nothing is written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from fr_graph.api import FrGraph
from fr_graph.config import Settings
from tests.integration.reliability.state import slot_rows


def good(group: str, rid: str, text: str) -> bytes:
    return json.dumps({"type": "fact", "group_id": group, "id": rid, "fact": text,
                       "observed_at": "2025-03-01T10:00:00Z"}).encode()


def bad_lines(group: str) -> list[tuple[bytes, str]]:
    """``(raw line, what its reason must mention)``."""
    base = {"type": "fact", "group_id": group, "id": "x", "fact": "User likes tea",
            "observed_at": "2025-03-01T10:00:00Z"}

    def variant(**change: object) -> bytes:
        return json.dumps({**base, **change}).encode()

    without_fact = {k: v for k, v in base.items() if k != "fact"}
    return [
        (b'{"type": "fact", "group_id": ', "invalid JSON"),
        (json.dumps(without_fact).encode(), "field fact"),
        (variant(fact=["a", "list"]), "field fact"),
        (variant(confidence="high"), "field confidence"),
        (variant(observed_at="2025-02-30T10:00:00Z"), "field observed_at"),
        (variant(observed_at="2025-13-01"), "field observed_at"),
        (variant(event_time="31/02/2025"), "field event_time"),
        (variant(fact="x" * (1024 * 1024)), "longer than"),
        (variant(fact="tab\x07bell"), "control characters"),
        (b'{"type": "fact", "fact": "caf\xe9"}', "invalid UTF-8"),
        (variant(category="astrology"), "field category"),
        (variant(state="deleted"), "field state"),
        (variant(group_id="x' OR 1=1 //"), "field group_id"),
        (b'"just a string"', "JSON object"),
        (variant(type="note"), "field type"),
    ]


def fr_graph(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FR_GRAPH_DB": settings.db or "", "NEO4J_USER": settings.neo4j_user,
           "NEO4J_PASSWORD": settings.neo4j_password}
    return subprocess.run([sys.executable, "-m", "fr_graph.cli", *args], env=env,
                          capture_output=True, text=True, timeout=300, check=False)


async def count(settings: Settings, group: str) -> int:
    async with FrGraph(settings) as fr:
        if not await fr.store.has_group(group):
            return 0
        return len(await slot_rows(fr.store, group))


async def test_malformed_lines_are_rejected_by_number_and_the_rest_imported(
        settings: Settings, group_id: str, tmp_path: Path) -> None:
    bad = bad_lines(group_id)
    lines = [good(group_id, "a", "User drinks green tea every afternoon"), *(b for b, _ in bad),
             good(group_id, "b", "User lives in Porto")]
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")

    strict = fr_graph(settings, "import", "--strict", str(path))
    assert strict.returncode == 1 and "Traceback" not in strict.stderr
    errors = [ln for ln in strict.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and "line 2" in errors[0] and "nothing written" in errors[0]
    assert await count(settings, group_id) == 0

    done = fr_graph(settings, "import", str(path))
    assert done.returncode == 0, done.stderr
    assert f"imported 2 facts, 0 already present, {len(bad)} lines rejected" in " ".join(
        done.stdout.split())
    reported = {int(ln.split(":")[0].removeprefix("line ")): ln
                for ln in done.stderr.splitlines() if ln.startswith("line ")}
    assert sorted(reported) == list(range(2, 2 + len(bad)))
    for number, (_, reason) in enumerate(bad, start=2):
        assert reason in reported[number], (number, reported[number])
        assert len(reported[number]) < 300  # one short line, not the 1 MB value
    assert await count(settings, group_id) == 2

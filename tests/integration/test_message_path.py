"""Chat messages in, offline, on each real backend: long and code-heavy messages import,
each fact keeps its message, episode and sentence, and ``show --message`` lists them."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from fr_graph.api import FrGraph
from fr_graph.config import Settings
from fr_graph.overlay import stable_uuid
from tests.integration.helpers import write_jsonl
from tests.integration.test_cli import fr_graph

pytestmark = pytest.mark.integration

TOMATOES = "I planted the garden " + " ".join(
    f"and the tomatoes in bed number {n} that I planted with compost from the neighbours"
    for n in range(10)) + "."
WITH_CODE = ("I'm building the order page for my bakery's Flask app, can you add login?\n"
             "```python\npartner = request.args.get('partner')\n"
             "my_wife = Partner.query.first()\n```\n" + "# filler line\n" * 800
             + "My deadline is Friday.")


def messages(group_id: str) -> list[dict[str, object]]:
    base = {"type": "message", "group_id": group_id}
    return [
        {**base, "id": "m1", "role": "user", "content": TOMATOES,
         "observed_at": "2026-03-01T10:00:00Z"},
        {**base, "id": "m2", "role": "user", "content": WITH_CODE,
         "observed_at": "2026-03-01T10:01:00Z"},
        {**base, "id": "m3", "role": "assistant", "content": "Sure! I live in the cloud.",
         "observed_at": "2026-03-01T10:02:00Z"},
        {**base, "id": "m4", "role": "user", "content": "thanks, that worked!",
         "observed_at": "2026-03-01T10:03:00Z"},
    ]


async def test_long_and_code_heavy_messages_import_with_provenance(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    path = write_jsonl(tmp_path / "chat.jsonl", messages(group_id))
    assert len(WITH_CODE) > 10_000  # longer than a fact may be: a message is not rejected
    report = await fr.import_file(path)
    assert report.rejected == []
    assert report.messages == 4
    assert report.silent_messages == [(4, "m4")]  # the assistant's message is not "silent"
    assert report.pasted_regions == 2  # the fenced block and the run of comment lines
    assert report.imported == report.facts_from_messages >= 5

    trace = await fr.show_message(group_id, "m2")
    assert trace.episode_uuid == stable_uuid(group_id, "episode", "m2")
    assert trace.episode_text == f"user: {WITH_CODE}"
    assert [item.fact for item in trace.facts] == [
        "User is building the order page for User's bakery's Flask app",
        "User's deadline is Friday"]
    assert [trace.sentence(item) for item in trace.facts] == [
        "I'm building the order page for my bakery's Flask app", "My deadline is Friday"]
    assert [item.source_id for item in trace.facts] == ["m2#0", "m2#1"]
    # The episode points at what was set aside: the fenced block, then the "# ..." lines.
    assert [region.kind for region in trace.pasted] == ["code", "log"]
    fenced = trace.episode_text[trace.pasted[0].start:trace.pasted[0].end]
    assert fenced.startswith("```python\npartner =") and fenced.rstrip().endswith("```")
    assert not any("partner" in item.fact.lower() for item in (await fr.show(group_id)))

    rows = await fr.store.run_text(
        "t", "MATCH ()-[r:RELATES_TO]->() WHERE r.group_id = $g RETURN r.episodes AS e",
        group_id, g=group_id)
    assert {tuple(row["e"]) for row in rows} == {
        (stable_uuid(group_id, "episode", m),) for m in ("m1", "m2")}
    count = ("MATCH (e:Episodic) WHERE e.group_id = $g RETURN count(e) AS n")
    assert (await fr.store.run_text("t", count, group_id, g=group_id))[0]["n"] == 4

    again = await fr.import_file(path)  # idempotent: no new fact, no new episode
    assert (again.imported, again.already_present) == (0, report.imported)
    assert (await fr.store.run_text("t", count, group_id, g=group_id))[0]["n"] == 4

    before_friday = datetime(2026, 3, 2, tzinfo=UTC)  # the deadline expires after Friday
    hits = await fr.search("what is my deadline", group_id, now=before_friday)
    assert hits[0].fact == "User's deadline is Friday"
    explanation = await fr.explain(hits[0].uuid, "what is my deadline", now=before_friday)
    assert explanation.source_span == trace.facts[1].source_span
    assert "source m2#1 [" in "\n".join(explanation.render())


async def test_an_unknown_message_shows_nothing(fr: FrGraph, group_id: str) -> None:
    trace = await fr.show_message(group_id, "nope")
    assert (trace.facts, trace.episode_text) == ([], None)


def test_cli_lists_silent_messages_and_what_one_message_produced(
    settings: Settings, group_id: str, tmp_path: Path
) -> None:
    path = write_jsonl(tmp_path / "chat.jsonl", messages(group_id))
    done = fr_graph(settings, "import", str(path), "--verbose")
    assert done.returncode == 0, done.stderr
    assert "line 4: message m4 gave no fact" in done.stderr
    assert "1 user message gave none" in " ".join(done.stdout.split())

    done = fr_graph(settings, "show", "--group", group_id, "--message", "m2")
    assert done.returncode == 0, done.stderr
    assert "message m2 in group" in done.stdout and "2 facts" in done.stdout
    assert 'from: "My deadline is Friday"' in done.stdout
    assert "code pasted, set aside" in done.stdout

    done = fr_graph(settings, "show", "--group", group_id, "--message", "m2", "--json")
    data = json.loads(done.stdout)
    assert [f["sentence"] for f in data["facts"]] == [
        "I'm building the order page for my bakery's Flask app", "My deadline is Friday"]

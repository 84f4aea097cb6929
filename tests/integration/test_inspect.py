"""Explain, show, context and policy show: the library on each real backend, the CLI as a
user runs it, and the pieces that need no store."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fr_graph.api import FrGraph
from fr_graph.config import Settings
from fr_graph.core.codes import MaskReason
from fr_graph.core.context import PREAMBLE
from fr_graph.core.intent import analyze_query
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable, default_policy_source
from fr_graph.core.rerank import FULL, rerank
from fr_graph.errors import ConfigError, InputError, NotFoundError
from fr_graph.pipeline.explain import build_explanation, with_target
from fr_graph.pipeline.memory_view import context_from_hits, group_memory
from fr_graph.pipeline.search import Candidates, ScoredFact, build_batch
from tests.integration.test_user_queries import (
    NOW,
    TEXT,
    cli,
    fr_graph_cli,
    lifecycle_group,
    populated,
    uid,
)

pytestmark = pytest.mark.integration

WHEN = datetime(2025, 6, 1, tzinfo=UTC)
POLICY_TOML = """
expiry_buffer_days = 10

[groups."user-42"]
routing_strength = 0.5

[groups."user-42".categories.hobbies]
lambda_per_hour = 0.002
"""


# -- explain -----------------------------------------------------------------------------


async def test_explain_matches_search_for_a_ranked_fact(fr: FrGraph, tmp_path: Path) -> None:
    group = await lifecycle_group(fr, tmp_path)
    query = "what do I eat these days"
    hits = await fr.search(query, group, now=WHEN, limit=50)
    position = next(i for i, h in enumerate(hits) if h.uuid == uid(group, "p-2"))
    report = await fr.explain(uid(group, "p-2"), query, group_id=group, now=WHEN, limit=50)
    assert report.rank == position + 1
    assert report.score == pytest.approx(hits[position].score, rel=1e-9)
    assert report.verdict == "ranked" and report.mask_reason is None
    assert report.retrieval in ("retrieved", "category-forced")
    assert {"cosine", "relevance", "decay", "activation", "blend", "base", "score"} \
        <= set(report.terms)
    for name, value in hits[position].terms.items():
        assert report.terms[name] == pytest.approx(value, rel=1e-9, abs=1e-12), name
    assert report.fact == TEXT["p-2"] and report.state == "active"
    assert any("supersedes" in note and uid(group, "p-1") in note for note in report.notes)
    text = "\n".join(report.render())
    assert f"rank {report.rank} of" in text and "decay S" in text


async def test_explain_a_superseded_fact_names_the_newer_one(fr: FrGraph,
                                                             tmp_path: Path) -> None:
    group = await lifecycle_group(fr, tmp_path)
    report = await fr.explain(uid(group, "p-1"), "what do I eat these days", now=WHEN)
    assert report.group_id == group  # found without --group
    assert report.rank is None and report.score is None
    assert report.mask_reason == MaskReason.STATE_SUPERSEDED.label
    assert report.verdict == "masked"
    [link] = report.links
    assert (link.direction, link.uuid, link.kind, link.fact) == (
        "superseded_by", uid(group, "p-2"), "supersede", TEXT["p-2"])
    assert link.at == "2025-05-01T10:00:00Z" and link.confidence == pytest.approx(0.95)
    assert any(note.startswith(f"superseded by {uid(group, 'p-2')}") for note in report.notes)
    assert [m.uuid for m in report.later_in_slot] == [uid(group, "p-2")]
    data = report.to_json()
    json.dumps(data, allow_nan=False)  # masked scores (-inf) become null
    assert data["score"] is None and data["terms"]["score"] is None
    assert data["links"][0]["reason"] == "diet changed"


async def test_explain_retracted_and_date_expired_facts(fr: FrGraph, tmp_path: Path) -> None:
    group = await lifecycle_group(fr, tmp_path)
    retracted = await fr.explain(uid(group, "r-1"), "my trip to Lisbon", group_id=group,
                                 now=WHEN)
    assert retracted.mask_reason == MaskReason.STATE_RETRACTED.label
    assert any(note.startswith(f"retracted by {uid(group, 'r-2')}")
               and TEXT["r-2"] in note for note in retracted.notes)

    expired = await fr.explain(uid(group, "o-3"), "dentist checkup", group_id=group, now=WHEN)
    assert expired.state == "active"
    assert expired.mask_reason == MaskReason.DATE_EXPIRED.label
    assert any("expired by date" in note and "10-day" not in note for note in expired.notes)


async def test_explain_errors(fr: FrGraph, tmp_path: Path) -> None:
    group = await lifecycle_group(fr, tmp_path)
    with pytest.raises(NotFoundError, match="not found in any group"):
        await fr.explain("00000000-0000-0000-0000-000000000000", "x", now=WHEN)
    with pytest.raises(NotFoundError):
        await fr.explain("00000000-0000-0000-0000-000000000000", "x", group_id=group)
    with pytest.raises(InputError, match="policy off"):
        await fr.explain(uid(group, "p-1"), "x", group_id=group, policy="off")
    with pytest.raises(InputError, match="QUERY"):
        await fr.explain(uid(group, "p-1"), "  ", group_id=group)


# -- show --------------------------------------------------------------------------------


async def test_show_lists_memory_by_category_and_state(fr: FrGraph, tmp_path: Path) -> None:
    group = await lifecycle_group(fr, tmp_path)
    items = await fr.show(group)
    assert len(items) == len(TEXT)
    grouped = group_memory(items)
    order = list(Category)
    assert [Category(c) for c in grouped] == sorted((Category(c) for c in grouped),
                                                    key=order.index)
    assert {state: [i.source_id for i in members]
            for state, members in grouped["preferences"].items()} == {
        "active": ["p-2"], "superseded": ["p-1"]}
    assert [i.source_id for i in grouped["obligations"]["active"]] == ["o-1", "o-2", "o-3"]
    assert [i.source_id for i in await fr.show(group, state="retracted")] == ["r-1"]
    assert [i.source_id for i in await fr.show(group, category="identity")] == ["s-2", "s-1"]
    assert items[0].to_json()["uuid"] == items[0].uuid
    with pytest.raises(InputError, match="--state"):
        await fr.show(group, state="forgotten")
    with pytest.raises(InputError, match="--category"):
        await fr.show(group, category="astrology")
    assert await fr.show("no-such-group-here") == []


# -- context -----------------------------------------------------------------------------


async def test_context_groups_current_facts_by_category(fr: FrGraph, tmp_path: Path) -> None:
    group = await lifecycle_group(fr, tmp_path)
    text = await fr.context("what do I eat, and what is coming up?", group, now=WHEN)
    lines = text.splitlines()
    assert lines[0] == f"{PREAMBLE}:"
    assert "PREFERENCES (apply when relevant):" in lines
    assert f"  - {TEXT['p-2']}" in lines
    assert TEXT["p-1"] not in text  # superseded: masked for a current question
    headers = [ln for ln in lines if not ln.startswith("  ")]
    assert all(h.endswith(":") for h in headers)
    dentist = next(ln for ln in lines if TEXT["o-1"] in ln)
    assert "(on 2025-06-03 15:00" in dentist and "in 3 days" in dentist

    history = await fr.context("what did I use to eat before?", group, now=WHEN)
    assert f"{TEXT['p-1']} [no longer current: superseded]" in history
    assert await fr.context("anything", "no-such-group-here", now=WHEN) == ""
    untyped = await fr.context("what do I eat", group, now=WHEN, policy="untyped", limit=3)
    assert len([ln for ln in untyped.splitlines() if ln.startswith("  - ")]) <= 3


# -- the CLI -----------------------------------------------------------------------------


def test_cli_inspection_commands(settings: Settings, tmp_path: Path) -> None:
    group = populated(settings, tmp_path)
    done = fr_graph_cli(settings, "explain", uid(group, "p-1"), "--query", "what do I eat",
                        "--now", NOW)
    assert done.returncode == 0, done.stderr
    assert "verdict: masked: superseded" in done.stdout
    assert f"superseded by {uid(group, 'p-2')}" in done.stdout

    result = cli(settings, "context", "what do I eat", "--group", group, "--now", NOW)
    assert result.exit_code == 0, result.stderr
    assert "PREFERENCES (apply when relevant):" in result.stdout
    assert TEXT["p-2"] in result.stdout

    result = cli(settings, "explain", uid(group, "p-2"), "--query", "what do I eat",
                 "--now", NOW, "--group", group, "--policy", "untyped", "--json")
    assert result.exit_code == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    assert (data["arm"], data["verdict"]) == ("untyped", "ranked")

    result = cli(settings, "show", "--group", group, "--json")
    assert result.exit_code == 0, result.stderr
    assert len(json.loads(result.stdout)) == len(TEXT)
    result = cli(settings, "show", "--group", group, "--state", "retracted")
    assert result.exit_code == 0, result.stderr
    assert "logistical (1)" in result.stdout and uid(group, "r-1") in result.stdout

    for policy, terms in (("untyped", {"cosine", "semantic", "fulltext", "relevance",
                                       "score"}),
                          ("off", {"graphiti_rrf"})):
        # Every CLI call reopens the store: on embedded FalkorDB, Graphiti's own search
        # ("off") needs the fact-index mend and the fulltext group-filter fix.
        result = cli(settings, "search", "User is vegetarian", "--group", group, "--now",
                     NOW, "--policy", policy, "--limit", "3", "--json")
        assert result.exit_code == 0, (policy, result.stderr)
        results = json.loads(result.stdout)
        assert len(results) == 3, policy
        assert all(set(r["terms"]) == terms for r in results), policy


def test_cli_inspection_errors(settings: Settings, tmp_path: Path) -> None:
    group = populated(settings, tmp_path)
    for args in (["explain", "00000000-0000-0000-0000-000000000000", "--query", "x"],
                 ["explain", uid(group, "p-1"), "--query", "x", "--now", "someday"],
                 ["show", "--group", group, "--state", "forgotten"],
                 ["context", "x", "--group", "bad group"]):
        result = cli(settings, *args)
        assert result.exit_code == 1, (args, result.stdout, result.stderr)
        assert result.exception is None or isinstance(result.exception, SystemExit), args
        assert len([ln for ln in result.stderr.splitlines() if ln.startswith("error:")]) == 1
    result = cli(settings, "search", "x", "--group", group, "--policy", "fancy")
    assert result.exit_code == 2


# -- policy show (no store) --------------------------------------------------------------


def test_policy_view_applies_group_overrides(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text(POLICY_TOML, encoding="utf-8")
    fr = FrGraph(Settings(policy_file=path))
    view = fr.policy_view("user-42")
    assert view.overrides == {"routing_strength": 0.5,
                              "categories.hobbies.lambda_per_hour": 0.002}
    assert view.table.categories[Category.HOBBIES].lambda_per_hour == 0.002
    assert view.table.expiry_buffer_days == 10
    assert fr.policy_table("someone-else").categories[Category.HOBBIES].lambda_per_hour \
        == pytest.approx(0.0035)
    assert fr.policy_view().groups == ["user-42"]
    # Where each value came from: the file changes one deployment value; the rest are the
    # packaged defaults (group overrides are listed apart).
    assert view.changed == {"expiry_buffer_days": 10.0}
    assert view.defaults == default_policy_source()
    text = "\n".join(view.render())
    assert "overrides applied: routing_strength = 0.5" in text
    assert "changed from the defaults: expiry_buffer_days = 10.0" in text
    assert json.loads(json.dumps(view.to_json()))["policy"]["expiry_buffer_days"] == 10
    with pytest.raises(InputError):
        fr.policy_view("bad group!")
    with pytest.raises(ConfigError):
        FrGraph(Settings(policy_file=tmp_path / "missing.toml"))


def test_cli_policy_show(tmp_path: Path) -> None:
    done = fr_graph_cli(None, "policy", "show", env={"FR_GRAPH_POLICY": ""})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "policy: defaults"
    assert lines[1] == f"defaults: {default_policy_source()}"
    assert not any(ln.startswith("changed from the defaults") for ln in lines)
    assert lines[lines.index("") + 1].split()[:3] == ["#", "category", "lambda/h"]
    hobbies = next(ln for ln in lines if "Hobbies & Recreation" in ln)
    assert "0.0035" in hobbies

    path = tmp_path / "policy.toml"
    path.write_text(POLICY_TOML, encoding="utf-8")
    result = cli(None, "policy", "show", "--group", "user-42",
                 env={"FR_GRAPH_POLICY": str(path)})
    assert result.exit_code == 0, result.stderr
    assert f"policy: {path}" in result.stdout
    assert "categories.hobbies.lambda_per_hour = 0.002" in result.stdout
    hobbies = next(ln for ln in result.stdout.splitlines() if "Hobbies & Recreation" in ln)
    assert "0.0020" in hobbies and "date+10d" in result.stdout

    result = cli(None, "policy", "show", "--json", env={"FR_GRAPH_POLICY": str(path)})
    assert json.loads(result.stdout)["groups"] == ["user-42"]

    path.write_text("[categories.hobbies]\nlambda_per_hour = -1\n", encoding="utf-8")
    result = cli(None, "policy", "show", env={"FR_GRAPH_POLICY": str(path)})
    assert result.exit_code == 1
    assert result.stderr.startswith("error: invalid policy")


# -- pure pieces -------------------------------------------------------------------------


def _row(uuid: str, *, category: str, slot: str | None, observed: str, state: str = "active",
         cosine: float = 0.5) -> dict[str, Any]:
    return {"uuid": uuid, "fact": f"fact {uuid}", "semantic": cosine,
            "overlay": {"category": category, "categories": [category],
                        "category_weights": [1.0], "state": state, "slot_key": slot,
                        "observed_at": observed, "confidence": 0.9}}


def test_with_target_leaves_the_retrieved_rows_unchanged() -> None:
    rows = [_row(f"u{i}", category="hobbies", slot=None, observed="2025-05-01T00:00:00Z",
                 cosine=c) for i, c in enumerate((0.9, 0.8, 0.7))]
    base = Candidates(rows, np.array([0.9, 0.8, 0.7]), np.zeros(3), np.zeros(3, dtype=bool))
    target = _row("t", category="hobbies", slot=None, observed="2025-05-01T00:00:00Z",
                  cosine=0.5)
    extended = with_target(base, target)
    assert np.allclose(extended.semantic[:3], base.semantic)
    assert extended.semantic[3] == 0.0  # below the retrieved range: clipped
    assert len(extended.rows) == 4 and not extended.forced[3]
    policy = PolicyTable.default()
    analysis = analyze_query("what are my hobbies", WHEN)
    ranked = rerank(build_batch(extended), analysis, policy, WHEN.timestamp())
    alone = rerank(build_batch(base), analysis, policy, WHEN.timestamp())
    assert np.allclose(ranked.scores[:3], alone.scores)
    report = build_explanation(uuid="t", group_id="g", query="what are my hobbies", now=WHEN,
                               policy_name="full", policy=policy, candidates=extended,
                               ranked=ranked, row=3, links=[], limit=10)
    assert report.retrieval == "not retrieved" and report.rank == 4
    assert report.notes[0].startswith("not retrieved for this query")


def test_explanation_of_a_shadowed_fact_names_the_later_one() -> None:
    rows = [_row("old", category="preferences", slot="user|diet",
                 observed="2025-01-01T00:00:00Z", cosine=0.9),
            _row("new", category="preferences", slot="user|diet",
                 observed="2025-05-01T00:00:00Z", cosine=0.8)]
    candidates = Candidates(rows, np.array([0.9, 0.8]), np.zeros(2), np.zeros(2, dtype=bool))
    policy = PolicyTable.default()
    ranked = rerank(build_batch(candidates), analyze_query("what do I eat", WHEN), policy,
                    WHEN.timestamp(), FULL.without("soft_supersession"))
    report = build_explanation(uuid="old", group_id="g", query="what do I eat", now=WHEN,
                               policy_name="full", policy=policy, candidates=candidates,
                               ranked=ranked, row=0, links=[], limit=10)
    assert report.mask_reason == MaskReason.SLOT_SHADOWED.label
    assert any(note.startswith("shadowed by a later fact in slot user|diet: new")
               for note in report.notes)
    assert [m.uuid for m in report.later_in_slot] == ["new"]


def test_context_from_hits_uses_the_category_sections() -> None:
    def hit(fact: str, category: str, state: str = "active") -> ScoredFact:
        return ScoredFact(uuid=fact, fact=fact, score=1.0, category=category,
                          categories={category: 1.0}, state=state, slot_key=None,
                          valid_at=None, observed_at=None, event_time=None, source_id=None)

    text = context_from_hits([hit("Prefers concise responses", "preferences"),
                              hit("User has ADHD", "identity"),
                              hit("Old plan", "logistical", "retracted")])
    assert text.splitlines()[1:] == [
        "CORE IDENTITY (always relevant):", "  - User has ADHD",
        "CURRENT CONTEXT (time-sensitive):",
        "  - Old plan [retracted: the user took this back]",
        "PREFERENCES (apply when relevant):", "  - Prefers concise responses"]

"""Fresh wordings (issue 13): a held-out LifecycleBench split whose storyline text was
written after the rules froze. The packaged file checks, a suite generated in it takes every
frame, question and given clause from it, and a broken file fails in one line."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fr_graph.bench import phrases as ph
from fr_graph.bench.generator import generate, validate
from fr_graph.cli import app
from fr_graph.errors import ConfigError

WORDING = "heldout-2026-12"


def _minimal(frames: dict[str, list[str]] | None = None) -> str:
    """A valid wording file: every key with one template built from its standard ones."""
    tables = ph.load_tables()
    lines = ["[frames]"]
    for kind, templates in (frames or {k: [f"so, {v[0]}"] for k, v in tables.frames.items()}
                            ).items():
        lines.append(f"{kind} = {json.dumps(templates)}")
    lines.append("[questions]")
    for key, templates in ph.question_keys(tables).items():
        lines.append(f"{key} = {json.dumps(['quick one: ' + templates[0]])}")
    lines += ["[clauses]", 'diet = ["these days I eat {v}"]']
    return "\n".join(lines)


def test_the_packaged_wording_covers_every_key_and_differs_from_the_standard_text() -> None:
    wording = ph.load_wording(WORDING)
    tables = ph.load_tables()
    assert set(wording.frames) == set(tables.frames)
    assert set(wording.questions) == set(ph.question_keys(tables))
    standard = {t.lower() for v in tables.frames.values() for t in v}
    assert not any(t.lower() in standard for v in wording.frames.values() for t in v)


def test_a_suite_in_a_fresh_wording_takes_all_its_storyline_text_from_it() -> None:
    wording = ph.parse_wording("t", _minimal(), "test.toml")
    suite = generate(3, "quick", wording)
    assert validate(suite) == []
    assert suite.wording == "t"
    assert suite.questions and all(q.family.startswith("t:q.") and q.split == "heldout"
                                   for q in suite.questions)
    storyline = [f for p in suite.personas for f in p.facts
                 if not f.family.startswith(("talk.", "world.", "episode.", "people."))]
    assert storyline and all(f.family.startswith("t:") for f in storyline)
    assert any(q.text.lower().lstrip().startswith("quick one") for q in suite.questions)
    # The standard suite is untouched by the option.
    assert generate(3, "quick").questions == generate(3, "quick", None).questions


@pytest.mark.parametrize(("frames", "problem"), [
    ({"assert": ["{c} and {what}"]}, "frames.assert: '{c} and {what}' uses {what}"),
    ({"change": ["now it's {new}"]}, "frames.change: \"now it's {new}\" lacks {old}"),
    ({"assert": ["no placeholder here"]}, "'no placeholder here' lacks {c}"),
    ({"assert": ["{c"]}, "frames.assert: '{c'"),
    ({"assert": ["oh btw, {c_} {}"]}, "{} is not a plain {name}"),
    ({"assert": ["{c_:{x}}"]}, "{c_:{x}} is not a plain {name}"),
    ({"assert": ["{c!r}"]}, "{c!r} is not a plain {name}"),
])
def test_a_broken_wording_fails_in_one_line_naming_the_key(
        frames: dict[str, list[str]], problem: str) -> None:
    tables = ph.load_tables()
    complete = {k: [f"so, {v[0]}"] for k, v in tables.frames.items()} | frames
    with pytest.raises(ConfigError) as caught:
        ph.parse_wording("t", _minimal(complete), "test.toml")
    message = str(caught.value)
    assert message.startswith("test.toml: ") and problem in message and "\n" not in message


def test_missing_and_unknown_keys_are_named() -> None:
    text = _minimal()
    without_assert = "\n".join(line for line in text.splitlines()
                               if not line.startswith("assert = "))
    with pytest.raises(ConfigError, match=r"frames\.assert: missing key"):
        ph.parse_wording("t", without_assert, "w.toml")
    with pytest.raises(ConfigError, match=r"frames\.assertion: unknown key"):
        ph.parse_wording("t", text.replace("assert = ", "assertion = "), "w.toml")
    bare_plan = "\n".join('plan = ["is it still on?"]' if line.startswith("plan = [\"quick")
                          else line for line in text.splitlines())
    with pytest.raises(ConfigError, match=r"questions\.plan: .* uses no placeholder"):
        ph.parse_wording("t", bare_plan, "w.toml")
    with pytest.raises(ConfigError, match=r"clauses\.nope: unknown key"):
        ph.parse_wording("t", text + '\nnope = ["{v}"]', "w.toml")
    with pytest.raises(ConfigError, match=r"wording .nope.: use one of"):
        ph.load_wording("nope")


def test_the_cli_rejects_an_unknown_wording_before_opening_a_store() -> None:
    result = CliRunner().invoke(app, ["bench", "lifecycle", "--wording", "nope"])
    assert result.exit_code != 0
    assert "wording 'nope'" in result.output and WORDING in result.output


def test_a_fresh_wording_report_names_it_and_prints_no_dev_figure() -> None:
    from fr_graph.bench.report import SYSTEMS, _markdown, build_report
    from fr_graph.bench.robustness import GRID
    from fr_graph.bench.runner import RobustnessRun

    suite = generate(3, "quick", ph.load_wording(WORDING))
    rankings = {q.id: {spec.key: [] for spec in SYSTEMS} for q in suite.questions}
    robust = RobustnessRun([], {c.name: {} for c in GRID}, {c.name: 0 for c in GRID})
    data = build_report(suite, rankings, robust, {}, backend="embedded")
    assert data["wording"] == WORDING
    assert data["suite"]["questions_by_split"] == {"dev": 0, "heldout": len(suite.questions)}
    markdown = _markdown(data)
    assert f"Fresh wording `{WORDING}`" in markdown
    assert "| `full` | — | 0.0 |" in markdown

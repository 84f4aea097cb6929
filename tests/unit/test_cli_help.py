"""Every CLI command has help text, every option says what it does, and the README's CLI
section lists every command."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from fr_graph.cli import app

README = Path(__file__).resolve().parents[2] / "README.md"


def _commands(group: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    for name, command in sorted(group.commands.items()):
        yield (*path, name), command
        if hasattr(command, "commands"):
            yield from _commands(command, (*path, name))


ROOT = typer.main.get_command(app)
COMMANDS = dict(_commands(ROOT))


def _cli_section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("## CLI")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def test_the_expected_commands_exist() -> None:
    assert {" ".join(path) for path in COMMANDS} >= {
        "import", "search", "context", "explain", "show", "query", "policy", "policy show",
        "sync", "stats", "demo"}


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_every_command_and_option_has_help(path: tuple[str, ...]) -> None:
    command = COMMANDS[path]
    assert (command.help or "").strip(), f"{' '.join(path)} has no docstring/help"
    for param in command.params:
        if param.name == "help":
            continue
        assert (getattr(param, "help", None) or "").strip(), \
            f"{' '.join(path)}: {param.name} has no help text"


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_help_runs(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(app, [*path, "--help"])
    assert result.exit_code == 0, result.output
    first_line = (COMMANDS[path].help or "").strip().splitlines()[0]
    assert first_line.split()[0] in result.output


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_every_command_is_in_the_readme(path: tuple[str, ...]) -> None:
    usage = re.compile(r"^fr-graph (?:\[--db[^\]]*\] )?" + re.escape(" ".join(path)) + r"\b",
                       re.M)
    assert usage.search(_cli_section()), f"README's CLI section lacks 'fr-graph {' '.join(path)}'"


def test_every_option_of_a_documented_command_is_in_the_readme() -> None:
    section = _cli_section()
    for path, command in COMMANDS.items():
        if hasattr(command, "commands"):
            continue
        for param in command.params:
            for option in getattr(param, "opts", []):
                if option.startswith("--") and option != "--help":
                    assert option in section, f"{' '.join(path)} {option} not in README"

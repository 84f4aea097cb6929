"""``fr-graph --verbose`` shows fr-graph's and Graphiti's log messages on stderr; without it
the CLI stays quiet."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from fr_graph.cli import app


def stats(db: Path, *options: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "FR_GRAPH_DB"}
    return subprocess.run([sys.executable, "-m", "fr_graph.cli", *options, "--db", str(db),
                           "stats"], env=env, capture_output=True, text=True, timeout=120,
                          check=True)


def test_help_lists_verbose() -> None:
    done = CliRunner().invoke(app, ["--help"])
    assert done.exit_code == 0
    assert "--verbose" in done.output


def test_verbose_logs_to_stderr_and_the_default_does_not(tmp_path: Path) -> None:
    stats(tmp_path)  # creates the store; reopening it makes Graphiti log its existing indexes
    assert stats(tmp_path).stderr == ""
    logged = stats(tmp_path, "--verbose").stderr.splitlines()
    assert logged and all(line.startswith("INFO graphiti_core.") for line in logged)

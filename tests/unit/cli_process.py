"""Run the ``fr-graph`` CLI in a fresh interpreter with one module made unimportable (how a
user without an optional extra runs it)."""

from __future__ import annotations

import subprocess
import sys


def run_cli_without(module: str, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """``fr-graph *argv`` in a child process where ``import module`` fails (``None`` in
    ``sys.modules`` blocks the import in that process only)."""
    script = ("import sys\n"
              f"sys.modules[{module!r}] = None\n"
              f"sys.argv = ['fr-graph', *{argv!r}]\n"
              "from fr_graph.cli import main\n"
              "main()\n")
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)

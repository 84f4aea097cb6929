"""The library never imports its benchmark, and the CLI package has no import cycle.

``fr_graph.bench`` (the LifecycleBench generator and its phrase tables, plus the ``bench``
extra: scipy, matplotlib) is loaded only by ``fr-graph bench``; a user who imports the
library, the CLI or the MCP server loads none of it. Without the extra, ``fr-graph bench``
says which extra to install in one line.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import fr_graph
from tests.unit.cli_process import run_cli_without

PACKAGE = Path(fr_graph.__file__).parent
BENCH_ENTRY = PACKAGE / "cli" / "bench.py"


def _imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_only_the_bench_command_imports_the_benchmark() -> None:
    importers = sorted(
        str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
        if "bench" not in path.relative_to(PACKAGE).parts[:1]
        and any(name == "fr_graph.bench" or name.startswith("fr_graph.bench.")
                for name in _imported_modules(path)))
    assert importers == [str(BENCH_ENTRY.relative_to(PACKAGE))]


def test_importing_the_library_cli_and_mcp_server_loads_no_benchmark_code() -> None:
    probe = ("import json, sys\n"
             "import fr_graph, fr_graph.api, fr_graph.cli, fr_graph.mcp_server\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith('fr_graph.bench')\n"
             "                       or m.split('.')[0] in ('scipy', 'matplotlib', 'sklearn'))))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, check=True)
    assert json.loads(done.stdout) == []


def test_cli_command_modules_share_only_the_common_module() -> None:
    for path in (PACKAGE / "cli").glob("*.py"):
        if path.name in ("__init__.py", "__main__.py"):
            continue
        own = {name for name in _imported_modules(path)
               if name == "fr_graph.cli" or name.startswith("fr_graph.cli.")}
        assert own <= {"fr_graph.cli.common"}, f"{path.name} imports {sorted(own)}"


def test_bench_without_its_extra_names_the_extra_in_one_line(tmp_path: Path) -> None:
    done = run_cli_without("scipy", ["bench", "lifecycle", "--out", str(tmp_path)])
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "error: fr-graph bench needs the 'bench' extra (scipy not installed): "
        "pip install 'fr-graph[bench]'"]
    assert list(tmp_path.iterdir()) == []

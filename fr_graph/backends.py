"""The graph stores fr-graph can run on, by name: which ``--db`` selects each, and which
:class:`~fr_graph.stores.base.GraphStore` opens it.

A store class is named by its import path and loaded on first use, so a backend's driver
package loads only when that backend is used, and this module (read by the settings)
imports no store.

Adding a backend:

1. Write ``fr_graph/stores/<name>.py``: a ``GraphStore`` subclass with a ``driver_class``
   (the Graphiti driver it wraps, for ``FrGraph.attach``) and a classmethod that opens it
   from ``Settings``; give its Cypher dialect differences as the base class's overridable
   methods and, where a query differs, a ``cypher/<dialect>/`` file.
2. Register it in :data:`BACKENDS` below: its name, the ``--db`` prefixes that select it,
   and ``"module:Class.opener"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from fr_graph.errors import ConfigError


@dataclass(frozen=True, slots=True)
class Backend:
    """One backend: ``--db`` values starting with one of ``prefixes`` select it (no
    prefixes: a filesystem path); ``opener`` is ``"module:Class.classmethod"``."""

    name: str
    prefixes: tuple[str, ...]
    opener: str

    @property
    def store_path(self) -> tuple[str, str, str]:
        """(module, class name, opener classmethod name)."""
        module, _, rest = self.opener.partition(":")
        cls, _, method = rest.partition(".")
        return module, cls, method


BACKENDS: Final = (
    Backend("neo4j", ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://",
                      "neo4j+ssc://"), "fr_graph.stores.neo4j:Neo4jStore.connect"),
    Backend("falkordb", ("falkordb://",), "fr_graph.stores.falkordb:FalkorStore.connect_server"),
    Backend("embedded", (), "fr_graph.stores.falkordb:FalkorStore.open_embedded"),
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

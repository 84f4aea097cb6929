"""fr-graph: lifecycle policy for Graphiti knowledge graphs.

The heavy parts (graphiti-core, drivers, the embedder) load on first use of
:class:`FrGraph`, so ``import fr_graph.core`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fr_graph.config import Settings
from fr_graph.errors import (
    ConfigError,
    FrGraphError,
    ImportValidationError,
    InputError,
    NotFoundError,
    QueryNotFoundError,
    StoreError,
)

if TYPE_CHECKING:
    from fr_graph.api import BatchQuery, FrGraph, FrGraphSync
    from fr_graph.pipeline.search import ScoredFact

__version__ = "0.1.0"

__all__ = [
    "BatchQuery",
    "ConfigError",
    "FrGraph",
    "FrGraphError",
    "FrGraphSync",
    "ImportValidationError",
    "InputError",
    "NotFoundError",
    "QueryNotFoundError",
    "ScoredFact",
    "Settings",
    "StoreError",
]

_LAZY = {"FrGraph": "fr_graph.api", "FrGraphSync": "fr_graph.api",
         "BatchQuery": "fr_graph.api", "ScoredFact": "fr_graph.pipeline.search"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'fr_graph' has no attribute {name!r}")

"""I/O adapters: one class per backend behind the narrow :class:`GraphStore` interface."""

from fr_graph.stores.base import GraphStore, open_store

__all__ = ["GraphStore", "open_store"]

"""I/O adapters: one class per backend behind the narrow :class:`GraphStore` interface
(``fr_graph.backends`` lists them and says how to add one)."""

from fr_graph.stores.base import GraphStore, open_store

__all__ = ["GraphStore", "open_store"]

"""The backend registry: every ``--db`` form selects the right backend, and every registered
store resolves to a ``GraphStore`` with its opener and the Graphiti driver it wraps."""

from __future__ import annotations

import importlib
import inspect
import typing

import pytest

from fr_graph.backends import BACKENDS, Backend, backend_for
from fr_graph.config import Settings
from fr_graph.errors import ConfigError
from fr_graph.stores.base import GraphStore, Tracer


@pytest.mark.parametrize(("db", "name"), [
    (None, "embedded"), ("", "embedded"), ("/tmp/mem", "embedded"), ("./store.db", "embedded"),
    ("bolt://localhost:7687", "neo4j"), ("neo4j+s://db.example:7687", "neo4j"),
    ("falkordb://localhost:6379", "falkordb"),
])
def test_each_db_form_selects_its_backend(db: str | None, name: str) -> None:
    assert backend_for(db).name == name


def test_an_unknown_scheme_is_one_clear_error() -> None:
    with pytest.raises(ConfigError, match=r"unsupported scheme in 'redis://x' \(use bolt://, "
                                          r"neo4j://, falkordb:// or a filesystem path\)"):
        backend_for("redis://x")


@pytest.mark.parametrize("backend", BACKENDS, ids=[b.name for b in BACKENDS])
def test_every_registered_store_resolves(backend: Backend) -> None:
    store_class = getattr(importlib.import_module(backend.module), backend.store_class)
    assert issubclass(store_class, GraphStore)
    assert isinstance(store_class.driver_class, type)
    # open_store calls it as opener(settings, tracer): a classmethod of that shape.
    opener = getattr(store_class, backend.opener)
    assert inspect.ismethod(opener) and opener.__self__ is store_class
    parameters = list(inspect.signature(opener).parameters.values())
    assert [p.name for p in parameters] == ["settings", "tracer"]
    assert parameters[1].default is None
    hints = typing.get_type_hints(opener)
    assert hints["settings"] is Settings and hints["tracer"] == Tracer | None
    assert issubclass(hints["return"], GraphStore)


def test_names_are_unique_and_exactly_one_backend_takes_paths() -> None:
    assert len({b.name for b in BACKENDS}) == len(BACKENDS)
    assert sum(not b.prefixes for b in BACKENDS) == 1

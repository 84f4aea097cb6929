"""The backend registry: every ``--db`` form selects the right backend, and every registered
store resolves to a ``GraphStore`` with its opener and the Graphiti driver it wraps."""

from __future__ import annotations

import importlib
import inspect
import typing
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fr_graph.backends import BACKEND_NAMES, BACKENDS, Backend, backend_for, backend_table
from fr_graph.cli import app
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


def test_the_readme_lists_every_backend_as_the_registry_does() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    assert backend_table() in readme


def test_the_db_help_and_bench_choices_come_from_the_registry() -> None:
    runner = CliRunner()
    top = runner.invoke(app, ["--help"], terminal_width=400)
    flat_help = " ".join(top.output.replace("│", " ").split())
    for backend in BACKENDS:
        assert " ".join(backend.db_help.split()) in flat_help
    bench = runner.invoke(app, ["bench", "lifecycle", "--help"], terminal_width=400)
    assert "[neo4j|falkordb|embedded]" in bench.output
    assert BACKEND_NAMES == ("neo4j", "falkordb", "embedded")


def test_a_server_backend_without_a_uri_is_one_line_naming_its_scheme() -> None:
    result = CliRunner().invoke(app, ["bench", "lifecycle", "--backend", "FalkorDB"])
    assert result.exit_code == 1
    assert result.stderr.strip() == ("error: --backend falkordb: give --db falkordb://… "
                                     "(or FR_GRAPH_DB)")


def test_an_unregistered_bench_backend_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["bench", "lifecycle", "--backend", "sqlite"],
                                terminal_width=400)
    assert result.exit_code == 2
    flat = " ".join(result.output.replace("│", " ").split())
    assert "'sqlite' is not one of neo4j, falkordb, embedded" in flat

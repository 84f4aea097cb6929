"""Which branch starts the tests' Neo4j (tests/neo4j_target.py), without starting any."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from tests import neo4j_target
from tests.neo4j_target import Neo4jTarget, neo4j_for_tests, pick_source


def never() -> bool:
    raise AssertionError("not asked")


def test_neo4j_uri_wins_over_everything() -> None:
    assert pick_source({"NEO4J_URI": "bolt://db:7687"}, has_testcontainers=never,
                       engine_answers=never) == "env"


def test_docker_needs_both_the_package_and_an_engine_that_answers() -> None:
    assert pick_source({}, has_testcontainers=lambda: True, engine_answers=lambda: True) \
        == "docker"
    assert pick_source({}, has_testcontainers=lambda: True, engine_answers=lambda: False) \
        == "launcher"
    # Without the package the engine is not even asked.
    assert pick_source({"NEO4J_URI": ""}, has_testcontainers=lambda: False,
                       engine_answers=never) == "launcher"


def test_an_engine_check_that_raises_counts_as_no_engine(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """testcontainers installed, no engine: the client fails, the check says False."""
    def no_engine(**_: object) -> object:
        raise ConnectionError("no Docker engine")

    client = types.ModuleType("testcontainers.core.docker_client")
    client.DockerClient = no_engine  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "testcontainers.core.docker_client", client)
    assert neo4j_target.docker_engine_answers() is False
    assert pick_source({}, has_testcontainers=lambda: True) == "launcher"


def test_missing_testcontainers_is_not_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # None in sys.modules: importing the name raises ImportError (also when it was imported).
    for name in ("testcontainers", "testcontainers.community", "testcontainers.community.neo4j",
                 "testcontainers.core", "testcontainers.core.docker_client"):
        monkeypatch.setitem(sys.modules, name, None)
    assert neo4j_target.testcontainers_installed() is False
    assert neo4j_target.docker_engine_answers() is False


def test_the_env_branch_reads_uri_and_credentials_from_the_environment() -> None:
    environ = {"NEO4J_URI": "bolt://db:7687", "NEO4J_USER": "u", "NEO4J_PASSWORD": "p"}
    with neo4j_for_tests(lambda: Path("/nonexistent"), environ=environ) as target:
        assert target == Neo4jTarget("bolt://db:7687", "u", "p", "env")
    settings = target.settings(embedding_dim=8)
    assert (settings.db, settings.neo4j_user, settings.neo4j_password) == \
        ("bolt://db:7687", "u", "p")
    assert settings.embedding_dim == 8
    assert target.env() == {"FR_GRAPH_DB": "bolt://db:7687", "NEO4J_USER": "u",
                            "NEO4J_PASSWORD": "p"}


def test_the_docker_branch_reads_uri_and_credentials_from_the_container(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in for testcontainers' Neo4jContainer (same attributes and methods)."""
    made: list[dict[str, object]] = []

    class FakeContainer:
        def __init__(self, image: str, *, username: str, password: str) -> None:
            made.append({"image": image, "username": username, "password": password})
            self.username, self.password = username, password

        def __enter__(self) -> FakeContainer:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def get_connection_url(self) -> str:
            return "bolt://localhost:32768"

    module = types.ModuleType("testcontainers.community.neo4j")
    module.Neo4jContainer = FakeContainer  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "testcontainers.community.neo4j", module)
    with neo4j_for_tests(lambda: Path("/nonexistent"), source="docker", environ={}) as target:
        assert target == Neo4jTarget("bolt://localhost:32768", "neo4j", "fr-graph-local",
                                     "docker")
    assert made == [{"image": "neo4j:5.26-community", "username": "neo4j",
                     "password": "fr-graph-local"}]


def test_compose_runs_the_image_and_credentials_of_the_docker_branch() -> None:
    compose = (Path(__file__).resolve().parents[2] / "docker" / "docker-compose.yml").read_text()
    assert f"image: {neo4j_target.DOCKER_IMAGE}\n" in compose
    assert (f"NEO4J_AUTH: {neo4j_target.DOCKER_USER}/{neo4j_target.DOCKER_PASSWORD}\n"
            in compose)

"""Where the tests' Neo4j comes from, and the URI and credentials to reach it.

Selection order (``pick_source``):

1. ``NEO4J_URI`` set: that server, with ``NEO4J_USER`` / ``NEO4J_PASSWORD`` (defaults
   ``neo4j`` / ``test-password``).
2. ``testcontainers`` installed (the ``docker`` extra: ``pip install -e ".[dev,docker]"``) and a
   Docker engine that answers a ping: a throwaway ``neo4j:5.26-community`` container. URI and
   credentials are read from the container object.
3. Otherwise the Maven-launched Neo4j Community 5.26 in ``tools/neo4j-launcher`` (auth off, so
   any credentials work). This is the path CI takes: ``.ci/run`` -> ``tools/test.sh`` runs
   where no Docker engine is available. ``NEO4J_TEST_LINE=2026`` launches the 2026 line
   instead (``tools/test.sh`` reruns Graphiti's compatibility tests on it).

``docker/docker-compose.yml`` uses the same image and the same ``neo4j`` /
``fr-graph-local`` credentials as the Docker branch here.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from fr_graph.config import Settings

Source = Literal["env", "docker", "launcher"]

#: The image of the Docker branch; docker/docker-compose.yml runs the same one.
DOCKER_IMAGE = "neo4j:5.26-community"
#: The credentials the Docker branch gives its container (as docker/docker-compose.yml does).
DOCKER_USER = "neo4j"
DOCKER_PASSWORD = "fr-graph-local"
#: What the tests send to a server without auth (the Maven launcher) or an unnamed password.
DEFAULT_USER = "neo4j"
DEFAULT_PASSWORD = "test-password"
#: Seconds the Docker engine gets to answer the ping before the launcher is used instead.
ENGINE_PING_TIMEOUT = 5


@dataclass(frozen=True)
class Neo4jTarget:
    """A running Neo4j for the tests: where it is, how to log in, and which branch gave it."""

    uri: str
    user: str
    password: str
    source: Source

    def settings(self, **overrides: Any) -> Settings:
        """fr-graph settings for this server (``overrides``: other Settings fields)."""
        return Settings(db=self.uri, neo4j_user=self.user, neo4j_password=self.password,
                        **overrides)

    def env(self) -> dict[str, str]:
        """The ``FR_GRAPH_DB`` / ``NEO4J_USER`` / ``NEO4J_PASSWORD`` a CLI child process needs."""
        return {"FR_GRAPH_DB": self.uri, "NEO4J_USER": self.user,
                "NEO4J_PASSWORD": self.password}

    @property
    def auth(self) -> tuple[str, str]:
        """``(user, password)`` for ``neo4j.GraphDatabase.driver``."""
        return self.user, self.password


def testcontainers_installed() -> bool:
    """True when the ``docker`` extra (testcontainers with its Neo4j module) is installed."""
    try:
        return importlib.util.find_spec("testcontainers.community.neo4j") is not None
    except ImportError:  # the parent package itself is missing
        return False


def docker_engine_answers() -> bool:
    """True when the Docker engine testcontainers would use answers a ping. Never raises."""
    try:
        from testcontainers.core.docker_client import DockerClient

        client = DockerClient(timeout=ENGINE_PING_TIMEOUT).client
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:  # no engine, no socket, no permission, a bad DOCKER_HOST: no Docker
        return False


def pick_source(environ: Mapping[str, str] | None = None, *,
                has_testcontainers: Callable[[], bool] = testcontainers_installed,
                engine_answers: Callable[[], bool] = docker_engine_answers) -> Source:
    """Which branch starts the tests' Neo4j (see the module docstring for the order)."""
    environ = os.environ if environ is None else environ
    if environ.get("NEO4J_URI"):
        return "env"
    if has_testcontainers() and engine_answers():
        return "docker"
    return "launcher"


@contextmanager
def neo4j_for_tests(home: Callable[[], Path], source: Source | None = None,
                    environ: Mapping[str, str] | None = None) -> Iterator[Neo4jTarget]:
    """Start (or find) the tests' Neo4j and stop it on exit. ``home``: a fresh folder for the
    Maven launcher's store, asked for only on that branch."""
    environ = os.environ if environ is None else environ
    source = source or pick_source(environ)
    if source == "env":
        yield Neo4jTarget(environ["NEO4J_URI"], environ.get("NEO4J_USER", DEFAULT_USER),
                          environ.get("NEO4J_PASSWORD", DEFAULT_PASSWORD), "env")
    elif source == "docker":
        from testcontainers.community.neo4j import Neo4jContainer

        # Explicit credentials: the container would otherwise take NEO4J_USER/NEO4J_PASSWORD
        # from the environment, and it always creates the user "neo4j" whatever username says.
        with Neo4jContainer(DOCKER_IMAGE, username=DOCKER_USER,
                            password=DOCKER_PASSWORD) as container:
            yield Neo4jTarget(container.get_connection_url(), container.username,
                              container.password, "docker")
    else:
        from neo4j_server import Neo4jServer  # tools/neo4j_server.py (conftest puts it on sys.path)

        with Neo4jServer(home=home(), line=environ.get("NEO4J_TEST_LINE", "5.26")) as server:
            yield Neo4jTarget(server.uri, DEFAULT_USER, DEFAULT_PASSWORD, "launcher")

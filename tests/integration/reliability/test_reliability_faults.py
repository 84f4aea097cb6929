"""Neo4j stopped in the middle of an import, on a dedicated server this test starts.

While it is down: a one-line StoreUnavailable (library) / ``error:`` line (CLI) after the
configured retries, and no partial chunk. Restarted while a writer is backing off: the
writer recovers by itself, and a rerun converges to the complete, consistent state.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from neo4j_server import Neo4jServer  # tools/neo4j_server.py (on sys.path via conftest)

from fr_graph.api import FrGraph
from fr_graph.config import Settings
from fr_graph.errors import StoreUnavailable
from tests.integration.helpers import write_jsonl
from tests.integration.reliability.state import slot_rows

FACTS = 300  # two import chunks (256 + 44)
SLOTS = 12
START = datetime(2024, 1, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jServer]:
    with Neo4jServer(home=tmp_path_factory.mktemp("neo4j-faults")) as running:
        yield running


def settings_for(uri: str, attempts: int, backoff: float) -> Settings:
    return Settings(db=uri, neo4j_user="neo4j", neo4j_password="test-password",
                    store_attempts=attempts, store_backoff_s=backoff)


def records(group_id: str) -> list[dict[str, Any]]:
    return [{"type": "fact", "group_id": group_id, "id": f"f{i}",
             "fact": f"User's setting {i % SLOTS} is value {i}",
             "observed_at": (START + timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
             "category": "preferences", "slot_key": f"user|setting_{i % SLOTS}",
             "confidence": 0.95} for i in range(FACTS)]


def restart(server: Neo4jServer) -> None:
    port = server.port
    server.stop()
    server._requested_port = port  # the same address, as after an operator restart
    server.start()


async def assert_complete_or_chunk_whole(settings: Settings, group_id: str,
                                         allowed: set[int]) -> int:
    async with FrGraph(settings) as fr:
        rows = await slot_rows(fr.store, group_id)
    assert len(rows) in allowed, len(rows)
    assert all(r["mirrored"] == r["state"] for r in rows)
    active = [r for r in rows if r["state"] == "active"]
    assert len(active) == len({r["slot_key"] for r in rows})  # one current value per slot
    return len(rows)


def test_neo4j_stopped_mid_import_fails_cleanly_and_recovers(
        server: Neo4jServer, tmp_path: Path) -> None:
    group = f"fault-{os.urandom(4).hex()}"
    path = write_jsonl(tmp_path / "facts.jsonl", records(group))
    uri = server.uri
    port = server.port
    assert port is not None

    # 1. The server goes away after the first chunk: a clean, one-line error.
    async def import_until_stopped() -> None:
        chunks = 0

        def after_chunk(_: int) -> None:
            nonlocal chunks
            chunks += 1
            if chunks == 1:
                server.stop()

        async with FrGraph(settings_for(uri, attempts=3, backoff=0.1)) as fr:
            await fr.import_file(path, progress=after_chunk)

    with pytest.raises(StoreUnavailable) as caught:
        asyncio.run(import_until_stopped())
    message = str(caught.value)
    assert len(message.splitlines()) == 1 and "after 3 attempts" in message, message

    # 2. The CLI while it is down: one error line, exit 1, no traceback.
    env = {**os.environ, "FR_GRAPH_DB": uri, "NEO4J_PASSWORD": "test-password",
           "FR_GRAPH_STORE_ATTEMPTS": "2", "FR_GRAPH_STORE_BACKOFF": "0.1"}
    done = subprocess.run([sys.executable, "-m", "fr_graph.cli", "search", "settings",
                           "--group", group], env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "unavailable" in errors[0], done.stderr

    # 3. Nothing half-written: the first chunk whole, the second not at all.
    server._requested_port = port
    server.start()
    settings = settings_for(uri, attempts=8, backoff=1.0)
    assert asyncio.run(assert_complete_or_chunk_whole(settings, group, {256})) == 256

    # 4. Stopped again after the rerun opened (a server that was reachable), restarted
    #    while the rerun is backing off: it recovers by itself.
    restarter = threading.Timer(3.0, lambda: (setattr(server, "_requested_port", port),
                                              server.start()))

    async def rerun() -> tuple[int, int]:
        async with FrGraph(settings) as fr:
            server.stop()
            restarter.start()
            report = await fr.import_file(path)
        return report.imported, report.already_present

    try:
        assert asyncio.run(rerun()) == (FACTS - 256, 256)
    finally:
        restarter.join()
    assert asyncio.run(assert_complete_or_chunk_whole(settings, group, {FACTS})) == FACTS

"""fr-graph runs offline: no connection leaves the machine, telemetry is off."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fr_graph.api import FrGraph
from fr_graph.config import Settings
from fr_graph.demo import DEMO_GROUP, DEMO_QUERIES, demo_file

pytestmark = pytest.mark.integration


def _is_local(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    host = address[0]
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Any]]:
    """Record every socket connect; refuse any that would leave the machine."""
    seen: list[Any] = []
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guard(address: Any) -> None:
        seen.append(address)
        if not _is_local(address):
            raise ConnectionRefusedError(f"test guard: non-loopback connect to {address!r}")

    def connect(self: socket.socket, address: Any) -> None:
        guard(address)
        real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        guard(address)
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    yield seen


async def test_import_and_demo_make_no_outside_connection(
    connections: list[Any], tmp_path: Path
) -> None:
    async with FrGraph(Settings(db=str(tmp_path / "offline"))) as fr:
        report = await fr.import_file(demo_file())
        assert report.imported > 10
        for query, when in DEMO_QUERIES:
            assert await fr.search(query, DEMO_GROUP, now=when)
        fr.graphiti(DEMO_GROUP)  # building Graphiti must not phone home either
    assert os.environ["GRAPHITI_TELEMETRY_ENABLED"] == "false"
    assert all(_is_local(a) for a in connections)
    assert connections, "the guard saw no connection at all: is it wired?"


def test_guard_refuses_outside_addresses(connections: list[Any]) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        with pytest.raises(ConnectionRefusedError, match="non-loopback"):
            sock.connect(("192.0.2.1", 80))
    finally:
        sock.close()

"""Opening a FalkorDB server (``falkordb://``) that is not there, or that refuses the login:
one line naming the address, at once, with no traceback and no credentials in it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from fr_graph.config import Settings
from fr_graph.errors import StoreError, StoreUnavailable
from fr_graph.stores.falkordb import FalkorStore


def test_an_unreachable_server_is_store_unavailable_at_once() -> None:
    started = time.monotonic()
    with pytest.raises(StoreUnavailable) as caught:
        FalkorStore.connect_server(Settings(db="falkordb://me:secret@127.0.0.1:1"))
    assert time.monotonic() - started < 2.0  # no retries: nothing listens there
    message = str(caught.value)
    assert message.startswith("store unavailable: cannot reach FalkorDB at --db "
                              "falkordb://127.0.0.1:1 (ConnectionError: ")
    assert "secret" not in message


@pytest.fixture
def refusing_server() -> Iterator[int]:
    """A socket that answers every command as a FalkorDB server wanting a password does."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        with listener:
            conn, _ = listener.accept()
            with conn:
                while conn.recv(4096):
                    conn.sendall(b"-NOAUTH Authentication required.\r\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    thread.join(timeout=5)


def test_a_refused_login_is_a_store_error_not_unavailable(refusing_server: int) -> None:
    with pytest.raises(StoreError) as caught:
        FalkorStore.connect_server(Settings(db=f"falkordb://127.0.0.1:{refusing_server}"))
    assert not isinstance(caught.value, StoreUnavailable)
    assert str(caught.value).startswith(
        f"FalkorDB at falkordb://127.0.0.1:{refusing_server} refused the login "
        "(AuthenticationError: ")


def test_the_cli_says_it_in_one_line() -> None:
    env = {k: v for k, v in os.environ.items() if k != "FR_GRAPH_DB"}
    done = subprocess.run(
        [sys.executable, "-m", "fr_graph.cli", "--db", "falkordb://127.0.0.1:1", "stats"],
        env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith("error: store unavailable: cannot reach FalkorDB at --db "
                                  "falkordb://127.0.0.1:1 (")

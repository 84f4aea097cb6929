"""The Neo4j launcher's memory options (tools/neo4j_server.py): benchmarks on large stores
raise the page cache and heap; the values must reach the running server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from neo4j import GraphDatabase
from neo4j_server import LAUNCHER_DIR, Neo4jServer  # tools/ (on sys.path via conftest)

pytestmark = pytest.mark.integration


def test_page_cache_and_heap_reach_the_server(tmp_path: Path) -> None:
    with (Neo4jServer(home=tmp_path / "neo4j", heap_mib=768, page_cache_mib=64) as server,
          GraphDatabase.driver(server.uri, auth=("neo4j", "x")) as driver):
        records, _, _ = driver.execute_query(
            "SHOW SETTINGS YIELD name, value "
            "WHERE name IN ['server.memory.pagecache.size', "
            "'dbms.memory.transaction.total.max'] RETURN name, value")
    settings = {r["name"]: r["value"] for r in records}
    assert settings["server.memory.pagecache.size"] == "64.00MiB"
    assert settings["dbms.memory.transaction.total.max"] == "512.00MiB"  # 2/3 of the heap


def test_bad_memory_sizes_are_refused_in_one_line() -> None:
    with pytest.raises(ValueError, match="heap_mib must be >= 512"):
        Neo4jServer(heap_mib=100)
    proc = subprocess.run(
        [sys.executable, str(LAUNCHER_DIR.parent / "neo4j_server.py"), "--page-cache", "1"],
        capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "page_cache_mib >= 16" in proc.stderr.strip().splitlines()[-1]

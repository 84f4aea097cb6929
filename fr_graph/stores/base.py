"""The graph-store interface and the factory that picks a backend from settings.

Backend differences are expressed here as small overridable methods (how a group maps to a
graph, how to list groups, how to run a vector query), never as provider checks scattered
through the pipeline.
"""

from __future__ import annotations

import asyncio
import importlib
import re
from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from fr_graph import cypher
from fr_graph._graphiti import GraphDriver
from fr_graph.backends import BACKENDS, Backend, backend_for
from fr_graph.config import Settings
from fr_graph.errors import ConfigError, InputError, StoreError, StoreUnavailable

Tracer = Callable[[str, dict[str, Any]], None]


class QueryRunner(Protocol):
    """Runs named queries: the store itself, or one open transaction of it."""

    async def run(self, name: str, group: str, /, **params: Any) -> list[dict[str, Any]]:
        ...

    async def link_candidates(self, group: str, probes: Sequence[str], k: int,
                              min_cosine: float) -> list[dict[str, Any]]:
        """The linker's neighbours of each probe, as the ``link_candidates`` query's rows
        (FalkorDB runs that query; Neo4j scores the group's vectors in the client)."""
        ...


def one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".splitlines()[0]


# Graphiti's own rule for group ids (letters, digits, '-' and '_'); FalkorDB also uses the
# group id as a graph name, so nothing else may pass.
_GROUP_ID = re.compile(r"[A-Za-z0-9_-]{1,128}\Z")  # \Z: "$" would let a final newline in

#: The placeholder in Cypher files for the property holding fr-graph's own vectors.
LIFECYCLE_VECTOR = "{lifecycle_vector}"

#: Where purge audit records live: its own graph on FalkorDB (a group purge deletes the
#: group's graph), the database on Neo4j. Not a valid group id, so no group can take it.
AUDIT_GRAPH = "fr-graph.audit"


def lifecycle_vector_for(settings: Settings) -> str:
    """Where fr-graph's own e5 vectors live: Graphiti's ``fact_embedding`` when the
    deployment embeds with the local model, else a property of their own."""
    return "fact_embedding" if settings.embedder.is_local else "fr_embedding"


def check_group_id(group_id: str) -> str:
    """Validate a group id at the boundary. Raises InputError naming the argument."""
    if not isinstance(group_id, str) or not _GROUP_ID.match(group_id):
        raise InputError(
            f"group_id {group_id!r}: use 1-128 letters, digits, '-' or '_'"
        )
    return group_id


async def settle_index_task(driver: GraphDriver) -> None:
    """Wait for the index build Graphiti's drivers schedule when constructed in a loop.

    Closing a driver cancels that task half-way, which leaves index statements unrun (and
    unawaited coroutines behind); an index build is short, so let it finish.
    """
    task = getattr(driver, "_init_task", None)
    if task is not None and not task.done():
        await asyncio.wait([task])


class GraphStore(ABC):
    """A Graphiti graph plus fr-graph's overlay, on one backend.

    Attributes:
        dialect: which Cypher dialect folder to prefer when loading named queries.
        driver_class: the Graphiti driver class this store wraps (``FrGraph.attach``).
        driver: the Graphiti driver (its default database).
    """

    dialect: cypher.Dialect
    driver_class: type[GraphDriver]

    def __init__(self, driver: GraphDriver, settings: Settings, tracer: Tracer | None = None):
        self.driver = driver
        self.settings = settings
        self.tracer = tracer
        self._schema_ready: set[str] = set()
        self._embedder_recorded = False
        #: The driver belongs to the caller (``FrGraph.attach``): closing leaves it open.
        self.borrowed = False
        self._schema_lock = asyncio.Lock()
        # Serializes one process's lifecycle transactions per group (see ``transact``).
        self._group_locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.lifecycle_vector = lifecycle_vector_for(settings)

    # -- backend seams ---------------------------------------------------------------

    @abstractmethod
    def driver_for(self, group_id: str) -> GraphDriver:
        """The Graphiti driver that reads and writes ``group_id``'s facts."""

    async def has_group(self, group_id: str) -> bool:
        """Whether the group may hold facts (a cheap check; True when unsure)."""
        return True

    @abstractmethod
    async def list_groups(self) -> list[str]:
        """Every group id that holds facts."""

    @abstractmethod
    async def _create_schema(self, group_id: str) -> None:
        """Create Graphiti's and fr-graph's indexes where ``group_id`` lives."""

    @abstractmethod
    def _schema_scope(self, group_id: str) -> str:
        """The key under which schema creation is remembered (one per graph)."""

    @abstractmethod
    async def vector_candidate_rows(
        self, group_id: str, embedding: list[float], limit: int
    ) -> list[dict[str, Any]]:
        """The nearest facts in the group as ``fetch_facts`` rows (``semantic`` is the exact
        cosine) with ``score`` (the same cosine) added; not necessarily ordered."""

    async def vector_candidates(
        self, group_id: str, embedding: list[float], limit: int
    ) -> list[tuple[str, float]]:
        """``(uuid, cosine)`` of the nearest facts in the group, best first."""
        rows = await self.vector_candidate_rows(group_id, embedding, limit)
        return sorted(((r["uuid"], float(r["score"])) for r in rows), key=lambda hit: -hit[1])

    @abstractmethod
    async def fulltext_candidates(
        self, group_id: str, text: str, limit: int
    ) -> list[tuple[str, float]]:
        """``(uuid, raw score)`` of the best keyword matches in the group, best first."""

    @abstractmethod
    async def drop_group(self, group_id: str) -> int:
        """Delete every node and relationship of ``group_id`` (audit records stay).
        Returns how many nodes were deleted."""

    @abstractmethod
    def _normalize_record(self, record: Any) -> dict[str, Any]:
        """One driver record as a plain dict with Python values."""

    def _is_transient(self, exc: BaseException) -> bool:
        """Whether ``exc`` is worth retrying (the store was briefly unreachable or busy)."""
        return False

    async def sample_scopes(self, at_most: int) -> list[str]:
        """Up to ``at_most`` groups whose graphs together sample the store's facts."""
        return (await self.list_groups())[:at_most]

    async def check_reachable(self) -> None:  # noqa: B027 - embedded stores need nothing
        """Fail fast, in one line, when the backend cannot be reached at all (a wrong
        ``--db`` or a server that is not running), instead of after every retry of the
        first query. Embedded stores are always reachable."""

    async def close(self) -> None:
        await settle_index_task(self.driver)
        if not self.borrowed:
            await self.driver.close()  # type: ignore[no-untyped-call]

    # -- shared behaviour ------------------------------------------------------------

    async def ensure_schema(self, group_id: str) -> None:
        scope = self._schema_scope(group_id)
        if scope in self._schema_ready:
            return
        async with self._schema_lock:
            if scope not in self._schema_ready:
                await self.with_retries("schema", lambda: self._schema_attempt(group_id))
                self._schema_ready.add(scope)
                if not self._embedder_recorded:
                    await self._record_embedder()
                    self._embedder_recorded = True

    async def _record_embedder(self) -> None:
        """Remember which embedder writes the store's Graphiti vectors (before the first
        write); a store recorded for another embedder is refused."""
        embedder = self.settings.embedder
        rows = await self.run("record_embedder", AUDIT_GRAPH, model=embedder.label,
                              dim=embedder.dimension)
        model, dim = str(rows[0]["model"]), int(rows[0]["dim"])
        if (model, dim) != (embedder.label, embedder.dimension):
            raise ConfigError(
                f"--embedder: this store's facts were embedded by {model} ({dim}-d), but the "
                f"configured embedder is {embedder.label} ({embedder.dimension}-d)")

    async def _schema_attempt(self, group_id: str) -> None:
        try:
            await self._create_schema(group_id)
        except StoreError:
            raise
        except Exception as exc:  # Graphiti's index build raises the driver's own errors
            raise StoreError(one_line(exc), query="schema") from exc

    def bind_vector(self, text: str) -> str:
        """Query text with ``{lifecycle_vector}`` naming :attr:`lifecycle_vector` (one of two
        fixed property names, never input)."""
        return text.replace(LIFECYCLE_VECTOR, self.lifecycle_vector)

    async def link_candidates(self, group: str, probes: Sequence[str], k: int,
                              min_cosine: float) -> list[dict[str, Any]]:
        """The linker's neighbours of each probe (the ``link_candidates`` query's rows)."""
        return await self.run("link_candidates", group, group_id=group, probes=list(probes),
                              k=k, min_cosine=min_cosine)

    async def run(self, name: str, group: str, /, **params: Any) -> list[dict[str, Any]]:
        """Run the named query against ``group``'s graph and return plain dict rows."""
        return await self.run_text(name, self.bind_vector(cypher.load(name, self.dialect)),
                                   group, **params)

    async def run_text(
        self, name: str, text: str, group: str, /, **params: Any
    ) -> list[dict[str, Any]]:
        """Run Cypher text (named for errors and the tracer) on ``group``'s graph."""
        if self.tracer is not None:
            self.tracer(name, params)
        driver = self.driver_for(group)

        async def once() -> list[Any]:
            try:
                return await self._execute(driver, text, params)
            except Exception as exc:  # the drivers raise many unrelated types
                raise StoreError(one_line(exc), query=name) from exc

        records = await self.with_retries(name, once)
        return [self._normalize_record(r) for r in records]

    async def _execute(self, driver: GraphDriver, text: str, params: dict[str, Any]
                       ) -> list[Any]:
        """The records of one query run on its own through Graphiti's driver."""
        result = await driver.execute_query(text, **params)
        return [] if result is None else list(result[0])

    async def with_retries[T](self, name: str, attempt: Callable[[], Awaitable[T]]) -> T:
        """Run ``attempt`` again, with exponential backoff, while it fails transiently.

        Every retried unit is idempotent (MERGEs keyed by uuid, or a whole transaction that
        was rolled back), so a try that failed half-way never leaves a partial write behind.
        Raises StoreUnavailable once ``settings.store_attempts`` tries have failed.
        """
        attempts = self.settings.store_attempts
        for number in range(1, attempts + 1):
            try:
                return await attempt()
            except StoreError as exc:
                cause = exc.__cause__ or exc
                if not self._is_transient(cause):
                    raise
                if number == attempts:
                    raise StoreUnavailable(
                        f"store unavailable after {attempts} attempts: {one_line(cause)}",
                        query=name) from cause
            await asyncio.sleep(self.settings.store_backoff_s * 2 ** (number - 1))
        raise AssertionError("unreachable")  # the loop returns or raises

    async def transact[T](self, group: str, work: Callable[[QueryRunner], Awaitable[T]]
                          ) -> T:
        """Run ``work`` as one isolated read-decide-write unit on ``group``'s facts.

        No other ``transact`` on the same group interleaves with it, so decisions made from
        what ``work`` read still hold when it writes. Here (FalkorDB, one process owns an
        embedded file) an asyncio lock per group does it and each query is atomic on its
        own; Neo4j overrides this with a database transaction holding a group lock node.
        ``work`` may run more than once (after a transient failure) and must be idempotent.
        """
        async with self._group_locks[group]:
            return await work(self)


def _store_class(backend: Backend) -> type[GraphStore]:
    store_class: type[GraphStore] = getattr(importlib.import_module(backend.module),
                                            backend.store_class)
    return store_class


def store_for_driver(driver: GraphDriver, settings: Settings, tracer: Tracer | None = None
                     ) -> GraphStore:
    """The store over a Graphiti driver the caller already has (left open on close)."""
    for backend in BACKENDS:
        store_class = _store_class(backend)
        if isinstance(driver, store_class.driver_class):
            store = store_class(driver, settings, tracer)
            store.borrowed = True
            return store
    raise ConfigError(f"FrGraph.attach: unsupported Graphiti driver "
                      f"{type(driver).__name__} (use Neo4j or FalkorDB)")


def open_store(settings: Settings, tracer: Tracer | None = None) -> GraphStore:
    """Build the store ``settings.db`` selects (embedded FalkorDB when unset)."""
    backend = backend_for(settings.db)
    opener: Callable[[Settings, Tracer | None], GraphStore] = getattr(
        _store_class(backend), backend.opener)
    return opener(settings, tracer)

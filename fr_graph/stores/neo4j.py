"""Neo4j (>= 5.26) through graphiti-core's Neo4j driver. Groups share one database."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import re
import time
import warnings
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np
import numpy.typing as npt
from neo4j import AsyncSession, AsyncTransaction, NotificationDisabledClassification
from neo4j.exceptions import (
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from fr_graph import cypher
from fr_graph._graphiti import GraphDriver, Neo4jDriver
from fr_graph.config import Settings
from fr_graph.core.text import fulltext_words, lucene_escape
from fr_graph.errors import StoreError, StoreUnavailable
from fr_graph.stores.base import (
    GraphStore,
    QueryRunner,
    Tracer,
    one_line,
    settle_index_task,
)

#: The first Neo4j release whose vector index can hold and filter by group_id.
IN_INDEX_FILTER_SINCE = (2026, 1)
_SERVER_VERSION = re.compile(r"(\d+)\.(\d+)")

#: Notifications fr-graph's queries do not ask for: "property key does not exist" and the
#: like, which a store without superseded or reverted facts yet raises on every batch (the
#: driver logs each as a WARNING the size of the query).
_QUIET_NOTIFICATIONS = [NotificationDisabledClassification.UNRECOGNIZED]


def _quiet_session(driver: GraphDriver) -> AsyncSession:
    """A session on Graphiti's database that asks for none of :data:`_QUIET_NOTIFICATIONS`."""
    assert isinstance(driver, Neo4jDriver)
    return driver.client.session(database=driver._database,
                                 notifications_disabled_classifications=_QUIET_NOTIFICATIONS)


#: How long opening waits for a Neo4j server to answer at all.
REACHABLE_TIMEOUT_S = 10.0

# Sizing the vector-index request. The 5.26 index cannot filter by group, so a group that
# holds ``share`` of the store finds about ``fetch * share`` of its facts among the index's
# top ``fetch`` hits; beyond a point, scanning the group exactly is cheaper.
_SHARE_MARGIN = 2.0  # ask for twice the hits the group's share predicts
# An index hit costs about three rows of the group's exact scan (which reads one 1.5 kB
# vector per row, independent of the store's size): 10k group among 700k facts, scan in two
# uuid ranges 126 ms; the index asked for 1,500 hits 83 ms, 3,000 129 ms, 5,000 185 ms,
# 8,400 270 ms (2026-12-03, BENCHMARKS.md). So the index is asked only while its request
# is under a third of the group's size.
_INDEX_HIT_COST_IN_SCAN_ROWS = 3.0
_MAX_INDEX_FETCH = 50_000
# Below this many facts a group is scanned in one query: splitting costs more than it saves.
SPLIT_SCAN_MIN_FACTS = 5_000
_GROUP_SIZE_TTL_S = 60.0  # group and store sizes are recounted at most once a minute
_LUCENE_WORD = re.compile(r"[A-Za-z0-9]")
#: The code of "an equivalent schema rule already exists" (see ``_is_transient``).
_SCHEMA_RACE = "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"


def filters_in_index(server_version: str) -> bool:
    """Whether a Neo4j server of ``server_version`` (e.g. "Neo4j Kernel 2026.08.1
    community") can build a vector index that filters by group (2026.01+)."""
    found = _SERVER_VERSION.search(server_version)
    return found is not None and (int(found[1]), int(found[2])) >= IN_INDEX_FILTER_SINCE


def _index_walk_fault(exc: StoreError) -> bool:
    """Whether ``exc`` is Neo4j 2026.08's internal error from a group-filtered vector search
    that runs out of the group's live entries ("Index N out of bounds for length M")."""
    cause = exc.__cause__
    return (isinstance(cause, Neo4jError)
            and cause.code == "Neo.DatabaseError.Statement.ExecutionFailed"
            and "out of bounds" in str(cause.message))


def uuid_ranges(parts: int) -> list[tuple[str, str]]:
    """``parts`` half-open ranges of uuid strings, split at hex digits, covering every
    string (the first starts at ``""``, the last ends above any uuid)."""
    cuts = [format(i * 16 // parts, "x") for i in range(1, parts)]
    return list(zip(["", *cuts], [*cuts, "\uffff"], strict=True))


def _to_python(value: Any) -> Any:
    to_native = getattr(value, "to_native", None)
    if callable(to_native):
        return to_native()
    if isinstance(value, list):
        return [_to_python(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_python(v) for k, v in value.items()}
    return value


#: Facts one read of the linker's neighbour search brings over: the driver makes a Python
#: float of every vector component, so a page bounds the client's memory.
LINK_PAGE_FACTS = 5_000
_SCORE_DECIMALS = 9
#: Fact vectors the linker keeps between batches (3 kB each as read, about 60 MB in all):
#: each batch scans its group, and reading every fact's vector again took half of that
#: (BENCHMARKS.md, "Lifecycle write path"). A group larger than this reads them all again.
LINK_VECTOR_CACHE_FACTS = 20_000
#: Past this many facts in a group, and on a Neo4j whose vector index filters by group
#: (2026.01+), the linker asks the index for each probe's nearest facts instead of scanning
#: the group: a 100k group's scan took 31.6 s per batch of 250 probes against 1.3 s from the
#: index, while at 10k both took 1.7 s (BENCHMARKS.md). Beyond the kept vectors' capacity
#: every batch would read the whole group again; below it links stay exact.
LINK_INDEX_MIN_FACTS = LINK_VECTOR_CACHE_FACTS
#: Index hits per probe: four times the neighbours kept, scored again exactly here.
LINK_INDEX_HITS_PER_PROBE = 32


def _tie_order(score: float, row: Mapping[str, Any]) -> tuple[Any, ...]:
    """The order of ``link_candidates`` on FalkorDB and of the former Cypher query: score
    descending, then the most recent fact (a fact without ``valid_at`` first, as Neo4j sorts
    nulls in descending order), then the text (none last), then the uuid."""
    valid_at = row.get("valid_at")
    if isinstance(valid_at, str):
        valid_at = datetime.fromisoformat(valid_at)
    fact = row.get("fact")
    return (-score, valid_at is not None, -valid_at.timestamp() if valid_at else 0.0,
            fact is None, fact or "", row["uuid"])


class FactVectors:
    """The vectors of facts the linker has read, by uuid, each with the text it was read
    with: a fact's vector is made from its text, so a fact whose text was rewritten since
    (a redaction) is read again. The oldest read leave first past ``capacity``."""

    def __init__(self, capacity: int = LINK_VECTOR_CACHE_FACTS) -> None:
        self.capacity = capacity
        self._kept: OrderedDict[str, tuple[str | None, npt.NDArray[np.float64]]] = (
            OrderedDict())

    def split(self, rows: Sequence[Mapping[str, Any]]
              ) -> tuple[dict[str, npt.NDArray[np.float64]], list[str]]:
        """The vectors held for ``rows`` (``link_scan`` rows) and the uuids to read."""
        held: dict[str, npt.NDArray[np.float64]] = {}
        missing: list[str] = []
        for row in rows:
            kept = self._kept.get(row["uuid"])
            if kept is not None and kept[0] == row["fact"]:
                held[row["uuid"]] = kept[1]
            else:
                missing.append(row["uuid"])
        return held, missing

    def keep(self, texts: Mapping[str, str | None],
             vectors: Mapping[str, npt.NDArray[np.float64]]) -> None:
        for uuid, vector in vectors.items():
            self._kept[uuid] = (texts.get(uuid), vector)
            self._kept.move_to_end(uuid)
        while len(self._kept) > self.capacity:
            self._kept.popitem(last=False)

    def __len__(self) -> int:
        return len(self._kept)


class NearestFacts:
    """Each probe's ``k`` nearest facts at or above ``min_cosine`` (never itself), from pages
    of facts with their vectors scored here: the exact result whatever the pages' order."""

    def __init__(self, probe_vectors: Mapping[str, Sequence[float]], k: int,
                 min_cosine: float) -> None:
        self.k, self.min_cosine = k, min_cosine
        self.dim = len(next(iter(probe_vectors.values()), ()))
        usable = {uuid: vector for uuid, vector in probe_vectors.items()
                  if len(vector) == self.dim and any(vector)}
        self.probes = sorted(usable)
        self.matrix = _unit_rows(np.asarray([usable[p] for p in self.probes], dtype=np.float64)
                                 .reshape(len(self.probes), self.dim))
        self.kept: dict[str, list[tuple[float, Mapping[str, Any]]]] = {p: [] for p in self.probes}

    def add(self, page: Sequence[Mapping[str, Any]]) -> None:
        rows = [row for row in page if len(row["vector"]) == self.dim]
        if not rows or not self.probes:
            return
        vectors = np.asarray([row["vector"] for row in rows], dtype=np.float64)
        usable = vectors.any(axis=1)
        if not usable.all():
            rows = [row for row, keep in zip(rows, usable, strict=True) if keep]
            vectors = vectors[usable]
        # Rounded: the matrix product gives two equal vectors scores that differ in the last
        # bits, by their position in the page, and equal scores must tie (then the newest
        # fact wins) however a batch or a rerun after a crash splits the facts.
        scores = np.round(self.matrix @ _unit_rows(vectors).T, _SCORE_DECIMALS)
        position = {row["uuid"]: column for column, row in enumerate(rows)}
        for index, probe in enumerate(self.probes):
            line = scores[index]
            if probe in position:
                line[position[probe]] = -np.inf
            chosen = np.flatnonzero(line >= self.min_cosine)
            if chosen.size > self.k:  # keep the k best, and every tie with the k-th
                cut = np.partition(line[chosen], chosen.size - self.k)[chosen.size - self.k]
                chosen = chosen[line[chosen] >= cut]
            kept = self.kept[probe] + [(float(line[c]), rows[c]) for c in chosen]
            self.kept[probe] = sorted(kept, key=lambda hit: _tie_order(*hit))[:self.k]

    def hits(self) -> list[dict[str, Any]]:
        return [{"probe": probe, "uuid": row["uuid"], "score": score}
                for probe in self.probes for score, row in self.kept[probe]]

    def vectors(self) -> dict[str, Any]:
        """The vector of every fact kept, by uuid."""
        return {row["uuid"]: row["vector"] for kept in self.kept.values() for _, row in kept}


def _unit_rows(matrix: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    norms: npt.NDArray[np.float64] = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-300)


class _Transaction:
    """Named queries inside one open Neo4j transaction (see ``Neo4jStore.transact``)."""

    def __init__(self, store: Neo4jStore, tx: AsyncTransaction) -> None:
        self.store = store
        self.tx = tx

    async def run(self, name: str, group: str, /, **params: Any) -> list[dict[str, Any]]:
        if self.store.tracer is not None:
            self.store.tracer(name, params)
        try:
            text = self.store.bind_vector(cypher.load(name, self.store.dialect))
            result = await self.tx.run(text, params)
            records = [record async for record in result]
        except Exception as exc:  # the driver raises many unrelated types
            raise StoreError(one_line(exc), query=name) from exc
        return [self.store._normalize_record(r) for r in records]

    async def link_candidates(self, group: str, probes: Sequence[str], k: int,
                              min_cosine: float) -> list[dict[str, Any]]:
        return await _link_candidates(self, self.store, group, probes, k, min_cosine)


async def _link_candidates(runner: QueryRunner, store: Neo4jStore, group: str,
                           probes: Sequence[str], k: int, min_cosine: float
                           ) -> list[dict[str, Any]]:
    """The rows of ``link_candidates`` (see ``cypher/falkordb/link_candidates.cypher``),
    with the candidates' vectors scored here: in Cypher, one cosine per (probe, fact) pair
    took 5-10x as long (BENCHMARKS.md, "Lifecycle write path"). The candidates are the
    whole group (exact) or, in a large group on Neo4j 2026, the index's nearest facts of
    each probe (:func:`_linkable_facts`); only the vectors the store does not hold yet
    (:class:`FactVectors`) are read."""
    probe_vectors = {row["uuid"]: row["vector"] for row in await runner.run(
        "link_probe_vectors", group, probes=list(probes)) if row["vector"] is not None}
    if not probe_vectors:
        return []
    nearest = NearestFacts(probe_vectors, k, min_cosine)
    async for scan in _linkable_facts(runner, store, group, probes):
        held, missing = store.link_vectors.split(scan)  # before any await: nothing evicts
        if missing:
            read = {row["uuid"]: np.asarray(row["vector"], dtype=np.float64)
                    for row in await runner.run("link_fact_vectors", group, uuids=missing)
                    if row["vector"] is not None}
            store.link_vectors.keep({row["uuid"]: row["fact"] for row in scan}, read)
            held.update(read)
        nearest.add([{**row, "vector": held[row["uuid"]]} for row in scan
                     if row["uuid"] in held])
    hits = nearest.hits()
    if not hits:
        return []
    rows = await runner.run("link_rows", group, hits=hits)
    vectors = nearest.vectors()
    for row in rows:
        row["probe_embedding"] = probe_vectors[row["probe"]]
        row["embedding"] = vectors[row["uuid"]]
    return rows


async def _linkable_facts(runner: QueryRunner, store: Neo4jStore, group: str,
                          probes: Sequence[str]) -> AsyncIterator[list[dict[str, Any]]]:
    """Pages of the facts the linker scores against the probes (``link_scan`` rows): in a
    group past :data:`LINK_INDEX_MIN_FACTS` on a server whose index filters by group, each
    probe's nearest facts by the index walk (approximate); else the whole group, in uuid
    ranges of about :data:`LINK_PAGE_FACTS` facts (exact)."""
    group_facts, _ = await store._group_size(group)
    if group_facts > LINK_INDEX_MIN_FACTS and await store.index_filters_by_group():
        # No fallback to the scan: a failed query ends the write transaction. Neo4j
        # 2026.08's walk fault (see _index_walk_fault) needs a request larger than the
        # group's live facts, and 32 hits are far below this threshold.
        yield await runner.run("link_index_scan", group, group_id=group, probes=list(probes),
                               hits=LINK_INDEX_HITS_PER_PROBE)
        return
    parts = max(1, min(16, math.ceil(group_facts / LINK_PAGE_FACTS)))
    for low, high in uuid_ranges(parts):
        yield await runner.run("link_scan", group, group_id=group, probes=list(probes),
                               low=low, high=high)


class Neo4jStore(GraphStore):
    dialect: cypher.Dialect = "neo4j"
    driver_class = Neo4jDriver

    def __init__(self, driver: GraphDriver, settings: Settings, tracer: Tracer | None = None):
        super().__init__(driver, settings, tracer)
        self.link_vectors = FactVectors()
        # group_id -> (recount after, group facts, store facts)
        self._group_sizes: dict[str, tuple[float, int, int]] = {}
        # Whether fr_fact_embedding holds group_id (asked again after a TTL while it does not:
        # the index may be made, or remade on an upgraded server, after this store opened).
        self._index_filters: tuple[float, bool] = (0.0, False)

    @classmethod
    def connect(cls, settings: Settings, tracer: Tracer | None = None) -> Neo4jStore:
        assert settings.db is not None
        driver = Neo4jDriver(settings.db, settings.neo4j_user, settings.neo4j_password)
        return cls(driver, settings, tracer)

    async def sample_scopes(self, at_most: int) -> list[str]:
        return [""]  # one database holds every group; its queries see them all

    async def check_reachable(self) -> None:
        """Verify the connection once, at open: a wrong address or a stopped server fails
        in one line within ``REACHABLE_TIMEOUT_S``. Retries (``store_attempts`` with
        backoff) are for a server that was reachable and then failed transiently."""
        assert isinstance(self.driver, Neo4jDriver)
        # The driver logs a warning per retry of the index build Graphiti started; the
        # outcome is reported once, below.
        neo4j_log = logging.getLogger("neo4j")
        level = neo4j_log.level
        neo4j_log.setLevel(logging.ERROR)
        try:
            await asyncio.wait_for(self.driver.client.verify_connectivity(),
                                   REACHABLE_TIMEOUT_S)
        except (OSError, TimeoutError, Neo4jError, DriverError) as exc:
            if not (self._is_transient(exc) or isinstance(exc, (OSError, TimeoutError))):
                raise StoreError(one_line(exc), query="verify_connectivity") from exc
            # That index build would retry for 30 s: it cannot succeed, so stop it. Its
            # queries, created but never run, would each warn when collected.
            warnings.filterwarnings("ignore", category=RuntimeWarning,
                                    message="coroutine 'Neo4jDriver._execute_index_query'")
            task = getattr(self.driver, "_init_task", None)
            if task is not None and not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            raise StoreUnavailable(
                f"store unavailable: cannot reach Neo4j at --db {self.settings.db} "
                f"({one_line(exc)}); is the server running and the "
                "address right?") from None
        finally:
            neo4j_log.setLevel(level)

    def driver_for(self, group_id: str) -> GraphDriver:
        return self.driver

    def _schema_scope(self, group_id: str) -> str:
        return ""  # one database holds every group

    async def _create_schema(self, group_id: str) -> None:
        await settle_index_task(self.driver)
        await self.driver.build_indices_and_constraints()
        for statement in cypher.load_statements("schema", self.dialect):
            await self.run_text("schema", self.bind_vector(statement), group_id)
        # Neo4j 2026.01+ keeps group_id in the vector index, to filter by group inside it.
        rows = await self.run("server_version", group_id)
        index_query = ("fact_vector_index_filtered"
                       if rows and filters_in_index(str(rows[0]["version"]))
                       else "fact_vector_index")
        text = self.bind_vector(cypher.load(index_query, self.dialect)).replace(
            "{embedding_dim}", str(int(self.settings.embedding_dim)))
        await self.run_text(index_query, text, group_id)
        await self.run_text("await_indexes", "CALL db.awaitIndexes(300)", group_id)
        self._index_filters = (0.0, False)  # ask again

    async def list_groups(self) -> list[str]:
        rows = await self.run("list_groups", "")
        return [r["group_id"] for r in rows if r["group_id"] is not None]

    async def index_filters_by_group(self) -> bool:
        """Whether the facts' vector index holds group_id (made on Neo4j 2026.01+), so that
        search filters by group inside the index; cached, asked again while it does not."""
        recheck_after, filters = self._index_filters
        now = time.monotonic()
        if filters or recheck_after > now:
            return filters
        rows = await self.run("fact_vector_index_properties", "")
        filters = bool(rows) and "group_id" in (rows[0]["properties"] or [])
        self._index_filters = (now + _GROUP_SIZE_TTL_S, filters)
        return filters

    async def vector_candidate_rows(
        self, group_id: str, embedding: list[float], limit: int
    ) -> list[dict[str, Any]]:
        if await self.index_filters_by_group():
            return await self._in_index_candidates(group_id, embedding, limit)
        group_facts, store_facts = await self._group_size(group_id)
        share = group_facts / store_facts if store_facts else 0.0
        fetch = limit * self.settings.vector_oversample
        if share > 0.0:
            fetch = max(fetch, math.ceil(limit * _SHARE_MARGIN / share))
        rows: list[dict[str, Any]] = []
        if share > 0.0 and fetch <= min(_MAX_INDEX_FETCH,
                                        group_facts / _INDEX_HIT_COST_IN_SCAN_ROWS):
            rows = await self.run("vector_candidates", group_id, group_id=group_id,
                                  embedding=embedding, fetch=fetch, limit=limit)
        if len(rows) < limit:
            # A small group (scanning it is cheaper), or too few of the index's global top
            # hits were ours: scan the group exactly.
            rows = await self._exact_scan(group_id, embedding, limit, group_facts)
        return rows

    async def _in_index_candidates(self, group_id: str, embedding: list[float],
                                   limit: int) -> list[dict[str, Any]]:
        """The group's nearest facts from the group-filtered index. The index walk is
        approximate (and scores compressed vectors), so it is asked for
        ``vector_oversample`` times the rows kept. A group no larger than that request is
        scanned exactly instead: cheap at that size, exact, and clear of a Neo4j 2026.08
        fault (a filtered search asked for more hits than the group holds fails once one of
        the group's facts was deleted or lost its vector)."""
        fetch = limit * self.settings.vector_oversample
        group_facts, _ = await self._group_size(group_id)
        rows: list[dict[str, Any]] = []
        if group_facts > fetch:
            try:
                rows = await self.run("vector_candidates_in_index", group_id,
                                      group_id=group_id, embedding=embedding, fetch=fetch,
                                      limit=limit)
            except StoreError as exc:
                # The same fault when facts were deleted since the group was counted.
                if not _index_walk_fault(exc):
                    raise
        if len(rows) < limit:
            rows = await self._exact_scan(group_id, embedding, limit, group_facts)
        return rows

    async def _exact_scan(self, group_id: str, embedding: list[float], limit: int,
                          group_facts: int) -> list[dict[str, Any]]:
        """The group's nearest facts by exact cosine; a large group is scanned in
        ``scan_partitions`` uuid ranges at once (measured on a 10k group among 1M facts,
        2 cores: one query 156 ms, two concurrent halves 107 ms, four 138 ms)."""
        parts = self.settings.scan_partitions
        if parts == 1 or group_facts < SPLIT_SCAN_MIN_FACTS:
            return await self.run("vector_candidates_exact", group_id, group_id=group_id,
                                  embedding=embedding, limit=limit)
        chunks = await asyncio.gather(*(
            self.run("vector_candidates_exact_range", group_id, group_id=group_id,
                     embedding=embedding, limit=limit, low=low, high=high)
            for low, high in uuid_ranges(parts)))
        rows = [row for chunk in chunks for row in chunk]
        rows.sort(key=lambda row: -row["score"])
        return rows[:limit]

    async def _group_size(self, group_id: str) -> tuple[int, int]:
        """(facts in the group, facts in the store), counted at most once per TTL; only
        sizes the index request, so a stale count costs time, never results."""
        cached = self._group_sizes.get(group_id)
        now = time.monotonic()
        if cached is not None and cached[0] > now:
            return cached[1], cached[2]
        rows = await self.run("group_share", group_id, group_id=group_id)
        group_facts, store_facts = int(rows[0]["group_facts"]), int(rows[0]["store_facts"])
        self._group_sizes[group_id] = (now + _GROUP_SIZE_TTL_S, group_facts, store_facts)
        return group_facts, store_facts

    async def fulltext_candidates(
        self, group_id: str, text: str, limit: int
    ) -> list[tuple[str, float]]:
        query = lucene_escape(fulltext_words(text)).strip()
        if not query:
            return []
        if _LUCENE_WORD.search(group_id):
            # Graphiti indexes group_id too: filter in Lucene (boost 0 keeps the scores), so
            # the top hits are the group's, not the whole store's.
            phrase = group_id.replace("\\", "\\\\").replace('"', '\\"')
            query = f'group_id:"{phrase}"^0 AND ({query})'
        rows = await self.run("fulltext_candidates", group_id, group_id=group_id,
                              query=query, limit=limit)
        return [(r["uuid"], float(r["score"])) for r in rows]

    async def drop_group(self, group_id: str, batch: int = 5000) -> int:
        deleted = 0
        for query in ("purge_group_batch", "purge_group_sweep"):
            while True:
                rows = await self.run(query, group_id, group_id=group_id, batch=batch)
                deleted += rows[0]["deleted"] if rows else 0
                if not rows or rows[0]["deleted"] < batch:
                    break
        return deleted

    async def _execute(self, driver: GraphDriver, text: str, params: dict[str, Any]
                       ) -> list[Any]:
        # Graphiti's execute_query takes no notification filter: a quiet session keeps a new
        # store's first reads (store info, vectors no fact has yet) out of the user's log.
        async with _quiet_session(driver) as session:
            result = await session.run(text, params)
            return [record async for record in result]

    def _normalize_record(self, record: Any) -> dict[str, Any]:
        return {key: _to_python(value) for key, value in dict(record).items()}

    async def link_candidates(self, group: str, probes: Sequence[str], k: int,
                              min_cosine: float) -> list[dict[str, Any]]:
        return await _link_candidates(self, self, group, probes, k, min_cosine)

    def _is_transient(self, exc: BaseException) -> bool:
        # TransientError covers deadlocks between two group-lock transactions. A schema rule
        # "already exists" although created IF NOT EXISTS only while another session creates
        # the same rule (two first writers at once); once that one commits, a retry passes.
        return (isinstance(exc, ServiceUnavailable | SessionExpired | TransientError)
                or (isinstance(exc, Neo4jError) and exc.code == _SCHEMA_RACE))

    async def transact[T](self, group: str, work: Callable[[QueryRunner], Awaitable[T]]
                          ) -> T:
        """``work`` inside one Neo4j transaction that first write-locks the group's
        ``(:FrLock {group_id})`` node: concurrent writers of a group, in any process, queue
        on that lock, and a failed try rolls back whole (then retried with backoff)."""
        driver = self.driver

        async def attempt() -> T:
            async with _quiet_session(driver) as session:
                tx = await session.begin_transaction()
                try:
                    runner = _Transaction(self, tx)
                    await runner.run("take_group_lock", group, group_id=group)
                    result = await work(runner)
                    await tx.commit()
                except BaseException:
                    if not tx.closed():
                        with contextlib.suppress(Exception):  # the connection may be gone
                            await tx.rollback()
                    raise
                return result

        async def attempt_wrapped() -> T:
            try:
                return await attempt()
            except StoreError:
                raise
            except Exception as exc:  # commit / session failures
                raise StoreError(one_line(exc), query="transaction") from exc

        async with self._group_locks[group]:
            return await self.with_retries("transaction", attempt_wrapped)

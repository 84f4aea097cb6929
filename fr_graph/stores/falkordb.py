"""FalkorDB: a server (``falkordb://host:port``) or embedded via ``falkordblite``.

FalkorDB keeps each group in its own graph (Graphiti's ``FalkorDriver`` maps group_id to
the graph name), so every group gets its own indexes and queries run on its own graph.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import os
import shutil
from contextvars import ContextVar
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlparse

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from fr_graph import cypher
from fr_graph._graphiti import FalkorDriver, GraphDriver
from fr_graph.config import Settings
from fr_graph.core.text import fulltext_words
from fr_graph.errors import ConfigError, StoreError, StoreUnavailable
from fr_graph.stores.base import (
    AUDIT_GRAPH,
    GraphStore,
    Tracer,
    one_line,
    settle_index_task,
)

# Graph names that are not groups: Graphiti's default database, FalkorDB's own, the audit.
_NOT_GROUPS = {"default_db", "_", AUDIT_GRAPH}

#: How long opening a FalkorDB server waits for its first answer (Neo4j's is the same).
REACHABLE_TIMEOUT_S = 10.0
#: How long opening a store waits for a rebuilt fact index (FalkorDB builds in the background).
_INDEX_BUILD_WAIT_S = 120.0
#: Rebuilds tried before a group is left as it is: a rebuild raced by the driver's own
#: background index build can come back broken (seen once in CI under load), so the mend
#: checks its result.
_MEND_ATTEMPTS = 3


def fulltext_query(text: str) -> str:
    """RediSearch query for arbitrary text: Graphiti's sanitizer, words OR-ed, no group filter
    (the graph is already the group's)."""
    from graphiti_core.driver.falkordb.fulltext import build_falkor_fulltext_query

    return build_falkor_fulltext_query(text, None).strip()


class EmbeddedServer:
    """The redis-server + FalkorDB module that ``falkordblite`` runs for one data file.

    One process owns a file at a time (an exclusive ``flock``): two servers on one file
    would each write their own copy and the last save would win. Closing shuts the server
    down with SAVE; falkordblite's own ``close()`` only drops the connection and leaves the
    server to be SIGKILLed at exit, losing every write since the last save.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._lock: IO[str] | None = (path.parent / f"{path.name}.lock").open("w")
        except OSError as exc:
            raise ConfigError(f"--db {str(path)!r}: cannot use this location ({exc})") from exc
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.close()
            raise StoreError(f"--db {str(path)!r} is open in another fr-graph process") from None
        try:
            self.client = _start_embedded(path)
        except Exception as exc:  # redis and redislite raise many types
            self._lock.close()
            self._lock = None
            raise StoreError(f"--db {str(path)!r}: the embedded store did not start "
                             f"({one_line(exc)})") from exc

    async def close(self) -> None:
        import redis
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        server = self.client.client
        pid, socket_file, redis_dir = server.pid, server.socket_file, server.redis_dir
        if pid:
            # A raw connection without retries: the server drops it while shutting down.
            raw = aioredis.Redis(unix_socket_path=socket_file, retry=Retry(NoBackoff(), 0))
            try:
                await raw.execute_command("SHUTDOWN", "SAVE")  # type: ignore[no-untyped-call]
            except redis.ConnectionError:
                pass
            finally:
                await raw.aclose()
            await _wait_for_exit(pid, within=30.0)
        await self.client.close()
        if redis_dir and os.path.isdir(redis_dir):
            shutil.rmtree(redis_dir, ignore_errors=True)
        with contextlib.suppress(FileNotFoundError):
            (self.path.parent / f"{self.path.name}.settings").unlink()
        if self._lock is not None:
            self._lock.close()
            self._lock = None


#: How long the embedded server may take to load its data file. falkordblite 0.11 pings the
#: server it starts with redis-py's 5 s socket timeout, and FalkorDB answers nothing while it
#: decodes a graph: a 50 MB file (20,000 facts) could not be opened. Upstream workaround.
LOAD_TIMEOUT_S = 600.0


def _start_embedded(path: Path) -> Any:
    """falkordblite's ``AsyncFalkorDB`` on ``path``, its server-start client given
    :data:`LOAD_TIMEOUT_S` (it offers no parameter for it; see cypher/README.md)."""
    import redislite.async_client as embedded
    from redislite.async_falkordb_client import AsyncFalkorDB

    start_client = embedded.SyncRedis
    embedded.SyncRedis = functools.partial(start_client,
                                           socket_timeout=LOAD_TIMEOUT_S)
    try:
        return AsyncFalkorDB(dbfilename=str(path))
    finally:
        embedded.SyncRedis = start_client


async def _wait_for_exit(pid: int, within: float) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while loop.time() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # noqa: ASYNC222 - WNOHANG never blocks
        await asyncio.sleep(0.02)


#: Set while fr-graph runs one of its own queries. They never match labelled endpoints, so
#: they need no mended fact index; only Graphiti's own queries wait for the mend.
_OWN_QUERY: ContextVar[bool] = ContextVar("fr_graph_own_query", default=False)
#: Set while a store mends a group's fact index, so the mend's own queries skip the check.
_MENDING: ContextVar[bool] = ContextVar("fr_graph_mending_fact_index", default=False)


class GroupGraphDriver(FalkorDriver):
    """Graphiti's FalkorDB driver bound to one group's graph, with two upstream bugs worked
    around (see "Upstream bugs worked around" in cypher/README.md):

    - Before Graphiti's first query on the graph (fr-graph's own queries do not need it),
      the store checks that FalkorDB loaded the graph's fact index whole, and rebuilds it if
      not.
    - Graphiti 0.31's fulltext group filter matches nothing for a group id holding a '-'
      (the index splits the stored id into words); the graph holds that group alone, so the
      filter is dropped rather than mended.
    """

    def __init__(self, store: FalkorStore, group_id: str) -> None:
        self._store = store  # before super().__init__, which schedules an index build
        super().__init__(falkor_db=store._client, database=group_id)

    async def execute_query(self, cypher_query_: Any, **kwargs: Any) -> Any:
        # A borrowed store (FrGraph.attach) mends at once: the caller's own Graphiti driver
        # reads the same graph without this check.
        if not _MENDING.get() and (self._store.borrowed or not _OWN_QUERY.get()):
            await self._store.mend_fact_index_once(self._database)
        return await super().execute_query(cypher_query_, **kwargs)

    def build_fulltext_query(self, query: str, group_ids: list[str] | None = None,
                             max_query_length: int = 128) -> str:
        from graphiti_core.driver.falkordb.fulltext import build_falkor_fulltext_query

        if group_ids is not None and set(group_ids) != {self._database}:
            return build_falkor_fulltext_query(query, group_ids, max_query_length)
        return build_falkor_fulltext_query(query, None, max_query_length)


def _ping_server(host: str, port: int, username: str | None, password: str | None) -> None:
    """Fail in one line within ``REACHABLE_TIMEOUT_S`` when no FalkorDB server answers: the
    driver's constructor asks the server at once, with no timeout, and raises redis's own
    traceback. The address is named without the credentials the URI may carry."""
    address = f"falkordb://{host}:{port}"
    client = redis.Redis(host=host, port=port, username=username, password=password,
                         socket_connect_timeout=REACHABLE_TIMEOUT_S,
                         socket_timeout=REACHABLE_TIMEOUT_S,
                         retry=Retry(NoBackoff(), 0))  # redis retries a refusal for ~4.5 s
    try:
        client.ping()
    except redis.AuthenticationError as exc:  # reachable, but the login is wrong
        raise StoreError(f"FalkorDB at {address} refused the login ({one_line(exc)})",
                         query="ping") from None
    except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
        raise StoreUnavailable(
            f"store unavailable: cannot reach FalkorDB at --db {address} ({one_line(exc)}); "
            "is the server running and the address right?") from None
    finally:
        client.close()


class FalkorStore(GraphStore):
    dialect: cypher.Dialect = "falkordb"
    driver_class = FalkorDriver

    def __init__(self, driver: GraphDriver, settings: Settings, tracer: Tracer | None = None,
                 embedded: EmbeddedServer | None = None):
        super().__init__(driver, settings, tracer)
        assert isinstance(driver, FalkorDriver)
        self._client = driver.client
        self._embedded = embedded
        self._drivers: dict[str, GraphDriver] = {}
        self._checked_fact_index: set[str] = set()
        self._mend_lock = asyncio.Lock()

    @classmethod
    def open_embedded(cls, settings: Settings, tracer: Tracer | None = None) -> FalkorStore:
        server = EmbeddedServer(settings.embedded_path)
        return cls(FalkorDriver(falkor_db=server.client), settings, tracer, embedded=server)

    @classmethod
    def connect_server(cls, settings: Settings, tracer: Tracer | None = None) -> FalkorStore:
        assert settings.db is not None
        url = urlparse(settings.db)
        host, port = url.hostname or "localhost", url.port or 6379
        _ping_server(host, port, url.username, url.password)
        return cls(FalkorDriver(host=host, port=port, username=url.username,
                                password=url.password),
                   settings, tracer)

    def driver_for(self, group_id: str) -> GraphDriver:
        driver = self._drivers.get(group_id)
        if driver is None:
            driver = GroupGraphDriver(self, group_id)
            self._drivers[group_id] = driver
        return driver

    def _schema_scope(self, group_id: str) -> str:
        return group_id  # indexes are per graph

    async def _create_schema(self, group_id: str) -> None:
        await settle_index_task(self.driver_for(group_id))
        await self._build_indexes(group_id)

    async def _build_indexes(self, group_id: str) -> None:
        """Graphiti's indexes (range before fulltext), then fr-graph's; each idempotent."""
        await self.driver_for(group_id).build_indices_and_constraints()
        for statement in cypher.load_statements("schema", self.dialect):
            text = self.bind_vector(
                statement.replace("{embedding_dim}", str(int(self.settings.embedding_dim))))
            try:
                await self.run_text("schema", text, group_id)
            except StoreError as exc:
                if "already indexed" not in str(exc) and "already exists" not in str(exc):
                    raise

    async def mend_fact_index_once(self, group_id: str) -> None:
        """Rebuild the group's fact index if FalkorDB loaded it broken; once per process.

        FalkorDB 4.22 loads an edge index from disk that no longer finds an edge when the
        edge's endpoints are labelled, which is how Graphiti searches and looks facts up:
        plain Graphiti found nothing after a restart. Checking costs two point queries; only
        a broken index is rebuilt.
        """
        if group_id in self._checked_fact_index:
            return
        async with self._mend_lock:
            if group_id in self._checked_fact_index:
                return
            token = _MENDING.set(True)  # the mend's own queries (Graphiti's DDL too)
            try:
                if group_id in await self._client.list_graphs():
                    for _ in range(_MEND_ATTEMPTS):
                        if not await self.fact_index_broken(group_id):
                            break
                        await self.rebuild_fact_index(group_id)
            finally:
                _MENDING.reset(token)
            self._checked_fact_index.add(group_id)

    async def fact_index_broken(self, group_id: str) -> bool:
        """Whether an indexed lookup of a fact between Entity nodes misses a fact a scan
        finds (the upstream bug; tests check it is still there)."""
        rows = await self.run("some_fact_uuid", group_id)
        if not rows or rows[0]["uuid"] is None:
            return False
        found = await self.run("fact_index_lookup", group_id, uuid=rows[0]["uuid"])
        return int(found[0]["found"]) == 0

    async def rebuild_fact_index(self, group_id: str) -> None:
        """Drop every field of the RELATES_TO index and build Graphiti's and fr-graph's
        anew (a field left behind keeps the broken index alive). The driver's background
        index build waits for this (its queries check the index first), so it cannot create
        fulltext fields before range ones, which breaks range lookups again."""
        for statement in cypher.load_statements("drop_fact_indexes", self.dialect):
            try:
                await self.run_text("drop_fact_indexes", self.bind_vector(statement), group_id)
            except StoreError as exc:
                if "Unable to drop index" not in str(exc):
                    raise
        await self._build_indexes(group_id)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _INDEX_BUILD_WAIT_S
        while loop.time() < deadline:
            rows = await self.run("fact_index_status", group_id)
            if all(r["status"] == "OPERATIONAL" for r in rows):
                return
            await asyncio.sleep(0.05)
        raise StoreError(f"group {group_id!r}: the rebuilt fact index was not ready within "
                         f"{_INDEX_BUILD_WAIT_S:.0f} s", query="fact_index_status")

    async def run_text(self, name: str, text: str, group: str, /, **params: Any
                       ) -> list[dict[str, Any]]:
        token = _OWN_QUERY.set(True)  # see GroupGraphDriver.execute_query
        try:
            return await super().run_text(name, text, group, **params)
        finally:
            _OWN_QUERY.reset(token)

    async def has_group(self, group_id: str) -> bool:
        # Any query on a missing graph creates it empty, so ask before touching it.
        return group_id in await self._client.list_graphs()

    async def list_groups(self) -> list[str]:
        names = await self._client.list_graphs()
        return sorted(n for n in names if n not in _NOT_GROUPS)

    async def vector_candidate_rows(
        self, group_id: str, embedding: list[float], limit: int
    ) -> list[dict[str, Any]]:
        try:
            rows = await self.run("vector_candidates", group_id, embedding=embedding,
                                  limit=limit)
        except StoreError as exc:
            # The index answers "Invalid arguments" while it is (re)built after a load.
            if "Invalid arguments" not in str(exc) and "undefined attribute" not in str(exc):
                raise
            rows = await self.run("vector_candidates_exact", group_id, embedding=embedding,
                                  limit=limit)
        return rows

    async def fulltext_candidates(
        self, group_id: str, text: str, limit: int
    ) -> list[tuple[str, float]]:
        query = fulltext_query(fulltext_words(text))
        if not query:
            return []
        rows = await self.run("fulltext_candidates", group_id, query=query, limit=limit)
        return [(r["uuid"], float(r["score"])) for r in rows]

    async def drop_group(self, group_id: str) -> int:
        if not await self.has_group(group_id):
            return 0
        rows = await self.run("graph_node_count", group_id)
        # A driver builds its indexes in a background task, which would recreate the graph.
        await settle_index_task(self.driver_for(group_id))
        await self._client.select_graph(group_id).delete()
        self._schema_ready.discard(group_id)  # a later import rebuilds the indexes
        return int(rows[0]["nodes"])

    def _normalize_record(self, record: Any) -> dict[str, Any]:
        return dict(record)

    def _is_transient(self, exc: BaseException) -> bool:
        import redis

        return isinstance(exc, redis.ConnectionError | redis.TimeoutError)

    async def close(self) -> None:
        for driver in self._drivers.values():
            await settle_index_task(driver)
        self._drivers.clear()
        await settle_index_task(self.driver)
        if not self.borrowed:
            await self.driver.close()  # type: ignore[no-untyped-call]
        if self._embedded is not None:
            await self._embedded.close()

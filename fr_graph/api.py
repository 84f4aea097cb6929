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
from typing import TYPE_CHECKING, Any, Literal, Self, TypeVar

from fr_graph import cypher
from fr_graph._graphiti import (
    CrossEncoderClient,
    EmbedderClient,
    GraphDriver,
    Graphiti,
    LLMClient,
)
from fr_graph.classify.linking import LinkVerifier, OfflineVerifier
from fr_graph.classify.llm import LLMClassifier
from fr_graph.classify.llm_linking import LLMLinkVerifier
from fr_graph.classify.prose import Region
from fr_graph.clients import (
    LocalCrossEncoder,
    LocalEmbedder,
    build_graph_embedder,
    build_llm_client,
    describe_embedder,
)
from fr_graph.config import Settings
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.rerank import FULL, UNTYPED, RerankConfig
from fr_graph.errors import (
    ConfigError,
    FrGraphError,
    ImportValidationError,
    InputError,
    NotFoundError,
)
from fr_graph.pipeline.backfill import BackfillReport, backfill_groups
from fr_graph.pipeline.control import ForgetReport, PurgeReport, RecategorizeReport
from fr_graph.pipeline.episodes import ingest_message_with_llm
from fr_graph.pipeline.explain import Explanation, FactLink, explain_fact
from fr_graph.pipeline.ingest import (
    ImportReport,
    Ingestor,
    Provenance,
    episode_uuid_of,
    extract_from_message,
    message_id,
)
from fr_graph.pipeline.maintain import MaintenanceReport, RetentionChange, maintain_group
from fr_graph.pipeline.memory_view import (
    MemoryItem,
    MessageTrace,
    PastedRegion,
    context_from_hits,
    memory_items,
)
from fr_graph.pipeline.policy_view import PolicyView, policy_view
from fr_graph.pipeline.records import FactRecord, MessageRecord, read_file
from fr_graph.pipeline.search import ScoredFact, context_block, graphiti_search, search_facts

# Re-exported: it is what FrGraph.search_report returns, and callers import it from here.
from fr_graph.pipeline.search import SearchReport as SearchReport
from fr_graph.pipeline.user_queries import (
    USER_QUERY_FOLDER,
    UserQuery,
    bind_params,
    plain_value,
    user_queries,
    user_query,
)
from fr_graph.pipeline.vectors import FactEmbedders, check_embedder, fill_lifecycle_vectors
from fr_graph.stores.base import (
    GraphStore,
    Tracer,
    check_group_id,
    open_store,
    store_for_driver,
)

if TYPE_CHECKING:
    from fr_graph.core.invariants import IntegrityReport

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
    #: Facts given fr-graph's own vector back (only when the deployment's embedder is not
    #: the local one: Graphiti's re-save drops properties it does not know).
    vectors: int = 0


@dataclass(slots=True)
class FactView:
    """One fact as :meth:`FrGraph.fact` shows it."""

    group_id: str
    item: MemoryItem
    links: list[FactLink]


@dataclass(frozen=True, slots=True)
class BatchQuery:
    id: str
    group_id: str
    query: str
    now: datetime | None = None


class FrGraph:
    """fr-graph on one graph store. Open with ``async with`` or :meth:`open`."""

    def __init__(self, settings: Settings | None = None, *, tracer: Tracer | None = None,
                 driver: GraphDriver | None = None, embedder: EmbedderClient | None = None,
                 llm_client: LLMClient | None = None,
                 cross_encoder: CrossEncoderClient | None = None,
                 verifier: LinkVerifier | None = None):
        """``settings`` name the store and the clients to build. Clients given here are used
        instead (see :meth:`attach`): ``driver`` is the store (not closed by :meth:`close`),
        ``embedder`` the deployment's embedder, which Graphiti's vectors hold; ``verifier``
        decides links between facts (e.g. the offline one with other bands)."""
        self.settings = settings or Settings()
        self._verifier = verifier
        self._cross_encoder_verifier: LinkVerifier | None = None
        if embedder is not None and not isinstance(embedder, LocalEmbedder):
            self.settings = self.settings.model_copy(
                update={"embedder": describe_embedder(embedder)})
        self._tracer = tracer
        self._given_driver = driver
        self._given_embedder = embedder
        self._given_cross_encoder = cross_encoder
        self._store: GraphStore | None = None
        self._embedders: FactEmbedders | None = None
        self._graphiti: dict[str, Graphiti] = {}
        self._llm: LLMClient | None = llm_client
        self.policy = (PolicyTable.from_toml(self.settings.policy_file)
                       if self.settings.policy_file else PolicyTable.default())

    @classmethod
    def attach(cls, graphiti: Graphiti, settings: Settings | None = None, *,
               tracer: Tracer | None = None) -> FrGraph:
        """fr-graph on an existing Graphiti instance: its driver (the store), embedder, LLM
        and cross-encoder. Open it as usual; closing it leaves the driver open.

        Example:
            >>> async with FrGraph.attach(graphiti) as fr:                  # doctest: +SKIP
            ...     await fr.backfill()
        """
        return cls(settings, tracer=tracer, driver=graphiti.driver, embedder=graphiti.embedder,
                   llm_client=graphiti.llm_client, cross_encoder=graphiti.cross_encoder)

    async def open(self) -> Self:
        if self._store is None:
            store = (open_store(self.settings, self._tracer) if self._given_driver is None
                     else store_for_driver(self._given_driver, self.settings, self._tracer))
            try:
                await store.check_reachable()
                local = LocalEmbedder()
                graph = self._given_embedder or build_graph_embedder(self.settings.embedder,
                                                                     local)
                await check_embedder(store, self.settings.embedder)
            except FrGraphError:
                await store.close()
                raise
            self._embedders = FactEmbedders(local, graph, self.settings.embedder)
            self._store = store
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
        """fr-graph's own (local e5) embedder: its ranking and linking vectors."""
        return self.embedders.local

    @property
    def embedders(self) -> FactEmbedders:
        """The local embedder and the deployment's (which Graphiti's vectors hold)."""
        if self._embedders is None:
            raise RuntimeError("FrGraph is not open: use 'async with FrGraph(...)'")
        return self._embedders

    @property
    def llm_client(self) -> LLMClient:
        """fr-graph's own LLM client (classifier, distillation), built on first use."""
        if self._llm is None:
            self._llm = build_llm_client(self.settings.llm)
        return self._llm

    def classifier(self) -> LLMClassifier | None:
        """The LLM classifier when enabled and an LLM is configured; None means the rules."""
        return LLMClassifier(self.llm_client) if self.settings.use_llm_classifier else None

    def link_verifier(self) -> LinkVerifier:
        """What decides links between facts: the LLM when enabled and configured (falling
        back to the offline verifier per pair), else the shipped offline verifier (with the
        cross-encoder behind it when ``link_verifier`` says so); the one given to the
        constructor wins."""
        if self._verifier is not None:
            return self._verifier
        if self.settings.use_llm_link:
            return LLMLinkVerifier(self.llm_client)
        if self.settings.link_verifier == "cross-encoder":
            if self._cross_encoder_verifier is None:  # loads a 43 MB graph: once per FrGraph
                from fr_graph.classify.cross_encoder import CrossEncoderVerifier

                self._cross_encoder_verifier = CrossEncoderVerifier()
            return self._cross_encoder_verifier
        return OfflineVerifier()

    def graphiti(self, group_id: str) -> Graphiti:
        """A Graphiti client bound to the graph that holds ``group_id``, with the deployment's
        embedder (and the clients given to :meth:`attach`, else fr-graph's own)."""
        driver = self.store.driver_for(group_id)
        key = str(id(driver))
        if key not in self._graphiti:
            self._graphiti[key] = Graphiti(
                graph_driver=driver,
                llm_client=self._llm or build_llm_client(self.settings.llm),
                embedder=self.embedders.graph,
                cross_encoder=(self._given_cross_encoder
                               or LocalCrossEncoder(self.embedders.local)),
            )
        return self._graphiti[key]

    # -- import ----------------------------------------------------------------------

    async def import_file(self, path: str | Path, *, strict: bool = False,
                          progress: Progress | None = None,
                          on_total: Callable[[int], None] | None = None) -> ImportReport:
        """Import a JSONL file. Bad lines are reported (``strict``: nothing is written)."""
        path = Path(path)
        if not path.is_file():
            raise InputError(f"FILE {str(path)!r}: no such file")
        parsed, problems = read_file(path)
        if strict and problems:
            raise ImportValidationError(problems)
        return await self._import_parsed(parsed, problems, progress, on_total)

    async def add_records(self, records: Sequence[FactRecord | MessageRecord]
                          ) -> ImportReport:
        """Import validated records held in memory, as :meth:`import_file` imports a file's
        lines (messages: facts taken offline, or Graphiti's ``add_episode`` with an LLM)."""
        return await self._import_parsed(list(enumerate(records, start=1)), [])

    async def _import_parsed(self, parsed: Sequence[tuple[int, FactRecord | MessageRecord]],
                             problems: list[tuple[int, str]],
                             progress: Progress | None = None,
                             on_total: Callable[[int], None] | None = None) -> ImportReport:
        report = ImportReport(lines=len(parsed) + len(problems), rejected=problems)
        facts: list[FactRecord] = []
        messages: list[MessageRecord] = []
        offline: list[MessageRecord] = []
        provenance: dict[str, Provenance] = {}
        pasted: dict[str, list[Region]] = {}
        for line, record in parsed:
            if isinstance(record, MessageRecord):
                report.messages += 1
                if self.settings.llm.configured:
                    messages.append(record)  # Graphiti's add_episode, after the facts
                    continue
                try:
                    extracted = extract_from_message(record)
                except ValueError as exc:  # a derived record failed validation: name it
                    report.rejected.append(
                        (line, f"message {message_id(record)}: no facts could be taken: "
                               f"{str(exc).splitlines()[0]}"))
                    continue
                offline.append(record)
                pasted[extracted.message_id] = extracted.regions
                report.pasted_regions += len(extracted.regions)
                if record.role == "user" and not extracted.facts:
                    report.silent_messages.append((line, extracted.message_id))
                for taken in extracted.facts:
                    provenance[taken.record.id] = Provenance.of(record, taken.span)
                    facts.append(taken.record)
                report.facts_from_messages += len(extracted.facts)
            else:
                facts.append(record)
        report.rejected.sort()
        if on_total:
            on_total(len(facts) + len(messages))
        ingestor = self._ingestor()
        if offline:
            await ingestor.save_episodes(offline, pasted)
        await ingestor.ingest(facts, report, progress, provenance=provenance)
        if messages:
            await self.import_messages(messages, report=report, progress=progress)
        return report

    async def import_records(self, records: Sequence[FactRecord], *,
                             report: ImportReport | None = None,
                             progress: Progress | None = None) -> ImportReport:
        report = report or ImportReport(lines=len(records))
        await self._ingestor().ingest(records, report, progress)
        return report

    def _ingestor(self) -> Ingestor:
        return Ingestor(self.store, self.embedders, self.graphiti, self.policy,
                        classifier=self.classifier(), verifier=self.link_verifier())

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
        writer = self._ingestor()
        classifier = writer.classifier
        for message in sorted(messages, key=lambda m: m.observed_at):
            outcome = await ingest_message_with_llm(
                self.graphiti(message.group_id), self.store, message, writer.write_overlays,
                classifier=classifier)
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
        return (await self.search_report(query, group_id, now=now, limit=limit,
                                         policy=policy, config=config)).hits

    async def search_report(self, query: str, group_id: str, *, now: datetime | None = None,
                            limit: int = 10, policy: Policy = "full",
                            config: RerankConfig | None = None,
                            include_history: bool = False) -> SearchReport:
        """:meth:`search`, with what the lifecycle hid from the answer: how many candidates
        were masked, by their state, and (``include_history``) those facts themselves,
        best match first. Graphiti's own search (``off``) hides nothing."""
        now = _check_search(query, group_id, limit, policy, now)
        if not await self.store.has_group(group_id):
            return SearchReport([])
        if policy == "off":
            return SearchReport(await self._graphiti_search(query, group_id, limit))
        # Only the lifecycle-aware ranking is distilled; the untyped arm stays deterministic.
        distiller = self.llm_client if policy == "full" and self.settings.use_llm_distill else None
        return await search_facts(self.store, self.embedder, self.policy, query, group_id,
                                  now=now, limit=limit, config=_rerank_config(policy, config),
                                  distiller=distiller, include_history=include_history)

    async def _graphiti_search(self, query: str, group_id: str, limit: int
                               ) -> list[ScoredFact]:
        """Graphiti's own search (``policy="off"``) on the graph that holds ``group_id``."""
        return await graphiti_search(self.graphiti(group_id), self.store, self.embedders,
                                     query, group_id, limit)

    async def search_batch(self, queries: Sequence[BatchQuery], *, limit: int = 10,
                           policy: Policy = "full") -> list[tuple[str, list[ScoredFact]]]:
        return [(q.id, await self.search(q.query, q.group_id, now=q.now, limit=limit,
                                          policy=policy))
                for q in queries]

    # -- inspection --------------------------------------------------------------------

    async def context(self, query: str, group_id: str, *, now: datetime | None = None,
                      limit: int = 10, policy: Policy = "full") -> str:
        """The best ``limit`` facts for ``query`` as a category-grouped prompt block (App. B.4).

        Facts are data, not instructions: each is one bullet line under its category's
        section; superseded, retracted, ambiguous and emotionally loaded facts say so, and
        event times are shown relative to ``now``. Empty string when nothing matches.
        """
        now = _check_search(query, group_id, limit, policy, now)
        if not await self.store.has_group(group_id):
            return ""
        if policy == "off":
            return context_from_hits(await self._graphiti_search(query, group_id, limit),
                                     now=now)
        return await context_block(self.store, self.embedder, self.policy, query, group_id,
                                   now=now, limit=limit, config=_rerank_config(policy, None))

    async def explain(self, uuid: str, query: str, *, group_id: str | None = None,
                      now: datetime | None = None, policy: Policy = "full",
                      limit: int = 10) -> Explanation:
        """Why fact ``uuid`` ranks where it does for ``query`` (or why it is masked).

        The fact is scored with the same candidates search gathers; when retrieval did not
        find it, it is added to them (normalized against their cosine range, so the others
        score exactly as in search). ``group_id`` skips looking the fact up in every group.

        Raises:
            NotFoundError: no fact with that uuid (in ``group_id``, when given).
            InputError: bad arguments, or ``policy="off"`` (Graphiti's search has no terms).
        """
        if policy == "off":
            raise InputError("--policy off: explain needs fr-graph's ranking (full or "
                             "untyped); Graphiti's own search has no terms to explain")
        if not uuid.strip():
            raise InputError("UUID: must not be empty")
        if group_id is None:
            group_id = await self._locate(uuid)
        now = _check_search(query, group_id, limit, policy, now)
        if not await self.store.has_group(group_id):
            raise NotFoundError(f"fact {uuid}: group {group_id!r} does not exist")
        return await explain_fact(self.store, self.embedder, self.policy, uuid, query,
                                  group_id, now=now, policy_name=policy, limit=limit,
                                  config=_rerank_config(policy, None))

    async def _locate(self, uuid: str) -> str:
        """The group holding fact ``uuid`` (one query per distinct database or graph)."""
        asked: set[int] = set()
        for group in await self.store.list_groups():
            driver = self.store.driver_for(group)
            if id(driver) in asked:
                continue
            asked.add(id(driver))
            rows = await self.store.run("locate_fact", group, uuid=uuid)
            if rows and rows[0]["group_id"] is not None:
                return str(rows[0]["group_id"])
        raise NotFoundError(f"fact {uuid}: not found in any group")

    async def show(self, group_id: str, *, state: str | None = None,
                   category: str | None = None) -> list[MemoryItem]:
        """Every fact of ``group_id`` by category and lifecycle state (optionally one of each).

        Ordered by category (ontology order), state (lifecycle order), newest first; facts
        with no overlay come last as ``unannotated``.
        """
        check_group_id(group_id)
        if state is not None and state not in {s.value for s in LifecycleState}:
            raise InputError(f"--state {state!r}: use one of "
                             f"{', '.join(s.value for s in LifecycleState)}")
        if category is not None and category not in {c.value for c in Category}:
            raise InputError(f"--category {category!r}: use one of "
                             f"{', '.join(c.value for c in Category)}")
        if not await self.store.has_group(group_id):
            return []
        rows = await self.store.run("memory_listing", group_id, group_id=group_id,
                                    state=state, category=category)
        return memory_items(rows)

    async def fact(self, uuid: str, *, group_id: str | None = None) -> FactView:
        """One fact with its lifecycle and its supersession links, both ways.

        Raises:
            NotFoundError: no fact with that uuid (in ``group_id``, when given).
        """
        group = await self._fact_group(uuid, group_id)
        [item] = memory_items(await self.store.run("memory_item", group, uuid=uuid))
        links = [FactLink(**r) for r in await self.store.run("fact_links", group, uuid=uuid)]
        return FactView(group_id=group, item=item, links=links)

    async def show_message(self, group_id: str, message_id: str) -> MessageTrace:
        """What message ``message_id`` of ``group_id`` produced: its facts (in the order of
        the sentences they came from) and the episode that keeps its text."""
        check_group_id(group_id)
        if not message_id or not message_id.strip():
            raise InputError("--message: give a message id")
        episode = episode_uuid_of(group_id, message_id)
        if not await self.store.has_group(group_id):
            return MessageTrace(group_id, message_id, episode, None, [])
        rows = await self.store.run("message_facts", group_id, group_id=group_id,
                                    prefix=f"{message_id}#")
        items = sorted(memory_items(rows), key=lambda m: (m.source_span or [0])[0])
        stored = await self.store.run("message_episode", group_id, group_id=group_id,
                                      episode_uuid=episode)
        text = stored[0]["content"] if stored else None
        regions = [PastedRegion.parse(p) for p in (stored[0]["pasted_regions"] or [])
                   ] if stored else []
        return MessageTrace(group_id, message_id, episode, text, items, regions)

    def policy_table(self, group_id: str | None = None) -> PolicyTable:
        """The policy in force (``Settings.policy_file`` / ``FR_GRAPH_POLICY`` or the paper's
        defaults), with ``group_id``'s overrides applied when given. Needs no store."""
        return self.policy_view(group_id).table

    def policy_view(self, group_id: str | None = None) -> PolicyView:
        """:meth:`policy_table` plus where it came from and which group overrides applied
        (what ``fr-graph policy show`` prints). Needs no store."""
        if group_id is not None:
            check_group_id(group_id)
        source = str(self.settings.policy_file) if self.settings.policy_file else "defaults"
        return policy_view(self.policy, source, group_id)

    @staticmethod
    def user_queries() -> dict[str, UserQuery]:
        """The queries of ``cypher/queries/`` that :meth:`query` runs, by name."""
        return user_queries()

    async def query(self, name: str, group_id: str, /, **params: Any) -> list[dict[str, Any]]:
        """Run the user query ``name`` (a file of ``cypher/queries/``) on ``group_id``.

        Parameters are typed and defaulted by the query's header (see :meth:`user_queries`);
        values are always passed as Cypher parameters. ``time`` parameters take a datetime,
        an ISO-8601 string, ``now`` or an offset such as ``+7d``.

        Raises:
            QueryNotFoundError: no user query of that name.
            InputError: unknown, missing or ill-typed parameters.
        """
        spec = user_query(name)
        check_group_id(group_id)
        bound = bind_params(spec, params, datetime.now(UTC))
        if not await self.store.has_group(group_id):
            return []
        text = cypher.load(name, self.store.dialect, folder=USER_QUERY_FOLDER)
        rows = await self.store.run_text(name, text, group_id, group_id=group_id, **bound)
        return [{key: plain_value(value) for key, value in row.items()} for row in rows]

    # -- user control ------------------------------------------------------------------

    async def _fact_group(self, uuid: str, group_id: str | None) -> str:
        """``group_id`` validated, or the group holding fact ``uuid``."""
        if not uuid.strip():
            raise InputError("UUID: must not be empty")
        if group_id is not None:
            check_group_id(group_id)
            if not await self.store.has_group(group_id):
                raise NotFoundError(f"group {group_id!r}: no such group")
            return group_id
        return await self._locate(uuid)

    async def recategorize(self, uuid: str, category: str, *,
                           weights: dict[str, float] | None = None,
                           group_id: str | None = None, reason: str | None = None,
                           now: datetime | None = None) -> RecategorizeReport:
        """Set fact ``uuid``'s category (``weights``: the category mix, normalized), re-mirror
        it and record the request; the fact then ranks with the new category's policy.

        Raises:
            InputError: unknown category or bad weights.  NotFoundError: no such fact.
        """
        from fr_graph.pipeline.control import category_weights, recategorize

        category_weights(category, weights)  # bad input fails before any lookup
        group = await self._fact_group(uuid, group_id)
        return await recategorize(self.store, group, uuid, category, weights,
                                  now=now or datetime.now(UTC), reason=reason)

    async def forget(self, uuid: str | None = None, *, slot_key: str | None = None,
                     group_id: str | None = None, reason: str | None = None,
                     now: datetime | None = None) -> ForgetReport:
        """Retract fact ``uuid``, or every fact of ``slot_key`` in ``group_id``, on the user's
        request: kept, never deleted, excluded from current queries (``purge`` deletes).

        Raises:
            InputError: neither or both of ``uuid`` and ``slot_key``; ``slot_key`` without
                ``group_id``.  NotFoundError: no such fact, group or slot.
        """
        from fr_graph.pipeline.control import forget

        if (uuid is None) == (slot_key is None):
            raise InputError("forget: give a fact UUID or --slot KEY (not both)")
        when = now or datetime.now(UTC)
        if slot_key is not None:
            if group_id is None:
                raise InputError("--slot: needs --group")
            check_group_id(group_id)
            if not slot_key.strip():
                raise InputError("--slot: must not be empty")
            if not await self.store.has_group(group_id):
                raise NotFoundError(f"group {group_id!r}: no such group")
            return await forget(self.store, group_id, self.policy.for_group(group_id),
                                slot_key=slot_key, now=when, reason=reason)
        assert uuid is not None
        group = await self._fact_group(uuid, group_id)
        return await forget(self.store, group, self.policy.for_group(group), uuids=[uuid],
                            now=when, reason=reason)

    async def purge(self, uuid: str, *, group_id: str | None = None,
                    reason: str | None = None, now: datetime | None = None) -> PurgeReport:
        """Hard-delete fact ``uuid``: its relationship, embedding, overlay, chain links and
        index entries, and its text in Graphiti's summaries and episodes (or say where it
        could not) and in retention summaries (rebuilt without it). An audit record keeps
        ids, time and reason. Irreversible.

        Raises:
            NotFoundError: no such fact (in ``group_id``, when given).
        """
        from fr_graph.pipeline.control import purge_facts

        group = await self._fact_group(uuid, group_id)
        return await purge_facts(self.store, self.embedders, group, [uuid],
                                 now=now or datetime.now(UTC), reason=reason)

    async def purge_episode(self, episode_uuid: str, group_id: str, *,
                            reason: str | None = None, now: datetime | None = None
                            ) -> PurgeReport:
        """Hard-delete episode ``episode_uuid`` of ``group_id`` and every fact only it
        supports (each purged as :meth:`purge` does); an audit record keeps the ids, time
        and reason. Irreversible.

        Raises:
            NotFoundError: no such episode in the group.
        """
        from fr_graph.pipeline.control import purge_episode

        check_group_id(group_id)
        return await purge_episode(self.store, self.embedders, group_id, episode_uuid,
                                   now=now or datetime.now(UTC), reason=reason)

    async def purge_group(self, group_id: str, *, reason: str | None = None,
                          now: datetime | None = None) -> PurgeReport:
        """Hard-delete every node and relationship of ``group_id`` (the whole graph on
        FalkorDB); other groups are untouched. An audit record keeps the id, counts, time
        and reason. Irreversible.

        Raises:
            NotFoundError: no such group.
        """
        from fr_graph.pipeline.control import purge_group

        check_group_id(group_id)
        return await purge_group(self.store, group_id, now=now or datetime.now(UTC),
                                 reason=reason)

    async def audit_log(self, group_id: str | None = None) -> list[dict[str, Any]]:
        """The purge audit (ids, counts, time, reason; never content), oldest first."""
        from fr_graph.pipeline.control import audit_records

        if group_id is not None:
            check_group_id(group_id)
        return await audit_records(self.store, group_id)

    # -- end of user control -------------------------------------------------------------

    # -- maintenance -----------------------------------------------------------------

    async def groups(self, group_id: str | None = None) -> list[str]:
        if group_id is not None:
            return [check_group_id(group_id)]
        return await self.store.list_groups()

    async def backfill(self, group_id: str | None = None, progress: Progress | None = None,
                       on_total: Callable[[int], None] | None = None) -> BackfillReport:
        """Annotate every Graphiti fact with no overlay yet: classify, key, build supersession
        chains, read Graphiti's invalid_at / expired_at (resumable and idempotent)."""
        return await backfill_groups(self.store, await self.groups(group_id), self.policy,
                                     progress=progress, on_total=on_total,
                                     verifier=self.link_verifier(), local=self.embedder)

    async def sync(self, group_id: str | None = None) -> SyncReport:
        """Re-apply the ``fr_*`` mirror wherever it drifted from the canonical overlay, and
        give fr-graph's own vector back to facts Graphiti re-saved without it."""
        groups = await self.groups(group_id)
        repaired = vectors = 0
        for group in groups:
            while await self.store.has_group(group):
                rows = await self.store.run("repair_drift", group, group_id=group, limit=1000)
                repaired += len(rows)
                if len(rows) < 1000:
                    break
            if await self.store.has_group(group):
                vectors += await fill_lifecycle_vectors(self.store, group, self.embedder)
        return SyncReport(groups=len(groups), repaired=repaired, vectors=vectors)

    async def check(self, group_id: str) -> IntegrityReport:
        """Verify the invariants of ``group_id``'s lifecycle graph and report each violation
        with the uuids involved (see :mod:`fr_graph.core.invariants`): ``FR_SUPERSEDES``
        acyclic, one active head per slot, no ended fact left active, no link to a missing
        fact, every overlay with its edge, ``fr_*`` mirrors in sync. Writes nothing.

        Raises:
            InputError: a bad group id.
            NotFoundError: no such group (on Neo4j, where any group id may hold facts, an
                unknown group is checked and has none).
        """
        # Imported on use: networkx, which the checker runs on, loads for a check only.
        from fr_graph.pipeline.check import check_group

        check_group_id(group_id)
        if not await self.store.has_group(group_id):
            raise NotFoundError(f"group {group_id!r}: no such group")
        return await check_group(self.store, group_id)

    async def report(self, group_id: str, out_dir: str | Path, *,
                     now: datetime | None = None) -> Path:
        """Write ``group_id``'s report into ``out_dir``: one HTML page (``index.html``, the
        returned path) with PNG charts beside it: facts by category and state over time,
        transitions per month, each category's decay curve and half-life, upcoming
        expiries, the largest slot chains, the stage census with capacities, and the audit
        log. It opens offline (no script, nothing fetched). Reads only; the folder is written
        whole or not at all (an earlier report there is replaced).

        Raises:
            ConfigError: the ``report`` extra (matplotlib) is not installed.
            InputError: a bad group id, or ``out_dir`` cannot take the report.
            NotFoundError: no such group, or no annotated fact in it.
        """
        # Imported on use: the page module loads matplotlib (the report extra) to draw.
        from fr_graph.pipeline.report import gather_report
        from fr_graph.report_page import require_report_extra, write_report

        check_group_id(group_id)
        require_report_extra()
        data = await gather_report(self.store, group_id, self.policy.for_group(group_id),
                                   now or datetime.now(UTC))
        return await asyncio.to_thread(write_report, data, Path(out_dir))

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

    # -- retention --------------------------------------------------------------------
    # StageMem retention control (fr_graph.core.retention, fr_graph.pipeline.maintain).

    async def maintain(self, group_id: str | None = None, *, budget: int | None = None,
                       dry_run: bool = False, now: datetime | None = None
                       ) -> list[MaintenanceReport]:
        """Expire, reinforce and settle each group (one report per group; see
        :mod:`fr_graph.pipeline.maintain`). ``budget`` caps the live facts of every group
        on top of the policy's stage capacities; ``dry_run`` writes nothing.

        Raises:
            InputError: a bad group id or a negative budget.
        """
        if budget is not None and budget < 0:
            raise InputError(f"--budget {budget}: must be 0 or more")
        now = now or datetime.now(UTC)
        now = now.replace(tzinfo=UTC) if now.tzinfo is None else now
        return [await maintain_group(self.store, self.embedders, self.graphiti, group,
                                     self.policy.for_group(group), now=now, budget=budget,
                                     dry_run=dry_run)
                for group in await self.groups(group_id)]

    async def pin(self, uuid: str, *, group_id: str | None = None) -> RetentionChange:
        """Pin a fact: it keeps at least the pin strength and is never compressed, evicted
        or demoted by maintenance."""
        return await self._set_pinned(uuid, True, group_id)

    async def unpin(self, uuid: str, *, group_id: str | None = None) -> RetentionChange:
        """Undo :meth:`pin`; the fact's own strength applies again."""
        return await self._set_pinned(uuid, False, group_id)

    async def _set_pinned(self, uuid: str, pinned: bool, group_id: str | None
                          ) -> RetentionChange:
        group_id = await self._fact_group(uuid, group_id)
        rows = await self.store.run("set_pinned", group_id, edge_uuid=uuid, pinned=pinned)
        if not rows:
            raise NotFoundError(f"fact {uuid}: no overlay in group {group_id!r} (backfill it)")
        await self.store.run("apply_mirror", group_id, edge_uuids=[uuid])
        row = rows[0]
        return RetentionChange(uuid, group_id, bool(row["pinned"]), str(row["state"]),
                               str(row["stage"]), changed=True)

    async def restore(self, uuid: str, *, group_id: str | None = None,
                      reason: str = "reverted by the user (fr-graph restore)"
                      ) -> RetentionChange:
        """Undo an automatic lifecycle change of one fact: bring an archived fact back to
        the state it had before maintenance archived it, decided again in its slot (a newer
        value supersedes it, or it supersedes the older ones); otherwise undo the
        supersession, retraction, completion or contradiction links that act on it (the
        fact is active again; each link is kept as ``reverted`` with ``reason`` and is never
        made again; an active fact of its slot is kept beside it the same way). A fact the
        user forgot stays retracted. ``changed`` is False when there was nothing to undo;
        ``note`` says what else happened (see :func:`fr_graph.pipeline.control.restore`)."""
        from fr_graph.pipeline.control import restore

        group_id = await self._fact_group(uuid, group_id)
        return await restore(self.store, group_id, self.policy.for_group(group_id), uuid,
                             now=datetime.now(UTC), reason=reason)

    async def record_access(self, group_id: str, uuids: Sequence[str]) -> int:
        """Count one use of each fact (an answer relied on it); the next maintenance turns
        new accesses into strength growth. Returns how many facts were found."""
        check_group_id(group_id)
        if not uuids or not await self.store.has_group(group_id):
            return 0
        rows = await self.store.run("record_access", group_id, edge_uuids=list(uuids))
        if rows:
            found = sorted({r["edge_uuid"] for r in rows})
            await self.store.run("apply_mirror", group_id, edge_uuids=found)
            return len(found)
        return 0

    # -- end retention ----------------------------------------------------------------


def _rerank_config(policy: Policy, config: RerankConfig | None) -> RerankConfig:
    """The reranker switches for a ``full`` or ``untyped`` policy, unless overridden."""
    return config or (UNTYPED if policy == "untyped" else FULL)


def _check_search(query: str, group_id: str, limit: int, policy: str,
                  now: datetime | None) -> datetime:
    """Validate search-like arguments at the boundary; ``now`` made timezone-aware."""
    check_group_id(group_id)
    if not query.strip():
        raise InputError("QUERY: must not be empty")
    if limit < 1:
        raise InputError("--limit: must be at least 1")
    if policy not in POLICIES:
        raise InputError(f"--policy {policy!r}: use one of {', '.join(POLICIES)}")
    now = now or datetime.now(UTC)
    return now.replace(tzinfo=UTC) if now.tzinfo is None else now


class FrGraphSync:
    """A thin blocking facade over :class:`FrGraph` for scripts and notebooks: each public
    coroutine of :class:`FrGraph` is a method here with the same signature that blocks until
    it is done (``tests/unit/test_sync_facade.py`` checks that they stay mirrored).

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

    def policy_table(self, group_id: str | None = None) -> PolicyTable:
        return self.inner.policy_table(group_id)

    def policy_view(self, group_id: str | None = None) -> PolicyView:
        return self.inner.policy_view(group_id)

    def import_file(
        self,
        path: str | Path,
        *,
        strict: bool = False,
        progress: Progress | None = None,
        on_total: Callable[[int], None] | None = None,
    ) -> ImportReport:
        return self._call(
            self.inner.import_file(path, strict=strict, progress=progress, on_total=on_total)
        )

    def add_records(self, records: Sequence[FactRecord | MessageRecord]) -> ImportReport:
        return self._call(self.inner.add_records(records))

    def import_records(
        self,
        records: Sequence[FactRecord],
        *,
        report: ImportReport | None = None,
        progress: Progress | None = None,
    ) -> ImportReport:
        return self._call(self.inner.import_records(records, report=report, progress=progress))

    def import_messages(
        self,
        messages: Sequence[MessageRecord],
        *,
        report: ImportReport | None = None,
        progress: Progress | None = None,
    ) -> ImportReport:
        return self._call(self.inner.import_messages(messages, report=report, progress=progress))

    def search(
        self,
        query: str,
        group_id: str,
        *,
        now: datetime | None = None,
        limit: int = 10,
        policy: Policy = "full",
        config: RerankConfig | None = None,
    ) -> list[ScoredFact]:
        return self._call(
            self.inner.search(query, group_id, now=now, limit=limit, policy=policy, config=config)
        )

    def search_report(
        self,
        query: str,
        group_id: str,
        *,
        now: datetime | None = None,
        limit: int = 10,
        policy: Policy = "full",
        config: RerankConfig | None = None,
        include_history: bool = False,
    ) -> SearchReport:
        return self._call(
            self.inner.search_report(
                query,
                group_id,
                now=now,
                limit=limit,
                policy=policy,
                config=config,
                include_history=include_history,
            )
        )

    def search_batch(
        self, queries: Sequence[BatchQuery], *, limit: int = 10, policy: Policy = "full"
    ) -> list[tuple[str, list[ScoredFact]]]:
        return self._call(self.inner.search_batch(queries, limit=limit, policy=policy))

    def context(
        self,
        query: str,
        group_id: str,
        *,
        now: datetime | None = None,
        limit: int = 10,
        policy: Policy = "full",
    ) -> str:
        return self._call(self.inner.context(query, group_id, now=now, limit=limit, policy=policy))

    def explain(
        self,
        uuid: str,
        query: str,
        *,
        group_id: str | None = None,
        now: datetime | None = None,
        policy: Policy = "full",
        limit: int = 10,
    ) -> Explanation:
        return self._call(
            self.inner.explain(uuid, query, group_id=group_id, now=now, policy=policy, limit=limit)
        )

    def show(
        self, group_id: str, *, state: str | None = None, category: str | None = None
    ) -> list[MemoryItem]:
        return self._call(self.inner.show(group_id, state=state, category=category))

    def fact(self, uuid: str, *, group_id: str | None = None) -> FactView:
        return self._call(self.inner.fact(uuid, group_id=group_id))

    def show_message(self, group_id: str, message_id: str) -> MessageTrace:
        return self._call(self.inner.show_message(group_id, message_id))

    def query(self, name: str, group_id: str, /, **params: Any) -> list[dict[str, Any]]:
        return self._call(self.inner.query(name, group_id, **params))

    def recategorize(
        self,
        uuid: str,
        category: str,
        *,
        weights: dict[str, float] | None = None,
        group_id: str | None = None,
        reason: str | None = None,
        now: datetime | None = None,
    ) -> RecategorizeReport:
        return self._call(
            self.inner.recategorize(
                uuid, category, weights=weights, group_id=group_id, reason=reason, now=now
            )
        )

    def forget(
        self,
        uuid: str | None = None,
        *,
        slot_key: str | None = None,
        group_id: str | None = None,
        reason: str | None = None,
        now: datetime | None = None,
    ) -> ForgetReport:
        return self._call(
            self.inner.forget(uuid, slot_key=slot_key, group_id=group_id, reason=reason, now=now)
        )

    def purge(
        self,
        uuid: str,
        *,
        group_id: str | None = None,
        reason: str | None = None,
        now: datetime | None = None,
    ) -> PurgeReport:
        return self._call(self.inner.purge(uuid, group_id=group_id, reason=reason, now=now))

    def purge_episode(
        self,
        episode_uuid: str,
        group_id: str,
        *,
        reason: str | None = None,
        now: datetime | None = None,
    ) -> PurgeReport:
        return self._call(self.inner.purge_episode(episode_uuid, group_id, reason=reason, now=now))

    def purge_group(
        self, group_id: str, *, reason: str | None = None, now: datetime | None = None
    ) -> PurgeReport:
        return self._call(self.inner.purge_group(group_id, reason=reason, now=now))

    def audit_log(self, group_id: str | None = None) -> list[dict[str, Any]]:
        return self._call(self.inner.audit_log(group_id))

    def groups(self, group_id: str | None = None) -> list[str]:
        return self._call(self.inner.groups(group_id))

    def backfill(
        self,
        group_id: str | None = None,
        progress: Progress | None = None,
        on_total: Callable[[int], None] | None = None,
    ) -> BackfillReport:
        return self._call(self.inner.backfill(group_id, progress, on_total))

    def sync(self, group_id: str | None = None) -> SyncReport:
        return self._call(self.inner.sync(group_id))

    def check(self, group_id: str) -> IntegrityReport:
        return self._call(self.inner.check(group_id))

    def report(self, group_id: str, out_dir: str | Path, *,
               now: datetime | None = None) -> Path:
        return self._call(self.inner.report(group_id, out_dir, now=now))

    def stats(self, group_id: str | None = None) -> list[GroupStats]:
        return self._call(self.inner.stats(group_id))

    def maintain(
        self,
        group_id: str | None = None,
        *,
        budget: int | None = None,
        dry_run: bool = False,
        now: datetime | None = None,
    ) -> list[MaintenanceReport]:
        return self._call(self.inner.maintain(group_id, budget=budget, dry_run=dry_run, now=now))

    def pin(self, uuid: str, *, group_id: str | None = None) -> RetentionChange:
        return self._call(self.inner.pin(uuid, group_id=group_id))

    def unpin(self, uuid: str, *, group_id: str | None = None) -> RetentionChange:
        return self._call(self.inner.unpin(uuid, group_id=group_id))

    def restore(
        self,
        uuid: str,
        *,
        group_id: str | None = None,
        reason: str = "reverted by the user (fr-graph restore)",
    ) -> RetentionChange:
        return self._call(self.inner.restore(uuid, group_id=group_id, reason=reason))

    def record_access(self, group_id: str, uuids: Sequence[str]) -> int:
        return self._call(self.inner.record_access(group_id, uuids))

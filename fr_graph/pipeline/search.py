"""Search: one query from its analysis to its ranked results, and the steps it is made of.

:func:`search_facts` owns the path (as :mod:`fr_graph.pipeline.ingest` owns writes):
analyse the query, :func:`retrieve` its candidates, :func:`rank` them with the pure
reranker, optionally distil them with an LLM, and build the :class:`ScoredFact` results.
:func:`context_block` and :func:`fr_graph.pipeline.explain.explain_fact` reuse the same
steps, so the three rank a candidate set identically. :func:`graphiti_search` is the
``off`` policy: Graphiti's own hybrid search.

Candidates come from the relationship vector index (top 60, returned as full rows: Graphiti
fields, canonical overlay, exact cosine to the query), the fulltext index (top 20) and the
query's predicted categories (top 20 most recent); the last two are fetched as rows while
the vector query still runs, so a search waits for about one round trip.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import chain
from operator import itemgetter
from typing import Any, Final

import numpy as np

from fr_graph._graphiti import (
    EDGE_HYBRID_SEARCH_RRF,
    Graphiti,
    LLMClient,
    SearchConfig,
    SearchResults,
)
from fr_graph.clients import LocalEmbedder
from fr_graph.core.codes import CATEGORY_INDEX, N_CATEGORIES, STATE_CODE
from fr_graph.core.context import format_context
from fr_graph.core.intent import QueryAnalysis, analyze_query
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.rerank import (
    CandidateBatch,
    Ranked,
    RerankConfig,
    as_column,
    rerank,
    slot_groups,
)
from fr_graph.overlay import from_iso
from fr_graph.pipeline.distill import DEFAULT_KEEP, distill
from fr_graph.pipeline.memory_view import UNANNOTATED, context_fact
from fr_graph.pipeline.vectors import FactEmbedders
from fr_graph.stores.base import GraphStore

VECTOR_TOP = 60
FULLTEXT_TOP = 20
FORCED_TOP = 20


@dataclass(slots=True)
class ScoredFact:
    """One search result: the fact, its lifecycle fields, its score and the score's terms."""

    uuid: str
    fact: str
    score: float
    category: str | None
    categories: dict[str, float]
    state: str | None
    slot_key: str | None
    valid_at: datetime | None
    observed_at: datetime | None
    event_time: datetime | None
    source_id: str | None
    terms: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        def iso(value: datetime | None) -> str | None:
            return value.isoformat() if value else None

        return {
            "uuid": self.uuid, "fact": self.fact, "score": round(self.score, 6),
            "category": self.category, "categories": self.categories, "state": self.state,
            "slot_key": self.slot_key, "valid_at": iso(self.valid_at),
            "observed_at": iso(self.observed_at), "event_time": iso(self.event_time),
            "source_id": self.source_id,
            "terms": {k: round(v, 6) for k, v in self.terms.items()},
        }



@dataclass(slots=True)
class SearchReport:
    """A search's hits, and what the lifecycle hid from them.

    Attributes:
        hits: the ranked facts, best first.
        hidden: candidates the lifecycle masked (superseded, retracted, expired, ...), by
            state; they matched the query but are not current.
        history: with ``include_history``, those hidden facts, best match first (score: their
            cosine to the query).
    """

    hits: list[ScoredFact]
    hidden: dict[str, int] = field(default_factory=dict)
    history: list[ScoredFact] = field(default_factory=list)

def _as_datetime(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
    return None


@dataclass(slots=True)
class Candidates:
    """Rows for the merged candidate set, in a fixed order, plus per-source raw scores."""

    rows: list[dict[str, Any]]
    cosine: np.ndarray
    fulltext: np.ndarray
    forced: np.ndarray

    @property
    def semantic(self) -> np.ndarray:
        """Cosine normalized per source over the candidate set (App. D.5), in [0, 1].

        e5's cosines crowd into a narrow band (unrelated facts still score ~0.7), so raw
        cosine would let any decay or routing term swamp relevance; min-max over the
        candidates restores the spread. A lone candidate gets 1.
        """
        if self.cosine.size == 0:
            return self.cosine
        low, high = float(self.cosine.min()), float(self.cosine.max())
        if high - low < 1e-9:
            return np.ones_like(self.cosine)
        return (self.cosine - low) / (high - low)


def _empty() -> Candidates:
    return Candidates([], np.zeros(0), np.zeros(0), np.zeros(0, dtype=bool))


async def gather_candidates(store: GraphStore, embedder: LocalEmbedder, group_id: str,
                            query: str, analysis: QueryAnalysis | None = None) -> Candidates:
    query_vec = embedder.embed_query(query).tolist()

    async def category_forced() -> list[dict[str, Any]]:
        if analysis is None or not analysis.predicted_categories:
            return []
        return await store.run("forced_candidates", group_id, group_id=group_id,
                               limit=FORCED_TOP,
                               categories=[str(c) for c in analysis.predicted_categories])

    async def keyword_and_forced() -> tuple[list[tuple[str, float]], list[str],
                                            list[dict[str, Any]]]:
        """Fulltext and category-forced hits with their rows, fetched while the (slower)
        vector query runs; rows the vector query also returns are fetched twice, cheaply."""
        text_hits, forced_rows = await asyncio.gather(
            store.fulltext_candidates(group_id, query, FULLTEXT_TOP), category_forced())
        forced_uuids = [r["uuid"] for r in forced_rows]
        uuids = list(dict.fromkeys([u for u, _ in text_hits] + forced_uuids))
        rows = await store.run("fetch_facts", group_id, group_id=group_id, edge_uuids=uuids,
                               embedding=query_vec) if uuids else []
        return text_hits, forced_uuids, rows

    # Independent retrievals run concurrently; the vector query returns full rows itself.
    found, (text_hits, forced_uuids, other_rows) = await asyncio.gather(
        store.vector_candidate_rows(group_id, query_vec, VECTOR_TOP), keyword_and_forced())
    vector_rows = sorted(found, key=lambda row: -row["score"])  # stable: ties keep store order
    by_uuid = {r["uuid"]: r for r in other_rows} | {r["uuid"]: r for r in vector_rows}
    seen = {r["uuid"] for r in vector_rows} | {u for u, _ in text_hits}
    forced_only: set[str] = set(forced_uuids) - seen
    order = dict.fromkeys([r["uuid"] for r in vector_rows] + [u for u, _ in text_hits]
                          + sorted(forced_only))
    rows = [by_uuid[u] for u in order if u in by_uuid]  # a hit deleted meanwhile drops out
    if not rows:
        return _empty()
    # Exact cosine for every candidate (fulltext-only hits included), computed in the store.
    cosine = np.array([r["semantic"] if r["semantic"] is not None else 0.0 for r in rows],
                      dtype=np.float64)
    # Per-source normalization (max-scaling) so BM25's unbounded scores land in [0, 1].
    raw_text = dict(text_hits)
    top = max(raw_text.values(), default=0.0)
    fulltext = np.array([raw_text.get(r["uuid"], 0.0) / top if top > 0 else 0.0 for r in rows])
    forced = np.array([r["uuid"] in forced_only for r in rows], dtype=bool)
    return Candidates(rows, np.clip(cosine, -1.0, 1.0), fulltext, forced)


_CATEGORY_COLUMN: Final = {category.value: column for category, column in CATEGORY_INDEX.items()}
_STATE_BY_NAME: Final = {state.value: code for state, code in STATE_CODE.items()}
_OTHER_ONLY: Final = ([Category.OTHER.value], [1.0])


def _category_column(name: str) -> int:
    column = _CATEGORY_COLUMN.get(name)
    return column if column is not None else CATEGORY_INDEX[Category(name)]  # raises if unknown


def _state_code(name: str) -> int:
    code = _STATE_BY_NAME.get(name)
    return code if code is not None else STATE_CODE[LifecycleState(name)]  # raises if unknown


def _epochs(values: list[str | None]) -> np.ndarray:
    """Epoch seconds of overlay timestamps (fixed-width UTC ISO), NaN for None; the present
    ones parsed in one numpy call (``datetime.strptime`` per value cost more than the whole
    reranker)."""
    present = [v.removesuffix("Z") for v in values if v is not None]
    if not present:
        return np.full(len(values), np.nan)
    moments = np.array(present, dtype="datetime64[s]")
    parsed = moments.astype(np.float64)
    parsed[np.isnat(moments)] = np.nan
    if len(present) == len(values):
        return parsed
    seconds = np.full(len(values), np.nan)
    seconds[[i for i, v in enumerate(values) if v is not None]] = parsed
    return seconds


def _times(observed_at: Sequence[str | None], overlays: list[dict[str, Any]]) -> np.ndarray:
    """``(3, k)`` epoch seconds of the overlays' ``observed_at`` (given), ``event_time`` and
    ``valid_to`` (NaN where absent), parsed in one call; the last two are sparse, so only
    the present ones are gathered."""
    k = len(overlays)
    sparse = [(k + i, v) for i, o in enumerate(overlays)
              if (v := o.get("event_time")) is not None]
    sparse += [(2 * k + i, v) for i, o in enumerate(overlays)
               if (v := o.get("valid_to")) is not None]
    seconds = _epochs([*observed_at, *[v for _, v in sparse]])
    times = np.full((3, k), np.nan)
    times[0] = seconds[:k]
    if sparse:
        times.reshape(-1)[[i for i, _ in sparse]] = seconds[k:]
    return times


#: Overlay fields fr-graph writes on every fact (never null, so always present in the
#: store's ``properties(f)`` map), each read for the whole batch in one C-level pass; a
#: field some overlay lacks (written by an older schema, or no overlay at all) is read with
#: its default instead.
_ALWAYS: Final = ("categories", "category_weights", "state", "observed_at", "confidence",
                  "strength", "emotional_loading", "has_number", "world_knowledge",
                  "instruction_like", "ambiguous", "stage", "marker")
_DEFAULTS: Final[tuple[Any, ...]] = (None, None, "active", None, 0.5, 0.0, 0.0, False, False,
                                     False, False, None, None)
_READERS: Final = tuple(zip((itemgetter(name) for name in _ALWAYS), _ALWAYS, _DEFAULTS,
                            strict=True))


def _overlay_columns(overlays: list[dict[str, Any]]) -> list[list[Any]]:
    """The :data:`_ALWAYS` fields of every overlay, one list per field (the default where an
    overlay lacks one, as ``dict.get`` would give). One list per field, not one tuple per
    row: a batch of 1,000 rows allocates 13 objects, not 1,000, for the collector to scan."""
    columns = []
    for read, name, default in _READERS:
        try:
            columns.append(list(map(read, overlays)))
        except KeyError:
            columns.append([o.get(name, default) for o in overlays])
    return columns


def _category_weights(names: Sequence[Any], values: Sequence[Any]) -> np.ndarray:
    """Rows of soft membership from the overlays' parallel category lists, normalized.

    One scatter for the whole batch; a batch where some row's lists differ in length or
    repeat a name (never written by fr-graph) takes the per-row path, which keeps its exact
    semantics (``zip`` truncates, the last repeat wins)."""
    k = len(names)
    weights = np.zeros((k, N_CATEGORIES))
    if not (all(names) and all(values)):
        names = [n or _OTHER_ONLY[0] for n in names]
        values = [v or _OTHER_ONLY[1] for v in values]
    lengths = list(map(len, names))
    if lengths == list(map(len, values)):
        total = sum(lengths)
        try:
            columns = np.fromiter(map(_CATEGORY_COLUMN.__getitem__, chain.from_iterable(names)),
                                  dtype=np.intp, count=total)
        except (KeyError, TypeError):  # raises if unknown
            columns = np.array([_category_column(name) for name in chain.from_iterable(names)],
                               dtype=np.intp)
        starts = np.arange(0, k * N_CATEGORIES, N_CATEGORIES)
        if total == k:  # one category per row (every list holds at least one)
            cells: np.ndarray | None = starts + columns
        else:
            cells = np.repeat(starts, lengths) + columns
            if int(np.bincount(cells).max()) > 1:
                cells = None  # a row names a category twice
        if cells is not None:
            weights.reshape(-1)[cells] = np.fromiter(chain.from_iterable(values),
                                                     dtype=np.float64, count=total)
            weights /= weights.sum(axis=1, keepdims=True)
            return weights
    for i, (row_names, row_values) in enumerate(zip(names, values, strict=True)):
        for name, weight in zip(row_names, row_values, strict=False):
            weights[i, _category_column(name)] = weight
    weights /= weights.sum(axis=1, keepdims=True)
    return weights


def build_batch(candidates: Candidates) -> CandidateBatch:
    """The reranker's columnar input. Facts without an overlay (written by plain Graphiti
    and not yet backfilled) count as active, uncategorized (``other``) facts.

    The rows are trusted (they come from the store, written by fr-graph): each field is
    read once per row in a C-level pass (no per-row validation or parsing); the batch's
    construction checks every column at once, vectorized.
    """
    rows = candidates.rows
    k = len(rows)
    overlays: list[dict[str, Any]] = [row.get("overlay") or {} for row in rows]
    (names, values, states, observed_at, confidence, strength, emotional_loading,
     has_number, world_knowledge, instruction_like, ambiguous, stage,
     marker) = _overlay_columns(overlays)
    observed, event_time, valid_to = _times(observed_at, overlays)
    for i in np.isnan(observed).nonzero()[0].tolist():
        fallback = _as_datetime(rows[i].get("valid_at")) or _as_datetime(rows[i].get("created_at"))
        observed[i] = fallback.timestamp() if fallback else 0.0
    try:
        codes = [_STATE_BY_NAME[state] for state in states]
    except (KeyError, TypeError):
        codes = [_state_code(state) for state in states]  # raises if unknown
    # One conversion per dtype (rows of one array), not one per column.
    units = np.array((confidence, strength, emotional_loading), dtype=np.float64)
    flags = np.array((has_number, world_knowledge, instruction_like, ambiguous,
                      [value == "durable" for value in stage],
                      [value == "tentative" for value in marker]), dtype=np.bool_)
    return CandidateBatch.trusted(
        semantic=as_column("semantic", candidates.semantic, np.float64, k),
        fulltext=as_column("fulltext", candidates.fulltext, np.float64, k),
        forced=as_column("forced", candidates.forced, np.bool_, k),
        category_weights=_category_weights(names, values),
        state=np.array(codes, dtype=np.intp),
        observed_at=observed, event_time=event_time, valid_to=valid_to,
        confidence=units[0], strength=units[1], emotional_loading=units[2],
        has_number=flags[0], world_knowledge=flags[1], instruction_like=flags[2],
        ambiguous=flags[3], durable=flags[4], tentative=flags[5],
        slot_group=slot_groups([o.get("slot_key") for o in overlays]),
        **_contested(overlays),
    )


def _contested(overlays: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """The ``contested`` column when some candidate is contested (absent from overlays
    written before the field existed, and from most batches: then no column at all)."""
    values = [o.get("contested") or 0.0 for o in overlays]
    return {"contested": np.array(values, dtype=np.float64)} if any(values) else {}


_NO_OVERLAY: Final[dict[str, Any]] = {}


def to_scored(row: dict[str, Any], score: float, terms: dict[str, float]) -> ScoredFact:
    overlay = row.get("overlay") or _NO_OVERLAY
    get = overlay.get
    names = get("categories") or ()
    weights = get("category_weights") or ()
    return ScoredFact(  # positional, in field order: one search builds one per result
        row["uuid"], row["fact"], score, get("category"),
        {n: float(w) for n, w in zip(names, weights, strict=False)},
        get("state"), get("slot_key"), _as_datetime(row.get("valid_at")),
        from_iso(get("observed_at")), from_iso(get("event_time")), get("source_id"), terms,
    )


def scored_facts(candidates: Candidates, ranked: Ranked, picks: Sequence[int] | np.ndarray
                 ) -> list[ScoredFact]:
    """One :class:`ScoredFact` per picked row, in ``picks`` order: its final score and its
    named terms (``cosine`` first, then :attr:`Ranked.terms`).

    The terms of the picked rows are gathered in one numpy call and converted to Python
    floats at once (not one numpy scalar per term and row).
    """
    rows = np.asarray(picks, dtype=np.intp)
    if not rows.size:
        return []
    terms = ranked.terms
    names = ["cosine", *terms]
    table = np.array([candidates.cosine, *terms.values()], dtype=np.float64)
    values = table[:, rows].T.tolist()
    scores = ranked.scores[rows].tolist()
    return [to_scored(candidates.rows[i], score, dict(zip(names, row, strict=True)))
            for i, score, row in zip(rows.tolist(), scores, values, strict=True)]


# -- the search path ---------------------------------------------------------------------


async def retrieve(store: GraphStore, embedder: LocalEmbedder, group_id: str, query: str,
                   now: datetime, *, routed: bool = True) -> tuple[QueryAnalysis, Candidates]:
    """The query's analysis as of ``now`` and the candidates retrieved with it. Unrouted,
    the category-forced candidates are left out (routing off must not keep what routing
    brought in)."""
    analysis = analyze_query(query, now)
    return analysis, await gather_candidates(store, embedder, group_id, query,
                                             analysis if routed else None)


def rank(candidates: Candidates, analysis: QueryAnalysis, policy: PolicyTable, now: datetime,
         config: RerankConfig) -> Ranked:
    """The one reranking step search, context and explain share (``policy`` group-resolved)."""
    return rerank(build_batch(candidates), analysis, policy, now.timestamp(), config)


def rank_each(candidates: Candidates, analysis: QueryAnalysis, policy: PolicyTable,
              now: datetime, configs: Mapping[str, RerankConfig]) -> dict[str, Ranked]:
    """:func:`rank` under each named configuration, the candidates batched once."""
    batch = build_batch(candidates)
    return {name: rerank(batch, analysis, policy, now.timestamp(), config)
            for name, config in configs.items()}


async def search_facts(store: GraphStore, embedder: LocalEmbedder, policy: PolicyTable,
                       query: str, group_id: str, *, now: datetime, limit: int,
                       config: RerankConfig, distiller: LLMClient | None = None,
                       include_history: bool = False) -> SearchReport:
    """The best ``limit`` facts of ``group_id`` for ``query`` as of ``now``, and what the
    lifecycle masked among the candidates (with ``include_history``, those facts too).

    ``distiller``, when given, lets an LLM select from the whole ranked list first (App. Z
    step 5); a failing call keeps the list as ranked.
    """
    analysis, candidates = await retrieve(store, embedder, group_id, query, now)
    if not candidates.rows:
        return SearchReport([])
    ranked = rank(candidates, analysis, policy.for_group(group_id), now, config)
    by_cosine = np.argsort(-candidates.cosine, kind="stable")
    hidden_rows: list[int] = by_cosine[ranked.masked[by_cosine]].tolist()
    hidden = Counter(str((candidates.rows[i].get("overlay") or {}).get("state")
                         or UNANNOTATED) for i in hidden_rows)
    history: list[ScoredFact] = []
    if include_history:
        cosines = candidates.cosine[hidden_rows[:limit]].tolist()
        history = [to_scored(candidates.rows[i], cosine, {"cosine": cosine})
                   for i, cosine in zip(hidden_rows[:limit], cosines, strict=True)]
    hits = scored_facts(candidates, ranked,
                        ranked.order if distiller is not None else ranked.order[:limit])
    if distiller is not None:
        hits = await distill(distiller, query, now, hits, keep=max(DEFAULT_KEEP, limit))
        # Distillation only selects; the deterministic score still orders what it kept
        # (App. Z: distill, then lifecycle filters and blended scoring).
        hits.sort(key=lambda hit: -hit.score)
    return SearchReport(hits[:limit], dict(hidden), history)


async def context_block(store: GraphStore, embedder: LocalEmbedder, policy: PolicyTable,
                        query: str, group_id: str, *, now: datetime, limit: int,
                        config: RerankConfig) -> str:
    """The best ``limit`` facts for ``query`` as a category-grouped prompt block (App. B.4);
    empty when nothing matches. Built from the rows, which carry the ambiguity and
    emotional-loading labels that :class:`ScoredFact` does not."""
    analysis, candidates = await retrieve(store, embedder, group_id, query, now)
    if not candidates.rows:
        return ""
    ranked = rank(candidates, analysis, policy.for_group(group_id), now, config)
    return format_context([context_fact(candidates.rows[i]) for i in ranked.order[:limit]],
                          now=now)


async def graphiti_edges(graphiti: Graphiti, embedders: FactEmbedders, recipe: SearchConfig,
                         query: str, group_id: str, limit: int) -> SearchResults:
    """Graphiti's own ``search_`` with an unchanged copy of ``recipe`` limited to ``limit``,
    given the query's vector in the graph's embedding space: e5's query form when the graph
    holds fr-graph's vectors (Graphiti would embed the query as a passage), else the
    deployment embedder's."""
    recipe = recipe.model_copy(deep=True)  # Graphiti mutates its recipes
    recipe.limit = limit
    vector = (embedders.local.embed_query(query).tolist() if embedders.shared
              else await embedders.graph.create(query))
    return await graphiti.search_(query, config=recipe, group_ids=[group_id],
                                  query_vector=vector)


async def graphiti_search(graphiti: Graphiti, store: GraphStore, embedders: FactEmbedders,
                          query: str, group_id: str, limit: int) -> list[ScoredFact]:
    """Graphiti's own hybrid search (EDGE_HYBRID_SEARCH_RRF, :func:`graphiti_edges`) as
    scored facts."""
    found = await graphiti_edges(graphiti, embedders, EDGE_HYBRID_SEARCH_RRF, query,
                                 group_id, limit)
    if not found.edges:
        return []
    vector = embedders.local.embed_query(query).tolist()
    rows = await store.run("fetch_facts", group_id, group_id=group_id,
                           edge_uuids=[e.uuid for e in found.edges], embedding=vector)
    by_uuid = {r["uuid"]: r for r in rows}
    scores = found.edge_reranker_scores or [0.0] * len(found.edges)
    return [to_scored(by_uuid[e.uuid], float(score), {"graphiti_rrf": float(score)})
            for e, score in zip(found.edges, scores, strict=False) if e.uuid in by_uuid]

"""The systems the benchmark compares, all answering from the same graph at the same time.

fr-graph (on each metadata source, gold and inferred):

* ``full`` and ``untyped`` and the ablations of ``full`` (:data:`ABLATION_SYSTEMS`): one
  candidate retrieval per question, reranked with each configuration in Python. ``no_routing``
  retrieves again without the category-forced candidates (routing off must not keep the
  candidates routing brought in).

Peers (metadata-free rankings; their graph is the same one):

* ``off``: Graphiti's own hybrid search (``search_`` with ``EDGE_HYBRID_SEARCH_RRF``).
* ``off_rerank``: Graphiti's hybrid search with its cross-encoder recipe
  (``EDGE_HYBRID_SEARCH_CROSS_ENCODER``: BM25, cosine and breadth-first candidates, reranked
  by the cross-encoder Graphiti was built with; offline that is fr-graph's local one, which
  scores each candidate by its e5 cosine to the query: no reranker model ships offline).
* ``graphiti_valid``: the same search asked for :data:`VALID_POOL` results, edges with
  Graphiti's ``invalid_at`` set dropped, top 10 kept. fr-graph writes ``invalid_at`` on hard
  supersession, retraction and completion, so this peer benefits from fr-graph's transitions
  (and from the metadata source that drove them): it runs on both sources.
* ``flat``: a Mem0-style flat store: exact cosine over every fact of the group, no lifecycle.

Every Graphiti arm is given the query vector fr-graph's own search uses (e5's query form;
Graphiti alone would embed the question as a passage).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Final

from fr_graph._graphiti import EDGE_HYBRID_SEARCH_CROSS_ENCODER, EDGE_HYBRID_SEARCH_RRF
from fr_graph.core.intent import analyze_query
from fr_graph.core.rerank import ABLATIONS, RerankConfig, rerank
from fr_graph.overlay import stable_uuid
from fr_graph.pipeline.search import Candidates, build_batch, gather_candidates

if TYPE_CHECKING:
    from fr_graph.api import FrGraph

TOP: Final = 10
#: How many results ``graphiti_valid`` asks Graphiti for before dropping invalidated edges.
VALID_POOL: Final = 50

ABLATION_SYSTEMS: Final[tuple[str, ...]] = tuple(
    name for name in ABLATIONS if name not in ("full", "untyped"))
FR_SYSTEMS: Final[tuple[str, ...]] = ("full", "untyped")
PEER_SYSTEMS: Final[tuple[str, ...]] = ("off", "off_rerank", "graphiti_valid", "flat")


@dataclass(slots=True)
class GroupIds:
    """Maps a group's edge uuids back to the import records' ids (what the gold names)."""

    group_id: str
    by_uuid: dict[str, str]

    def add(self, fact_ids: list[str]) -> None:
        self.by_uuid.update({stable_uuid(self.group_id, "fact", i): i for i in fact_ids})

    def ids(self, uuids: list[str]) -> list[str]:
        return [self.by_uuid[u] for u in uuids if u in self.by_uuid]


def _ranked_ids(candidates: Candidates, order: list[int]) -> list[str]:
    rows = candidates.rows
    return [str((rows[i].get("overlay") or {}).get("source_id")) for i in order[:TOP]]


async def fr_graph_rankings(fr: FrGraph, group_id: str, query: str, now: datetime, *,
                            ablations: bool) -> dict[str, list[str]]:
    """``full``, ``untyped`` and (with ``ablations``) every ablation of ``full``."""
    analysis = analyze_query(query, now)
    policy = fr.policy.for_group(group_id)
    configs: dict[str, RerankConfig] = {name: ABLATIONS[name] for name in FR_SYSTEMS}
    if ablations:
        configs.update({name: ABLATIONS[name] for name in ABLATION_SYSTEMS
                        if name != "no_routing"})
    out: dict[str, list[str]] = {}
    candidates = await gather_candidates(fr.store, fr.embedder, group_id, query, analysis)
    batch = build_batch(candidates) if candidates.rows else None
    for name, config in configs.items():
        if batch is None:
            out[name] = []
            continue
        ranked = rerank(batch, analysis, policy, now.timestamp(), config)
        out[name] = _ranked_ids(candidates, [int(i) for i in ranked.order])
    if ablations:
        unrouted = await gather_candidates(fr.store, fr.embedder, group_id, query, None)
        if unrouted.rows:
            ranked = rerank(build_batch(unrouted), analysis, policy, now.timestamp(),
                            ABLATIONS["no_routing"])
            out["no_routing"] = _ranked_ids(unrouted, [int(i) for i in ranked.order])
        else:
            out["no_routing"] = []
    return out


async def graphiti_off(fr: FrGraph, group_id: str, query: str, now: datetime) -> list[str]:
    """Graphiti's own hybrid search, through ``FrGraph.search(policy="off")``."""
    hits = await fr.search(query, group_id, now=now, limit=TOP, policy="off")
    return [str(hit.source_id) for hit in hits]


async def graphiti_valid(fr: FrGraph, ids: GroupIds, query: str) -> list[str]:
    """Graphiti's hybrid search with invalidated edges (``invalid_at`` set) filtered out."""
    recipe = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)  # Graphiti mutates its recipes
    recipe.limit = VALID_POOL
    found = await fr.graphiti(ids.group_id).search_(
        query, config=recipe, group_ids=[ids.group_id],
        query_vector=fr.embedder.embed_query(query).tolist())
    return ids.ids([e.uuid for e in found.edges if e.invalid_at is None])[:TOP]


async def graphiti_reranked(fr: FrGraph, ids: GroupIds, query: str) -> list[str]:
    """Graphiti's hybrid search with its cross-encoder reranking recipe."""
    recipe = EDGE_HYBRID_SEARCH_CROSS_ENCODER.model_copy(deep=True)
    recipe.limit = TOP
    found = await fr.graphiti(ids.group_id).search_(
        query, config=recipe, group_ids=[ids.group_id],
        query_vector=fr.embedder.embed_query(query).tolist())
    return ids.ids([e.uuid for e in found.edges])[:TOP]


async def flat_cosine(fr: FrGraph, ids: GroupIds, query: str) -> list[str]:
    """Exact cosine over all of the group's facts: a flat memory with no lifecycle."""
    rows = await fr.store.run("vector_candidates_exact", ids.group_id, group_id=ids.group_id,
                              embedding=fr.embedder.embed_query(query).tolist(), limit=TOP)
    return ids.ids([str(r["uuid"]) for r in rows])

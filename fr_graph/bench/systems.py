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
from fr_graph.core.rerank import ABLATIONS, RerankConfig
from fr_graph.overlay import stable_uuid
from fr_graph.pipeline.search import (
    graphiti_edges,
    rank_each,
    retrieve,
    scored_facts,
)

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


async def _rankings(fr: FrGraph, group_id: str, query: str, now: datetime,
                    configs: dict[str, RerankConfig], *, routed: bool = True
                    ) -> dict[str, list[str]]:
    """The top :data:`TOP` record ids under each configuration, from one retrieval."""
    analysis, candidates = await retrieve(fr.store, fr.embedder, group_id, query, now,
                                          routed=routed)
    if not candidates.rows:
        return {name: [] for name in configs}
    ranked = rank_each(candidates, analysis, fr.policy.for_group(group_id), now, configs)
    return {name: [str(hit.source_id) for hit in scored_facts(candidates, result,
                                                              result.order[:TOP])]
            for name, result in ranked.items()}


async def fr_graph_rankings(fr: FrGraph, group_id: str, query: str, now: datetime, *,
                            ablations: bool) -> dict[str, list[str]]:
    """``full``, ``untyped`` and (with ``ablations``) every ablation of ``full``."""
    configs: dict[str, RerankConfig] = {name: ABLATIONS[name] for name in FR_SYSTEMS}
    if ablations:
        configs.update({name: ABLATIONS[name] for name in ABLATION_SYSTEMS
                        if name != "no_routing"})
    out = await _rankings(fr, group_id, query, now, configs)
    if ablations:
        out |= await _rankings(fr, group_id, query, now,
                               {"no_routing": ABLATIONS["no_routing"]}, routed=False)
    return out


async def graphiti_off(fr: FrGraph, group_id: str, query: str, now: datetime) -> list[str]:
    """Graphiti's own hybrid search, through ``FrGraph.search(policy="off")``."""
    hits = await fr.search(query, group_id, now=now, limit=TOP, policy="off")
    return [str(hit.source_id) for hit in hits]


async def graphiti_valid(fr: FrGraph, ids: GroupIds, query: str) -> list[str]:
    """Graphiti's hybrid search with invalidated edges (``invalid_at`` set) filtered out."""
    found = await graphiti_edges(fr.graphiti(ids.group_id), fr.embedders,
                                 EDGE_HYBRID_SEARCH_RRF, query, ids.group_id, VALID_POOL)
    return ids.ids([e.uuid for e in found.edges if e.invalid_at is None])[:TOP]


async def graphiti_reranked(fr: FrGraph, ids: GroupIds, query: str) -> list[str]:
    """Graphiti's hybrid search with its cross-encoder reranking recipe."""
    found = await graphiti_edges(fr.graphiti(ids.group_id), fr.embedders,
                                 EDGE_HYBRID_SEARCH_CROSS_ENCODER, query, ids.group_id, TOP)
    return ids.ids([e.uuid for e in found.edges])[:TOP]


async def flat_cosine(fr: FrGraph, ids: GroupIds, query: str) -> list[str]:
    """Exact cosine over all of the group's facts: a flat memory with no lifecycle."""
    rows = await fr.store.run("vector_candidates_exact", ids.group_id, group_id=ids.group_id,
                              embedding=fr.embedder.embed_query(query).tolist(), limit=TOP)
    return ids.ids([str(r["uuid"]) for r in rows])

"""Hybrid candidate retrieval (vector + fulltext + category-forced) for one query, and the
columnar batch the pure reranker scores.

Candidates come from the relationship vector index (top 60), the fulltext index (top 20)
and the query's predicted categories (top 20 most recent), then one more round trip fetches
their rows (Graphiti fields, canonical overlay, exact cosine to the query).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from fr_graph.clients import LocalEmbedder
from fr_graph.core.codes import CATEGORY_INDEX, N_CATEGORIES, STATE_CODE
from fr_graph.core.intent import QueryAnalysis
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.ontology import Category
from fr_graph.core.rerank import CandidateBatch, slot_groups
from fr_graph.overlay import from_iso
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
    query_vec = embedder.embed_query(query)
    vector_hits = await store.vector_candidates(group_id, query_vec.tolist(), VECTOR_TOP)
    text_hits = await store.fulltext_candidates(group_id, query, FULLTEXT_TOP)
    forced_only: set[str] = set()
    if analysis is not None and analysis.predicted_categories:
        forced_rows = await store.run(
            "forced_candidates", group_id, group_id=group_id, limit=FORCED_TOP,
            categories=[str(c) for c in analysis.predicted_categories])
        seen = {u for u, _ in vector_hits} | {u for u, _ in text_hits}
        forced_only = {r["uuid"] for r in forced_rows} - seen
    uuids = list(dict.fromkeys([u for u, _ in vector_hits] + [u for u, _ in text_hits]
                               + sorted(forced_only)))
    if not uuids:
        return _empty()
    rows = await store.run("fetch_facts", group_id, group_id=group_id, edge_uuids=uuids,
                           embedding=query_vec.tolist())
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


def _epoch(value: str | None) -> float:
    moment = from_iso(value)
    return moment.timestamp() if moment else float("nan")


def build_batch(candidates: Candidates) -> CandidateBatch:
    """The reranker's columnar input. Facts without an overlay (written by plain Graphiti
    and not yet backfilled) count as active, uncategorized (``other``) facts."""
    rows = candidates.rows
    k = len(rows)
    weights = np.zeros((k, N_CATEGORIES))
    state = np.empty(k, dtype=np.int8)
    observed, event, valid_to = np.empty(k), np.empty(k), np.empty(k)
    confidence, strength, emotion = np.empty(k), np.empty(k), np.empty(k)
    has_number = np.zeros(k, dtype=bool)
    durable = np.zeros(k, dtype=bool)
    world, instruction, ambiguous = (np.zeros(k, dtype=bool) for _ in range(3))
    slot_keys: list[str | None] = []
    for i, row in enumerate(rows):
        overlay = row.get("overlay") or {}
        names = overlay.get("categories") or [Category.OTHER.value]
        values = overlay.get("category_weights") or [1.0]
        for name, weight in zip(names, values, strict=False):
            weights[i, CATEGORY_INDEX[Category(name)]] = weight
        state[i] = STATE_CODE[LifecycleState(overlay.get("state", "active"))]
        seen_at = _epoch(overlay.get("observed_at"))
        if np.isnan(seen_at):
            fallback = _as_datetime(row.get("valid_at")) or _as_datetime(row.get("created_at"))
            seen_at = fallback.timestamp() if fallback else 0.0
        observed[i] = seen_at
        event[i] = _epoch(overlay.get("event_time"))
        valid_to[i] = _epoch(overlay.get("valid_to"))
        confidence[i] = overlay.get("confidence", 0.5)
        strength[i] = overlay.get("strength", 0.0)
        emotion[i] = overlay.get("emotional_loading", 0.0)
        has_number[i] = bool(overlay.get("has_number", False))
        world[i] = bool(overlay.get("world_knowledge", False))
        instruction[i] = bool(overlay.get("instruction_like", False))
        ambiguous[i] = bool(overlay.get("ambiguous", False))
        slot_keys.append(overlay.get("slot_key"))
        durable[i] = overlay.get("stage") == "durable"
    weights /= weights.sum(axis=1, keepdims=True)
    return CandidateBatch(
        semantic=candidates.semantic, fulltext=candidates.fulltext,
        forced=candidates.forced, category_weights=weights, state=state,
        observed_at=observed, event_time=event, valid_to=valid_to, confidence=confidence,
        strength=strength, has_number=has_number, world_knowledge=world,
        instruction_like=instruction, ambiguous=ambiguous, emotional_loading=emotion,
        slot_group=slot_groups(slot_keys), durable=durable,
    )


def to_scored(row: dict[str, Any], score: float, terms: dict[str, float]) -> ScoredFact:
    overlay = row.get("overlay") or {}
    names = overlay.get("categories") or []
    weights = overlay.get("category_weights") or []
    return ScoredFact(
        uuid=row["uuid"], fact=row["fact"], score=score,
        category=overlay.get("category"),
        categories={n: float(w) for n, w in zip(names, weights, strict=False)},
        state=overlay.get("state"), slot_key=overlay.get("slot_key"),
        valid_at=_as_datetime(row.get("valid_at")),
        observed_at=from_iso(overlay.get("observed_at")),
        event_time=from_iso(overlay.get("event_time")),
        source_id=overlay.get("source_id"), terms=terms,
    )

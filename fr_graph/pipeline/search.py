"""Hybrid candidate retrieval (vector + fulltext) and scoring of one query.

Candidates come from the relationship vector index and the fulltext index in two round
trips, then one more fetches their rows (Graphiti fields + canonical overlay). Scores are
computed in numpy over the whole candidate set; every result keeps its named terms.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from fr_graph.clients import LocalEmbedder
from fr_graph.overlay import from_iso
from fr_graph.stores.base import GraphStore

VECTOR_TOP = 60
FULLTEXT_TOP = 20


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
    semantic: np.ndarray
    fulltext: np.ndarray


async def gather_candidates(store: GraphStore, embedder: LocalEmbedder, group_id: str,
                            query: str) -> Candidates:
    query_vec = embedder.embed_query(query)
    vector_hits = await store.vector_candidates(group_id, query_vec.tolist(), VECTOR_TOP)
    text_hits = await store.fulltext_candidates(group_id, query, FULLTEXT_TOP)
    uuids = list(dict.fromkeys([u for u, _ in vector_hits] + [u for u, _ in text_hits]))
    if not uuids:
        return Candidates([], np.zeros(0), np.zeros(0))
    rows = await store.run("fetch_facts", group_id, group_id=group_id, edge_uuids=uuids)
    if not rows:
        return Candidates([], np.zeros(0), np.zeros(0))
    # Exact cosine for every candidate, fulltext-only hits included (one matrix product).
    embeddings = np.array([r["embedding"] or np.zeros(embedder.dim) for r in rows],
                          dtype=np.float32)
    norms = np.linalg.norm(embeddings, axis=1) * float(np.linalg.norm(query_vec))
    semantic = np.divide(embeddings @ query_vec, norms, out=np.zeros(len(rows), np.float32),
                         where=norms > 0).astype(np.float64)
    # Per-source normalization (max-scaling) so BM25's unbounded scores land in [0, 1].
    raw_text = dict(text_hits)
    top = max(raw_text.values(), default=0.0)
    fulltext = np.array([raw_text.get(r["uuid"], 0.0) / top if top > 0 else 0.0 for r in rows])
    return Candidates(rows, semantic, fulltext)


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

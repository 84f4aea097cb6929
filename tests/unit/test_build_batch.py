"""``build_batch`` (vectorized) against a straightforward per-row reference on random rows:
every column of the batch, and the reranker's scores, must be identical."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fr_graph.core.codes import CATEGORY_INDEX, N_CATEGORIES, STATE_CODE
from fr_graph.core.intent import analyze_query
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.rerank import FULL, UNTYPED, CandidateBatch, rerank, slot_groups
from fr_graph.overlay import ISO_FORMAT, from_iso
from fr_graph.pipeline.search import Candidates, build_batch

NOW = datetime(2025, 6, 1, tzinfo=UTC)
COLUMNS = ("semantic", "fulltext", "forced", "category_weights", "state", "observed_at",
           "event_time", "valid_to", "confidence", "strength", "has_number",
           "world_knowledge", "instruction_like", "ambiguous", "emotional_loading",
           "slot_group", "durable")


def reference_batch(candidates: Candidates) -> CandidateBatch:
    """The per-row construction build_batch replaced (strptime per timestamp)."""
    def epoch(value: str | None) -> float:
        moment = from_iso(value)
        return moment.timestamp() if moment else float("nan")

    rows = candidates.rows
    k = len(rows)
    weights = np.zeros((k, N_CATEGORIES))
    state = np.empty(k, dtype=np.int8)
    observed, event, valid_to = np.empty(k), np.empty(k), np.empty(k)
    confidence, strength, emotion = np.empty(k), np.empty(k), np.empty(k)
    flags = np.zeros((5, k), dtype=bool)
    slot_keys: list[str | None] = []
    for i, row in enumerate(rows):
        overlay = row.get("overlay") or {}
        names = overlay.get("categories") or [Category.OTHER.value]
        values = overlay.get("category_weights") or [1.0]
        for name, weight in zip(names, values, strict=False):
            weights[i, CATEGORY_INDEX[Category(name)]] = weight
        state[i] = STATE_CODE[LifecycleState(overlay.get("state", "active"))]
        seen_at = epoch(overlay.get("observed_at"))
        if np.isnan(seen_at):
            fallback = row.get("valid_at") or row.get("created_at")
            seen_at = fallback.timestamp() if fallback else 0.0
        observed[i] = seen_at
        event[i] = epoch(overlay.get("event_time"))
        valid_to[i] = epoch(overlay.get("valid_to"))
        confidence[i] = overlay.get("confidence", 0.5)
        strength[i] = overlay.get("strength", 0.0)
        emotion[i] = overlay.get("emotional_loading", 0.0)
        for j, name in enumerate(("has_number", "world_knowledge", "instruction_like",
                                  "ambiguous")):
            flags[j, i] = bool(overlay.get(name, False))
        slot_keys.append(overlay.get("slot_key"))
        flags[4, i] = overlay.get("stage") == "durable"
    weights /= weights.sum(axis=1, keepdims=True)
    return CandidateBatch(
        semantic=candidates.semantic, fulltext=candidates.fulltext,
        forced=candidates.forced, category_weights=weights, state=state,
        observed_at=observed, event_time=event, valid_to=valid_to, confidence=confidence,
        strength=strength, has_number=flags[0], world_knowledge=flags[1],
        instruction_like=flags[2], ambiguous=flags[3], emotional_loading=emotion,
        slot_group=slot_groups(slot_keys), durable=flags[4],
    )


moments = st.integers(-400 * 86400, 400 * 86400).map(
    lambda s: (NOW + timedelta(seconds=s)).strftime(ISO_FORMAT))
optional_moments = st.none() | moments
unit = st.floats(0.0, 1.0)


@st.composite
def overlays(draw: st.DrawFn) -> dict[str, Any] | None:
    if draw(st.booleans()) and draw(st.booleans()):
        return None  # a plain Graphiti fact, not yet backfilled
    names = draw(st.lists(st.sampled_from([c.value for c in Category]), min_size=1,
                          max_size=3, unique=True))
    overlay: dict[str, Any] = {
        "categories": names,
        "category_weights": draw(st.lists(st.floats(0.05, 1.0), min_size=len(names),
                                          max_size=len(names))),
        "state": draw(st.sampled_from([s.value for s in LifecycleState])),
        "observed_at": draw(optional_moments),
        "event_time": draw(optional_moments),
        "valid_to": draw(optional_moments),
        "confidence": draw(unit),
        "strength": draw(unit),
        "emotional_loading": draw(st.sampled_from([0.0, 0.0, 0.4])),
        "has_number": draw(st.booleans()),
        "world_knowledge": draw(st.booleans()),
        "instruction_like": draw(st.booleans()),
        "ambiguous": draw(st.booleans()),
        "slot_key": draw(st.none() | st.sampled_from(["a|rent|x", "a|city|x", "b|job|x"])),
        "stage": draw(st.sampled_from(["working", "durable"])),
    }
    # Older overlays may lack optional fields: drop some keys to hit the defaults.
    for key in draw(st.lists(st.sampled_from(["state", "confidence", "strength",
                                              "emotional_loading", "has_number",
                                              "slot_key", "stage"]), unique=True)):
        del overlay[key]
    return overlay


@st.composite
def candidate_sets(draw: st.DrawFn) -> Candidates:
    k = draw(st.integers(1, 40))
    rows = []
    for i in range(k):
        valid_at = draw(st.none() | moments.map(from_iso))
        rows.append({"uuid": f"u{i}", "fact": f"fact {i}", "valid_at": valid_at,
                     "created_at": NOW - timedelta(days=i), "overlay": draw(overlays())})
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return Candidates(rows, rng.uniform(-1.0, 1.0, k),
                      np.where(rng.random(k) < 0.3, rng.random(k), 0.0), rng.random(k) < 0.1)


@settings(max_examples=60, deadline=None)
@given(candidate_sets())
def test_build_batch_matches_the_per_row_reference(candidates: Candidates) -> None:
    fast, slow = build_batch(candidates), reference_batch(candidates)
    for name in COLUMNS:
        a, b = getattr(fast, name), getattr(slow, name)
        assert a.dtype == b.dtype, name
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), name
    policy = PolicyTable.default()
    for text in ("what is my rent now?", "where did I live before?"):
        query = analyze_query(text, NOW)
        for config in (FULL, UNTYPED, FULL.without("soft_supersession")):
            one = rerank(fast, query, policy, NOW.timestamp(), config)
            two = rerank(slow, query, policy, NOW.timestamp(), config)
            assert np.array_equal(one.scores, two.scores)
            assert np.array_equal(one.order, two.order)

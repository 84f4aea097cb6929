"""The search layer's fast paths agree with the slow ones they stand in for.

* query analysis on lowercased ASCII text with case-sensitive rules = the caseless rules on
  the text as typed; the per-text cache returns what an uncached analysis builds, and the
  relative-date window still follows ``now``;
* ``build_batch``'s one-scatter category weights = the per-row reference on irregular
  lists (repeats, unequal lengths, empty, none);
* ``CandidateBatch.trusted`` accepts what the validating constructor accepts and rejects
  what it rejects, with the same error;
* ``from_iso``'s ``fromisoformat`` path = ``strptime``.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fr_graph.core import intent
from fr_graph.core.codes import N_CATEGORIES
from fr_graph.core.intent import analyze_query
from fr_graph.core.rerank import CandidateBatch
from fr_graph.errors import InputError
from fr_graph.overlay import ISO_FORMAT, from_iso
from fr_graph.pipeline.search import Candidates, build_batch
from tests.search_golden import GOLDEN
from tests.unit.test_build_batch import reference_batch

NOW = datetime(2025, 6, 1, 15, 30, tzinfo=UTC)
TEXTS = [
    "What's coming up NEXT WEEK?", "Where did I Work before Ericsson?", "LIST all my hobbies",
    "How Much is my rent now?", "Did I cancel the Lisbon trip?", "what did i do last weekend",
    "Who is my Boss these days", "I used to play the Guitar", "How old is my Dog?",
    "Tell me about myself", "any Deadlines tomorrow?", "My OLD address", "the past Deadlines",
    "When did I stop climbing?", "Is my back pain due to running?", "€50 budget?",
    "İstanbul trip next week?", "Kelvin \u212a and \u017f", "what’s my favourite Café?",
    "Before Lisbon, where was home?", "   spaced    out   TODAY  ",
]


def _texts() -> list[str]:
    questions = json.loads(GOLDEN.read_text())["questions"]
    texts = [*TEXTS, *(q["text"] for q in questions)]
    return texts + [t.upper() for t in texts] + [t.title() for t in texts]


def _spans(pattern_hits: list[object]) -> list[object]:
    return [None if h is None else (h.span(), h.group(0).lower())  # type: ignore[attr-defined]
            for h in pattern_hits]


@pytest.mark.parametrize("text", _texts())
def test_cased_rules_on_lowercased_ascii_match_the_caseless_rules(text: str) -> None:
    normalized = " ".join(text.replace("’", "'").split())
    subject, rules = intent._rules_for(normalized)
    caseless = intent._CASELESS
    assert intent._intent_of(subject, rules) == intent._intent_of(normalized, caseless)
    assert intent._predicted(subject, rules) == intent._predicted(normalized, caseless)
    assert _spans([rules.broad.search(subject), rules.numeric.search(subject),
                   rules.window.search(subject)]) == _spans(
        [caseless.broad.search(normalized), caseless.numeric.search(normalized),
         caseless.window.search(normalized)])


def test_the_rules_have_no_uppercase_literal() -> None:
    """The cased twins match lowercased text: an uppercase literal would never match."""
    rules = intent._CASELESS
    patterns = [*(p for _, p in rules.intents), rules.current, rules.broad, rules.numeric,
                rules.window, *(p for _, _, p in rules.lexicon)]
    for pattern in patterns:
        literal = re.sub(r"\\.", "", pattern.pattern)  # escapes (\W, \b, \d) aside
        assert literal == literal.lower(), pattern.pattern
        assert pattern.flags & re.IGNORECASE


def _fields(analysis: intent.QueryAnalysis) -> dict[str, object]:
    out: dict[str, object] = {}
    for name in intent.QueryAnalysis.__slots__:
        value = getattr(analysis, name)
        out[name] = value.tolist() if isinstance(value, np.ndarray) else value
    out.pop("_routing_cache")
    return out


@pytest.mark.parametrize("text", _texts()[:40])
def test_cached_analysis_equals_an_uncached_one(text: str) -> None:
    cached = analyze_query(text, NOW)
    assert analyze_query(text, NOW) is cached or cached.event_window is not None
    fresh = intent._read.__wrapped__(text)[0]  # the rules, run again
    expected = intent.QueryAnalysis.for_intent(
        fresh.intent, text=text, categories=fresh.predicted_categories,
        numeric=fresh.numeric, aggregate=fresh.aggregate,
        event_window=intent.event_window(" ".join(text.replace("’", "'").split()), NOW),
        matched=fresh.matched)
    assert _fields(cached) == _fields(expected)


def test_the_cached_window_follows_now() -> None:
    later = NOW + timedelta(days=9)
    first = analyze_query("what's due next week?", NOW).event_window
    second = analyze_query("what's due next week?", later).event_window
    assert first == intent.event_window("next week", NOW)
    assert second == intent.event_window("next week", later) != first


def _columns(k: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    weights = rng.random((k, N_CATEGORIES))
    return {
        "semantic": rng.random(k), "fulltext": rng.random(k), "forced": rng.random(k) < 0.2,
        "category_weights": weights / weights.sum(axis=1, keepdims=True),
        "state": rng.integers(0, 3, k).astype(np.intp),
        "observed_at": 1.7e9 + rng.random(k) * 1e6, "event_time": np.full(k, np.nan),
        "valid_to": np.full(k, np.nan), "confidence": rng.random(k), "strength": rng.random(k),
        "has_number": rng.random(k) < 0.3, "world_knowledge": np.zeros(k, dtype=bool),
        "instruction_like": np.zeros(k, dtype=bool), "ambiguous": np.zeros(k, dtype=bool),
        "emotional_loading": np.zeros(k), "slot_group": np.full(k, -1, dtype=np.intp),
        "durable": rng.random(k) < 0.5, "tentative": np.zeros(k, dtype=bool),
    }


@pytest.mark.parametrize(("column", "value"), [
    ("confidence", 1.5), ("strength", -0.1), ("fulltext", np.nan),
    ("emotional_loading", 2.0), ("semantic", np.nan), ("category_weights", np.nan),
    ("category_weights", -1.0),
])
def test_trusted_batches_reject_what_validation_rejects(column: str, value: float) -> None:
    columns = _columns(6, np.random.default_rng(3))
    columns[column] = columns[column].copy()
    columns[column][2] = value
    with pytest.raises(InputError) as strict:
        CandidateBatch(**columns)
    with pytest.raises(InputError) as trusted:
        CandidateBatch.trusted(**columns)
    assert str(trusted.value) == str(strict.value)


def test_trusted_batches_equal_validated_ones() -> None:
    columns = _columns(30, np.random.default_rng(5))
    columns["semantic"] = columns["semantic"] * 2.0 - 1.0  # negative: the validating path
    for batch in (CandidateBatch.trusted(**columns), CandidateBatch.trusted(**_columns(
            30, np.random.default_rng(5)))):
        strict = CandidateBatch(**{name: getattr(batch, name) for name in columns})
        for name in (*columns, "event_rows", "number_rows", "forced_rows", "protected_rows",
                     "latest_observed", "earliest_event", "superseding"):
            a, b = np.asarray(getattr(batch, name)), np.asarray(getattr(strict, name))
            assert a.dtype == b.dtype, name
            assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), name
        assert batch.category_weights.flags.f_contiguous


@settings(max_examples=200, deadline=None)
@given(st.integers(-3_000_000_000, 4_000_000_000))
def test_from_iso_equals_strptime(seconds: int) -> None:
    text = (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=seconds)).strftime(ISO_FORMAT)
    expected = datetime.strptime(text, ISO_FORMAT).replace(tzinfo=UTC)
    parsed = from_iso(text)
    assert parsed == expected and parsed is not None
    assert parsed.tzinfo is expected.tzinfo and parsed.isoformat() == expected.isoformat()


@pytest.mark.parametrize("text", ["2024-7-27T16:03:03Z", "2024-07-27T16:03:60Z",
                                  "2024-02-30T00:00:00Z", "2024-07-27 16:03:03Z",
                                  "20240727T160303Z"])
def test_from_iso_other_forms_go_to_strptime(text: str) -> None:
    try:
        expected: object = datetime.strptime(text, ISO_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        with pytest.raises(ValueError):
            from_iso(text)
        return
    assert from_iso(text) == expected


def _candidates(overlays: list[dict[str, object] | None]) -> Candidates:
    rows = [{"uuid": f"u{i}", "fact": "f", "valid_at": None, "created_at": NOW,
             "overlay": overlay} for i, overlay in enumerate(overlays)]
    k = len(rows)
    return Candidates(rows, np.linspace(0.5, 0.9, k), np.zeros(k), np.zeros(k, dtype=bool))


@pytest.mark.parametrize("overlays", [
    [{"categories": ["health", "health"], "category_weights": [0.3, 0.7]}, {}],
    [{"categories": ["health", "hobbies"], "category_weights": [1.0]}, None],
    [{"categories": [], "category_weights": []}, {"categories": ["health"]}],
    [{"categories": ["health", "hobbies"], "category_weights": [0.25, 0.75]},
     {"categories": ["other"], "category_weights": [2]}, {"state": "superseded"}],
])
def test_irregular_category_lists_build_as_the_per_row_reference(
        overlays: list[dict[str, object] | None]) -> None:
    candidates = _candidates(overlays)
    fast, slow = build_batch(candidates), reference_batch(candidates)
    assert np.array_equal(fast.category_weights, slow.category_weights)
    assert np.array_equal(fast.state, slow.state)


def test_an_unknown_category_or_state_is_rejected() -> None:
    with pytest.raises(ValueError, match="not_a_category"):
        build_batch(_candidates([{"categories": ["not_a_category"],
                                  "category_weights": [1.0]}]))
    with pytest.raises(ValueError, match="not_a_state"):
        build_batch(_candidates([{"state": "not_a_state"}]))

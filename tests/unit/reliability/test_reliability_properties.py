"""Property and fuzz tests on the pure core and on date parsing: no exception escapes,
scores stay finite, and nothing retracted, superseded or expired ranks for current intent."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fr_graph.classify.dates import resolve_event_time
from fr_graph.core.intent import Intent, QueryAnalysis, analyze_query
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.rerank import FULL, rerank
from tests.unit.core.factory import NOW_S, Row, batch

POLICY = PolicyTable.default()
DATE_WORDS = ["next", "last", "this", "coming", "on", "in", "by", "until", "since", "ago",
              "tomorrow", "yesterday", "today", "tonight", "week", "weeks", "month", "months",
              "year", "days", "day", "monday", "friday", "sunday", "weekend", "january",
              "february", "feb", "march", "dec", "the", "of", "at", "every", "each", "noon",
              "30th", "31st", "29", "2025", "2025-02-30", "02/30/2025", "13/13/2013",
              "9999-12-31", "0001-01-01", "1e309", "-5", "2:61pm", "25:00", "half", "a",
              "couple", "fortnight", "eve", "christmas", "midnight", "q3", "'25"]
TEXT = st.lists(st.one_of(st.sampled_from(DATE_WORDS), st.integers(-10**12, 10**12).map(str),
                          st.text(max_size=6)), max_size=14).map(" ".join)
WHEN = st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9998, 12, 30),
                    timezones=st.sampled_from([None, UTC, timezone(timedelta(hours=-11)),
                                               timezone(timedelta(hours=14))]))


@settings(max_examples=400, deadline=None)
@given(TEXT, WHEN)
def test_date_resolution_never_raises_and_returns_aware_times(text: str, when: datetime
                                                              ) -> None:
    result = resolve_event_time(text.lower(), when)
    assert result is None or result.tzinfo is not None


@settings(max_examples=200, deadline=None)
@given(TEXT, WHEN)
def test_query_analysis_never_raises_on_date_like_text(text: str, when: datetime) -> None:
    analyze_query(text or "x", when if when.tzinfo else when.replace(tzinfo=UTC))



@st.composite
def history_rows(draw: st.DrawFn) -> Row:
    """Arbitrary candidates, heavy on what current intent must never show."""
    return Row(
        semantic=draw(st.floats(-1.0, 1.0)),
        fulltext=draw(st.floats(0.0, 1.0)),
        category=draw(st.sampled_from(list(Category))),
        state=draw(st.sampled_from(list(LifecycleState))),
        age_hours=draw(st.floats(0.0, 20 * 365 * 24)),
        event_in_hours=draw(st.one_of(st.none(), st.floats(-5000 * 24, 5000 * 24))),
        valid_to_in_hours=draw(st.one_of(st.none(), st.floats(-5000.0, 5000.0))),
        confidence=draw(st.floats(0.0, 1.0)),
        strength=draw(st.floats(0.0, 1.0)),
        has_number=draw(st.booleans()),
        emotional_loading=draw(st.floats(0.0, 1.0)),
        slot=draw(st.sampled_from([None, "s1", "s2", "s3"])),
    )


@settings(max_examples=300, deadline=None)
@given(st.lists(history_rows(), min_size=1, max_size=40), st.sampled_from(list(Intent)))
def test_scores_stay_finite_for_extreme_candidates(rows: list[Row], intent: Intent) -> None:
    result = rerank(batch(rows), QueryAnalysis.for_intent(intent), POLICY, NOW_S, FULL)
    live = ~result.masked
    assert np.isfinite(result.scores[live]).all()
    assert all(np.isfinite(values[live]).all() for values in result.terms.values())


@settings(max_examples=300, deadline=None)
@given(st.lists(history_rows(), min_size=1, max_size=40))
def test_current_intent_never_ranks_retracted_superseded_or_expired(rows: list[Row]) -> None:
    result = rerank(batch(rows), QueryAnalysis.for_intent(Intent.CURRENT), POLICY, NOW_S, FULL)
    buffer_hours = 14 * 24  # the date-expiry buffer of logistical facts (App. A)
    for index in result.order.tolist():
        row = rows[index]
        assert row.state is LifecycleState.ACTIVE, row
        assert row.valid_to_in_hours is None or row.valid_to_in_hours > 0, row
        if row.category is Category.LOGISTICAL and not row.has_number:
            assert row.event_in_hours is None or row.event_in_hours > -buffer_hours, row

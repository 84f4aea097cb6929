"""Query intent rules, state masks M_q (A.1/A.9) and the category prior rho(c|q)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fr_graph.core.codes import CATEGORY_INDEX, STATE_CODE
from fr_graph.core.intent import (
    INTENT_SPECS,
    EventDirection,
    Intent,
    QueryAnalysis,
    analyze_query,
    category_prior,
    event_window,
)
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.ontology import Category
from fr_graph.errors import InputError
from tests.unit.core.factory import NOW

S = LifecycleState


@pytest.mark.parametrize("text, intent", [
    ("Where do I live?", Intent.CURRENT),
    ("What is my favorite food these days?", Intent.CURRENT),
    ("Who is my current manager?", Intent.CURRENT),
    ("What city did I use to live in?", Intent.HISTORICAL),
    ("What did my rent use to be?", Intent.HISTORICAL),
    ("What did I eat before switching to sushi?", Intent.HISTORICAL),
    ("What did I change my diet from?", Intent.HISTORICAL),
    ("Where did I work previously?", Intent.HISTORICAL),
    ("What was my old address?", Intent.HISTORICAL),
    ("What plans did I cancel?", Intent.RETRACTION),
    ("Which trip did I call off?", Intent.RETRACTION),
    ("Did I scrap the kitchen renovation?", Intent.RETRACTION),
    ("What's coming up next week?", Intent.UPCOMING),
    ("When is my rent due?", Intent.UPCOMING),
    ("Do I have any deadlines?", Intent.UPCOMING),
    ("What appointments do I have tomorrow?", Intent.UPCOMING),
    ("What did I do last weekend?", Intent.PAST),
    ("Which appointments already passed?", Intent.PAST),
    ("Did I attend the conference two months ago?", Intent.PAST),
    ("List all my hobbies", Intent.BROAD),
    ("Tell me everything about my family", Intent.BROAD),
    ("Give me an overview of my projects", Intent.BROAD),
])
def test_intent_rules(text: str, intent: Intent) -> None:
    analysis = analyze_query(text, NOW)
    assert analysis.intent is intent
    spec = INTENT_SPECS[intent]
    assert analysis.allowed_states == spec.allowed
    assert analysis.backward_looking is spec.backward_looking
    if intent is not Intent.CURRENT:
        assert analysis.matched and analysis.matched[0].startswith(intent.value)


def test_due_to_is_not_a_deadline() -> None:
    assert analyze_query("Is my back pain due to running?", NOW).intent is Intent.CURRENT


def test_current_mask_admits_only_active() -> None:
    analysis = analyze_query("Where do I live?", NOW)
    assert analysis.allowed_states == {S.ACTIVE}
    assert list(analysis.state_reason) == [0 if s is S.ACTIVE else r
                                           for s, r in zip(S, analysis.state_reason,
                                                           strict=True)]
    assert analysis.hides_expired


def test_retraction_pattern_of_theorem_3_double_prime() -> None:
    """M_cur(retracted) = 0 and M_chg(retracted) = 1 (A.9)."""
    current = QueryAnalysis.for_intent(Intent.CURRENT)
    retraction = QueryAnalysis.for_intent(Intent.RETRACTION)
    code = STATE_CODE[S.RETRACTED]
    assert not current.state_mask[code] and retraction.state_mask[code]


def test_change_queries_prefer_the_old_value() -> None:
    """A.7.3: for 'what did I change from', superseded must outrank the current value."""
    historical = QueryAnalysis.for_intent(Intent.HISTORICAL)
    weight = historical.state_weight
    assert weight[STATE_CODE[S.SUPERSEDED]] > weight[STATE_CODE[S.ACTIVE]] > 0
    assert not historical.state_weight_is_flat
    assert QueryAnalysis.for_intent(Intent.CURRENT).state_weight_is_flat


def test_event_directions() -> None:
    assert INTENT_SPECS[Intent.UPCOMING].event_direction is EventDirection.FUTURE
    assert INTENT_SPECS[Intent.PAST].event_direction is EventDirection.PAST
    assert INTENT_SPECS[Intent.CURRENT].event_direction is EventDirection.ANY


@pytest.mark.parametrize("text, first", [
    ("How much is my rent?", Category.FINANCIAL),
    ("What hobbies do I have?", Category.HOBBIES),
    ("Who is my sister dating?", Category.RELATIONAL),
    ("What medication am I on?", Category.HEALTH),
    ("When is my flight?", Category.LOGISTICAL),
    ("What's my favorite cuisine?", Category.PREFERENCES),
    ("How is my thesis project going?", Category.PROJECTS),
    ("Where do I work?", Category.IDENTITY),
    ("Who is my employer?", Category.IDENTITY),
])
def test_category_prediction(text: str, first: Category) -> None:
    analysis = analyze_query(text, NOW)
    assert analysis.predicted_categories[0] is first
    assert analysis.rho.argmax() == CATEGORY_INDEX[first]


def test_upcoming_without_category_words_routes_to_event_categories() -> None:
    analysis = analyze_query("anything coming up soon?", NOW)
    assert analysis.predicted_categories == (Category.OBLIGATIONS, Category.LOGISTICAL)


def test_uniform_prior_when_nothing_predicted() -> None:
    analysis = analyze_query("hmm?", NOW)
    assert analysis.predicted_categories == ()
    assert analysis.rho_is_uniform
    assert np.allclose(analysis.rho, 1 / 11)


@given(st.lists(st.sampled_from(list(Category)), max_size=5, unique=True))
def test_prior_is_a_positive_distribution(predicted: list[Category]) -> None:
    rho = category_prior(predicted)
    assert rho.sum() == pytest.approx(1.0)
    assert (rho > 0).all()
    if predicted:
        assert rho.argmax() == CATEGORY_INDEX[predicted[0]]


@given(st.text(max_size=200))
def test_any_text_gets_a_valid_analysis(text: str) -> None:
    analysis = analyze_query(text, NOW)
    assert analysis.intent in Intent
    assert analysis.rho.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("text, numeric", [
    ("How much is my rent?", True),
    ("How many bass did Alex catch?", True),
    ("What is my budget for the trip?", True),
    ("Is it more than $900?", True),
    ("What's my favorite food?", False),
])
def test_numeric_queries(text: str, numeric: bool) -> None:
    assert analyze_query(text, NOW).numeric is numeric


def test_aggregate_flag_survives_a_more_specific_intent() -> None:
    analysis = analyze_query("List all my upcoming deadlines", NOW)
    assert analysis.intent is Intent.UPCOMING
    assert analysis.aggregate


def test_event_windows() -> None:
    day = NOW.replace(hour=0)
    one = timedelta(days=1)
    assert event_window("tomorrow", NOW) == ((day + one).timestamp(),
                                             (day + 2 * one).timestamp())
    monday = day - timedelta(days=NOW.weekday())
    assert event_window("next week", NOW) == ((monday + 7 * one).timestamp(),
                                              (monday + 14 * one).timestamp())
    start, end = event_window("last month", NOW) or (0.0, 0.0)
    assert datetime.fromtimestamp(start, UTC) == datetime(2025, 5, 1, tzinfo=UTC)
    assert datetime.fromtimestamp(end, UTC) == datetime(2025, 6, 1, tzinfo=UTC)
    start, end = event_window("this weekend", NOW) or (0.0, 0.0)
    assert datetime.fromtimestamp(start, UTC).weekday() == 5 and end - start == 2 * 86400
    assert event_window("next year", NOW) == (datetime(2026, 1, 1, tzinfo=UTC).timestamp(),
                                              datetime(2027, 1, 1, tzinfo=UTC).timestamp())
    assert event_window("what is my name", NOW) is None
    assert analyze_query("what's on yesterday?", NOW).event_window == (
        (day - one).timestamp(), day.timestamp())


def test_december_rolls_over() -> None:
    december = datetime(2025, 12, 10, tzinfo=UTC)
    start, end = event_window("next month", december) or (0.0, 0.0)
    assert datetime.fromtimestamp(start, UTC) == datetime(2026, 1, 1, tzinfo=UTC)
    assert datetime.fromtimestamp(end, UTC) == datetime(2026, 2, 1, tzinfo=UTC)


def test_naive_now_is_rejected() -> None:
    with pytest.raises(InputError):
        analyze_query("where do I live", datetime(2025, 1, 1))


def test_query_analysis_validates_its_vectors() -> None:
    base = QueryAnalysis.for_intent(Intent.CURRENT)
    with pytest.raises(InputError):
        QueryAnalysis(text="", intent=Intent.CURRENT, state_mask=base.state_mask,
                      state_weight=base.state_weight, rho=np.zeros(11))
    with pytest.raises(InputError):
        QueryAnalysis(text="", intent=Intent.CURRENT, state_mask=base.state_mask[:2],
                      state_weight=base.state_weight, rho=base.rho)
    one_hot = np.zeros(11)
    one_hot[0] = 1.0
    with pytest.raises(InputError, match="never exclude"):
        QueryAnalysis(text="", intent=Intent.CURRENT, state_mask=base.state_mask,
                      state_weight=base.state_weight, rho=one_hot)


def test_routing_factors_are_cached_per_strength() -> None:
    analysis = QueryAnalysis.for_intent(Intent.CURRENT, categories=[Category.HOBBIES])
    factors = analysis.routing_factors(0.25)
    assert factors is analysis.routing_factors(0.25)
    assert factors.argmax() == CATEGORY_INDEX[Category.HOBBIES]
    assert np.allclose(QueryAnalysis.for_intent(Intent.CURRENT).routing_factors(0.25), 1.0)


@pytest.mark.parametrize("text", [
    "Before Lisbon, where was home?", "Where did I work before Ericsson?",
    "What company did I leave to go to Canva?", "remind me who I was seeing before Noor",
    "which city did I leave for Berlin?", "What was my job before I joined Nestle?",
])
def test_before_a_named_value_is_historical(text: str) -> None:
    assert analyze_query(text, NOW).intent is Intent.HISTORICAL


@pytest.mark.parametrize("text", [
    "What do I need to do before my flight?", "Remind me what tea I like",
    "Before my trip, what should I pack?",
])
def test_before_an_event_or_a_plain_reminder_is_not_historical(text: str) -> None:
    assert analyze_query(text, NOW).intent is not Intent.HISTORICAL


def test_remind_me_alone_is_not_upcoming() -> None:
    assert analyze_query("Remind me what tea I like", NOW).intent is Intent.CURRENT
    assert analyze_query("Remind me to call mom tomorrow", NOW).intent is Intent.UPCOMING

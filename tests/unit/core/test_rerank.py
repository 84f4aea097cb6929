"""The deterministic reranker: witnesses from the paper, ablations, and properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fr_graph.core.codes import STATE_CODE, MaskReason
from fr_graph.core.decay import effective_rates
from fr_graph.core.intent import Intent, QueryAnalysis
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.rerank import (
    ABLATIONS,
    DENSE_PAIRS_MAX_ROWS,
    FULL,
    TERM_NAMES,
    UNTYPED,
    Arm,
    CandidateBatch,
    Ranked,
    RerankConfig,
    SlotRuns,
    rerank,
    slot_groups,
    state_names,
)
from fr_graph.errors import InputError
from tests.unit.core.factory import DAY, HOUR, NOW_S, Row, batch, weights_of

POLICY = PolicyTable.default()
S, C = LifecycleState, Category
CURRENT = QueryAnalysis.for_intent(Intent.CURRENT)


def ranked(rows: list[Row], query: QueryAnalysis = CURRENT, config: RerankConfig = FULL,
           now: float = NOW_S, policy: PolicyTable = POLICY) -> Ranked:
    return rerank(batch(rows, now), query, policy, now, config)


def order(result: Ranked) -> list[int]:
    return [int(i) for i in result.order]


def reasons(result: Ranked) -> list[MaskReason]:
    return [MaskReason(int(c)) for c in result.mask_code]


# -- witnesses from App. A.7 -----------------------------------------------------------------

def test_a71_category_decides_preservation_vs_suppression() -> None:
    """Same (sigma, age) tuples; Financial must keep the old fact, Logistical the new one."""
    def pair(category: Category) -> list[Row]:
        return [Row(category=category, semantic=0.99, age_hours=180 * 24),
                Row(category=category, semantic=0.92, age_hours=1)]

    financial, logistical = ranked(pair(C.FINANCIAL)), ranked(pair(C.LOGISTICAL))
    assert order(financial) == [0, 1]
    assert order(logistical) == [1, 0]


def test_a73_state_mask_serves_current_and_change_queries() -> None:
    rows = [Row(semantic=0.95, age_hours=30 * 24, state=S.SUPERSEDED, slot="u|food"),
            Row(semantic=0.95, age_hours=24, slot="u|food")]
    current = ranked(rows)
    assert order(current) == [1] and reasons(current)[0] is MaskReason.STATE_SUPERSEDED
    change = ranked(rows, QueryAnalysis.for_intent(Intent.HISTORICAL))
    assert order(change) == [0, 1]


def test_a74_event_time_decides_upcoming_vs_past() -> None:
    rows = [Row(category=C.OBLIGATIONS, semantic=0.92, event_in_hours=48),
            Row(category=C.OBLIGATIONS, semantic=0.92, event_in_hours=-30 * 24)]
    upcoming = ranked(rows, QueryAnalysis.for_intent(Intent.UPCOMING))
    assert order(upcoming) == [0] and reasons(upcoming)[1] is MaskReason.DATE_EXPIRED
    recent = [rows[0], Row(category=C.OBLIGATIONS, semantic=0.92, event_in_hours=-3 * 24)]
    assert reasons(ranked(recent, QueryAnalysis.for_intent(Intent.UPCOMING)))[1] is \
        MaskReason.PAST_EVENT
    past = ranked(rows, QueryAnalysis.for_intent(Intent.PAST))
    assert order(past) == [1] and reasons(past)[0] is MaskReason.FUTURE_EVENT
    current = ranked(rows)
    assert order(current) == [0] and reasons(current)[1] is MaskReason.DATE_EXPIRED


def test_anticipatory_activation_rises_as_the_deadline_nears() -> None:
    rows = [Row(category=C.OBLIGATIONS, age_hours=90 * 24, event_in_hours=h)
            for h in (24 * 60, 24 * 14, 24 * 2, 1)]
    activation = ranked(rows).terms["activation"]
    assert np.all(np.diff(activation) > 0)
    assert activation[-1] > 0.99  # an old fact, yet fully active: age does not govern it


def test_retraction_is_masked_for_current_and_answers_retraction_queries() -> None:
    rows = [Row(semantic=0.9, state=S.RETRACTED), Row(semantic=0.7)]
    current = ranked(rows)
    assert order(current) == [1] and reasons(current)[0] is MaskReason.STATE_RETRACTED
    assert ranked(rows, QueryAnalysis.for_intent(Intent.RETRACTION)).order[0] == 0


# -- event time ------------------------------------------------------------------------------

def test_date_expiry_has_a_14_day_buffer() -> None:
    rows = [Row(category=C.LOGISTICAL, event_in_hours=-13 * 24),
            Row(category=C.LOGISTICAL, event_in_hours=-15 * 24),
            Row(category=C.PREFERENCES, event_in_hours=-90 * 24),
            Row(category=C.LOGISTICAL, event_in_hours=-90 * 24, has_number=True)]
    result = ranked(rows)
    assert reasons(result) == [MaskReason.NONE, MaskReason.DATE_EXPIRED, MaskReason.NONE,
                               MaskReason.NONE]
    assert result.terms["validity"][0] < 1e-6  # inside the buffer, but collapsed by V


def test_backward_looking_queries_bypass_expiry_and_kernel() -> None:
    rows = [Row(category=C.LOGISTICAL, event_in_hours=-40 * 24)]
    result = ranked(rows, QueryAnalysis.for_intent(Intent.HISTORICAL))
    assert order(result) == [0]
    assert result.terms["validity"][0] == 1.0 and result.terms["event_weight"][0] == 0.0


def test_valid_to_closes_facts() -> None:
    rows = [Row(valid_to_in_hours=-1), Row(valid_to_in_hours=5)]
    assert reasons(ranked(rows)) == [MaskReason.VALID_TO_PASSED, MaskReason.NONE]
    historical = ranked(rows, QueryAnalysis.for_intent(Intent.HISTORICAL))
    assert order(historical) == [0, 1]  # a closed fact is history: the answer to "before"
    assert historical.terms["state_weight"].tolist() == [1.0, 0.6]


def test_valid_to_only_closes_active_facts() -> None:
    rows = [Row(state=S.RETRACTED, valid_to_in_hours=-5)]
    assert order(ranked(rows, QueryAnalysis.for_intent(Intent.RETRACTION))) == [0]


def test_soft_event_membership_blends_kernel_and_decay() -> None:
    mixed = {C.OBLIGATIONS: 0.6, C.HEALTH: 0.4}
    result = ranked([Row(category=mixed, age_hours=100, event_in_hours=10)])
    terms = result.terms
    assert terms["event_weight"][0] == pytest.approx(0.6)
    nu = POLICY.categories[C.OBLIGATIONS].validity_nu_per_hour or 0.0
    expected = 0.4 * math.log(terms["decay"][0]) - 0.6 * nu * 10
    assert math.log(terms["activation"][0]) == pytest.approx(expected)


def test_upcoming_intent_keeps_unanchored_facts() -> None:
    rows = [Row(category=C.OBLIGATIONS), Row(category=C.OBLIGATIONS, event_in_hours=-1)]
    assert order(ranked(rows, QueryAnalysis.for_intent(Intent.UPCOMING))) == [0]


# -- scoring terms ---------------------------------------------------------------------------

def test_semantic_floor_protects_stable_near_exact_matches() -> None:
    result = ranked([Row(category=C.FINANCIAL, semantic=0.95, age_hours=365 * 24)])
    assert result.scores[0] == pytest.approx(0.97 * 0.95)
    no_floor = ranked([Row(category=C.FINANCIAL, semantic=0.95, age_hours=365 * 24)],
                      config=FULL.without("semantic_floors"))
    assert no_floor.scores[0] == pytest.approx(0.95 * 0.95, abs=1e-6)


def test_numeric_rescue_floor() -> None:
    rows = [Row(category=C.LOGISTICAL, semantic=0.9, age_hours=60 * 24, has_number=True),
            Row(category=C.LOGISTICAL, semantic=0.8, age_hours=60 * 24, has_number=True)]
    result = ranked(rows)
    assert result.scores[0] == pytest.approx(0.95 * 0.9)
    assert result.terms["numeric_rescue"][1] == 0.0  # below the 0.85 relevance bar
    assert result.scores[1] < 0.95 * 0.8
    off = ranked(rows, config=ABLATIONS["no_numeric_rescue"])
    assert off.scores[0] < result.scores[0]


def test_fulltext_counts_through_its_weight() -> None:
    result = ranked([Row(semantic=0.1, fulltext=1.0)])
    assert result.terms["relevance"][0] == pytest.approx(POLICY.fulltext_weight)


def test_emotional_boost_is_transient() -> None:
    rows = [Row(age_hours=1, emotional_loading=1.0), Row(age_hours=96, emotional_loading=1.0),
            Row(age_hours=1)]
    terms = ranked(rows).terms
    assert terms["emotion_boost"][0] > terms["emotion_boost"][1] > 0.0
    assert terms["activation"][0] > terms["activation"][2]
    assert terms["activation"].max() <= 1.0
    off = ranked(rows, config=FULL.without("emotional_boost")).terms
    assert off["activation"][0] == pytest.approx(off["activation"][2])


def test_routing_prefers_predicted_categories() -> None:
    rows = [Row(category=C.IDENTITY, semantic=0.8), Row(category=C.HOBBIES, semantic=0.8)]
    hobbies = QueryAnalysis.for_intent(Intent.BROAD, categories=[C.HOBBIES])
    assert order(ranked(rows, hobbies))[0] == 1
    plain = ranked(rows, hobbies, config=ABLATIONS["no_routing"])
    assert plain.terms["routing"].tolist() == [1.0, 1.0]


def test_forced_rows_need_routing() -> None:
    rows = [Row(forced=True), Row()]
    assert order(ranked(rows)) == [0, 1]
    assert reasons(ranked(rows, config=ABLATIONS["no_routing"]))[0] is \
        MaskReason.FORCED_RETRIEVAL_OFF


def test_uniform_decay_ablation() -> None:
    rows = [Row(category=C.IDENTITY), Row(category=C.LOGISTICAL)]
    terms = ranked(rows, config=ABLATIONS["uniform_decay"]).terms
    assert terms["lambda_eff"] == pytest.approx([POLICY.arrays.uniform_lambda_per_hour] * 2)


def test_no_event_time_ablation() -> None:
    rows = [Row(category=C.OBLIGATIONS, event_in_hours=-40 * 24, age_hours=2)]
    result = ranked(rows, config=ABLATIONS["no_event_time"])
    assert order(result) == [0]
    assert result.terms["activation"][0] == pytest.approx(result.terms["decay"][0])


def test_no_retraction_mask_ablation() -> None:
    rows = [Row(state=S.RETRACTED, semantic=0.9), Row(semantic=0.5)]
    result = ranked(rows, config=ABLATIONS["no_retraction_mask"])
    assert order(result) == [0, 1]
    assert result.terms["state_weight"][0] == 1.0


def test_world_knowledge_and_instructions_are_excluded() -> None:
    rows = [Row(world_knowledge=True), Row(instruction_like=True, world_knowledge=True),
            Row(instruction_like=True, state=S.SUPERSEDED)]
    assert reasons(ranked(rows)) == [MaskReason.WORLD_KNOWLEDGE,
                                     MaskReason.INSTRUCTION_QUARANTINE,
                                     MaskReason.INSTRUCTION_QUARANTINE]
    lax = FULL.without("exclude_world_knowledge", "quarantine_instructions")
    assert order(ranked(rows, config=lax)) == [0, 1]


# -- supersession at query time --------------------------------------------------------------

def test_omega_scales_older_same_slot_facts() -> None:
    rows = [Row(slot="u|city", age_hours=48, confidence=0.9),
            Row(slot="u|city", age_hours=2, confidence=0.4, ambiguous=True),
            Row(slot="u|job", age_hours=5)]
    terms = ranked(rows).terms
    gamma = POLICY.soft_supersession_gamma
    assert terms["omega"] == pytest.approx([1 - gamma * 0.4, 1.0, 1.0])
    historical = ranked(rows, QueryAnalysis.for_intent(Intent.HISTORICAL)).terms
    assert historical["omega"].tolist() == [1.0, 1.0, 1.0]


def test_a_tentative_later_fact_does_not_scale_the_standing_value() -> None:
    rows = [Row(slot="u|phone", age_hours=900, confidence=0.9, ambiguous=True),
            Row(slot="u|phone", age_hours=2, confidence=1.0, ambiguous=True, tentative=True),
            Row(slot="u|phone", age_hours=1, confidence=0.4)]
    gamma = POLICY.soft_supersession_gamma
    # the hedge scales nothing; the later assertion scales both earlier rows
    assert ranked(rows).terms["omega"] == pytest.approx([1 - gamma * 0.4, 1 - gamma * 0.4,
                                                         1.0])


def test_a_contested_fact_is_scaled_like_omega_without_its_successor_in_the_batch() -> None:
    rows = [Row(age_hours=900, contested=0.8), Row(age_hours=900), Row(slot="u|x", age_hours=5,
                                                                      contested=0.5),
            Row(slot="u|x", age_hours=1, confidence=0.4)]
    gamma = POLICY.soft_supersession_gamma
    plain = ranked([Row(age_hours=900), Row(age_hours=900), Row(slot="u|x", age_hours=5),
                    Row(slot="u|x", age_hours=1, confidence=0.4)])
    result = ranked(rows)
    # the contest folds into omega, with the slot's own Omega where both apply
    assert result.terms["omega"] == pytest.approx([1 - gamma * 0.8, 1.0,
                                                   (1 - gamma * 0.4) * (1 - gamma * 0.5), 1.0])
    assert result.scores[0] == pytest.approx(plain.scores[0] * (1 - gamma * 0.8))
    assert not result.masked.any()  # demoted, never hidden
    historical = ranked(rows, QueryAnalysis.for_intent(Intent.HISTORICAL)).terms
    assert historical["omega"].tolist() == [1.0, 1.0, 1.0, 1.0]
    binary = ranked(rows, config=RerankConfig(soft_supersession=False)).terms
    assert binary["omega"][0] == 1.0  # the ablation without soft supersession ignores it


def test_a_contested_column_outside_the_unit_interval_is_rejected() -> None:
    with pytest.raises(InputError, match="contested"):
        batch([Row(contested=1.5)])


def test_omega_ignores_masked_later_rows_and_exempts_numbers() -> None:
    rows = [Row(slot="k", age_hours=9, has_number=True), Row(slot="k", age_hours=8),
            Row(slot="k", age_hours=1, state=S.RETRACTED)]
    omega = ranked(rows).terms["omega"]
    assert omega[0] == 1.0 and omega[1] == 1.0


def test_binary_supersession_keeps_only_the_latest() -> None:
    rows = [Row(slot="k", age_hours=9), Row(slot="k", age_hours=1),
            Row(slot="k", age_hours=20, has_number=True)]
    result = ranked(rows, config=ABLATIONS["no_soft_supersession"])
    assert reasons(result) == [MaskReason.SLOT_SHADOWED, MaskReason.NONE, MaskReason.NONE]


@settings(max_examples=150)
@given(st.lists(st.tuples(st.integers(-1, 5), st.integers(0, 6),
                          st.floats(-2.0, 0.0)), min_size=1, max_size=90))
def test_sorted_later_sums_match_the_pairwise_definition(
        rows: list[tuple[int, int, float]]) -> None:
    groups = np.array([r[0] for r in rows], dtype=np.intp)
    seen = np.array([float(r[1]) for r in rows])
    values = np.array([r[2] for r in rows])
    values[groups < 0] = 0.0
    pairwise = ((groups[:, None] == groups[None, :]) & (seen[None, :] > seen[:, None])) @ values
    pairwise[groups < 0] = 0.0
    confidence = np.full(len(rows), 0.5)
    for limit in (None, 0):  # listed pairs, then the sorted cumulative-sum fallback
        runs = SlotRuns.of(groups, seen, confidence, pair_limit=limit)
        if runs is None:  # no slot holds two rows, so nothing is later than anything
            assert not pairwise.any()
        else:
            assert limit != 0 or runs.targets is None or runs.targets.size == 0
            assert np.allclose(runs.later_sums(values), pairwise, atol=1e-9)


def test_omega_over_many_slots() -> None:
    rows = [Row(slot=f"k{i % 30}", age_hours=i + 1, confidence=0.5) for i in range(90)]
    omega = ranked(rows).terms["omega"]
    gamma = POLICY.soft_supersession_gamma
    for i in range(90):
        later = sum(1 for j in range(90) if j % 30 == i % 30 and j < i)  # younger = later
        assert omega[i] == pytest.approx((1 - gamma * 0.5) ** later)


def test_crowded_slot_uses_the_sorted_fallback() -> None:
    rows = [Row(slot="one", age_hours=i + 1, confidence=0.5) for i in range(40)]
    b = batch(rows)
    assert b.slot_runs is not None and b.slot_runs.targets is None  # 780 pairs > 8 * 40
    omega = rerank(b, CURRENT, POLICY, NOW_S).terms["omega"]
    gamma = POLICY.soft_supersession_gamma
    assert omega == pytest.approx([(1 - gamma * 0.5) ** i for i in range(40)])
    binary = rerank(b, CURRENT, POLICY, NOW_S, ABLATIONS["no_soft_supersession"])
    assert order(binary) == [0]
    assert set(reasons(binary)[1:]) == {MaskReason.SLOT_SHADOWED}


# -- the untyped arm -------------------------------------------------------------------------

def test_untyped_arm_is_semantic_only_with_three_primitives() -> None:
    rows = [Row(semantic=0.9, category=C.FINANCIAL, age_hours=400 * 24),
            Row(semantic=0.8, category=C.LOGISTICAL),
            Row(semantic=0.99, state=S.RETRACTED),
            Row(semantic=0.7, category=C.PREFERENCES, event_in_hours=-30 * 24,
                has_number=True),
            Row(semantic=0.85, slot="k", age_hours=30), Row(semantic=0.6, slot="k"),
            Row(semantic=0.95, forced=True)]
    result = rerank(batch(rows), QueryAnalysis.for_intent(Intent.RETRACTION), POLICY, NOW_S,
                    UNTYPED)
    assert result.arm is Arm.UNTYPED
    assert order(result) == [0, 1, 5]
    assert reasons(result)[2:] == [MaskReason.STATE_RETRACTED, MaskReason.DATE_EXPIRED,
                                   MaskReason.SLOT_SHADOWED, MaskReason.NONE,
                                   MaskReason.FORCED_RETRIEVAL_OFF]
    assert set(result.terms) == {"semantic", "fulltext", "relevance", "score"}


def test_untyped_arm_also_drops_world_knowledge_and_instructions() -> None:
    """The untyped arm keeps the full arm's safety exclusions: a flat store that returned
    world knowledge or instruction-like text as the user's memory would not be a fair peer."""
    rows = [Row(semantic=0.99, world_knowledge=True), Row(semantic=0.98, instruction_like=True),
            Row(semantic=0.5)]
    result = rerank(batch(rows), QueryAnalysis.for_intent(Intent.CURRENT), POLICY, NOW_S,
                    UNTYPED)
    assert order(result) == [2]
    assert reasons(result)[:2] == [MaskReason.WORLD_KNOWLEDGE,
                                   MaskReason.INSTRUCTION_QUARANTINE]


# -- terms -----------------------------------------------------------------------------------

def test_terms_are_complete_and_consistent() -> None:
    rows = [Row(category={C.IDENTITY: 0.3, C.LOGISTICAL: 0.7}, age_hours=200, semantic=0.7),
            Row(category=C.OBLIGATIONS, event_in_hours=30, slot="a"),
            Row(category=C.HOBBIES, slot="a", emotional_loading=0.5, has_number=True,
                semantic=0.9, age_hours=50)]
    query = QueryAnalysis.for_intent(Intent.CURRENT, categories=[C.HOBBIES])
    result = ranked(rows, query)
    terms = result.terms
    assert tuple(terms) == TERM_NAMES
    assert all(v.shape == (3,) for v in terms.values())
    product = terms["base"] * terms["routing"] * terms["omega"] * terms["state_weight"]
    assert np.allclose(product, result.scores)
    assert np.allclose(terms["lambda_eff"],
                       effective_rates(batch(rows).category_weights, POLICY))
    assert terms["lambda_eff"][0] == pytest.approx(0.00348, abs=5e-6)  # Lemma 1 example
    assert np.allclose(terms["decay"], np.exp(-terms["lambda_eff"] * terms["age_hours"]))
    assert np.all(terms["base"] >= terms["blend"] - 1e-12)
    assert np.all(terms["base"] >= terms["floor"] - 1e-12)


def test_mask_reason_and_state_names() -> None:
    result = ranked([Row(state=S.EXPIRED), Row()])
    assert result.mask_reason == ("expired (state mask)", None)
    assert result.masked.tolist() == [True, False]
    assert result.scores[0] == -np.inf
    assert state_names(np.array([0, 3])) == [S.ACTIVE, S.RETRACTED]


def test_empty_batch() -> None:
    empty = batch([])
    for config in (FULL, UNTYPED):
        result = rerank(empty, CURRENT, POLICY, NOW_S, config)
        assert result.order.shape == (0,) and result.scores.shape == (0,)


def test_ablation_registry_and_switch_names() -> None:
    assert set(ABLATIONS) == {"full", "untyped", "no_routing", "uniform_decay", "no_event_time",
                              "no_retraction_mask", "no_numeric_rescue",
                              "no_soft_supersession"}
    assert not ABLATIONS["no_routing"].routing and ABLATIONS["no_routing"].event_time
    with pytest.raises(InputError, match="nope"):
        FULL.without("nope")
    with pytest.raises(InputError):
        FULL.without("arm")


# -- batch validation ------------------------------------------------------------------------

def _columns() -> dict[str, object]:
    b = batch([Row(), Row()])
    return {name: getattr(b, name) for name in (
        "semantic", "fulltext", "forced", "category_weights", "state", "observed_at",
        "event_time", "valid_to", "confidence", "strength", "has_number", "world_knowledge",
        "instruction_like", "ambiguous", "emotional_loading")}


@pytest.mark.parametrize("name, value, fragment", [
    ("semantic", np.array([0.5]), "shape"),
    ("semantic", np.array([0.5, 1.5]), "semantic"),
    ("semantic", np.array([0.5, np.nan]), "semantic"),
    ("fulltext", np.array([0.5, -0.1]), "fulltext"),
    ("confidence", np.array([0.5, np.inf]), "confidence"),
    ("observed_at", np.array([1.0, np.nan]), "observed_at"),
    ("event_time", np.array([np.inf, np.nan]), "event_time"),
    ("category_weights", np.full((2, 11), 0.5), "sum to 1"),
    ("category_weights", np.ones((2, 3)), "shape"),
    ("state", np.array([0, 9]), "state"),
    ("semantic", np.zeros((2, 2)), "one-dimensional"),
    ("strength", np.array(["a", "b"]), "strength"),
])
def test_batch_validation(name: str, value: object, fragment: str) -> None:
    columns = _columns()
    columns[name] = value
    with pytest.raises(InputError, match=fragment):
        CandidateBatch(**columns)  # type: ignore[arg-type]


def test_slot_group_validation_and_codes() -> None:
    assert slot_groups(["a", None, "b", "a"]).tolist() == [0, -1, 1, 0]
    with pytest.raises(InputError, match="slot_group"):
        CandidateBatch(**_columns(), slot_group=np.array([0, 7]))  # type: ignore[arg-type]


def test_float32_overshoot_is_clipped() -> None:
    columns = _columns()
    columns["semantic"] = np.array([1.0000001, -1.0000001])
    assert CandidateBatch(**columns).semantic.tolist() == [1.0, -1.0]  # type: ignore[arg-type]


# -- properties ------------------------------------------------------------------------------

CATEGORY = st.sampled_from(list(Category))


@st.composite
def rows(draw: st.DrawFn, *, slots: bool = True) -> Row:
    weights = draw(st.one_of(
        CATEGORY,
        st.dictionaries(CATEGORY, st.floats(0.05, 1.0), min_size=1, max_size=3)))
    return Row(
        semantic=draw(st.floats(-1.0, 1.0)),
        fulltext=draw(st.sampled_from([0.0, 0.0, 0.4, 1.0])),
        forced=draw(st.booleans()),
        category=weights,
        state=draw(st.sampled_from(list(LifecycleState))),
        age_hours=draw(st.floats(-5.0, 5 * 365 * 24)),
        event_in_hours=draw(st.one_of(st.none(), st.floats(-400 * 24, 400 * 24))),
        valid_to_in_hours=draw(st.one_of(st.none(), st.floats(-100.0, 100.0))),
        confidence=draw(st.floats(0.0, 1.0)),
        has_number=draw(st.booleans()),
        world_knowledge=draw(st.booleans()),
        instruction_like=draw(st.booleans()),
        emotional_loading=draw(st.sampled_from([0.0, 0.0, 0.3, 1.0])),
        slot=draw(st.sampled_from([None, "a", "b"])) if slots else None,
    )


INTENT = st.sampled_from(list(Intent))
CONFIG = st.sampled_from(list(ABLATIONS.values()))
QUERY_CATEGORIES = st.lists(CATEGORY, max_size=2, unique=True)


@settings(max_examples=200)
@given(st.lists(rows(), max_size=25), INTENT, CONFIG, QUERY_CATEGORIES)
def test_scores_are_finite_and_order_is_consistent(
        candidates: list[Row], intent: Intent, config: RerankConfig,
        categories: list[Category]) -> None:
    query = QueryAnalysis.for_intent(intent, categories=categories)
    result = rerank(batch(candidates), query, POLICY, NOW_S, config)
    live = ~result.masked
    assert np.isfinite(result.scores[live]).all()
    assert (result.scores[result.masked] == -np.inf).all()
    assert sorted(result.order.tolist()) == np.flatnonzero(live).tolist()
    assert np.all(np.diff(result.scores[result.order]) <= 0)
    assert ((result.mask_code != 0) == result.masked).all()


@settings(max_examples=200)
@given(st.lists(rows(), max_size=25), CONFIG, QUERY_CATEGORIES)
def test_expired_or_retracted_facts_never_rank_for_current_queries(
        candidates: list[Row], config: RerankConfig, categories: list[Category]) -> None:
    assume(config.retraction_mask)
    query = QueryAnalysis.for_intent(Intent.CURRENT, categories=categories)
    b = batch(candidates)
    result = rerank(b, query, POLICY, NOW_S, config)
    ranked_rows = set(result.order.tolist())
    for row, candidate in enumerate(candidates):
        if candidate.state is not S.ACTIVE:
            assert row not in ranked_rows
        if candidate.valid_to_in_hours is not None and candidate.valid_to_in_hours <= 0:
            assert row not in ranked_rows
    # date-expired rows (a guarded majority, anchored > 14 days ago) are gone too
    for expired in np.flatnonzero(result.mask_code == MaskReason.DATE_EXPIRED):
        assert int(expired) not in ranked_rows


@settings(max_examples=150)
@given(rows(slots=False), st.floats(0.0, 3 * 365 * 24), st.floats(0.0, 3 * 365 * 24),
       INTENT, CONFIG)
def test_score_never_increases_with_age(row: Row, a: float, b: float, intent: Intent,
                                        config: RerankConfig) -> None:
    young, old = sorted((a, b))
    row.event_in_hours = None  # age monotonicity is about age decay, not event time
    query = QueryAnalysis.for_intent(intent)
    scores = []
    for age in (young, old):
        row.age_hours = age
        scores.append(rerank(batch([row]), query, POLICY, NOW_S, config))
    if not scores[0].masked[0]:
        assert scores[1].scores[0] <= scores[0].scores[0] + 1e-12
        if "activation" in scores[0].terms:
            assert scores[1].terms["activation"][0] <= scores[0].terms["activation"][0] + 1e-12


@settings(max_examples=200)
@given(st.lists(rows(), min_size=1, max_size=25), st.randoms(use_true_random=False), INTENT,
       CONFIG, QUERY_CATEGORIES)
def test_reranking_is_permutation_invariant(candidates: list[Row], rng: object,
                                            intent: Intent, config: RerankConfig,
                                            categories: list[Category]) -> None:
    query = QueryAnalysis.for_intent(intent, categories=categories)
    permutation = list(range(len(candidates)))
    rng.shuffle(permutation)  # type: ignore[attr-defined]
    original = rerank(batch(candidates), query, POLICY, NOW_S, config)
    shuffled = rerank(batch([candidates[i] for i in permutation]), query, POLICY, NOW_S,
                      config)
    perm = np.array(permutation)
    assert np.allclose(shuffled.scores, original.scores[perm], rtol=1e-12, atol=1e-12)
    assert (shuffled.mask_code == original.mask_code[perm]).all()
    assert np.allclose(shuffled.scores[shuffled.order], original.scores[original.order],
                       rtol=1e-12, atol=1e-12)


def test_weights_helper_normalizes() -> None:
    assert weights_of({C.IDENTITY: 2.0, C.HOBBIES: 2.0}).sum() == pytest.approx(1.0)
    assert STATE_CODE[S.ACTIVE] == 0 and HOUR * 24 == DAY


@settings(max_examples=200)
@given(st.lists(st.tuples(st.integers(-1, 6), st.integers(0, 5), st.floats(0.0, 1.0)),
                min_size=1, max_size=DENSE_PAIRS_MAX_ROWS))
def test_dense_slot_pairs_match_the_sorted_path_bit_for_bit(
        rows: list[tuple[int, int, float]]) -> None:
    groups = np.array([r[0] for r in rows], dtype=np.intp)
    seen = np.array([float(r[1]) for r in rows])
    confidence = np.array([r[2] for r in rows])
    dense = SlotRuns.of(groups, seen, confidence)
    ordered = SlotRuns.of(groups, seen, confidence, dense_max_rows=0)
    if dense is None or ordered is None:
        assert dense is None and ordered is None
        return
    if ordered.targets is None:  # too many pairs to list: both take the sorted fallback
        assert dense.targets is None
        return
    assert dense.targets is not None and dense.sources is not None
    assert ordered.sources is not None

    def later_mates(targets: np.ndarray, sources: np.ndarray) -> dict[int, list[int]]:
        mates: dict[int, list[int]] = {}
        for target, source in zip(targets.tolist(), sources.tolist(), strict=True):
            mates.setdefault(target, []).append(source)
        return mates

    # Same later slot-mates per row, listed in the same order: sums agree to the bit.
    assert later_mates(dense.targets, dense.sources) == \
        later_mates(ordered.targets, ordered.sources)
    values = np.log1p(confidence * -0.7) * (groups >= 0)
    assert np.array_equal(dense.later_sums(values), ordered.later_sums(values))
    assert np.array_equal(dense.slotted, ordered.slotted)


def test_a_number_only_a_superseded_fact_holds_is_still_found() -> None:
    """'How many years have I taught?' after 'loves teaching, 24 years' was replaced."""
    numeric = QueryAnalysis.for_intent(Intent.CURRENT, numeric=True)
    rows = [Row(semantic=0.9, age_hours=90 * 24, state=S.SUPERSEDED, slot="u|job",
                has_number=True),
            Row(semantic=0.88, age_hours=24, slot="u|job")]
    found = ranked(rows, numeric)
    assert sorted(order(found)) == [0, 1]  # admitted, not masked
    assert found.terms["state_weight"][0] == pytest.approx(0.6)
    # Not for a question that asks no number, nor when a current fact holds one.
    assert order(ranked(rows)) == [1]
    current_number = [rows[0], Row(semantic=0.88, age_hours=24, slot="u|job", has_number=True)]
    assert order(ranked(current_number, numeric)) == [1]
    assert order(ranked(rows, numeric, config=ABLATIONS["no_numeric_rescue"])) == [1]
    # A number in another slot does not stand in for this slot's lost one.
    other_slot = [*rows, Row(semantic=0.9, age_hours=24, slot="u|rent", has_number=True)]
    assert 0 in order(ranked(other_slot, numeric))

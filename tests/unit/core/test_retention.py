"""The pure retention core (StageMem): App. E dynamics, Eq. 1 settlement, capacities."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fr_graph.classify.strength import BASELINE, cue_strength
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.policy import PolicyTable
from fr_graph.core.retention import (
    DURABLE,
    STATE_INDEX,
    TRANSIENT,
    WORKING,
    Action,
    Reason,
    RetentionPolicy,
    effective_strength,
    evidence_gain,
    evidence_shock,
    gate_confidence,
    grow_strength,
    plasticity,
    revoke_confidence,
    settle,
    update_confidence,
)
from fr_graph.errors import ConfigError
from fr_graph.pipeline.maintain import summary_text

POLICY = PolicyTable.default().retention
ACTIVE = STATE_INDEX[LifecycleState.ACTIVE]
SUPERSEDED = STATE_INDEX[LifecycleState.SUPERSEDED]
ARCHIVED = STATE_INDEX[LifecycleState.ARCHIVED]
unit = st.floats(0.0, 1.0)
stages = st.sampled_from([TRANSIENT, WORKING, DURABLE])


def run(policy: RetentionPolicy = POLICY, budget: int | None = None, **columns: object
        ) -> object:
    k = len(columns["confidence"])  # type: ignore[arg-type]
    base: dict[str, object] = {
        "stage": np.zeros(k, dtype=np.intp), "state": np.full(k, ACTIVE),
        "pinned": np.zeros(k, dtype=bool), "observed_at": np.arange(k, dtype=np.float64),
        "compress_key": np.full(k, -1),
    }
    base.update({name: np.asarray(value) for name, value in columns.items()})
    return settle(policy=policy, budget=budget, **base)  # type: ignore[arg-type]


# -- dynamics ---------------------------------------------------------------------------------


@given(unit, unit, unit, stages)
def test_strength_growth_is_monotone_saturating_and_below_one(m: float, c: float,
                                                              shock: float,
                                                              stage: int) -> None:
    grown = float(grow_strength(m, c, shock, stage, POLICY))
    assert m <= grown <= 1.0
    if m < 1.0:
        assert grown < 1.0
    # Saturation: the same evidence adds less to a stronger fact.
    stronger = min(m + 0.2, 1.0)
    assert (float(grow_strength(stronger, c, shock, stage, POLICY)) - stronger
            <= grown - m + 1e-12)


@given(unit, unit, st.floats(0.0, 1.0), stages)
def test_corroboration_raises_and_contradiction_lowers_confidence(c: float, c_hat: float,
                                                                   m: float,
                                                                   stage: int) -> None:
    up = float(update_confidence(c, c_hat, 1, m, stage, POLICY))
    down = float(update_confidence(c, c_hat, -1, m, stage, POLICY))
    assert c <= up <= 1.0 and 0.0 <= down <= c


@given(unit, st.sampled_from([1, -1]), unit)
def test_deeper_stages_are_less_plastic(c_hat: float, sign: int, m: float) -> None:
    p = plasticity(c_hat, sign, m, np.array([TRANSIENT, WORKING, DURABLE]), POLICY)
    assert p[0] >= p[1] >= p[2] >= POLICY.min_plasticity


def test_app_e_factors() -> None:
    assert float(evidence_gain(0.0, POLICY)) == 0.0
    assert float(evidence_gain(1.0, POLICY)) == pytest.approx(1.0)
    # A conflict moves exp(-2 sigma) as far as support; strength resists (Eq. 4).
    support = float(plasticity(0.9, 1, 0.0, TRANSIENT, POLICY))
    conflict = float(plasticity(0.9, -1, 0.0, TRANSIENT, POLICY))
    assert conflict == pytest.approx(support * np.exp(-2 * POLICY.conflict_sigma))
    assert float(plasticity(0.9, 1, 0.9, TRANSIENT, POLICY)) < support
    assert float(revoke_confidence(0.8, 0.95)) == pytest.approx(0.04)
    assert float(evidence_shock(0, POLICY)) == 0.0
    assert 0.0 < float(evidence_shock(3, POLICY)) < float(evidence_shock(30, POLICY)) < 1.0


def test_strength_is_never_folded_into_confidence() -> None:
    gate = gate_confidence(np.array([0.8, 0.8, 0.8]), np.array([ACTIVE, ACTIVE, SUPERSEDED]),
                           np.array([0, 2, 0]), np.array([0.0, 0.0, 0.9]),
                           np.zeros(3, dtype=np.intp), POLICY)
    assert gate[0] == 0.8  # strength does not lift confidence
    assert gate[1] < 0.8  # two soft contradictions lower it
    assert gate[2] == 0.0  # superseded facts fail the validity gate
    assert effective_strength(np.array([0.1, 0.1]), np.array([True, False]),
                              POLICY).tolist() == [1.0, 0.1]


# -- settlement -------------------------------------------------------------------------------


def test_promotion_needs_both_gates_and_settles_to_a_fixpoint() -> None:
    out = run(confidence=[0.9, 0.9, 0.3, 0.6, 0.6], strength=[0.9, 0.1, 0.9, 0.4, 0.65])
    assert out.stage.tolist() == [DURABLE, TRANSIENT, TRANSIENT, WORKING, WORKING]  # type: ignore[attr-defined]
    reasons = [Reason(int(r)) for r in out.reason]  # type: ignore[attr-defined]
    assert reasons[:3] == [Reason.PASSED_GATES, Reason.LOW_STRENGTH, Reason.LOW_CONFIDENCE]
    # Settling the outcome again moves nothing: maintenance is idempotent.
    again = run(confidence=[0.9, 0.9, 0.3, 0.6, 0.6], strength=[0.9, 0.1, 0.9, 0.4, 0.65],
                stage=out.stage)  # type: ignore[attr-defined]
    assert (again.action == Action.KEEP).all()  # type: ignore[attr-defined]


def test_over_capacity_inactive_facts_go_first_and_pinned_never() -> None:
    policy = POLICY.model_copy(update=dict(transient_capacity=2))
    out = run(policy, confidence=[0.2, 0.2, 0.2, 0.2], strength=[0.0, 0.0, 0.9, 0.0],
              state=[ACTIVE, SUPERSEDED, ACTIVE, ACTIVE], pinned=[True, False, False, False])
    actions = [Action(int(a)) for a in out.action]  # type: ignore[attr-defined]
    assert actions == [Action.KEEP, Action.EVICT, Action.KEEP, Action.EVICT]
    assert Reason(int(out.reason[1])) is Reason.INACTIVE_FIRST  # type: ignore[attr-defined]
    assert out.load_after == (2, 0, 0) and out.budget_hit  # type: ignore[attr-defined]


def test_leaving_facts_of_one_key_are_compressed() -> None:
    policy = POLICY.model_copy(update=dict(transient_capacity=2))
    out = run(policy, confidence=[0.3] * 5, strength=[0.0, 0.0, 0.0, 0.0, 0.2],
              compress_key=[7, 7, 7, 3, -1])
    actions = [Action(int(a)) for a in out.action]  # type: ignore[attr-defined]
    assert actions[:3] == [Action.COMPRESS] * 3
    assert out.summaries == ((7, TRANSIENT),)  # type: ignore[attr-defined]
    assert out.load_after[TRANSIENT] <= 2  # type: ignore[attr-defined]


def test_durable_overflow_steps_down_instead_of_evicting() -> None:
    policy = POLICY.model_copy(update=dict(durable_capacity=1))
    out = run(policy, confidence=[0.9, 0.9], strength=[0.95, 0.7],
              stage=[DURABLE, DURABLE])
    assert out.stage.tolist() == [DURABLE, WORKING]  # type: ignore[attr-defined]
    assert Action(int(out.action[1])) is Action.DEMOTE  # type: ignore[attr-defined]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(unit, unit, st.booleans(), st.sampled_from([ACTIVE, SUPERSEDED]),
                          st.integers(-1, 2)), min_size=1, max_size=25),
       st.integers(0, 6), st.integers(0, 6), st.one_of(st.none(), st.integers(0, 12)))
def test_budgets_hold_unless_only_pinned_remain(rows: list[tuple[float, float, bool, int, int]],
                                                cap_t: int, cap_w: int,
                                                budget: int | None) -> None:
    c, m, pinned, state, key = (np.array(col) for col in zip(*rows, strict=True))
    policy = POLICY.model_copy(update=dict(transient_capacity=cap_t, working_capacity=cap_w))
    out = run(policy, budget, confidence=c, strength=m, pinned=pinned, state=state,
              compress_key=key)
    leaving = out.leaving  # type: ignore[attr-defined]
    assert not (leaving & pinned).any()
    if not out.over_budget:  # type: ignore[attr-defined]
        assert out.load_after[TRANSIENT] <= cap_t  # type: ignore[attr-defined]
        assert out.load_after[WORKING] <= cap_w  # type: ignore[attr-defined]
        if budget is not None:
            assert sum(out.load_after) <= budget  # type: ignore[attr-defined]
    else:
        assert pinned.sum() > 0
    # Inactive facts leave before any active, non-pinned fact of the same stage.
    for where in (TRANSIENT, WORKING):
        here = out.stage == where  # type: ignore[attr-defined]
        kept_inactive = here & ~leaving & (state != ACTIVE) & ~pinned
        evicted_active = here & (out.action == Action.EVICT) & (state == ACTIVE)  # type: ignore[attr-defined]
        assert not (kept_inactive.any() and evicted_active.any())


@given(st.lists(st.tuples(unit, unit), min_size=2, max_size=12), st.randoms())
def test_settlement_is_pure_and_permutation_invariant(rows: list[tuple[float, float]],
                                                      rnd: object) -> None:
    c, m = (np.array(col) for col in zip(*rows, strict=True))
    observed = np.arange(len(rows), dtype=np.float64)
    policy = POLICY.model_copy(update=dict(transient_capacity=3))
    first = run(policy, confidence=c, strength=m, observed_at=observed)
    perm = np.random.default_rng(len(rows)).permutation(len(rows))
    second = run(policy, confidence=c[perm], strength=m[perm], observed_at=observed[perm])
    assert (first.action[perm] == second.action).all()  # type: ignore[attr-defined]
    assert (first.stage[perm] == second.stage).all()  # type: ignore[attr-defined]
    assert c.tolist() == [r[0] for r in rows]  # inputs untouched


def test_archived_rows_take_no_part() -> None:
    out = run(POLICY.model_copy(update=dict(transient_capacity=1)), confidence=[0.9, 0.1],
              strength=[0.9, 0.0], state=[ARCHIVED, ACTIVE])
    assert (out.action == Action.KEEP).all()  # type: ignore[attr-defined]
    assert out.load_before == (1, 0, 0)  # type: ignore[attr-defined]


# -- configuration, cues, summaries -----------------------------------------------------------


def test_retention_policy_per_deployment_and_group() -> None:
    table = PolicyTable.from_toml_text(
        '[retention]\nworking_capacity = 20\n[groups."u-1".retention]\ndurable_capacity = 5\n')
    assert table.retention.capacities == (None, 20, None)
    assert table.for_group("u-1").retention.capacities == (None, 20, 5)
    assert "capacity transient/working/durable -/20/-" in "\n".join(table.render())
    with pytest.raises(ConfigError, match="plasticity"):
        PolicyTable.from_toml_text("[retention]\nplasticity_durable = 1.0\n")
    with pytest.raises(ConfigError, match="retention"):
        PolicyTable.from_toml_text("[retention]\nworking_capacity = -1\n")


@pytest.mark.parametrize(("text", "low"), [
    ("I'm allergic to peanuts", 0.85), ("User can't eat gluten", 0.85),
    ("The project must use PostgreSQL 16", 0.85), ("I always take the stairs", 0.7),
    ("Never schedule meetings before 10am", 0.7), ("The report deadline is Friday", 0.6),
])
def test_cues_give_premises_high_strength(text: str, low: float) -> None:
    assert float(cue_strength([text])[0]) >= low


def test_facts_without_cues_get_the_baseline() -> None:
    assert cue_strength(["User watched a movie", "Likes green tea"]).tolist() == [BASELINE] * 2


def test_summaries_keep_every_number_verbatim() -> None:
    facts = ["Ran 5.2 km in 31:40 on Monday", "Paid $1,249.99 for the bike.",
             "Ran 5.2 km in 31:40 on Monday"]
    text = summary_text(facts, "hobbies")
    for number in ("5.2", "31:40", "$1,249.99"):
        assert number in text
    assert text.count("5.2 km") == 1 and text.startswith("Summary of 2 hobbies facts")


def test_reason_labels_cite_no_bare_paper_tags() -> None:
    # maintain reports print these labels to users.
    assert not [r for r in Reason if re.search(r"\b(App|Eqs?)\.|Table \d", r.label)]

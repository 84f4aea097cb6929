"""The report's data shaping (``fr_graph.core.report``): timelines, transition times, decay
curves, upcoming expiries, slot chains, stage loads and the audit summary, on plain data."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

from fr_graph.core.lifecycle import LifecycleState, Stage
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.report import (
    ReportFact,
    ReportLink,
    audit_summary,
    build_report,
    decay_curves,
    month_range,
    slot_chains,
    stage_loads,
    transition_time,
    upcoming_expiries,
)

POLICY = PolicyTable.default()
NOW = datetime(2025, 4, 15, tzinfo=UTC)
A, S, R, E, X = (LifecycleState.ACTIVE, LifecycleState.SUPERSEDED, LifecycleState.RETRACTED,
                 LifecycleState.EXPIRED, LifecycleState.ARCHIVED)


def day(month: int, d: int = 1) -> datetime:
    return datetime(2025, month, d, 12, tzinfo=UTC)


def fact(uuid: str, state: LifecycleState = A, *, category: Category = Category.PROJECTS,
         observed: datetime | None = None, **extra: object) -> ReportFact:
    return ReportFact(uuid=uuid, text=f"fact {uuid}", category=category, state=state,
                      stage=extra.pop("stage", Stage.TRANSIENT),  # type: ignore[arg-type]
                      observed_at=observed or day(1), **extra)  # type: ignore[arg-type]


def test_month_range_spans_year_ends() -> None:
    assert month_range("2024-11", "2025-02") == ("2024-11", "2024-12", "2025-01", "2025-02")
    assert month_range("2025-03", "2025-03") == ("2025-03",)


def test_transition_time_reads_the_overlay() -> None:
    assert transition_time(fact("a"), [], POLICY) is None
    assert transition_time(fact("s", S, valid_to=day(2)), [], POLICY) == day(2)
    link = ReportLink("FR_SUPERSEDES", "n", "s", "supersede", day(3))
    assert transition_time(fact("s", S), [link], POLICY) == day(3)
    assert transition_time(fact("x", X, settled_at=day(4), valid_to=day(2)), [], POLICY) \
        == day(4)
    # A dated obligation expires at its event time plus the expiry buffer.
    dated = fact("e", E, category=Category.OBLIGATIONS, event_time=day(2))
    assert transition_time(dated, [], POLICY) == day(2) + timedelta(
        days=POLICY.expiry_buffer_days)


def test_timelines_count_each_fact_once_per_month() -> None:
    facts = [
        fact("a", observed=day(1)),
        fact("b", S, observed=day(1), valid_to=day(2)),
        fact("c", R, observed=day(2), valid_to=day(3), category=Category.HEALTH),
        fact("d", X, observed=day(2), settled_at=day(4)),
        fact("late", observed=day(6)),  # after now: left out of the timelines
    ]
    data = build_report("g", facts, [], [], POLICY, NOW)
    assert data.months == ("2025-01", "2025-02", "2025-03", "2025-04")
    assert data.category_timeline[Category.PROJECTS] == (2, 3, 3, 3)
    assert data.category_timeline[Category.HEALTH] == (0, 1, 1, 1)
    assert Category.IDENTITY not in data.category_timeline
    assert data.state_timeline[A] == (2, 3, 2, 1)
    assert data.state_timeline[S] == (0, 1, 1, 1)
    assert data.state_timeline[R] == (0, 0, 1, 1)
    assert data.state_timeline[X] == (0, 0, 0, 1)
    assert data.transitions[S] == (0, 1, 0, 0)
    assert data.transitions[R] == (0, 0, 1, 0)
    assert data.transitions[X] == (0, 0, 0, 1)
    assert data.transitions[E] == (0, 0, 0, 0)
    for month in range(len(data.months)):
        assert sum(series[month] for series in data.state_timeline.values()) \
            == sum(series[month] for series in data.category_timeline.values())
    assert data.facts == 5 and data.by_state == {A: 2, S: 1, R: 1, X: 1}


def test_the_report_is_the_same_whatever_the_input_order() -> None:
    facts = [fact(str(n), observed=day(1 + n % 3), slot_key="user|x") for n in range(6)]
    links = [ReportLink("FR_SUPERSEDES", str(n + 1), str(n), "supersede", day(2))
             for n in range(5)]
    forward = build_report("g", facts, links, [], POLICY, NOW)
    backward = build_report("g", facts[::-1], links[::-1], [], POLICY, NOW)
    assert forward == backward


def test_decay_curves_halve_at_the_half_life() -> None:
    curves = decay_curves(POLICY)
    assert [c.category for c in curves] == list(Category)
    for curve in curves:
        assert curve.half_life_days == POLICY.categories[curve.category].half_life_days
        assert curve.activation[0] == 1.0
        assert list(curve.activation) == sorted(curve.activation, reverse=True)
        middle = len(curve.ages_days) // 4  # the span is four half-lives
        assert math.isclose(curve.ages_days[middle], curve.half_life_days)
        assert math.isclose(curve.activation[middle], 0.5)


def test_upcoming_expiries_are_active_future_and_soonest_first() -> None:
    facts = [
        fact("later", valid_to=NOW + timedelta(days=9)),
        fact("soon", category=Category.OBLIGATIONS, event_time=NOW),
        fact("past", valid_to=NOW - timedelta(days=1)),
        fact("ended", S, valid_to=NOW + timedelta(days=1)),
        fact("numeric", category=Category.OBLIGATIONS, event_time=NOW, has_number=True),
        fact("undated"),
    ]
    found = upcoming_expiries(facts, POLICY, NOW)
    assert POLICY.expiry_buffer_days > 9  # "soon" expires at its event plus the buffer
    assert [(e.uuid, e.why) for e in found] == [("later", "validity ends"),
                                                 ("soon", "event passed")]
    assert upcoming_expiries(facts, POLICY, NOW, limit=1) == found[:1]


def test_slot_chains_are_the_longest_slots_with_their_links() -> None:
    facts = [fact(f"a{n}", S if n < 2 else A, slot_key="user|a", observed=day(n + 1))
             for n in range(3)]
    facts += [fact(f"b{n}", slot_key="user|b", observed=day(1)) for n in range(2)]
    facts += [fact("c0", slot_key="user|c"), fact("none")]
    links = [ReportLink("FR_SUPERSEDES", "a1", "a0", "supersede", day(2)),
             ReportLink("FR_SUPERSEDES", "a2", "a1", "complete", day(3)),
             ReportLink("FR_SUPERSEDES", "b1", "elsewhere", "supersede", day(3)),
             ReportLink("FR_COMPRESSES", "a2", "a0", None, day(3))]
    chains = slot_chains(facts, links)
    assert [c.slot_key for c in chains] == ["user|a", "user|b"]  # single-fact slots left out
    first = chains[0]
    assert [(n.uuid, n.layer, n.state) for n in first.nodes] == [
        ("a0", 0, S), ("a1", 1, S), ("a2", 2, A)]
    assert first.edges == (("a1", "a0", "supersede"), ("a2", "a1", "complete"))
    assert chains[1].edges == () and {n.layer for n in chains[1].nodes} == {0}
    assert slot_chains(facts, links, limit=1) == chains[:1]


def test_chain_labels_are_short_and_single_line() -> None:
    long = ReportFact(uuid="l", text="a very\nlong fact " * 10, category=Category.OTHER,
                      state=A, stage=Stage.TRANSIENT, slot_key="k", observed_at=day(1))
    chain = slot_chains([long, fact("m", slot_key="k")], [])[0]
    label = next(n.label for n in chain.nodes if n.uuid == "l")
    assert "\n" not in label and len(label) <= 32 and label.endswith("…")


def test_stage_loads_count_live_and_archived_facts_against_capacity() -> None:
    policy = PolicyTable.from_mapping({"retention": {"working_capacity": 4}})
    facts = [fact("t1"), fact("t2", S), fact("w1", stage=Stage.WORKING, pinned=True),
             fact("w2", X, stage=Stage.WORKING), fact("d1", stage=Stage.DURABLE)]
    loads = {load.stage: load for load in stage_loads(facts, policy)}
    assert [s.value for s in loads] == ["transient", "working", "durable"]
    transient, working = loads[Stage.TRANSIENT], loads[Stage.WORKING]
    assert (transient.live, transient.active, transient.inactive) == (2, 1, 1)
    assert transient.capacity is None and transient.use is None
    assert (working.live, working.pinned, working.archived) == (1, 1, 1)
    assert working.capacity == 4 and working.use == 0.25


def test_audit_summary_counts_and_orders_newest_first() -> None:
    rows = [{"id": "2", "action": "purge", "at": "2025-03-02T00:00:00Z", "facts": 1,
             "reason": "<b>r</b>"},
            {"id": "1", "action": "purge", "at": "2025-03-01T00:00:00Z", "facts": 2},
            {"id": "3", "action": "purge_group", "at": "2025-03-03T00:00:00Z", "facts": 0}]
    summary = audit_summary(rows, limit=2)
    assert summary.records == 3 and summary.facts_deleted == 3
    assert summary.by_action == (("purge", 2), ("purge_group", 1))
    assert (summary.first_at, summary.last_at) == ("2025-03-01T00:00:00Z",
                                                   "2025-03-03T00:00:00Z")
    assert [r["id"] for r in summary.recent] == ["3", "2"]
    assert audit_summary([]).records == 0

"""The data of a group's report (``fr-graph report``), shaped from plain rows.

Pure: the facts, links and audit rows come in as plain data, ``now`` and the policy table are
arguments, and the result is plain data that :mod:`fr_graph.report_page` draws. Everything is
sorted, so the same graph and ``now`` give the same report.

When a fact changed state is not stored as such; it is read off the overlay:

- ``superseded`` / ``retracted``: ``valid_to`` (the transition closes the validity interval
  at the newer fact's time), else the time of the link that ended it;
- ``expired``: ``valid_to`` when the validity interval closed, else the date expiry
  (event time plus the expiry buffer, :func:`fr_graph.core.validity.expires_at`);
- ``archived``: ``settled_at`` (the maintenance run that compressed or evicted it).

Missing times fall back to ``settled_at`` and then ``observed_at``. The "facts by state over
time" chart counts each fact ``active`` from its ``observed_at`` and in its current state
from its transition time: a fact that was superseded and later archived shows as ``active``
until it was archived (the intermediate state is not stored).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from fr_graph.core.codes import CATEGORIES
from fr_graph.core.lifecycle import LifecycleState, Stage
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.validity import expires_at

#: States a fact leaves ``active`` for, in chart order.
ENDED_STATES: Final = (LifecycleState.SUPERSEDED, LifecycleState.RETRACTED,
                       LifecycleState.EXPIRED, LifecycleState.ARCHIVED)
STATE_ORDER: Final = (LifecycleState.ACTIVE, *ENDED_STATES)
STAGE_ORDER: Final = (Stage.TRANSIENT, Stage.WORKING, Stage.DURABLE)
#: How many slot chains, upcoming expiries and audit records the page shows.
CHAINS_SHOWN: Final = 4
EXPIRIES_SHOWN: Final = 20
AUDIT_SHOWN: Final = 20
#: Decay curves run to this many half-lives.
DECAY_SPAN_HALF_LIVES: Final = 4.0
DECAY_SAMPLES: Final = 81
#: A chain's label keeps this many characters of the fact text.
LABEL_CHARS: Final = 32


@dataclass(frozen=True, slots=True)
class ReportFact:
    """One fact as the report needs it (an ``FrFact`` overlay plus its text)."""

    uuid: str
    text: str
    category: Category
    state: LifecycleState
    stage: Stage
    slot_key: str | None = None
    observed_at: datetime | None = None
    event_time: datetime | None = None
    valid_to: datetime | None = None
    settled_at: datetime | None = None
    pinned: bool = False
    strength: float = 0.0
    has_number: bool = False
    weights: Mapping[Category, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ReportLink:
    """An ``FR_SUPERSEDES`` (kind given) or ``FR_COMPRESSES`` link between two facts."""

    relation: str
    newer: str
    older: str
    kind: str | None = None
    at: datetime | None = None


@dataclass(frozen=True, slots=True)
class DecayCurve:
    category: Category
    half_life_days: float
    ages_days: tuple[float, ...]
    activation: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class Expiry:
    uuid: str
    text: str
    category: Category
    at: datetime
    why: str  # "validity ends" or "event passed"


@dataclass(frozen=True, slots=True)
class ChainNode:
    uuid: str
    label: str
    state: LifecycleState
    layer: int  # rank of its observed time in the chain: the drawing's column


@dataclass(frozen=True, slots=True)
class SlotChain:
    slot_key: str
    nodes: tuple[ChainNode, ...]
    edges: tuple[tuple[str, str, str], ...]  # (newer, older, kind)


@dataclass(frozen=True, slots=True)
class StageLoad:
    stage: Stage
    live: int
    active: int
    inactive: int
    pinned: int
    archived: int
    capacity: int | None

    @property
    def use(self) -> float | None:
        """Live facts over capacity (None when the stage is unbounded)."""
        return None if self.capacity is None else self.live / max(self.capacity, 1)


@dataclass(frozen=True, slots=True)
class AuditSummary:
    records: int
    facts_deleted: int
    by_action: tuple[tuple[str, int], ...]
    first_at: str | None
    last_at: str | None
    recent: tuple[Mapping[str, Any], ...]  # newest first, at most AUDIT_SHOWN


@dataclass(frozen=True, slots=True)
class ReportData:
    """Everything the page shows, in drawing order."""

    group_id: str
    now: datetime
    facts: int
    months: tuple[str, ...]
    #: Facts observed by the end of each month, per category (cumulative).
    category_timeline: Mapping[Category, tuple[int, ...]]
    #: Facts in each state at the end of each month (see the module docstring).
    state_timeline: Mapping[LifecycleState, tuple[int, ...]]
    #: Transitions into each ended state per month.
    transitions: Mapping[LifecycleState, tuple[int, ...]]
    decay: tuple[DecayCurve, ...]
    expiries: tuple[Expiry, ...]
    chains: tuple[SlotChain, ...]
    stages: tuple[StageLoad, ...]
    audit: AuditSummary
    by_state: Mapping[LifecycleState, int]
    by_category: Mapping[Category, int]


def month_of(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m")


def month_range(first: str, last: str) -> tuple[str, ...]:
    """Every ``YYYY-MM`` from ``first`` to ``last`` inclusive."""
    year, month = int(first[:4]), int(first[5:])
    months: list[str] = []
    while f"{year:04d}-{month:02d}" <= last:
        months.append(f"{year:04d}-{month:02d}")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return tuple(months)


def transition_time(fact: ReportFact, links: Sequence[ReportLink], policy: PolicyTable
                    ) -> datetime | None:
    """When ``fact`` entered its current state (None for an active fact); see the module
    docstring."""
    if fact.state is LifecycleState.ACTIVE:
        return None
    if fact.state is LifecycleState.ARCHIVED:
        return fact.settled_at or fact.valid_to or fact.observed_at
    if fact.valid_to is not None:
        return fact.valid_to
    if fact.state is LifecycleState.EXPIRED:
        deadline = expires_at(fact.event_time, fact.weights or {fact.category: 1.0}, policy,
                              has_number=fact.has_number)
        if deadline is not None:
            return deadline
    ended_by = sorted(link.at for link in links
                      if link.older == fact.uuid and link.at is not None)
    if ended_by:
        return ended_by[-1]
    return fact.settled_at or fact.observed_at


def decay_curves(policy: PolicyTable) -> tuple[DecayCurve, ...]:
    """``exp(-lambda t)`` of every category, over ``DECAY_SPAN_HALF_LIVES`` half-lives."""
    curves = []
    for category in CATEGORIES:
        row = policy.categories[category]
        rate_per_day = row.lambda_per_hour * 24.0
        half_life = row.half_life_days
        step = DECAY_SPAN_HALF_LIVES * half_life / (DECAY_SAMPLES - 1)
        ages = tuple(i * step for i in range(DECAY_SAMPLES))
        curves.append(DecayCurve(category, half_life, ages,
                                 tuple(math.exp(-rate_per_day * age) for age in ages)))
    return tuple(curves)


def upcoming_expiries(facts: Iterable[ReportFact], policy: PolicyTable, now: datetime,
                      limit: int = EXPIRIES_SHOWN) -> tuple[Expiry, ...]:
    """Active facts that stop being current after ``now``, soonest first."""
    found: list[Expiry] = []
    for fact in facts:
        if fact.state is not LifecycleState.ACTIVE:
            continue
        deadline = expires_at(fact.event_time, fact.weights or {fact.category: 1.0}, policy,
                              has_number=fact.has_number)
        candidates = [(fact.valid_to, "validity ends"), (deadline, "event passed")]
        upcoming = sorted((at, why) for at, why in candidates if at is not None and at > now)
        if upcoming:
            at, why = upcoming[0]
            found.append(Expiry(fact.uuid, fact.text, fact.category, at, why))
    found.sort(key=lambda e: (e.at, e.uuid))
    return tuple(found[:limit])


def slot_chains(facts: Iterable[ReportFact], links: Sequence[ReportLink],
                limit: int = CHAINS_SHOWN) -> tuple[SlotChain, ...]:
    """The ``limit`` slots with the most facts (ties by slot key), each with its facts in
    time order and the ``FR_SUPERSEDES`` links between them."""
    by_slot: dict[str, list[ReportFact]] = {}
    for fact in facts:
        if fact.slot_key:
            by_slot.setdefault(fact.slot_key, []).append(fact)
    ranked = sorted((slot for slot, members in by_slot.items() if len(members) > 1),
                    key=lambda slot: (-len(by_slot[slot]), slot))
    chains = []
    for slot in ranked[:limit]:
        members = sorted(by_slot[slot], key=lambda f: (_epoch(f.observed_at), f.uuid))
        times = sorted({_epoch(f.observed_at) for f in members})
        nodes = tuple(ChainNode(f.uuid, _label(f.text), f.state,
                                times.index(_epoch(f.observed_at))) for f in members)
        inside = {f.uuid for f in members}
        edges = tuple(sorted({(link.newer, link.older, link.kind or "")
                              for link in links if link.relation == "FR_SUPERSEDES"
                              and link.newer in inside and link.older in inside}))
        chains.append(SlotChain(slot, nodes, edges))
    return tuple(chains)


def stage_loads(facts: Iterable[ReportFact], policy: PolicyTable) -> tuple[StageLoad, ...]:
    """Per stage: live facts (split active / inactive), pinned, archived, and capacity."""
    counts: dict[Stage, Counter[str]] = {stage: Counter() for stage in STAGE_ORDER}
    for fact in facts:
        tally = counts[fact.stage]
        if fact.state is LifecycleState.ARCHIVED:
            tally["archived"] += 1
            continue
        tally["live"] += 1
        tally["active" if fact.state is LifecycleState.ACTIVE else "inactive"] += 1
        tally["pinned"] += int(fact.pinned)
    capacities = dict(zip(STAGE_ORDER, policy.retention.capacities, strict=True))
    return tuple(StageLoad(stage, counts[stage]["live"], counts[stage]["active"],
                           counts[stage]["inactive"], counts[stage]["pinned"],
                           counts[stage]["archived"], capacities[stage])
                 for stage in STAGE_ORDER)


def audit_summary(rows: Sequence[Mapping[str, Any]], limit: int = AUDIT_SHOWN
                  ) -> AuditSummary:
    """Counts of the audit records (ids, counts, times, reasons; never content)."""
    ordered = sorted(rows, key=lambda r: (str(r.get("at") or ""), str(r.get("id") or "")))
    actions = Counter(str(r.get("action") or "?") for r in ordered)
    times = [str(r["at"]) for r in ordered if r.get("at")]
    return AuditSummary(
        records=len(ordered), facts_deleted=sum(int(r.get("facts") or 0) for r in ordered),
        by_action=tuple(sorted(actions.items())),
        first_at=times[0] if times else None, last_at=times[-1] if times else None,
        recent=tuple(reversed(ordered[-limit:])) if limit else ())


def build_report(group_id: str, facts: Sequence[ReportFact], links: Sequence[ReportLink],
                 audit_rows: Sequence[Mapping[str, Any]], policy: PolicyTable, now: datetime
                 ) -> ReportData:
    """Shape one group's facts, links and audit records into the report's data.

    Months run from the first observed fact (or transition) to ``now``'s month; facts and
    transitions after ``now`` are left out of the timelines.
    """
    facts = sorted(facts, key=lambda f: f.uuid)
    ended = {f.uuid: transition_time(f, links, policy) for f in facts}
    moments = [m for f in facts for m in (f.observed_at, ended[f.uuid]) if m is not None]
    last = month_of(now)
    first = min((month_of(m) for m in moments), default=last)
    months = month_range(min(first, last), last)
    index = {month: i for i, month in enumerate(months)}

    observed = {c: [0] * len(months) for c in CATEGORIES}
    entered = {s: [0] * len(months) for s in STATE_ORDER}
    transitions = {s: [0] * len(months) for s in ENDED_STATES}
    for fact in facts:
        if fact.observed_at is not None and fact.observed_at > now:
            continue  # not yet observed at ``now``
        start = index[month_of(fact.observed_at)] if fact.observed_at else 0
        observed[fact.category][start] += 1
        entered[LifecycleState.ACTIVE][start] += 1
        moment = ended[fact.uuid]
        if moment is None or moment > now:
            continue
        month = index[month_of(moment)]
        transitions[fact.state][month] += 1
        entered[LifecycleState.ACTIVE][month] -= 1
        entered[fact.state][month] += 1

    return ReportData(
        group_id=group_id, now=now, facts=len(facts), months=months,
        category_timeline={c: _cumulative(v) for c, v in observed.items() if any(v)},
        state_timeline={s: _cumulative(v) for s, v in entered.items()},
        transitions={s: tuple(v) for s, v in transitions.items()},
        decay=decay_curves(policy), expiries=upcoming_expiries(facts, policy, now),
        chains=slot_chains(facts, links), stages=stage_loads(facts, policy),
        audit=audit_summary(audit_rows),
        by_state={s: n for s in STATE_ORDER
                  if (n := sum(f.state is s for f in facts))},
        by_category={c: n for c in CATEGORIES
                     if (n := sum(f.category is c for f in facts))},
    )


def _cumulative(values: Sequence[int]) -> tuple[int, ...]:
    total, out = 0, []
    for value in values:
        total += value
        out.append(total)
    return tuple(out)


def _epoch(moment: datetime | None) -> float:
    return moment.timestamp() if moment is not None else 0.0


def _label(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= LABEL_CHARS else flat[:LABEL_CHARS - 1].rstrip() + "…"

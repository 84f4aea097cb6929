"""Retention control (StageMem): confidence vs. strength, staged settlement under a budget.

Two carried states per fact, never folded into each other:

* **confidence** ``c``: validity/support evidence (extraction confidence; corroboration
  raises it, contradiction lowers it, supersession and retraction drive it down);
* **strength** ``m``: retention consequence, the cost of forgetting the fact (premise and
  constraint cues, user pinning, dependency, access).

Update dynamics are App. E of the StageMem paper (Eqs. 2-7)::

    e_in   = (exp(alpha c_hat) - 1) / (exp(alpha) - 1)                  (2)
    r_conf = exp(sigma (sign - 1))      # normexp: 1 supportive, e^-2sigma conflicting  (3)
    r_str  = exp(-beta m)                                                (4)
    p      = clip(lambda_stage e_in r_conf r_str, p_min, 1)              (5)
    c'     = c + p (target - c),  target 1 (support) or 0 (conflict)
    b      = clip(0.60 c_hat + 0.20 shock, 0, 1)                         (6)
    m'     = m + p 0.35 b (1 - m)          # saturating growth           (7)

with ``lambda`` smaller in deeper stages. The paper leaves ``normexp`` and the constants
``alpha, sigma, beta, lambda, p_min`` unstated; our choices are the ``[retention]`` table of
the packaged ``fr_graph/core/default_policy.toml`` (each documented there), which
:class:`RetentionPolicy` validates.

Settlement (Eq. 1) promotes a fact one stage iff ``c >= tau_c`` and ``m >= tau_r`` for that
stage (transient -> working -> durable, to a fixpoint, so settlement is idempotent). Facts
that fail stay shallow; when a stage is over its capacity (or the group over its budget)
the lowest-priority facts leave it: superseded / retracted / expired first, then by
strength, confidence and age. Leaving facts that share a compression key (slot or category)
are *compressed* into one summary; the others are *evicted* (state ``archived``). Pinned
facts never leave. Durable overflow demotes to working rather than evicting.

Everything here is pure: arrays in, arrays out, ``now`` never read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Annotated, Any, Final, Protocol, Self

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from fr_graph.core.lifecycle import LifecycleState, Stage

UnitFloat = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
Capacity = Annotated[int | None, Field(default=None, ge=0)]

STAGES: Final[tuple[Stage, ...]] = tuple(Stage)
"""Meaning of each stage code (shallow to deep)."""
STAGE_CODE: Final[dict[Stage, int]] = {s: i for i, s in enumerate(STAGES)}
TRANSIENT, WORKING, DURABLE = (STAGE_CODE[s] for s in STAGES)

_STATES: Final[tuple[LifecycleState, ...]] = tuple(LifecycleState)
STATE_INDEX: Final[dict[LifecycleState, int]] = {s: i for i, s in enumerate(_STATES)}
_ACTIVE: Final = STATE_INDEX[LifecycleState.ACTIVE]
_ARCHIVED: Final = STATE_INDEX[LifecycleState.ARCHIVED]

#: App. E, Eqs. 6-7: the paper's constants.
GROWTH_CONFIDENCE: Final = 0.60
GROWTH_SHOCK: Final = 0.20
GROWTH_RATE: Final = 0.35


class RetentionPolicy(BaseModel):
    """Every retention parameter; part of the policy table (``[retention]`` in TOML).

    No defaults in code: the values are the ``[retention]`` table of the packaged
    ``default_policy.toml`` (``PolicyTable.default().retention``). Thresholds are ours: the
    paper gives Eq. 1's form but not its ``tau`` values. We put the working gate at moderate
    evidence and the durable gate where only cue-marked premises (rules strength 0.6-0.9,
    :mod:`fr_graph.classify.strength`) or reinforced facts reach.

    Attributes:
        working_confidence / working_strength: ``tau_c`` / ``tau_r`` to leave transient.
        durable_confidence / durable_strength: ``tau_c`` / ``tau_r`` to reach durable.
        transient_capacity / working_capacity / durable_capacity: facts per stage and group
            (None: unbounded). ``maintain --budget N`` caps the total on top.
        plasticity_transient / _working / _durable: ``lambda`` of Eq. 5 per stage (ours;
            non-increasing with depth as the paper requires).
        evidence_alpha: ``alpha`` of Eq. 2 (ours).
        conflict_sigma: ``sigma`` of Eq. 3 (ours): a conflicting observation moves a value
            ``exp(-2 sigma)`` as far as a supporting one, so one contradiction does not erase
            a well-supported fact.
        strength_beta: ``beta`` of Eq. 4 (ours): strong facts resist change.
        min_plasticity: ``p_min`` of Eq. 5 (ours).
        evidence_scale: new accesses + dependents become ``shock = 1 - exp(-n / scale)``.
        pin_strength: the strength a pinned fact has at least.
        compress_min_facts: leaving facts of one key compress only when at least this many.
        decay_protection: weight of the ranking's strength term (durable facts only).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    working_confidence: UnitFloat
    working_strength: UnitFloat
    durable_confidence: UnitFloat
    durable_strength: UnitFloat
    # None (left out of the file: TOML has no null) means unbounded.
    transient_capacity: Capacity = None
    working_capacity: Capacity = None
    durable_capacity: Capacity = None
    plasticity_transient: float = Field(gt=0.0, le=1.0, allow_inf_nan=False)
    plasticity_working: float = Field(gt=0.0, le=1.0, allow_inf_nan=False)
    plasticity_durable: float = Field(gt=0.0, le=1.0, allow_inf_nan=False)
    evidence_alpha: float = Field(gt=0.0, le=20.0, allow_inf_nan=False)
    conflict_sigma: float = Field(ge=0.0, le=10.0, allow_inf_nan=False)
    strength_beta: float = Field(ge=0.0, le=20.0, allow_inf_nan=False)
    min_plasticity: UnitFloat
    evidence_scale: float = Field(gt=0.0, allow_inf_nan=False)
    pin_strength: UnitFloat
    compress_min_facts: int = Field(ge=2)
    decay_protection: UnitFloat

    @model_validator(mode="after")
    def _deeper_is_less_plastic(self) -> Self:
        if not self.plasticity_transient >= self.plasticity_working >= self.plasticity_durable:
            raise ValueError("plasticity must not grow with depth: a deeper stage needs a lambda "
                             "no larger than the stage above it")
        return self

    def model_copy(self, *, update: Mapping[str, Any] | None = None,
                   deep: bool = False) -> Self:
        """Copy through validation, so a variant of the defaults is checked like a file."""
        return type(self).model_validate({**self.model_dump(), **(update or {})})

    @property
    def plasticity(self) -> np.ndarray:
        """``lambda`` per stage code."""
        return np.array([self.plasticity_transient, self.plasticity_working,
                         self.plasticity_durable])

    @property
    def capacities(self) -> tuple[int | None, int | None, int | None]:
        return (self.transient_capacity, self.working_capacity, self.durable_capacity)


class RetentionOverride(BaseModel):
    """A partial :class:`RetentionPolicy` (per deployment or per group); strict, as
    :class:`fr_graph.core.policy.PolicyOverride`."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    working_confidence: UnitFloat | None = None
    working_strength: UnitFloat | None = None
    durable_confidence: UnitFloat | None = None
    durable_strength: UnitFloat | None = None
    transient_capacity: int | None = Field(default=None, ge=0)
    working_capacity: int | None = Field(default=None, ge=0)
    durable_capacity: int | None = Field(default=None, ge=0)
    plasticity_transient: float | None = Field(default=None, gt=0.0, le=1.0)
    plasticity_working: float | None = Field(default=None, gt=0.0, le=1.0)
    plasticity_durable: float | None = Field(default=None, gt=0.0, le=1.0)
    evidence_alpha: float | None = Field(default=None, gt=0.0, le=20.0)
    conflict_sigma: float | None = Field(default=None, ge=0.0, le=10.0)
    strength_beta: float | None = Field(default=None, ge=0.0, le=20.0)
    min_plasticity: UnitFloat | None = None
    evidence_scale: float | None = Field(default=None, gt=0.0)
    pin_strength: UnitFloat | None = None
    compress_min_facts: int | None = Field(default=None, ge=2)
    decay_protection: UnitFloat | None = None


class StrengthInitializer(Protocol):
    """Initial strength (retention consequence) of new facts from their text, in ``[0, 1]``.

    Pluggable: the rules initializer (:func:`fr_graph.classify.strength.cue_strength`) now;
    an LLM or learned scorer (App. E, Eqs. 8-10) can take its place.
    """

    def __call__(self, texts: Sequence[str]) -> np.ndarray: ...


# -- update dynamics (App. E) ---------------------------------------------------------------


def evidence_gain(c_hat: np.ndarray | float, policy: RetentionPolicy) -> np.ndarray:
    """Eq. 2: convex gain of incoming evidence confidence, 0 at 0 and 1 at 1."""
    alpha = policy.evidence_alpha
    gain: np.ndarray = np.expm1(alpha * np.asarray(c_hat, dtype=np.float64)) / np.expm1(alpha)
    return gain


def plasticity(c_hat: np.ndarray | float, sign: np.ndarray | int, strength: np.ndarray | float,
               stage: np.ndarray | int, policy: RetentionPolicy) -> np.ndarray:
    """Eq. 5: how far one observation moves a stored value (Eqs. 2-4 as factors)."""
    sign_arr = np.asarray(sign, dtype=np.float64)
    r_conf = np.exp(policy.conflict_sigma * (sign_arr - 1.0))  # Eq. 3
    r_str = np.exp(-policy.strength_beta * np.asarray(strength, dtype=np.float64))  # Eq. 4
    lam = policy.plasticity[np.asarray(stage, dtype=np.intp)]
    p: np.ndarray = np.clip(lam * evidence_gain(c_hat, policy) * r_conf * r_str,
                            policy.min_plasticity, 1.0)
    return p


def update_confidence(confidence: np.ndarray | float, c_hat: np.ndarray | float,
                      sign: np.ndarray | int, strength: np.ndarray | float,
                      stage: np.ndarray | int, policy: RetentionPolicy) -> np.ndarray:
    """Corroboration (``sign`` +1) moves confidence toward 1, contradiction (-1) toward 0."""
    c = np.asarray(confidence, dtype=np.float64)
    target = (np.asarray(sign, dtype=np.float64) > 0).astype(np.float64)
    p = plasticity(c_hat, sign, strength, stage, policy)
    return np.clip(c + p * (target - c), 0.0, 1.0)


def revoke_confidence(confidence: np.ndarray | float, evidence: np.ndarray | float
                      ) -> np.ndarray:
    """Supersession or retraction with confidence ``evidence``: ``c (1 - evidence)``."""
    return np.asarray(confidence, dtype=np.float64) * (1.0 - np.asarray(evidence))


def evidence_shock(new_evidence: np.ndarray | float, policy: RetentionPolicy) -> np.ndarray:
    """New accesses and dependents as the ``shock`` of Eq. 6, saturating in ``[0, 1)``."""
    n = np.maximum(np.asarray(new_evidence, dtype=np.float64), 0.0)
    return -np.expm1(-n / policy.evidence_scale)


def grow_strength(strength: np.ndarray | float, c_hat: np.ndarray | float,
                  shock: np.ndarray | float, stage: np.ndarray | int,
                  policy: RetentionPolicy) -> np.ndarray:
    """Eqs. 6-7: one reinforcement; never lowers strength and never reaches 1 from below."""
    m = np.asarray(strength, dtype=np.float64)
    p = plasticity(c_hat, 1, m, stage, policy)
    b = np.clip(GROWTH_CONFIDENCE * np.asarray(c_hat) + GROWTH_SHOCK * np.asarray(shock),
                0.0, 1.0)
    return m + p * GROWTH_RATE * b * (1.0 - m)


def effective_strength(strength: np.ndarray, pinned: np.ndarray, policy: RetentionPolicy
                       ) -> np.ndarray:
    """Strength as settlement sees it: a pinned fact has at least ``pin_strength``."""
    s = np.asarray(strength, dtype=np.float64)
    return np.where(np.asarray(pinned, dtype=bool), np.maximum(s, policy.pin_strength), s)


def gate_confidence(confidence: np.ndarray, state: np.ndarray, conflicts: np.ndarray,
                    strength: np.ndarray, stage: np.ndarray, policy: RetentionPolicy
                    ) -> np.ndarray:
    """The validity gate settlement applies: stored confidence after ``conflicts``
    contradicting observations (Eq. 5 with ``sign`` -1 each), and 0 for a fact that is no
    longer active (superseded, retracted, expired: driven down, first to go).

    Computed from stored values, never written back, so maintenance is idempotent.
    """
    c = np.asarray(confidence, dtype=np.float64).copy()
    pending = np.asarray(conflicts, dtype=np.intp).copy()
    while (rows := np.flatnonzero(pending > 0)).size:
        c[rows] = update_confidence(c[rows], 1.0, -1, strength[rows], stage[rows], policy)
        pending[rows] -= 1
    return np.where(np.asarray(state) == _ACTIVE, c, 0.0)


# -- settlement (Eq. 1) and capacity ----------------------------------------------------------


class Action(IntEnum):
    """What settlement does to one fact."""

    KEEP = 0
    PROMOTE = 1
    DEMOTE = 2
    COMPRESS = 3
    EVICT = 4


class Reason(IntEnum):
    """Why settlement moved (or kept) a fact; :attr:`label` is the report's text."""

    NONE = 0
    PASSED_GATES = 1
    LOW_CONFIDENCE = 2
    LOW_STRENGTH = 3
    INACTIVE_FIRST = 4
    OVER_STAGE_CAPACITY = 5
    OVER_GROUP_BUDGET = 6
    DURABLE_FULL = 7

    @property
    def label(self) -> str:
        return _REASON_LABELS[self]


_REASON_LABELS: Final[dict[Reason, str]] = {
    Reason.NONE: "",
    Reason.PASSED_GATES: "confidence >= tau_c and strength >= tau_r: passed the promotion gates",
    Reason.LOW_CONFIDENCE: "confidence below tau_c: stays shallow",
    Reason.LOW_STRENGTH: "strength below tau_r: stays shallow",
    Reason.INACTIVE_FIRST: "superseded, retracted or expired: first to go under pressure",
    Reason.OVER_STAGE_CAPACITY: "stage over capacity: lowest strength, confidence, age",
    Reason.OVER_GROUP_BUDGET: "group over its budget: lowest strength, confidence, age",
    Reason.DURABLE_FULL: "durable stage full: kept in working",
}


@dataclass(frozen=True, slots=True, eq=False)
class Settlement:
    """Settlement's decision for every row (arrays of length ``k``).

    Attributes:
        stage: stage code after settlement (unchanged for archived rows).
        action: :class:`Action` codes.
        reason: :class:`Reason` codes.
        summary: for compressed rows, the index of the summary they join (into
            :attr:`summaries`); -1 elsewhere.
        summaries: per summary, ``(compression key, stage code)``.
        load_before / load_after: live facts per stage code before and after.
        budget_hit: a stage capacity or the group budget was exceeded before settlement.
        over_budget: still exceeded after (only pinned facts were left to remove).
    """

    stage: np.ndarray
    action: np.ndarray
    reason: np.ndarray
    summary: np.ndarray
    summaries: tuple[tuple[int, int], ...]
    load_before: tuple[int, int, int]
    load_after: tuple[int, int, int]
    budget_hit: bool
    over_budget: bool

    @property
    def leaving(self) -> np.ndarray:
        """Rows that become archived (compressed or evicted)."""
        leaving: np.ndarray = (self.action == Action.COMPRESS) | (self.action == Action.EVICT)
        return leaving


def promotion_targets(stage: np.ndarray, confidence: np.ndarray, strength: np.ndarray,
                      active: np.ndarray, policy: RetentionPolicy
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Eq. 1 to a fixpoint: the deepest stage each row's gates allow (never shallower than
    its stage), and the reason a row that stays below durable stopped."""
    to_working = active & (confidence >= policy.working_confidence) \
        & (strength >= policy.working_strength)
    to_durable = to_working & (confidence >= policy.durable_confidence) \
        & (strength >= policy.durable_strength)
    target = np.where(to_durable, DURABLE, np.where(to_working, WORKING, TRANSIENT))
    target = np.maximum(target, stage)
    next_c = np.where(stage == TRANSIENT, policy.working_confidence, policy.durable_confidence)
    reason = np.where(target > stage, Reason.PASSED_GATES,
                      np.where(confidence < next_c, Reason.LOW_CONFIDENCE, Reason.LOW_STRENGTH))
    reason = np.where((target == DURABLE) & (target == stage), Reason.NONE, reason)
    return target.astype(np.intp), reason.astype(np.intp)


def removal_order(rows: np.ndarray, active: np.ndarray, strength: np.ndarray,
                  confidence: np.ndarray, observed_at: np.ndarray) -> np.ndarray:
    """``rows`` in the order they leave a full stage: inactive first, then lowest strength,
    lowest confidence, oldest; ties by row index (deterministic)."""
    keys = (rows, observed_at[rows], confidence[rows], strength[rows], active[rows])
    return rows[np.lexsort(keys)]


def settle(*, stage: np.ndarray, state: np.ndarray, confidence: np.ndarray,
           strength: np.ndarray, pinned: np.ndarray, observed_at: np.ndarray,
           compress_key: np.ndarray, policy: RetentionPolicy, budget: int | None = None
           ) -> Settlement:
    """Settle one group: promote (Eq. 1), then enforce stage capacities and the budget.

    Args:
        stage: stage codes (:data:`STAGE_CODE`).
        state: lifecycle state codes (``list(LifecycleState)`` order); archived rows take
            no part and count toward no load.
        confidence: the validity gate (see :func:`gate_confidence`).
        strength: effective strength (see :func:`effective_strength`).
        pinned: pinned rows never leave and are never demoted.
        observed_at: epoch seconds (older leaves first among equals).
        compress_key: ``int`` codes, -1 when the fact may not be compressed.
        policy: thresholds and capacities.
        budget: cap on live facts in the group, on top of the stage capacities.
    """
    k = stage.shape[0]
    stage_in = np.asarray(stage, dtype=np.intp)
    live = np.asarray(state) != _ARCHIVED
    active = np.asarray(state) == _ACTIVE
    pinned = np.asarray(pinned, dtype=bool)
    target, reason = promotion_targets(stage_in, confidence, strength, active & live, policy)
    new_stage = np.where(live, target, stage_in)
    reason = np.where(live, reason, Reason.NONE)
    action = np.where(new_stage > stage_in, Action.PROMOTE, Action.KEEP).astype(np.intp)
    summary = np.full(k, -1, dtype=np.intp)
    summaries: list[tuple[int, int]] = []
    opened: dict[tuple[int, int], int] = {}  # (key, stage) -> summary index
    dissolved: set[int] = set()
    load_before = _load(stage_in, live)
    out = live.copy()  # rows still holding a place in memory
    hit = False

    def leave(victims: np.ndarray, why: Reason, where: int) -> int:
        """Remove ``victims`` (in order) from stage ``where``; returns the places freed."""
        if not victims.size:
            return 0
        freed = 0
        keys = compress_key[victims]
        compressible = active[victims] & (keys >= 0)
        evict = victims[~compressible]
        for key in np.unique(keys[compressible]):
            members = victims[compressible & (keys == key)]
            joining = opened.get((int(key), where))
            if joining is not None and joining not in dissolved:
                freed += members.size  # joins this run's summary of the same key
            elif members.size >= policy.compress_min_facts:
                joining = opened[(int(key), where)] = len(summaries)
                summaries.append((int(key), where))
                freed += members.size - 1
            else:
                evict = np.concatenate([evict, members])
                continue
            summary[members] = joining
            action[members], reason[members] = Action.COMPRESS, why
        action[evict], reason[evict] = Action.EVICT, why
        reason[evict[~active[evict]]] = Reason.INACTIVE_FIRST
        out[victims] = False
        return freed + int(evict.size)

    def shrink(where: int, excess: int, why: Reason) -> int:
        """Free ``excess`` places in stage ``where``; returns how many it could not."""
        rows = np.flatnonzero(out & (new_stage == where) & ~pinned)
        order = removal_order(rows, active, strength, confidence, observed_at)
        if where == DURABLE:  # durable overflow steps down to working; only the
            inactive = order[~active[order]]  # inactive facts leave memory from here
            still = excess - leave(inactive[:excess], why, where)
            stepping = order[active[order]][:still]
            was = stage_in[stepping]
            new_stage[stepping] = WORKING
            action[stepping] = np.where(
                was == DURABLE, Action.DEMOTE,
                np.where(was == TRANSIENT, Action.PROMOTE, Action.KEEP))
            reason[stepping] = np.where(was == DURABLE, why, Reason.DURABLE_FULL)
            return max(still - int(stepping.size), 0)
        return drain(where, order, excess, why)

    def drain(where: int, order: np.ndarray, excess: int, why: Reason) -> int:
        """Let ``order`` leave until ``excess`` places are free; when compression alone
        cannot free enough (a summary needs a place too), dissolve this stage's summaries
        into evictions. Returns how many places it could not free."""
        taken = 0
        while excess > 0 and taken < order.size:
            extra = min(excess, order.size - taken)
            excess -= leave(order[taken:taken + extra], why, where)
            taken += extra
        for index in range(len(summaries) - 1, -1, -1):
            if excess <= 0:
                break
            if summaries[index][1] == where and index not in dissolved:
                members = np.flatnonzero(summary == index)
                dissolved.add(index)
                summary[members], action[members] = -1, Action.EVICT
                excess -= 1
        return max(excess, 0)

    for where in (DURABLE, WORKING, TRANSIENT):  # demotions cascade downward
        cap = policy.capacities[where]
        if cap is None:
            continue
        excess = _stage_load(out, new_stage, summaries, dissolved, where) - cap
        if excess > 0:
            hit = True
            shrink(where, excess, Reason.OVER_STAGE_CAPACITY)
    unmet = False
    if budget is not None:
        excess = sum(_stage_load(out, new_stage, summaries, dissolved, w)
                     for w in range(3)) - budget
        if excess > 0:
            hit = True
            for where in (TRANSIENT, WORKING, DURABLE):
                rows = np.flatnonzero(out & (new_stage == where) & ~pinned)
                order = removal_order(rows, active, strength, confidence, observed_at)
                excess = drain(where, order, excess, Reason.OVER_GROUP_BUDGET)
            unmet = excess > 0
    for where in (TRANSIENT, WORKING, DURABLE):
        cap = policy.capacities[where]
        if cap is not None and _stage_load(out, new_stage, summaries, dissolved, where) > cap:
            unmet = True
    kept = [i for i in range(len(summaries)) if i not in dissolved]
    remap = np.full(len(summaries) + 1, -1, dtype=np.intp)
    remap[kept] = np.arange(len(kept))
    summary = remap[summary]  # -1 stays -1 (the extra last slot)
    summaries = [summaries[i] for i in kept]
    load_after = tuple(_stage_load(out, new_stage, summaries, set(), s) for s in range(3))
    return Settlement(
        stage=new_stage.astype(np.intp), action=action, reason=reason.astype(np.intp),
        summary=summary, summaries=tuple(summaries), load_before=load_before,
        load_after=(load_after[0], load_after[1], load_after[2]), budget_hit=hit,
        over_budget=unmet)


def _load(stage: np.ndarray, live: np.ndarray) -> tuple[int, int, int]:
    counts = np.bincount(stage[live], minlength=3)
    return int(counts[0]), int(counts[1]), int(counts[2])


def _stage_load(out: np.ndarray, stage: np.ndarray, summaries: list[tuple[int, int]],
                dissolved: set[int], where: int) -> int:
    """Live facts in stage ``where``, counting each summary still to be written."""
    return int(np.count_nonzero(out & (stage == where))) + sum(
        1 for i, (_, s) in enumerate(summaries) if s == where and i not in dissolved)

"""The deterministic reranker: one vectorized pass over a columnar candidate batch.

Score form
----------
We rank with the paper's *blended* form, not the raw log-score of Eq. (2). App. A.1 calls
Eq. (2) "an interpretation device"; the deployed layer (App. D.9, Table 11, App. K) blends
activation and similarity with per-category ``alpha_c`` and semantic floors, and those are
the parameters the paper publishes (Table 48) and ablates (App. K: uniform ``alpha = 0.3``
drops AV8 to 12.5%; no floors: Hit@1 31% -> 19%). Eq. (2) has a free ``beta`` and no floors,
so it cannot express Table 48 at all. Every factor of Eq. (2) is still here, by name:

* ``S_c`` (decay, Lemma 1 harmonic rate) and ``V_c`` (event-time kernel) form the activation;
* ``M_q`` is a hard mask (``log 0 = -inf``: masked rows get score ``-inf`` and leave ``order``);
* ``rho(c|q)`` and ``Omega`` multiply the blended score.

Per candidate::

    a      = exp(w_s * log S + sum_{c in K} w_c log V_c(t, h))    # K: kernel categories,
                                                                   # w_s: the rest (1 w/o h)
    a      = a + (1 - a) * emotional_boost                         # App. B.6, transient
    a      = a + (1 - a) * kappa * m     if durable                # StageMem strength term
    r      = max(semantic, fulltext_weight * fulltext)             # per-source normalized
    base   = max(alpha * a + (1 - alpha) * r, floor * r)           # Table 48
    base   = max(base, 0.95 * r)  if has_number and r >= 0.85      # App. H numeric rescue
    score  = base * routing * Omega * state_weight
    score  = -inf where masked (M_q, date expiry, quarantine, world knowledge, ...)

``log S = -lambda_eff * age`` with ``lambda_eff`` from Lemma 1; ``alpha``, ``floor`` and
``routing = sum_c w_c (11 rho_c)^s`` are soft-membership mixtures of per-category values;
``kappa * m`` (``retention.decay_protection`` times strength) protects durable premises
from decay: a settled fact whose loss is costly (StageMem) keeps its activation however old
it is, while shallow facts decay as before; ``Omega = prod (1 - gamma v_e')`` over later
active facts of the same slot (needs
``slot_group``); ``state_weight`` orders admitted states for change queries (A.7.3).

Arms
----
``FULL`` is the above. ``UNTYPED`` is the pre-registered three-primitive arm of App. AD:
latest-slot-wins, date expiry (every category, no numeric exemption), retraction drop
(unconditional), ranking by semantic similarity alone, no routing and no forced retrieval;
it ignores the query intent and the other switches. It keeps the full arm's two safety
exclusions (world-knowledge facts and quarantined instruction-like text are dropped), so
that it differs from ``FULL`` only in the lifecycle policy. Ablations of the full arm are switches
on a frozen :class:`RerankConfig` (see :data:`ABLATIONS`).

Performance: the policy is precomputed as an ``(8, 11)`` matrix, so every soft-membership
mixture is one matrix product; sparse features (event times, numbers, emotional loading,
exclusions) are handled on precomputed row subsets; there is no per-candidate Python.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict

from fr_graph.core.codes import (
    ACTIVE_CODE,
    EXPIRED_CODE,
    N_CATEGORIES,
    N_STATES,
    STATE_CODE,
    STATES,
    MaskReason,
)
from fr_graph.core.intent import EventDirection, Intent, QueryAnalysis
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.policy import (
    MIX_ALPHA,
    MIX_FLOOR,
    MIX_GUARD,
    MIX_MU,
    MIX_NEG_NU,
    MIX_STEADY,
    MIX_TAU,
    MIX_TAU_UNIFORM,
    SECONDS_PER_HOUR,
    PolicyTable,
)
from fr_graph.core.validity import GUARD_MAJORITY
from fr_graph.errors import InputError

# -- configuration ------------------------------------------------------------------------


class Arm(StrEnum):
    """Which scoring policy runs."""

    FULL = "full"
    UNTYPED = "untyped"


class RerankConfig(BaseModel):
    """Frozen switches for the arm and its ablations. Every switch defaults to on.

    Attributes:
        arm: ``full`` or the pre-registered ``untyped`` arm (App. AD).
        routing: category prior ``rho`` and category-forced candidates; off = "no routing".
        category_decay: per-category ``lambda``; off = "uniform lambda".
        event_time: validity kernel, date expiry, event direction; off = "no event time".
        retraction_mask: ``M_q`` hides retracted facts; off = "no retraction mask".
        numeric_rescue: App. H exemptions and floor; off = "no numeric rescue".
        soft_supersession: same-slot facts both stay, scaled by ``Omega``; off = binary
            supersession (latest slot wins among active facts).
        semantic_floors: Table 48 floors (an engineering row of Table 2).
        emotional_boost: the transient emotional-loading boost (App. B.6).
        exclude_world_knowledge: drop world-knowledge facts (App. Z, D.5).
        quarantine_instructions: drop instruction-like facts (App. B.5).
        strength_protection: durable facts' activation is lifted by their strength
            (StageMem); off = durable premises decay like everything else.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    arm: Arm = Arm.FULL
    routing: bool = True
    category_decay: bool = True
    event_time: bool = True
    retraction_mask: bool = True
    numeric_rescue: bool = True
    soft_supersession: bool = True
    semantic_floors: bool = True
    emotional_boost: bool = True
    exclude_world_knowledge: bool = True
    quarantine_instructions: bool = True
    strength_protection: bool = True

    def without(self, *switches: str) -> RerankConfig:
        """A copy with the named switches turned off.

        Raises:
            InputError: a name is not a switch.
        """
        known = set(type(self).model_fields) - {"arm"}
        unknown = sorted(set(switches) - known)
        if unknown:
            raise InputError(f"unknown rerank switch(es): {', '.join(unknown)}")
        return type(self).model_validate(
            {**self.model_dump(), **dict.fromkeys(switches, False)})


FULL: Final[RerankConfig] = RerankConfig()
UNTYPED: Final[RerankConfig] = RerankConfig(arm=Arm.UNTYPED)

ABLATIONS: Final[dict[str, RerankConfig]] = {
    "full": FULL,
    "untyped": UNTYPED,
    "no_routing": FULL.without("routing"),
    "uniform_decay": FULL.without("category_decay"),
    "no_event_time": FULL.without("event_time"),
    "no_retraction_mask": FULL.without("retraction_mask"),
    "no_numeric_rescue": FULL.without("numeric_rescue"),
    "no_soft_supersession": FULL.without("soft_supersession"),
}
"""The named configurations the benchmark harness compares (Table 3, Table 52, App. AD)."""

# -- input --------------------------------------------------------------------------------

_FLOAT_COLUMNS: Final = ("semantic", "fulltext", "observed_at", "event_time", "valid_to",
                         "confidence", "strength", "emotional_loading")
_BOOL_COLUMNS: Final = ("forced", "has_number", "world_knowledge", "instruction_like",
                        "ambiguous")
_UNIT_COLUMNS: Final = ("fulltext", "confidence", "strength", "emotional_loading")
_SEMANTIC_SLACK: Final = 1e-3  # float32 cosines can overshoot +-1 slightly; clip within this
_OMEGA_MAX_HIT: Final = 1.0 - 1e-12  # keeps log1p finite when gamma * confidence == 1
_EMPTY_ROWS: Final = np.zeros(0, dtype=np.intp)
_EMPTY_ROWS.setflags(write=False)


PAIR_LIMIT_PER_ROW: Final = 8
"""Up to ``8 k`` (slot-mate, later slot-mate) pairs are listed outright; beyond that (many
candidates in one slot) the reranker falls back to sorted cumulative sums."""

DENSE_PAIRS_MAX_ROWS: Final = 64
"""Up to this many candidates, slot-mate pairs are found with one ``(k, k)`` comparison
instead of a sort: a handful of numpy calls instead of some thirty."""


class SlotRuns(NamedTuple):
    """Which candidates have a strictly later candidate in the same slot.

    Built once per batch (it depends only on slot keys and observation times); ``Omega`` and
    latest-slot-wins evaluate it with per-query eligibility. Rows are sorted by (slot, time);
    rows stated at the same instant are not "later" than each other.

    Attributes:
        order: row indices sorted by slot, then observation time (this and the next three
            serve the cumulative-sum fallback only; empty when the pairs are listed from
            the dense comparison).
        slot_end: per sorted position, the last position of its slot.
        run_end: per sorted position, the last position of its (slot, instant) run.
        unslotted: rows without a slot key.
        slotted: bool mask of rows with a slot key.
        targets: for each (earlier, later) same-slot pair, the earlier row; None when the
            pairs would exceed :data:`PAIR_LIMIT_PER_ROW` per row.
        sources: the later row of each pair.
        source_confidence: the later row's confidence, capped below 1 so ``log1p`` of
            ``-gamma * v`` stays finite.
    """

    order: np.ndarray
    slot_end: np.ndarray
    run_end: np.ndarray
    unslotted: np.ndarray
    slotted: np.ndarray
    targets: np.ndarray | None
    sources: np.ndarray | None
    source_confidence: np.ndarray | None

    @classmethod
    def of(cls, groups: np.ndarray, observed_at: np.ndarray, confidence: np.ndarray, *,
           pair_limit: int | None = None, dense_max_rows: int = DENSE_PAIRS_MAX_ROWS
           ) -> SlotRuns | None:
        """Sort once; None when no slot holds two candidates (nothing to compare)."""
        k = groups.shape[0]
        limit = PAIR_LIMIT_PER_ROW * k if pair_limit is None else pair_limit
        if k <= dense_max_rows:
            slotted = groups >= 0
            same = groups[:, None] == groups
            same &= slotted[:, None]
            if np.count_nonzero(same) == np.count_nonzero(slotted):  # the diagonal only
                return None
            same &= observed_at[:, None] < observed_at  # [earlier, later]
            targets, sources = same.nonzero()
            if targets.shape[0] <= limit:
                # List each row's later slot-mates by time, as the sorted path does, so the
                # sums over them (bincount adds in listed order) are bit-identical.
                by_time = np.lexsort((observed_at[sources], targets))
                sources = sources[by_time]
                return cls(_EMPTY_ROWS, _EMPTY_ROWS, _EMPTY_ROWS, _EMPTY_ROWS, slotted,
                           targets[by_time], sources,
                           np.minimum(confidence[sources], _OMEGA_MAX_HIT))
        order = np.lexsort((observed_at, groups))
        slot, seen = groups[order], observed_at[order]
        new_slot = np.empty(k, dtype=bool)
        new_slot[0] = True
        np.not_equal(slot[1:], slot[:-1], out=new_slot[1:])
        if not ((slot >= 0) & ~new_slot).any():
            return None
        new_run = new_slot.copy()
        new_run[1:] |= seen[1:] != seen[:-1]
        slot_end = _last_of_block(new_slot)
        run_end = _last_of_block(new_run)
        slotted = groups >= 0
        later = slot_end - run_end  # per sorted position: how many strictly later slot-mates
        later[slot < 0] = 0
        pairs = int(later.sum())
        targets = sources = source_confidence = None
        if pairs <= limit:
            first = np.repeat(run_end + 1, later)
            step = np.arange(pairs) - np.repeat(later.cumsum() - later, later)
            targets = order[np.repeat(np.arange(k), later)]
            sources = order[first + step]
            source_confidence = np.minimum(confidence[sources], _OMEGA_MAX_HIT)
        return cls(order, slot_end, run_end, (~slotted).nonzero()[0], slotted, targets,
                   sources, source_confidence)

    def later_sums(self, values: np.ndarray) -> np.ndarray:
        """Per row, the sum of ``values`` over strictly later rows of its slot.

        ``values`` must be 0 on unslotted rows; the result is 0 there.
        """
        k = values.shape[0]
        if self.targets is not None and self.sources is not None:
            sums: np.ndarray = np.bincount(self.targets, weights=values[self.sources],
                                           minlength=k)
            return sums
        running = values[self.order].cumsum()
        sums = np.empty(k)
        sums[self.order] = running[self.slot_end] - running[self.run_end]
        sums[self.unslotted] = 0.0
        return sums


@dataclass(frozen=True, slots=True, eq=False)
class CandidateBatch:
    """One row per candidate fact; every column is a numpy array of length ``k``.

    Construction validates shapes, dtypes and ranges once (raising :class:`InputError`) and
    precomputes the sparse row subsets the reranker needs, so :func:`rerank` does not
    re-check anything.

    Attributes:
        semantic: cosine similarity of query and fact embedding, in ``[-1, 1]``.
        fulltext: per-source-normalized BM25 in ``[0, 1]``; 0 when not a fulltext hit.
        forced: came in *only* through category-forced retrieval.
        category_weights: ``(k, 11)`` soft membership, rows sum to 1, columns in
            ``list(Category)`` order.
        state: codes indexing ``list(LifecycleState)`` (``int8`` in, stored as ``intp`` so
            table lookups are a plain gather).
        observed_at: when the fact was stated, epoch seconds.
        event_time: the event-time anchor, epoch seconds; NaN when none.
        valid_to: end of the validity interval, epoch seconds; NaN when open.
        confidence: classifier / extraction confidence in ``[0, 1]`` (used by ``Omega``).
        strength: retention consequence in ``[0, 1]`` (StageMem); carried, not scored.
        has_number: the fact carries a number or amount (App. H).
        world_knowledge: general knowledge, not about the user.
        instruction_like: reads as an instruction to the assistant (quarantined).
        ambiguous: flagged by soft supersession (shown as such in context).
        emotional_loading: transient affect in ``[0, 1]`` (App. B.6).
        slot_group: optional ``int`` slot-key codes in ``[-1, k)``, -1 for no slot (see
            :func:`slot_groups`); enables ``Omega`` and latest-slot-wins at query time.
        durable: optional bool, the fact settled in the durable stage (StageMem); durable
            facts with strength get the decay-protection term.
        tentative: optional bool, the fact is a hedged statement ("thinking about a
            OnePlus"). A hedge does not assert a new value, so it does not scale the
            standing value of its slot down through ``Omega``; both stay, flagged ambiguous.
        contested: optional float in ``[0, 1]``, the probability of the strongest link by
            which a later fact contests this one below the verifier's hard band; scales
            the score by ``1 - gamma * contested`` (folded into the ``omega`` term) except
            for backward-looking queries.
    """

    semantic: np.ndarray
    fulltext: np.ndarray
    forced: np.ndarray
    category_weights: np.ndarray
    state: np.ndarray
    observed_at: np.ndarray
    event_time: np.ndarray
    valid_to: np.ndarray
    confidence: np.ndarray
    strength: np.ndarray
    has_number: np.ndarray
    world_knowledge: np.ndarray
    instruction_like: np.ndarray
    ambiguous: np.ndarray
    emotional_loading: np.ndarray
    slot_group: np.ndarray | None = None
    durable: np.ndarray | None = None
    tentative: np.ndarray | None = None
    contested: np.ndarray | None = None
    size: int = field(init=False)
    superseding: np.ndarray = field(init=False)
    event_rows: np.ndarray = field(init=False)
    valid_to_rows: np.ndarray = field(init=False)
    number_rows: np.ndarray = field(init=False)
    emotion_rows: np.ndarray = field(init=False)
    forced_rows: np.ndarray = field(init=False)
    world_rows: np.ndarray = field(init=False)
    instruction_rows: np.ndarray = field(init=False)
    protected_rows: np.ndarray = field(init=False)
    latest_observed: float = field(init=False)
    earliest_event: float = field(init=False)
    shares_slots: bool = field(init=False)
    slot_runs: SlotRuns | None = field(init=False)

    def __post_init__(self) -> None:
        k = int(np.shape(self.semantic)[0]) if np.ndim(self.semantic) == 1 else -1
        if k < 0:
            raise InputError("CandidateBatch.semantic must be one-dimensional")
        put = object.__setattr__
        for name in _FLOAT_COLUMNS:
            put(self, name, as_column(name, getattr(self, name), np.float64, k))
        for name in _BOOL_COLUMNS:
            put(self, name, as_column(name, getattr(self, name), np.bool_, k))
        put(self, "state", as_column("state", self.state, np.intp, k))
        # Column-major, so the mixtures' ``mix @ weights.T`` reads contiguous memory.
        weights = np.asfortranarray(self.category_weights, dtype=np.float64)
        if weights.shape != (k, N_CATEGORIES):
            raise InputError(f"category_weights must have shape ({k}, {N_CATEGORIES}), "
                             f"got {weights.shape}")
        put(self, "category_weights", weights)
        if self.slot_group is not None:
            put(self, "slot_group", as_column("slot_group", self.slot_group, np.intp, k))
        for name in ("durable", "tentative"):
            if getattr(self, name) is not None:
                put(self, name, as_column(name, getattr(self, name), np.bool_, k))
        if self.contested is not None:
            contested = as_column("contested", self.contested, np.float64, k)
            if k and not (float(contested.min()) >= 0.0 and float(contested.max()) <= 1.0):
                raise InputError("CandidateBatch.contested must lie in [0, 1]")
            put(self, "contested", contested)
        put(self, "size", k)
        if k:
            self._check_ranges()
        self._derive()

    @classmethod
    def trusted(cls, **columns: Any) -> CandidateBatch:
        """A batch from columns built by trusted code (``build_batch`` of the search
        pipeline): no coercion, one vectorized value check instead of the full validation.

        The caller guarantees what its construction ensures: every column is a ``(k,)``
        numpy array of its dtype (``float64``, ``bool``, ``intp`` for ``state`` and
        ``slot_group``) and ``category_weights`` a C-ordered ``(k, 11)`` ``float64``
        array of non-negative rows normalized to sum 1 (a bad weight shows as NaN or a
        negative value); ``state`` and ``slot_group`` codes are in range; ``observed_at``
        is finite and ``event_time``/``valid_to`` finite or NaN. What came from the store
        unchecked (``semantic``, ``fulltext``, ``confidence``, ``strength``,
        ``emotional_loading`` within ``[0, 1]``; finite, non-negative weights) is checked
        here at once; a batch that fails goes through the full validation, which names
        the column (or accepts it: ``semantic`` may be negative there).
        """
        batch = object.__new__(cls)
        put = object.__setattr__
        for name, value in columns.items():
            put(batch, name, value)
        for name in ("slot_group", "durable", "tentative", "contested"):
            if name not in columns:
                put(batch, name, None)
        k = int(batch.semantic.shape[0])
        put(batch, "size", k)
        if k:
            units = np.concatenate((batch.semantic, batch.fulltext, batch.confidence,
                                    batch.strength, batch.emotional_loading,
                                    *(() if batch.contested is None else (batch.contested,))))
            if not (float(units.min()) >= 0.0 and float(units.max()) <= 1.0
                    and float(batch.category_weights.min()) >= 0.0):  # NaN fails too
                return cls(**columns)
        put(batch, "category_weights", np.asfortranarray(batch.category_weights))
        batch._derive()
        return batch

    def _derive(self) -> None:
        """The row subsets and slot runs the reranker reads (columns already valid)."""
        put = object.__setattr__
        k = self.size
        event_rows = _rows(self.event_time == self.event_time)  # not NaN (one call fewer)
        put(self, "event_rows", event_rows)
        put(self, "valid_to_rows", _rows(self.valid_to == self.valid_to))
        put(self, "number_rows", _rows(self.has_number))
        put(self, "emotion_rows", _rows(self.emotional_loading > 0.0))
        put(self, "forced_rows", _rows(self.forced))
        put(self, "world_rows", _rows(self.world_knowledge))
        put(self, "instruction_rows", _rows(self.instruction_like))
        protected = _EMPTY_ROWS
        if self.durable is not None:
            protected = _rows(self.durable & (self.strength > 0.0))
        put(self, "protected_rows", protected)
        put(self, "latest_observed", float(self.observed_at.max()) if k else -np.inf)
        put(self, "earliest_event",
            float(self.event_time[event_rows].min()) if event_rows.size else np.inf)
        superseding = self.confidence
        if self.tentative is not None and self.tentative.any():
            superseding = np.where(self.tentative, 0.0, self.confidence)
        put(self, "superseding", superseding)
        runs = None
        groups = self.slot_group
        if groups is not None and k > 1:
            runs = SlotRuns.of(groups, self.observed_at, superseding)  # None: no repeats
        put(self, "shares_slots", runs is not None)
        put(self, "slot_runs", runs)

    def _check_ranges(self) -> None:
        semantic = self.semantic
        low, high = float(semantic.min()), float(semantic.max())
        if not (low >= -1.0 - _SEMANTIC_SLACK and high <= 1.0 + _SEMANTIC_SLACK):
            raise InputError(f"semantic must be finite and within [-1, 1], got [{low}, {high}]")
        if low < -1.0 or high > 1.0:
            object.__setattr__(self, "semantic", np.clip(semantic, -1.0, 1.0))
        # Columns are checked together (a numpy call costs more than its arithmetic at small
        # k); only a failing check looks column by column, to name the culprit.
        units = np.concatenate([getattr(self, name) for name in _UNIT_COLUMNS])
        if not (float(units.min()) >= 0.0 and float(units.max()) <= 1.0):  # NaN fails too
            for name in _UNIT_COLUMNS:
                column = getattr(self, name)
                low, high = float(column.min()), float(column.max())
                if not (low >= 0.0 and high <= 1.0):
                    raise InputError(f"{name} must be finite and within [0, 1], "
                                     f"got [{low}, {high}]")
        times = np.concatenate((self.observed_at, self.event_time, self.valid_to))
        if np.isinf(times).any() or np.isnan(self.observed_at).any():
            if not np.isfinite(self.observed_at).all():
                raise InputError("observed_at must be finite epoch seconds")
            for name in ("event_time", "valid_to"):
                if np.isinf(getattr(self, name)).any():
                    raise InputError(f"{name} must be finite epoch seconds or NaN")
        weights = self.category_weights
        # NaN fails both comparisons, -inf the first, +inf the row sums.
        if not float(weights.min()) >= 0.0:
            raise InputError("category_weights must be finite and non-negative")
        if not float(np.abs(weights.sum(axis=1) - 1.0).max()) <= 1e-6:
            if not np.isfinite(weights).all():
                raise InputError("category_weights must be finite and non-negative")
            raise InputError("category_weights rows must sum to 1")
        state = self.state
        if int(state.min()) < 0 or int(state.max()) >= N_STATES:
            raise InputError(f"state codes must be in [0, {N_STATES})")
        groups = self.slot_group
        if groups is not None and (int(groups.min()) < -1 or int(groups.max()) >= self.size):
            raise InputError(f"slot_group codes must be in [-1, {self.size})")


def _last_of_block(starts: np.ndarray) -> np.ndarray:
    """Per position, the last position of the block it belongs to (blocks begin at True)."""
    k = starts.shape[0]
    ends = np.full(k, k - 1, dtype=np.intp)  # a block ends where the next one begins
    np.copyto(ends[:-1], np.arange(k - 1), where=starts[1:])
    last: np.ndarray = np.minimum.accumulate(ends[::-1])[::-1]
    return last


def as_column(name: str, values: object, dtype: type, k: int) -> np.ndarray:
    """``values`` as a ``(k,)`` array of ``dtype`` for column ``name`` of a
    :class:`CandidateBatch` (InputError naming the column otherwise)."""
    try:
        array: np.ndarray = np.asarray(values, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise InputError(f"CandidateBatch.{name}: {exc}") from exc
    if array.shape != (k,):
        raise InputError(f"CandidateBatch.{name} must have shape ({k},), got {array.shape}")
    return array


def _rows(flags: np.ndarray) -> np.ndarray:
    rows: np.ndarray = flags.nonzero()[0]
    return rows if rows.size else _EMPTY_ROWS


def slot_groups(keys: Sequence[str | None]) -> np.ndarray:
    """Compact integer codes for slot keys (``None`` -> -1), for ``CandidateBatch.slot_group``.

    Equal keys get equal codes; codes are in ``[0, number of distinct keys)``.
    """
    codes: dict[str, int] = {}
    out = np.full(len(keys), -1, dtype=np.intp)
    for row, key in enumerate(keys):
        if key is not None:
            out[row] = codes.setdefault(key, len(codes))
    return out


# -- output -------------------------------------------------------------------------------


class _Parts(NamedTuple):
    """Intermediate arrays kept so :attr:`Ranked.terms` can be built on demand.

    A named tuple, not a frozen dataclass: it is built on every call and frozen dataclasses
    pay ``object.__setattr__`` per field.
    """

    semantic: np.ndarray
    fulltext: np.ndarray
    relevance: np.ndarray
    elapsed: np.ndarray | None = None
    timescale: np.ndarray | None = None
    log_decay: np.ndarray | None = None
    event_rows: np.ndarray | None = None
    steady_weight: np.ndarray | None = None
    log_validity: np.ndarray | None = None
    emotion_rows: np.ndarray | None = None
    emotion_boost: np.ndarray | None = None
    activation: np.ndarray | None = None
    alpha: np.ndarray | None = None
    floor: np.ndarray | None = None
    rescue_rows: np.ndarray | None = None
    rescue: np.ndarray | None = None
    base: np.ndarray | None = None
    routing: np.ndarray | None = None
    omega: np.ndarray | None = None
    state_weight: np.ndarray | None = None
    protected_rows: np.ndarray | None = None
    protection: np.ndarray | None = None


class Ranked(NamedTuple):
    """The reranker's answer for one batch (immutable).

    Attributes:
        order: row indices, best first; masked rows are not in it.
        scores: ``(k,)`` final scores; ``-inf`` on masked rows.
        masked: ``(k,)`` bool.
        mask_code: ``(k,)`` :class:`MaskReason` codes (0 when not masked).
        arm: the scoring arm that produced it.
        intent: the query intent it was ranked for.
        parts: intermediate arrays; read :attr:`terms` instead.
    """

    order: np.ndarray
    scores: np.ndarray
    masked: np.ndarray
    mask_code: np.ndarray
    arm: Arm
    intent: Intent
    parts: _Parts

    @property
    def mask_reason(self) -> tuple[str | None, ...]:
        """Per row: why it was masked, or None."""
        return tuple(MaskReason(int(code)).label or None for code in self.mask_code)

    @property
    def terms(self) -> dict[str, np.ndarray]:
        """Named ``(k,)`` score components, built on access (see :data:`TERM_NAMES`)."""
        return _terms(self)


TERM_NAMES: Final[tuple[str, ...]] = (
    "semantic", "fulltext", "relevance", "age_hours", "lambda_eff", "decay", "event_weight",
    "validity", "emotion_boost", "strength_protection", "activation", "alpha", "blend",
    "floor", "numeric_rescue", "base", "routing", "omega", "state_weight", "score",
)
"""Terms of the full arm, in the order :func:`fr_graph.core.explain.explain` prints them.
The untyped arm has only ``semantic``, ``fulltext``, ``relevance`` and ``score``."""


def _terms(ranked: Ranked) -> dict[str, np.ndarray]:
    p = ranked.parts
    terms: dict[str, np.ndarray] = {
        "semantic": p.semantic, "fulltext": p.fulltext, "relevance": p.relevance,
    }
    if (p.activation is None or p.alpha is None or p.base is None or p.elapsed is None
            or p.timescale is None or p.log_decay is None):  # the untyped arm
        terms["score"] = ranked.scores
        return terms
    k = p.relevance.shape[0]
    ones, zeros = np.ones(k), np.zeros(k)
    event_weight, validity = zeros.copy(), ones.copy()
    if p.event_rows is not None and p.steady_weight is not None and p.log_validity is not None:
        event_weight[p.event_rows] = 1.0 - p.steady_weight
        validity[p.event_rows] = np.exp(p.log_validity)
    boost = zeros.copy()
    if p.emotion_rows is not None and p.emotion_boost is not None:
        boost[p.emotion_rows] = p.emotion_boost
    protection = zeros.copy()
    if p.protected_rows is not None and p.protection is not None:
        protection[p.protected_rows] = p.protection
    rescue = zeros.copy()
    if p.rescue_rows is not None and p.rescue is not None:
        rescue[p.rescue_rows] = p.rescue
    terms.update({
        "age_hours": -p.elapsed / SECONDS_PER_HOUR,
        "lambda_eff": SECONDS_PER_HOUR / p.timescale,
        "decay": np.exp(p.log_decay),
        "event_weight": event_weight,
        "validity": validity,
        "emotion_boost": boost,
        "strength_protection": protection,
        "activation": p.activation,
        "alpha": p.alpha,
        "blend": p.alpha * p.activation + (1.0 - p.alpha) * p.relevance,
        "floor": p.floor * p.relevance if p.floor is not None else zeros,
        "numeric_rescue": rescue,
        "base": p.base,
        "routing": p.routing if p.routing is not None else ones,
        "omega": p.omega if p.omega is not None else ones,
        "state_weight": p.state_weight if p.state_weight is not None else ones,
        "score": ranked.scores,
    })
    return terms


# -- the reranker -------------------------------------------------------------------------

_RETRACTED_CODE: Final = STATE_CODE[LifecycleState.RETRACTED]
_SUPERSEDED_CODE: Final = STATE_CODE[LifecycleState.SUPERSEDED]
#: The weight of a superseded fact admitted only for the number it holds (as a history
#: question weighs the current value against the old one, the other way round).
STALE_NUMBER_WEIGHT: Final = 0.6
_NOT_ACTIVE_REASON: Final = QueryAnalysis.for_intent(Intent.CURRENT).state_reason
_MINUS_INF: Final = np.array(-np.inf)
_REASON_DATE: Final = np.int8(MaskReason.DATE_EXPIRED)
_REASON_VALID_TO: Final = np.int8(MaskReason.VALID_TO_PASSED)
_REASON_PAST_EVENT: Final = np.int8(MaskReason.PAST_EVENT)
_REASON_FUTURE_EVENT: Final = np.int8(MaskReason.FUTURE_EVENT)
_REASON_SHADOWED: Final = np.int8(MaskReason.SLOT_SHADOWED)
_REASON_FORCED: Final = np.int8(MaskReason.FORCED_RETRIEVAL_OFF)
_REASON_WORLD: Final = np.int8(MaskReason.WORLD_KNOWLEDGE)
_REASON_INSTRUCTION: Final = np.int8(MaskReason.INSTRUCTION_QUARANTINE)


def rerank(batch: CandidateBatch, query: QueryAnalysis, policy: PolicyTable, now: float,
           config: RerankConfig = FULL) -> Ranked:
    """Score, mask and order a candidate batch.

    Args:
        batch: the candidates (validated at construction).
        query: the query's intent, state mask and category prior.
        policy: the (group-resolved) policy table.
        now: the current time, epoch seconds.
        config: arm and ablation switches.

    Returns:
        The ranking with per-row scores, masks and named terms.
    """
    if config.arm is Arm.UNTYPED:
        return _rerank_untyped(batch, policy, float(now), query.intent)
    return _rerank_full(batch, query, policy, float(now), config)


def _rerank_full(batch: CandidateBatch, query: QueryAnalysis, policy: PolicyTable,
                 now: float, config: RerankConfig) -> Ranked:
    # Why the micro-style: at k = 20 every numpy call costs about as much as its arithmetic,
    # so the code minimizes calls (one matrix product for all mixtures, gathers on sparse
    # row subsets, array methods over np.* wrappers) rather than writing one line per term.
    arrays = policy.arrays
    mixed = np.dot(arrays.mix, batch.category_weights.T)  # (8, k): every mixture at once
    timescale = mixed[MIX_TAU] if config.category_decay else mixed[MIX_TAU_UNIFORM]
    elapsed = batch.observed_at - now  # minus the age, in seconds
    if batch.latest_observed > now:  # clock skew: a fact from the future is age 0
        np.minimum(elapsed, 0.0, out=elapsed)
    log_decay = elapsed / timescale  # log S = -lambda_eff * age, lambda_eff from Lemma 1
    log_activation = log_decay

    # Event time (A.13): the kernel replaces age decay for the kernel share of membership;
    # the date filter expires guarded facts; upcoming/past intents want one side of now.
    event_rows = batch.event_rows
    steady = log_validity = None
    date_expired = direction_rows = _EMPTY_ROWS
    direction_reason = _REASON_PAST_EVENT
    if config.event_time and event_rows.size:
        ahead = batch.event_time[event_rows] - now  # seconds until the event
        if not query.backward_looking:  # backward-looking queries bypass both (App. K)
            sub = mixed.take(event_rows, axis=1)
            steady = sub[MIX_STEADY]
            # -nu * ahead before the event, mu * ahead after it: the smaller of the two.
            log_validity = np.minimum(sub[MIX_NEG_NU] * ahead, sub[MIX_MU] * ahead)
            log_activation = log_decay.copy()
            log_activation[event_rows] = steady * log_decay[event_rows] + log_validity
            if batch.earliest_event < now - arrays.expiry_buffer_seconds:
                late = ahead < -arrays.expiry_buffer_seconds
                late &= sub[MIX_GUARD] >= GUARD_MAJORITY
                if config.numeric_rescue:  # App. H stage 1: numbers are exempt
                    late &= ~batch.has_number[event_rows]
                date_expired = event_rows[late]
        if query.event_direction is EventDirection.FUTURE:
            direction_rows = event_rows[ahead < 0.0]
        elif query.event_direction is EventDirection.PAST:
            direction_rows, direction_reason = event_rows[ahead > 0.0], _REASON_FUTURE_EVENT

    activation = np.exp(log_activation)
    emotion_rows = batch.emotion_rows
    emotion_boost = None
    if config.emotional_boost and emotion_rows.size:  # App. B.6: transient, fast decay
        emotion_boost = arrays.emotional_alpha * batch.emotional_loading[emotion_rows] \
            * np.exp(elapsed[emotion_rows] * arrays.emotional_rate_per_second)
        lifted = activation[emotion_rows]
        activation[emotion_rows] = lifted + (1.0 - lifted) * emotion_boost
    protected_rows = batch.protected_rows
    protection = None
    kappa = policy.retention.decay_protection
    if config.strength_protection and protected_rows.size and kappa > 0.0:
        protection = kappa * batch.strength[protected_rows]  # StageMem: durable premises
        lifted = activation[protected_rows]
        activation[protected_rows] = lifted + (1.0 - lifted) * protection

    relevance = np.maximum(batch.semantic, policy.fulltext_weight * batch.fulltext)
    alpha = mixed[MIX_ALPHA]
    base = relevance + alpha * (activation - relevance)  # alpha a + (1 - alpha) r
    floor = None
    if config.semantic_floors:  # Table 48: stable near-exact matches survive decay
        floor = mixed[MIX_FLOOR]
        np.maximum(base, floor * relevance, out=base)
    rescue_rows = rescue = None
    if config.numeric_rescue and batch.number_rows.size:  # App. H stage 3
        rows = batch.number_rows
        rows = rows[relevance[rows] >= policy.numeric_rescue_min_relevance]
        if rows.size:
            rescue_rows, rescue = rows, policy.numeric_rescue_factor * relevance[rows]
            base[rows] = np.maximum(base[rows], rescue)

    score = base
    routing = None
    if config.routing and not query.rho_is_uniform and policy.routing_strength > 0.0:
        routing = np.dot(batch.category_weights, query.routing_factors(policy.routing_strength))
        score = score * routing

    # Masks (log M_q = -inf and the engineering filters); the strongest reason is kept.
    state_reason, weight_by_state = query.state_reason, query.state_weight
    if not config.retraction_mask and state_reason[_RETRACTED_CODE]:
        state_reason, weight_by_state = state_reason.copy(), weight_by_state.copy()
        state_reason[_RETRACTED_CODE], weight_by_state[_RETRACTED_CODE] = 0, 1.0
    reason = state_reason[batch.state]
    # A number the query asks for that only a superseded fact still holds ("how many years
    # have I taught?" after "loves teaching, 24 years" was replaced by a fact with no number)
    # must not be masked away: a relevant superseded row with a number is admitted, weighed
    # as history, when no admitted row of its slot carries a number (a slot's current value
    # that restates one wins), or, for a row with no slot, when no admitted relevant row does.
    stale_numbers = None
    if (config.numeric_rescue and query.numeric and batch.number_rows.size
            and state_reason[_SUPERSEDED_CODE]):
        numbers = batch.number_rows
        relevant = numbers[relevance[numbers] >= policy.numeric_rescue_min_relevance]
        stale = relevant[batch.state[relevant] == _SUPERSEDED_CODE]
        if stale.size:
            admitted = numbers[reason[numbers] == 0]
            groups = batch.slot_group
            if groups is None:
                groups = np.full(batch.size, -1, dtype=np.intp)
            slotted = groups[stale] >= 0
            keep = np.where(slotted, ~np.isin(groups[stale], groups[admitted]),
                            not (relevance[admitted] >= policy.numeric_rescue_min_relevance).any())
            stale = stale[keep]
            if stale.size:
                reason[stale] = 0
                stale_numbers = stale
    closed = batch.valid_to_rows
    if closed.size:  # an active fact whose validity interval ended is effectively expired
        closed = closed[(batch.valid_to[closed] <= now) & (batch.state[closed] == ACTIVE_CODE)]
    if query.hides_expired:
        _mask_admitted(reason, date_expired, _REASON_DATE)
        _mask_admitted(reason, closed, _REASON_VALID_TO)
    _mask_admitted(reason, direction_rows, direction_reason)
    if not config.routing:
        _mask_admitted(reason, batch.forced_rows, _REASON_FORCED)
    _mask_exclusions(reason, batch, config)
    hidden = int(np.count_nonzero(reason))

    omega = None
    runs = batch.slot_runs
    if runs is not None:
        exempt = batch.number_rows if config.numeric_rescue else None
        if not config.soft_supersession:  # binary supersession: latest slot wins
            reason[_shadowed(runs, reason, exempt)] = _REASON_SHADOWED
            hidden = int(np.count_nonzero(reason))
        elif not query.backward_looking:  # change queries want the older values
            omega = _omega(runs, batch.superseding, reason, policy.soft_supersession_gamma,
                           exempt, any_masked=hidden > 0)
            score = score * omega
    contested = batch.contested
    if (contested is not None and config.soft_supersession and not query.backward_looking
            and contested.any()):
        # A later fact contests this one below the verifier's hard band: Omega's form,
        # 1 - gamma * v, with the link's probability as v (the later fact need not be
        # among the candidates, and nothing is masked).
        contest = 1.0 - policy.soft_supersession_gamma * contested
        omega = contest if omega is None else omega * contest
        score = score * contest

    state_weight = None
    if (not query.state_weight_is_flat or weight_by_state is not query.state_weight
            or stale_numbers is not None):
        state_weight = weight_by_state[batch.state]
        if closed.size:  # weigh closed-but-active facts as the expired history they are
            state_weight[closed] = weight_by_state[EXPIRED_CODE]
        if stale_numbers is not None:
            state_weight[stale_numbers] = STALE_NUMBER_WEIGHT
        score = score * state_weight

    parts = _Parts(
        batch.semantic, batch.fulltext, relevance, elapsed, timescale, log_decay,
        event_rows if steady is not None else None, steady, log_validity,
        emotion_rows if emotion_boost is not None else None, emotion_boost, activation,
        alpha, floor, rescue_rows, rescue, base, routing, omega, state_weight,
        protected_rows if protection is not None else None, protection,
    )
    return _finish(score, reason, hidden, Arm.FULL, query.intent, parts)


def _rerank_untyped(batch: CandidateBatch, policy: PolicyTable, now: float, intent: Intent
                    ) -> Ranked:
    """App. AD: three generic primitives over a semantic-only ranking. Ignores the intent."""
    reason = _NOT_ACTIVE_REASON[batch.state]  # retraction (and every non-active state) drops
    event_rows = batch.event_rows
    if event_rows.size:  # date rule: every category, no numeric exemption
        late = batch.event_time[event_rows] < now - policy.arrays.expiry_buffer_seconds
        _mask_admitted(reason, event_rows[late], _REASON_DATE)
    closing = batch.valid_to_rows
    if closing.size:
        _mask_admitted(reason, closing[batch.valid_to[closing] <= now], _REASON_VALID_TO)
    _mask_admitted(reason, batch.forced_rows, _REASON_FORCED)
    _mask_exclusions(reason, batch, FULL)
    if batch.slot_runs is not None:
        reason[_shadowed(batch.slot_runs, reason, None)] = _REASON_SHADOWED
    parts = _Parts(batch.semantic, batch.fulltext, batch.semantic)
    return _finish(batch.semantic.copy(), reason, int(np.count_nonzero(reason)), Arm.UNTYPED,
                   intent, parts)


def _finish(score: np.ndarray, reason: np.ndarray, hidden: int, arm: Arm, intent: Intent,
            parts: _Parts) -> Ranked:
    """Order the rows; ``hidden`` is the number of masked rows (nonzero ``reason``)."""
    if hidden:
        masked = reason.astype(np.bool_)
        score = score.copy()
        np.copyto(score, _MINUS_INF, where=masked)
        order = (-score).argsort(kind="stable")[: score.shape[0] - hidden]
    else:
        masked = np.zeros(score.shape[0], dtype=bool)
        order = (-score).argsort(kind="stable")  # stable: ties keep input order
    return Ranked(order, score, masked, reason, arm, intent, parts)


def _mask_admitted(reason: np.ndarray, rows: np.ndarray, code: np.int8) -> None:
    """Give ``code`` to those of ``rows`` that nothing has masked yet."""
    if rows.size:
        current = reason[rows]
        reason[rows] = np.where(current == 0, code, current)


def _mask_exclusions(reason: np.ndarray, batch: CandidateBatch, config: RerankConfig) -> None:
    """World knowledge and quarantined instructions override any other reason."""
    if config.exclude_world_knowledge and batch.world_rows.size:
        reason[batch.world_rows] = _REASON_WORLD
    if config.quarantine_instructions and batch.instruction_rows.size:
        reason[batch.instruction_rows] = _REASON_INSTRUCTION


def _shadowed(runs: SlotRuns, reason: np.ndarray, exempt: np.ndarray | None) -> np.ndarray:
    """Latest slot wins: unmasked rows with a strictly later unmasked row in their slot.

    Rows tied at the latest instant all survive (there is no order to pick a winner by).
    """
    if runs.targets is not None and runs.sources is not None:
        live = (reason[runs.sources] == 0) & (reason[runs.targets] == 0)
        losers = np.zeros(reason.shape[0], dtype=bool)
        losers[runs.targets[live]] = True
    else:
        competing = (reason == 0) & runs.slotted
        losers = competing & (runs.later_sums(competing.astype(np.float64)) > 0.5)
    if exempt is not None:
        losers[exempt] = False  # App. H stage 2: numbers survive supersession filtering
    shadowed: np.ndarray = losers.nonzero()[0]
    return shadowed


def _omega(runs: SlotRuns, confidence: np.ndarray, reason: np.ndarray, gamma: float,
           exempt: np.ndarray | None, *, any_masked: bool) -> np.ndarray:
    """Eq. 1's ``Omega(e) = prod (1 - gamma * v_e')`` over strictly later unmasked rows
    ``e'`` in the same slot (``v``: confidence), as a sum of logs."""
    if runs.targets is not None and runs.sources is not None \
            and runs.source_confidence is not None:
        contribution = np.log1p(runs.source_confidence * -gamma)
        if any_masked:  # masked later rows do not supersede (most batches mask none)
            contribution *= reason[runs.sources] == 0
        log_omega: np.ndarray = np.bincount(runs.targets, weights=contribution,
                                            minlength=reason.shape[0])
    else:
        hit = np.maximum(confidence * -gamma, -_OMEGA_MAX_HIT)
        contribution = np.log1p(hit) * ((reason == 0) & runs.slotted)
        log_omega = np.minimum(runs.later_sums(contribution), 0.0)
    if exempt is not None:
        log_omega[exempt] = 0.0  # App. H stage 2: numbers are exempt from supersession
    omega: np.ndarray = np.exp(log_omega)
    return omega


def state_names(codes: np.ndarray) -> list[LifecycleState]:
    """Decode ``int8`` state codes."""
    return [STATES[int(code)] for code in codes]

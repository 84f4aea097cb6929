"""The lifecycle policy table: one row of parameters per behavioral category.

Defaults are the paper's values (Fortunate Recall):

* decay rate ``lambda`` per hour: Table 49 (Other at the deployed 0.0050, as Table 49 notes);
* blending weight ``alpha`` and semantic floor: Table 48 (emotional loading is a signal, not a
  category, so its ``alpha`` lives in :attr:`PolicyTable.emotional_alpha`);
* supersession semantics and thresholds: Table 1 and App. Z (replace 0.8, accumulate 0.95);
* expiry guard: App. K (date-aware expiry only for Logistical, Obligations and Health);
* validity kernel ``nu``/``mu``: App. A.13 gives the shape ``mu >> nu`` but no numbers; the
  defaults here are our choice (``nu = lambda / 3``, ``mu = 10 * lambda``) for the two
  event-time categories of Table 1 (Obligations, Logistical).

A deployment overrides any of this from a TOML file (:meth:`PolicyTable.from_toml`) and per
group (per-user rates, App. B.3) with a ``[groups."<group_id>"]`` table of partial overrides::

    expiry_buffer_days = 10

    [categories.logistical]
    lambda_per_hour = 0.01

    [groups."user-42".categories.hobbies]
    lambda_per_hour = 0.002

    [retention]                      # StageMem settlement (fr_graph.core.retention)
    working_capacity = 200

    [groups."user-42".retention]
    durable_capacity = 50

The table is validated once; :attr:`PolicyTable.arrays` holds the numpy vectors the reranker
reads, built on first use.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from os import PathLike
from typing import Annotated, Any, Final, Self

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from fr_graph.core.codes import CATEGORIES, N_CATEGORIES
from fr_graph.core.ontology import CATEGORY_LABELS, Category
from fr_graph.core.retention import RetentionOverride, RetentionPolicy
from fr_graph.errors import ConfigError

SECONDS_PER_HOUR: Final[float] = 3600.0
SECONDS_PER_DAY: Final[float] = 86400.0


class SupersessionSemantics(StrEnum):
    """How a new fact in the same slot treats the old one (Table 1, App. F)."""

    REPLACE = "replace"
    """One current value per slot: a confident new value supersedes (threshold 0.8)."""

    ACCUMULATE = "accumulate"
    """Values coexist; only an explicit, very confident contradiction supersedes (0.95)."""


REPLACE_THRESHOLD: Final[float] = 0.8
ACCUMULATE_THRESHOLD: Final[float] = 0.95

UnitFloat = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


class CategoryPolicy(BaseModel):
    """Every lifecycle parameter of one category.

    Attributes:
        lambda_per_hour: base decay rate of activation ``a = exp(-lambda * age_hours)``.
        alpha: weight of activation in the blend ``alpha * a + (1 - alpha) * relevance``.
        semantic_floor: a fact scores at least ``semantic_floor * relevance`` whatever its
            activation, so near-exact matches of stable facts are not buried by decay.
        supersession: replace or accumulate semantics.
        supersede_threshold: minimum confidence of a new assertion to hard-supersede.
        expiry_guard: facts of this category expire once their event time has passed by
            more than the table's expiry buffer (the acute/dated half of Health included).
        validity_nu_per_hour: anticipation rate before the event (None: no event kernel).
        validity_mu_per_hour: post-event collapse rate (None: no event kernel).
        policy: the human-readable key policy of Table 1.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    lambda_per_hour: float = Field(gt=0.0, allow_inf_nan=False)
    alpha: UnitFloat
    semantic_floor: UnitFloat
    supersession: SupersessionSemantics
    supersede_threshold: UnitFloat
    expiry_guard: bool = False
    validity_nu_per_hour: float | None = Field(default=None, ge=0.0, allow_inf_nan=False)
    validity_mu_per_hour: float | None = Field(default=None, ge=0.0, allow_inf_nan=False)
    policy: str = ""

    @model_validator(mode="after")
    def _kernel_is_complete(self) -> Self:
        nu, mu = self.validity_nu_per_hour, self.validity_mu_per_hour
        if (nu is None) != (mu is None):
            raise ValueError("validity_nu_per_hour and validity_mu_per_hour go together")
        if nu is not None and mu is not None and mu < nu:
            # A.13: the kernel only has its shape (rise, then collapse) when mu >= nu.
            raise ValueError("validity_mu_per_hour must be >= validity_nu_per_hour (A.13)")
        return self

    @property
    def has_event_kernel(self) -> bool:
        """Whether activation follows the event-time kernel when the fact has an anchor."""
        return self.validity_nu_per_hour is not None

    @property
    def half_life_days(self) -> float:
        """``ln 2 / lambda`` in days (the Half-life column of Table 1)."""
        return math.log(2.0) / self.lambda_per_hour / 24.0


def _category(
    lam: float,
    alpha: float,
    floor: float,
    semantics: SupersessionSemantics,
    policy: str,
    *,
    guard: bool = False,
    kernel: bool = False,
) -> CategoryPolicy:
    threshold = (
        REPLACE_THRESHOLD if semantics is SupersessionSemantics.REPLACE else ACCUMULATE_THRESHOLD
    )
    return CategoryPolicy(
        lambda_per_hour=lam,
        alpha=alpha,
        semantic_floor=floor,
        supersession=semantics,
        supersede_threshold=threshold,
        expiry_guard=guard,
        # mu >> nu (A.13); anticipation a third of the decay rate, collapse ten times it.
        validity_nu_per_hour=lam / 3.0 if kernel else None,
        validity_mu_per_hour=lam * 10.0 if kernel else None,
        policy=policy,
    )


_R, _A = SupersessionSemantics.REPLACE, SupersessionSemantics.ACCUMULATE

DEFAULT_CATEGORY_POLICIES: Final[Mapping[Category, CategoryPolicy]] = {
    Category.IDENTITY: _category(
        0.0015, 0.10, 0.95, _A, "Accumulate; high-confidence supersession"),
    Category.RELATIONAL: _category(
        0.0015, 0.10, 0.95, _A, "Accumulate; explicit dissolution"),
    Category.INTELLECTUAL: _category(
        0.0020, 0.15, 0.90, _A, "Accumulate; reactivatable"),
    Category.HEALTH: _category(
        0.0025, 0.10, 0.95, _A, "Chronic: identity-like; acute (dated): expire", guard=True),
    Category.PROJECTS: _category(
        0.0025, 0.30, 0.75, _R, "State machine: active/done/paused"),
    Category.HOBBIES: _category(
        0.0035, 0.20, 0.92, _A, "Slow decay; dormancy detection"),
    Category.PREFERENCES: _category(
        0.0050, 0.20, 0.85, _R, "Slot-key supersession"),
    Category.FINANCIAL: _category(
        0.0055, 0.05, 0.97, _R, "State tracking; supersession"),
    Category.OBLIGATIONS: _category(
        0.0060, 0.35, 0.70, _R, "Event-time validity; anticipatory", guard=True, kernel=True),
    Category.LOGISTICAL: _category(
        0.0080, 0.40, 0.00, _R, "Fastest decay; event-time expiry", guard=True, kernel=True),
    # Table 48 has no Other row; Table 49 gives lambda = 0.0050 (the Preferences rate), so
    # Other borrows the Preferences blend. Accumulate: never destroy what we cannot classify.
    Category.OTHER: _category(0.0050, 0.20, 0.85, _A, "Moderate default"),
}


class CategoryOverride(BaseModel):
    """A partial :class:`CategoryPolicy`: only the fields given replace the defaults."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    lambda_per_hour: float | None = Field(default=None, gt=0.0, allow_inf_nan=False)
    alpha: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    semantic_floor: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    supersession: SupersessionSemantics | None = None
    supersede_threshold: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    expiry_guard: bool | None = None
    validity_nu_per_hour: float | None = Field(default=None, ge=0.0, allow_inf_nan=False)
    validity_mu_per_hour: float | None = Field(default=None, ge=0.0, allow_inf_nan=False)
    policy: str | None = None


class _Globals(BaseModel):
    """Table-wide scalars; shared by :class:`PolicyTable` and :class:`PolicyOverride`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    expiry_buffer_days: float = Field(default=14.0, ge=0.0, allow_inf_nan=False)
    """App. K: a dated fact of a guarded category expires this long after its event time."""

    emotional_alpha: float = Field(default=0.40, ge=0.0, le=1.0, allow_inf_nan=False)
    """Table 48, Emotional Loading row: weight of the transient loading boost (App. B.6)."""

    emotional_half_life_hours: float = Field(default=24.0, gt=0.0, allow_inf_nan=False)
    """B.6 says only "fast decay"; one day is our choice."""

    numeric_rescue_factor: float = Field(default=0.95, ge=0.0, le=1.0, allow_inf_nan=False)
    """App. H stage 3: numeric facts score at least this times their relevance..."""

    numeric_rescue_min_relevance: float = Field(default=0.85, ge=0.0, le=1.0,
                                                allow_inf_nan=False)
    """...when their relevance is at least this (App. H: graphiti_score >= 0.85)."""

    explicit_marker_threshold: float = Field(default=REPLACE_THRESHOLD, ge=0.0, le=1.0,
                                             allow_inf_nan=False)
    """Confidence a retraction or completion needs to act (below it: soft, ambiguous)."""

    soft_supersession_gamma: float = Field(default=0.5, ge=0.0, le=1.0, allow_inf_nan=False)
    """Omega: a later same-slot fact of confidence v scales an older one by ``1 - gamma*v``."""

    fulltext_weight: float = Field(default=0.85, ge=0.0, le=1.0, allow_inf_nan=False)
    """Relevance is ``max(semantic, fulltext_weight * fulltext)`` (per-source normalized)."""

    routing_strength: float = Field(default=0.25, ge=0.0, le=4.0, allow_inf_nan=False)
    """Routing factor ``(11 * rho_row) ** routing_strength``; 0 turns routing off."""

    uniform_lambda_per_hour: float | None = Field(default=None, gt=0.0, allow_inf_nan=False)
    """Rate of the uniform-decay ablation; None means the mean of the category rates."""


class PolicyOverride(BaseModel):
    """Partial overrides of a table: any table-wide scalar and any category field."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    expiry_buffer_days: float | None = Field(default=None, ge=0.0, allow_inf_nan=False)
    emotional_alpha: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    emotional_half_life_hours: float | None = Field(default=None, gt=0.0, allow_inf_nan=False)
    numeric_rescue_factor: float | None = Field(default=None, ge=0.0, le=1.0,
                                                allow_inf_nan=False)
    numeric_rescue_min_relevance: float | None = Field(default=None, ge=0.0, le=1.0,
                                                       allow_inf_nan=False)
    explicit_marker_threshold: float | None = Field(default=None, ge=0.0, le=1.0,
                                                    allow_inf_nan=False)
    soft_supersession_gamma: float | None = Field(default=None, ge=0.0, le=1.0,
                                                  allow_inf_nan=False)
    fulltext_weight: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    routing_strength: float | None = Field(default=None, ge=0.0, le=4.0, allow_inf_nan=False)
    uniform_lambda_per_hour: float | None = Field(default=None, gt=0.0, allow_inf_nan=False)
    categories: dict[Category, CategoryOverride] = Field(default_factory=dict)
    retention: RetentionOverride | None = None


@dataclass(frozen=True, slots=True, eq=False)
class PolicyArrays:
    """The table as numpy arrays, the only form the reranker reads.

    ``mix`` is a ``(8, 11)`` matrix; ``mix @ weights.T`` gives, per candidate, the soft
    membership mixture of each row parameter in one product:

    ===  ==========================================================================
    row  meaning
    ===  ==========================================================================
    0    ``sum_c w_c / lambda_c`` in *seconds*: the Lemma 1 timescale ``tau_eff``
    1    ``alpha`` (linear mixture)
    2    semantic floor (linear mixture)
    3    steady weight ``sum_c w_c`` over categories *without* a validity kernel
    4    ``-sum_c w_c * nu_c`` per second (kernel categories only; negated)
    5    ``sum_c w_c * mu_c`` per second (kernel categories only)
    6    guard weight ``sum_c w_c`` over expiry-guarded categories
    7    the Lemma 1 timescale under the uniform-decay ablation, in seconds
    ===  ==========================================================================
    """

    mix: np.ndarray
    lambda_per_hour: np.ndarray
    alpha: np.ndarray
    semantic_floor: np.ndarray
    supersede_threshold: np.ndarray
    expiry_guard: np.ndarray
    expiry_buffer_seconds: float
    emotional_alpha: float
    emotional_rate_per_second: float
    uniform_lambda_per_hour: float


MIX_TAU, MIX_ALPHA, MIX_FLOOR, MIX_STEADY, MIX_NEG_NU, MIX_MU, MIX_GUARD, MIX_TAU_UNIFORM = range(8)


RENDER_COLUMNS: Final[tuple[str, ...]] = (
    "#", "category", "lambda/h", "half-life", "alpha", "floor", "supersession",
    "threshold", "expiry", "nu/h", "mu/h", "policy",
)


class PolicyTable(_Globals):
    """The validated, immutable policy: category rows, table-wide scalars, group overrides.

    Build it with :meth:`default`, :meth:`from_toml` or :meth:`from_mapping`; resolve a
    group's rates with :meth:`for_group`.
    """

    categories: dict[Category, CategoryPolicy] = Field(
        default_factory=lambda: dict(DEFAULT_CATEGORY_POLICIES))
    groups: dict[str, PolicyOverride] = Field(default_factory=dict)
    #: StageMem retention control: settlement thresholds, stage capacities, dynamics.
    retention: RetentionPolicy = Field(default_factory=RetentionPolicy)

    @model_validator(mode="after")
    def _every_category_present(self) -> Self:
        missing = [c.value for c in CATEGORIES if c not in self.categories]
        if missing:
            raise ValueError(f"policy table lacks categories: {', '.join(missing)}")
        return self

    # -- construction -------------------------------------------------------------------

    @classmethod
    def default(cls) -> PolicyTable:
        """The paper's defaults."""
        return _DEFAULT

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> PolicyTable:
        """Defaults overridden by a parsed TOML-shaped mapping.

        Args:
            data: top-level scalars, ``categories.<name>`` partial rows and
                ``groups.<group_id>`` partial overrides (same shape, nested).

        Raises:
            ConfigError: unknown keys, unknown categories or out-of-range values.
        """
        try:
            body = dict(data)
            groups = body.pop("groups", {}) or {}
            override = PolicyOverride.model_validate(body)
            table = _apply(_DEFAULT, override)
            parsed_groups = {
                str(gid): PolicyOverride.model_validate(spec) for gid, spec in groups.items()
            }
            if not parsed_groups:
                return table
            resolved = table.model_dump()
            resolved["groups"] = parsed_groups
            result = cls.model_validate(resolved)
            for gid in parsed_groups:  # validate every group now, not at first query
                result.for_group(gid)
            return result
        except ValidationError as exc:
            raise ConfigError(f"invalid policy: {_first_error(exc)}") from exc
        except (AttributeError, TypeError) as exc:
            raise ConfigError(f"invalid policy shape: {exc}") from exc

    @classmethod
    def from_toml_text(cls, text: str) -> PolicyTable:
        """Parse TOML text (see the module docstring for the shape).

        Raises:
            ConfigError: the text is not TOML or the policy is invalid.
        """
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"policy file is not valid TOML: {exc}") from exc
        return cls.from_mapping(data)

    @classmethod
    def from_toml(cls, path: str | PathLike[str]) -> PolicyTable:
        """Read a policy file. The core's only file read: it happens once, at startup.

        Raises:
            ConfigError: the file cannot be read, is not TOML, or the policy is invalid.
        """
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except OSError as exc:
            raise ConfigError(f"cannot read policy file {path}: {exc.strerror}") from exc
        return cls.from_toml_text(text)

    def for_group(self, group_id: str | None) -> PolicyTable:
        """The table with ``group_id``'s overrides applied (itself when it has none)."""
        if group_id is None or group_id not in self.groups:
            return self
        cached = self._group_tables.get(group_id)
        if cached is None:
            try:
                cached = _apply(self, self.groups[group_id], keep_groups=False)
            except ValidationError as exc:
                raise ConfigError(
                    f"invalid policy for group {group_id!r}: {_first_error(exc)}") from exc
            self._group_tables[group_id] = cached
        return cached

    def model_copy(self, *, update: Mapping[str, Any] | None = None,
                   deep: bool = False) -> Self:
        """Copy through validation, so a copy never carries stale cached arrays."""
        data = self.model_dump()
        data.update(update or {})
        return type(self).model_validate(data)

    # -- derived ------------------------------------------------------------------------

    @cached_property
    def _group_tables(self) -> dict[str, PolicyTable]:
        return {}

    @cached_property
    def arrays(self) -> PolicyArrays:
        """Numpy vectors indexed by category column (see :class:`PolicyArrays`)."""
        rows = [self.categories[c] for c in CATEGORIES]
        lam = np.array([r.lambda_per_hour for r in rows])
        kernel = np.array([r.has_event_kernel for r in rows], dtype=np.float64)
        nu = np.array([r.validity_nu_per_hour or 0.0 for r in rows]) / SECONDS_PER_HOUR
        mu = np.array([r.validity_mu_per_hour or 0.0 for r in rows]) / SECONDS_PER_HOUR
        guard = np.array([r.expiry_guard for r in rows])
        uniform = self.uniform_lambda_per_hour or float(lam.mean())
        mix = np.empty((8, N_CATEGORIES))
        mix[MIX_TAU] = SECONDS_PER_HOUR / lam
        mix[MIX_ALPHA] = [r.alpha for r in rows]
        mix[MIX_FLOOR] = [r.semantic_floor for r in rows]
        mix[MIX_STEADY] = 1.0 - kernel
        mix[MIX_NEG_NU] = -nu
        mix[MIX_MU] = mu
        mix[MIX_GUARD] = guard
        mix[MIX_TAU_UNIFORM] = SECONDS_PER_HOUR / uniform
        for array in (lam, nu, mu, guard, mix):
            array.setflags(write=False)
        return PolicyArrays(
            mix=mix,
            lambda_per_hour=lam,
            alpha=mix[MIX_ALPHA],
            semantic_floor=mix[MIX_FLOOR],
            supersede_threshold=_frozen(np.array([r.supersede_threshold for r in rows])),
            expiry_guard=guard,
            expiry_buffer_seconds=self.expiry_buffer_days * SECONDS_PER_DAY,
            emotional_alpha=self.emotional_alpha,
            emotional_rate_per_second=math.log(2.0)
            / (self.emotional_half_life_hours * SECONDS_PER_HOUR),
            uniform_lambda_per_hour=uniform,
        )

    # -- presentation -------------------------------------------------------------------

    def rows(self) -> list[tuple[str, ...]]:
        """One tuple of display strings per category, in :data:`RENDER_COLUMNS` order."""
        out: list[tuple[str, ...]] = []
        for number, category in enumerate(CATEGORIES, start=1):
            p = self.categories[category]
            out.append((
                str(number),
                CATEGORY_LABELS[category],
                f"{p.lambda_per_hour:.4f}",
                f"{p.half_life_days:.1f}d",
                f"{p.alpha:.2f}",
                f"{p.semantic_floor:.2f}",
                p.supersession.value,
                f"{p.supersede_threshold:.2f}",
                f"date+{self.expiry_buffer_days:g}d" if p.expiry_guard else "-",
                f"{p.validity_nu_per_hour:.5f}" if p.validity_nu_per_hour is not None else "-",
                f"{p.validity_mu_per_hour:.4f}" if p.validity_mu_per_hour is not None else "-",
                p.policy,
            ))
        return out

    def render(self) -> list[str]:
        """The table as aligned text lines (header, rule, one line per category, globals)."""
        table = [RENDER_COLUMNS, *self.rows()]
        widths = [max(len(row[i]) for row in table) for i in range(len(RENDER_COLUMNS))]

        def line(row: tuple[str, ...]) -> str:
            return "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()

        lines = [line(RENDER_COLUMNS), "  ".join("-" * w for w in widths)]
        lines += [line(row) for row in table[1:]]
        arrays = self.arrays
        lines += [
            "",
            f"emotional loading: alpha {self.emotional_alpha:.2f}, floor 0.00, "
            f"half-life {self.emotional_half_life_hours:g}h (transient boost, App. B.6)",
            f"numeric rescue: score >= {self.numeric_rescue_factor:.2f} x relevance when "
            f"relevance >= {self.numeric_rescue_min_relevance:.2f} (App. H)",
            f"retraction/completion threshold {self.explicit_marker_threshold:.2f}; "
            f"soft-supersession gamma {self.soft_supersession_gamma:.2f}; "
            f"fulltext weight {self.fulltext_weight:.2f}; "
            f"routing strength {self.routing_strength:.2f}; "
            f"uniform-decay ablation lambda {arrays.uniform_lambda_per_hour:.5f}/h",
        ]
        r = self.retention
        lines.append(
            f"retention (StageMem): promote to working at c >= {r.working_confidence:.2f}, "
            f"m >= {r.working_strength:.2f}; to durable at c >= {r.durable_confidence:.2f}, "
            f"m >= {r.durable_strength:.2f}; capacity transient/working/durable "
            + "/".join("-" if c is None else str(c) for c in r.capacities))
        if self.groups:
            lines.append(f"group overrides: {', '.join(sorted(self.groups))}")
        return lines


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def _apply(base: PolicyTable, override: PolicyOverride, *, keep_groups: bool = True
           ) -> PolicyTable:
    """``base`` with the fields set in ``override`` replaced; validates the result."""
    data = base.model_dump()
    if not keep_groups:
        data["groups"] = {}
    for key, value in override.model_dump(exclude_unset=True,
                                          exclude={"categories", "retention"}).items():
        data[key] = value
    if override.retention is not None:
        data["retention"] = {**data["retention"],
                             **override.retention.model_dump(exclude_unset=True)}
    for category, partial in override.categories.items():
        row = dict(data["categories"][category])
        row.update(partial.model_dump(exclude_unset=True))
        data["categories"][category] = row
    return PolicyTable.model_validate(data)


def _first_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "policy"
    return f"{where}: {first['msg']}"


_DEFAULT: Final[PolicyTable] = PolicyTable()

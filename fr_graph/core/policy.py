"""The lifecycle policy table: one row of parameters per behavioral category.

The paper's defaults (Fortunate Recall, and StageMem for ``[retention]``) live in one place,
the packaged file ``fr_graph/core/default_policy.toml``, each value with its meaning and its
source in the paper. :meth:`PolicyTable.default` reads it once. A deployment overrides any of
it from a TOML file of the same shape (:meth:`PolicyTable.from_toml`), and per group
(per-user rates, App. B.3) with a ``[groups."<group_id>"]`` table of partial overrides::

    expiry_buffer_days = 10
    categories.health.lambda_per_hour = 0.001

    [categories.logistical]
    lambda_per_hour = 0.01

    [groups."user-42".categories.hobbies]
    lambda_per_hour = 0.002

    [retention]                      # StageMem settlement (fr_graph.core.retention)
    working_capacity = 200

    [groups."user-42".retention]
    durable_capacity = 50

The default file and an override file go through the same parser and the same validator
(:class:`PolicyOverride`); the default must give every field, an override only what it
changes. The table is validated once; :attr:`PolicyTable.arrays` holds the numpy vectors the
reranker reads, built on first use.

Reading a policy file is this module's only I/O, done once at startup; the functions that
use a policy take the table as an argument.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, cached_property
from importlib.resources import files
from importlib.resources.abc import Traversable
from os import PathLike
from pathlib import Path
from typing import Annotated, Any, Final, Self

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError, model_validator

from fr_graph.core.codes import CATEGORIES, N_CATEGORIES
from fr_graph.core.ontology import CATEGORY_LABELS, Category
from fr_graph.core.retention import RetentionOverride, RetentionPolicy
from fr_graph.errors import ConfigError

SECONDS_PER_HOUR: Final[float] = 3600.0
SECONDS_PER_DAY: Final[float] = 86400.0


class SupersessionSemantics(StrEnum):
    """How a new fact in the same slot treats the old one (Table 1, App. F)."""

    REPLACE = "replace"
    """One current value per slot: a confident new value supersedes."""

    ACCUMULATE = "accumulate"
    """Values coexist; only an explicit, very confident contradiction supersedes."""


#: The packaged file holding the default policy, next to this module.
DEFAULT_POLICY_RESOURCE: Final[str] = "default_policy.toml"

UnitFloat = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
# Override models validate strictly (TOML values are typed: "0.5" is not a number, 1 is not
# a boolean), except that enums, category keys included, are written as their string values.
CategoryName = Annotated[Category, Strict(False)]
SemanticsName = Annotated[SupersessionSemantics, Strict(False)]


class CategoryPolicy(BaseModel):
    """Every lifecycle parameter of one category (``[categories.<name>]`` in the policy file,
    where each default is documented with its source in the paper).

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
    expiry_guard: bool
    # None (left out of the file: TOML has no null) means the category has no event kernel.
    validity_nu_per_hour: float | None = Field(default=None, ge=0.0, allow_inf_nan=False)
    validity_mu_per_hour: float | None = Field(default=None, ge=0.0, allow_inf_nan=False)
    policy: str

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


class CategoryOverride(BaseModel):
    """A partial :class:`CategoryPolicy`: only the fields given replace the defaults."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    lambda_per_hour: float | None = Field(default=None, gt=0.0, allow_inf_nan=False)
    alpha: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    semantic_floor: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    supersession: SemanticsName | None = None
    supersede_threshold: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    expiry_guard: bool | None = None
    validity_nu_per_hour: float | None = Field(default=None, ge=0.0, allow_inf_nan=False)
    validity_mu_per_hour: float | None = Field(default=None, ge=0.0, allow_inf_nan=False)
    policy: str | None = None


class _Globals(BaseModel):
    """Table-wide scalars (the top-level keys of a policy file); :class:`PolicyOverride`
    mirrors them as optional fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    expiry_buffer_days: float = Field(ge=0.0, allow_inf_nan=False)
    """App. K: a dated fact of a guarded category expires this long after its event time."""

    emotional_alpha: UnitFloat
    """Table 48, Emotional Loading row: weight of the transient loading boost (App. B.6)."""

    emotional_half_life_hours: float = Field(gt=0.0, allow_inf_nan=False)
    """Half-life of the loading boost (B.6 says only "fast decay")."""

    numeric_rescue_factor: UnitFloat
    """App. H stage 3: numeric facts score at least this times their relevance..."""

    numeric_rescue_min_relevance: UnitFloat
    """...when their relevance is at least this."""

    explicit_marker_threshold: UnitFloat
    """Confidence a retraction or completion needs to act (below it: soft, ambiguous)."""

    soft_supersession_gamma: UnitFloat
    """Omega: a later same-slot fact of confidence v scales an older one by ``1 - gamma*v``."""

    fulltext_weight: UnitFloat
    """Relevance is ``max(semantic, fulltext_weight * fulltext)`` (per-source normalized)."""

    routing_strength: float = Field(ge=0.0, le=4.0, allow_inf_nan=False)
    """Routing factor ``(11 * rho_row) ** routing_strength``; 0 turns routing off."""

    # None (left out of the file: TOML has no null) means the mean of the category rates.
    uniform_lambda_per_hour: float | None = Field(default=None, gt=0.0, allow_inf_nan=False)
    """Rate of the uniform-decay ablation; None means the mean of the category rates."""


class PolicyOverride(BaseModel):
    """Partial overrides of a table: any table-wide scalar and any category field.

    The one validator of a policy file's content, the packaged default's and an override's
    alike; a file maps onto it one key per field.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

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
    categories: dict[CategoryName, CategoryOverride] = Field(default_factory=dict)
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
    group's rates with :meth:`for_group`. Every field is required (no defaults in code): the
    defaults are the packaged ``default_policy.toml``.

    Example:
        >>> PolicyTable.default().categories[Category.HEALTH].lambda_per_hour
        0.0025
    """

    categories: dict[Category, CategoryPolicy]
    groups: dict[str, PolicyOverride] = Field(default_factory=dict)
    #: StageMem retention control: settlement thresholds, stage capacities, dynamics.
    retention: RetentionPolicy

    @model_validator(mode="after")
    def _every_category_present(self) -> Self:
        missing = [c.value for c in CATEGORIES if c not in self.categories]
        if missing:
            raise ValueError(f"policy table lacks categories: {', '.join(missing)}")
        return self

    # -- construction -------------------------------------------------------------------

    @classmethod
    def default(cls) -> PolicyTable:
        """The paper's defaults: the packaged ``default_policy.toml``, read once.

        Raises:
            ConfigError: the packaged file is missing or invalid (a broken install or edit).
        """
        return _packaged_default()

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, source: str | None = None
                     ) -> PolicyTable:
        """Defaults overridden by a parsed TOML-shaped mapping.

        Args:
            data: top-level scalars, ``categories.<name>`` partial rows, a partial
                ``retention`` table and ``groups.<group_id>`` partial overrides (same shape,
                nested).
            source: the file ``data`` came from, named in errors.

        Raises:
            ConfigError: unknown keys, unknown categories, wrong types or out-of-range values.
        """
        return _resolve(cls.default(), data, source)

    @classmethod
    def from_toml_text(cls, text: str, *, source: str | None = None) -> PolicyTable:
        """Parse TOML text (see the module docstring for the shape).

        Raises:
            ConfigError: the text is not TOML or the policy is invalid.
        """
        return cls.from_mapping(_parse_toml(text, source), source=source)

    @classmethod
    def from_toml(cls, path: str | PathLike[str]) -> PolicyTable:
        """Read an override file (once, at startup).

        Raises:
            ConfigError: the file cannot be read, is not TOML, or the policy is invalid.
        """
        path = Path(path)
        return cls.from_mapping(_read_toml(path), source=str(path))

    def for_group(self, group_id: str | None) -> PolicyTable:
        """The table with ``group_id``'s overrides applied (itself when it has none)."""
        if group_id is None or group_id not in self.groups:
            return self
        cached = self._group_tables.get(group_id)
        if cached is None:
            try:
                cached = _apply(self, self.groups[group_id], keep_groups=False)
            except ValidationError as exc:
                raise ConfigError(f"invalid policy: {_first_error(exc, ('groups', group_id))}"
                                  ) from exc
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
            f"half-life {self.emotional_half_life_hours:g}h (a short-lived boost, not a category)",
            f"numeric rescue: a fact carrying a number scores >= "
            f"{self.numeric_rescue_factor:.2f} x relevance when relevance >= "
            f"{self.numeric_rescue_min_relevance:.2f}",
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


def _apply(base: PolicyTable | None, override: PolicyOverride, *, keep_groups: bool = True
           ) -> PolicyTable:
    """``base`` with the fields set in ``override`` replaced; validates the result.

    With no ``base`` (the default file) nothing is filled in: ``override`` must set every
    field, and the validation names the first one it lacks.
    """
    data: dict[str, Any] = (base.model_dump() if base is not None
                            else {"categories": {}, "retention": {}})
    if not keep_groups:
        data["groups"] = {}
    for key, value in override.model_dump(exclude_unset=True,
                                          exclude={"categories", "retention"}).items():
        data[key] = value
    if override.retention is not None:
        data["retention"] = {**data["retention"],
                             **override.retention.model_dump(exclude_unset=True)}
    for category, partial in override.categories.items():
        row = dict(data["categories"].get(category, {}))
        row.update(partial.model_dump(exclude_unset=True))
        data["categories"][category] = row
    return PolicyTable.model_validate(data)


def _resolve(base: PolicyTable | None, data: Mapping[str, Any], source: str | None
             ) -> PolicyTable:
    """``base`` overridden by ``data``, a parsed policy file; every group validated now."""
    where = f"invalid policy in {source}" if source else "invalid policy"
    prefix: tuple[str, ...] = ()
    body = dict(data)
    groups = body.pop("groups", {})
    if not isinstance(groups, Mapping):
        raise ConfigError(f"{where}: groups: must be a table of group ids")
    try:
        table = _apply(base, PolicyOverride.model_validate(body))
        parsed_groups: dict[str, PolicyOverride] = {}
        for gid, spec in groups.items():
            prefix = ("groups", str(gid))
            parsed_groups[str(gid)] = PolicyOverride.model_validate(spec)
            # Resolve the group now, so a bad combination fails at startup, not at its
            # first query.
            _apply(table, parsed_groups[str(gid)], keep_groups=False)
    except ValidationError as exc:
        raise ConfigError(f"{where}: {_first_error(exc, prefix)}") from exc
    if not parsed_groups:
        return table
    # Not model_copy: the overrides must keep their set fields (dumping them would mark
    # every field as set, None included).
    resolved = table.model_dump()
    resolved["groups"] = parsed_groups
    return PolicyTable.model_validate(resolved)


def _first_error(exc: ValidationError, prefix: tuple[str, ...] = ()) -> str:
    """The first error as ``dotted.key: message``, the key as written in the file."""
    first = exc.errors()[0]
    message = " ".join(str(first["msg"]).split())  # one line, whatever pydantic wrote
    if first["type"] == "extra_forbidden":
        message = "unknown key"
    elif "[key]" in first["loc"]:  # pydantic's marker for a bad dict key: a category name
        message = f"unknown category ({message})"
    parts = [*prefix, *(str(p) for p in first["loc"] if p != "[key]")]
    return f"{'.'.join(parts) or 'policy'}: {message}"


def _parse_toml(text: str, source: str | None) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        name = f"policy file {source}" if source else "policy file"
        raise ConfigError(f"{name} is not valid TOML: {exc}") from exc


def _read_toml(path: Traversable) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read policy file {path}: {exc.strerror}") from exc
    return _parse_toml(text, str(path))


def load_default_policy(path: Traversable) -> PolicyTable:
    """A complete policy from ``path``, a file in the default file's shape that gives every
    field (the packaged default's loader; tests point it at edited copies).

    Raises:
        ConfigError: the file cannot be read, is not TOML, lacks a field, or is invalid.
    """
    return _resolve(None, _read_toml(path), str(path))


def _packaged_resource() -> Traversable:
    return files("fr_graph.core").joinpath(DEFAULT_POLICY_RESOURCE)


def default_policy_source() -> str:
    """Where the default policy is read from (for ``policy show`` and error messages)."""
    return str(_packaged_resource())


@cache
def _packaged_default() -> PolicyTable:
    return load_default_policy(_packaged_resource())

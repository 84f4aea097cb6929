"""The policy table: paper defaults, overrides, validation, rendering."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from fr_graph.core.codes import CATEGORIES, CATEGORY_INDEX
from fr_graph.core.ontology import CATEGORY_LABELS, Category
from fr_graph.core.policy import (
    MIX_ALPHA,
    MIX_FLOOR,
    MIX_GUARD,
    MIX_MU,
    MIX_NEG_NU,
    MIX_STEADY,
    MIX_TAU,
    MIX_TAU_UNIFORM,
    RENDER_COLUMNS,
    PolicyTable,
    SupersessionSemantics,
)
from fr_graph.errors import ConfigError

C = Category

TABLE_49_LAMBDA = {
    C.IDENTITY: 0.0015, C.RELATIONAL: 0.0015, C.INTELLECTUAL: 0.0020, C.HEALTH: 0.0025,
    C.PROJECTS: 0.0025, C.HOBBIES: 0.0035, C.PREFERENCES: 0.0050, C.FINANCIAL: 0.0055,
    C.OBLIGATIONS: 0.0060, C.LOGISTICAL: 0.0080, C.OTHER: 0.0050,
}
TABLE_48_ALPHA_FLOOR = {
    C.FINANCIAL: (0.05, 0.97), C.IDENTITY: (0.10, 0.95), C.HEALTH: (0.10, 0.95),
    C.RELATIONAL: (0.10, 0.95), C.INTELLECTUAL: (0.15, 0.90), C.PREFERENCES: (0.20, 0.85),
    C.HOBBIES: (0.20, 0.92), C.PROJECTS: (0.30, 0.75), C.OBLIGATIONS: (0.35, 0.70),
    C.LOGISTICAL: (0.40, 0.00),
}
TABLE_1_HALF_LIFE_DAYS = {  # Other: Table 49's deployed 0.0050, i.e. 6 days
    C.IDENTITY: 19, C.RELATIONAL: 19, C.INTELLECTUAL: 14, C.HEALTH: 12, C.PROJECTS: 12,
    C.HOBBIES: 8, C.PREFERENCES: 6, C.FINANCIAL: 5, C.OBLIGATIONS: 5, C.LOGISTICAL: 4,
    C.OTHER: 6,
}


@pytest.fixture
def table() -> PolicyTable:
    return PolicyTable.default()


def test_decay_rates_are_table_49(table: PolicyTable) -> None:
    assert {c: p.lambda_per_hour for c, p in table.categories.items()} == TABLE_49_LAMBDA


def test_rate_spread_is_5_3x(table: PolicyTable) -> None:
    rates = table.arrays.lambda_per_hour
    assert rates.max() / rates.min() == pytest.approx(5.33, abs=0.01)


def test_alpha_and_floors_are_table_48(table: PolicyTable) -> None:
    for category, (alpha, floor) in TABLE_48_ALPHA_FLOOR.items():
        assert table.categories[category].alpha == alpha
        assert table.categories[category].semantic_floor == floor
    assert table.emotional_alpha == 0.40


def test_half_lives_round_to_table_1(table: PolicyTable) -> None:
    for category, days in TABLE_1_HALF_LIFE_DAYS.items():
        assert abs(table.categories[category].half_life_days - days) < 0.75, category


def test_supersession_semantics_and_thresholds(table: PolicyTable) -> None:
    accumulate = {C.IDENTITY, C.RELATIONAL, C.INTELLECTUAL, C.HEALTH, C.HOBBIES, C.OTHER}
    for category, row in table.categories.items():
        if category in accumulate:
            assert row.supersession is SupersessionSemantics.ACCUMULATE
            assert row.supersede_threshold == 0.95
        else:
            assert row.supersession is SupersessionSemantics.REPLACE
            assert row.supersede_threshold == 0.8


def test_expiry_guard_and_kernels(table: PolicyTable) -> None:
    guarded = {c for c, p in table.categories.items() if p.expiry_guard}
    assert guarded == {C.LOGISTICAL, C.OBLIGATIONS, C.HEALTH}
    kernels = {c for c, p in table.categories.items() if p.has_event_kernel}
    assert kernels == {C.OBLIGATIONS, C.LOGISTICAL}
    for category in kernels:
        row = table.categories[category]
        assert row.validity_mu_per_hour is not None and row.validity_nu_per_hour is not None
        assert row.validity_mu_per_hour >= 10 * row.validity_nu_per_hour  # mu >> nu (A.13)
    assert table.expiry_buffer_days == 14


def test_mix_matrix_rows(table: PolicyTable) -> None:
    mix = table.arrays.mix
    assert mix.shape == (8, 11)
    assert not mix.flags.writeable
    for category in CATEGORIES:
        column, row = mix[:, CATEGORY_INDEX[category]], table.categories[category]
        assert column[MIX_TAU] == pytest.approx(3600.0 / row.lambda_per_hour)
        assert column[MIX_ALPHA] == row.alpha
        assert column[MIX_FLOOR] == row.semantic_floor
        assert column[MIX_STEADY] == (0.0 if row.has_event_kernel else 1.0)
        assert column[MIX_NEG_NU] == pytest.approx(-(row.validity_nu_per_hour or 0) / 3600)
        assert column[MIX_MU] == pytest.approx((row.validity_mu_per_hour or 0) / 3600)
        assert column[MIX_GUARD] == float(row.expiry_guard)
    uniform = table.arrays.uniform_lambda_per_hour
    assert uniform == pytest.approx(np.mean(list(TABLE_49_LAMBDA.values())))
    assert np.allclose(mix[MIX_TAU_UNIFORM], 3600.0 / uniform)


def test_toml_overrides_and_groups(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text(
        'expiry_buffer_days = 10\n'
        '[categories.logistical]\nlambda_per_hour = 0.01\n'
        '[groups."user-42".categories.hobbies]\nlambda_per_hour = 0.002\n'
        '[groups."user-42"]\nrouting_strength = 0.5\n',
        encoding="utf-8",
    )
    table = PolicyTable.from_toml(path)
    assert table.expiry_buffer_days == 10
    assert table.categories[C.LOGISTICAL].lambda_per_hour == 0.01
    assert table.categories[C.LOGISTICAL].alpha == 0.40  # untouched fields keep defaults
    assert table.categories[C.HOBBIES].lambda_per_hour == 0.0035
    group = table.for_group("user-42")
    assert group.categories[C.HOBBIES].lambda_per_hour == 0.002
    assert group.categories[C.LOGISTICAL].lambda_per_hour == 0.01  # deployment level kept
    assert group.routing_strength == 0.5 and group.expiry_buffer_days == 10
    assert group is table.for_group("user-42")
    assert table.for_group("someone-else") is table
    assert table.for_group(None) is table
    assert not group.groups


@pytest.mark.parametrize("text, fragment", [
    ("expiry_buffer_dayz = 3", "expiry_buffer_dayz"),
    ("[categories.logistical]\nalpha = 1.5", "alpha"),
    ("[categories.vacations]\nalpha = 0.1", "categories"),
    ("[categories.hobbies]\nlambda_per_hour = 0", "lambda_per_hour"),
    ("[categories.obligations]\nvalidity_mu_per_hour = 0.0001", "mu"),
    ('[groups."g".categories.identity]\nalpha = -1', "alpha"),
    ("routing_strength = nan", "routing_strength"),
    ("this is not toml", "TOML"),
])
def test_invalid_policies_raise_config_error(text: str, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        PolicyTable.from_toml_text(text)


def test_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        PolicyTable.from_toml(tmp_path / "absent.toml")


def test_kernel_fields_go_together() -> None:
    with pytest.raises(ConfigError, match="go together"):
        PolicyTable.from_mapping({"categories": {"hobbies": {"validity_nu_per_hour": 0.01}}})


def test_a_category_can_gain_a_kernel() -> None:
    table = PolicyTable.from_mapping({"categories": {"health": {
        "validity_nu_per_hour": 0.001, "validity_mu_per_hour": 0.05}}})
    assert table.categories[C.HEALTH].has_event_kernel
    assert table.arrays.mix[MIX_STEADY, CATEGORY_INDEX[C.HEALTH]] == 0.0


def test_table_is_frozen_and_copies_revalidate(table: PolicyTable) -> None:
    with pytest.raises(ValidationError):
        table.expiry_buffer_days = 3
    copy = table.model_copy(update={"uniform_lambda_per_hour": 0.004})
    assert copy.arrays.uniform_lambda_per_hour == 0.004
    assert table.arrays.uniform_lambda_per_hour != 0.004
    with pytest.raises(ValidationError):
        table.model_copy(update={"expiry_buffer_days": -1})


def test_render_is_table_shaped(table: PolicyTable) -> None:
    lines = table.render()
    header, rule, *rows = lines
    assert header.split()[:3] == ["#", "category", "lambda/h"]
    assert set(rule.replace(" ", "")) == {"-"}
    for category in CATEGORIES:
        assert any(CATEGORY_LABELS[category] in line for line in rows)
    assert any("0.0015" in line and "19.3d" in line for line in rows)
    assert any("date+14d" in line for line in rows)
    assert any("numeric rescue" in line for line in rows)
    assert all(len(row) == len(RENDER_COLUMNS) for row in table.rows())


def test_render_cites_no_bare_paper_tags(table: PolicyTable) -> None:
    # `fr-graph policy show` is read by users, who have no appendix to look "App. H" up in.
    assert not [line for line in table.render() if re.search(r"\b(App|Eqs?)\.|Table \d", line)]


def test_render_lists_groups() -> None:
    table = PolicyTable.from_mapping({"groups": {"b": {}, "a": {"fulltext_weight": 0.5}}})
    assert table.render()[-1] == "group overrides: a, b"


def test_half_life_property() -> None:
    row = PolicyTable.default().categories[C.LOGISTICAL]
    assert row.half_life_days == pytest.approx(math.log(2) / 0.008 / 24)

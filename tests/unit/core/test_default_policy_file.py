"""The packaged default policy file: it reproduces the paper's table exactly, it has the
shape of an override file, and bad content is a one-line error naming the file and key."""

from __future__ import annotations

import json
import tomllib
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

from fr_graph.core.codes import CATEGORIES
from fr_graph.core.ontology import Category
from fr_graph.core.policy import (
    DEFAULT_POLICY_RESOURCE,
    PolicyTable,
    default_policy_source,
    load_default_policy,
)
from fr_graph.errors import ConfigError

# The default table as the in-code tables produced it before they moved to
# fr_graph/core/default_policy.toml (captured from PolicyTable.default() at that commit).
# A change here is a change of the paper's defaults: it needs a reason, not a refactor.
FROZEN_GLOBALS: dict[str, Any] = {
    "expiry_buffer_days": 14.0,
    "emotional_alpha": 0.4,
    "emotional_half_life_hours": 24.0,
    "numeric_rescue_factor": 0.95,
    "numeric_rescue_min_relevance": 0.85,
    "explicit_marker_threshold": 0.8,
    "soft_supersession_gamma": 0.5,
    "fulltext_weight": 0.85,
    "routing_strength": 0.25,
    "uniform_lambda_per_hour": None,
}
CATEGORY_COLUMNS = ("lambda_per_hour", "alpha", "semantic_floor", "supersession",
                    "supersede_threshold", "expiry_guard", "validity_nu_per_hour",
                    "validity_mu_per_hour", "policy")
_ROWS: dict[str, tuple[Any, ...]] = {
    "identity": (0.0015, 0.1, 0.95, "accumulate", 0.95, False, None, None,
                 "Accumulate; high-confidence supersession"),
    "relational": (0.0015, 0.1, 0.95, "accumulate", 0.95, False, None, None,
                   "Accumulate; explicit dissolution"),
    "intellectual": (0.002, 0.15, 0.9, "accumulate", 0.95, False, None, None,
                     "Accumulate; reactivatable"),
    "health": (0.0025, 0.1, 0.95, "accumulate", 0.95, True, None, None,
               "Chronic: identity-like; acute (dated): expire"),
    "projects": (0.0025, 0.3, 0.75, "replace", 0.8, False, None, None,
                 "State machine: active/done/paused"),
    "hobbies": (0.0035, 0.2, 0.92, "accumulate", 0.95, False, None, None,
                "Slow decay; dormancy detection"),
    "preferences": (0.005, 0.2, 0.85, "replace", 0.8, False, None, None,
                    "Slot-key supersession"),
    "financial": (0.0055, 0.05, 0.97, "replace", 0.8, False, None, None,
                  "State tracking; supersession"),
    "obligations": (0.006, 0.35, 0.7, "replace", 0.8, True, 0.002, 0.06,
                    "Event-time validity; anticipatory"),
    "logistical": (0.008, 0.4, 0.0, "replace", 0.8, True, 0.0026666666666666666, 0.08,
                   "Fastest decay; event-time expiry"),
    "other": (0.005, 0.2, 0.85, "accumulate", 0.95, False, None, None, "Moderate default"),
}
FROZEN_CATEGORIES: dict[str, dict[str, Any]] = {
    name: dict(zip(CATEGORY_COLUMNS, row, strict=True)) for name, row in _ROWS.items()
}
FROZEN_RETENTION: dict[str, Any] = {
    "working_confidence": 0.5,
    "working_strength": 0.3,
    "durable_confidence": 0.7,
    "durable_strength": 0.6,
    "transient_capacity": None,
    "working_capacity": None,
    "durable_capacity": None,
    "plasticity_transient": 1.0,
    "plasticity_working": 0.5,
    "plasticity_durable": 0.2,
    "evidence_alpha": 2.0,
    "conflict_sigma": 0.5,
    "strength_beta": 2.0,
    "min_plasticity": 0.02,
    "evidence_scale": 3.0,
    "pin_strength": 1.0,
    "compress_min_facts": 2,
    "decay_protection": 1.0,
}
FROZEN = {**FROZEN_GLOBALS, "categories": FROZEN_CATEGORIES, "groups": {},
          "retention": FROZEN_RETENTION}


def _packaged_text() -> str:
    return files("fr_graph.core").joinpath(DEFAULT_POLICY_RESOURCE).read_text(encoding="utf-8")


def test_default_policy_equals_the_frozen_table_exactly() -> None:
    loaded = PolicyTable.default().model_dump(mode="json")
    assert loaded == FROZEN
    # == treats 14 and 14.0 alike; the JSON text does not.
    assert json.dumps(loaded, sort_keys=True) == json.dumps(FROZEN, sort_keys=True)


def test_default_policy_is_read_once() -> None:
    assert PolicyTable.default() is PolicyTable.default()


def test_default_file_names_every_field_of_every_category() -> None:
    data = tomllib.loads(_packaged_text())
    assert list(data["categories"]) == [c.value for c in CATEGORIES]
    for name, row in data["categories"].items():
        # TOML has no null: a missing kernel is the only field a row may leave out.
        expected = {k for k, v in FROZEN_CATEGORIES[name].items() if v is not None}
        assert set(row) == expected, name
    assert set(data["retention"]) == {k for k, v in FROZEN_RETENTION.items() if v is not None}


def test_default_file_is_an_override_file_of_itself() -> None:
    """The default file has exactly the override shape: fed back as an override it changes
    nothing."""
    assert PolicyTable.from_toml_text(_packaged_text()) == PolicyTable.default()


def test_one_line_changes_one_parameter(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text("categories.health.lambda_per_hour = 0.001\n", encoding="utf-8")
    table = PolicyTable.from_toml(path)
    changed = table.model_dump(mode="json")
    assert changed["categories"]["health"]["lambda_per_hour"] == 0.001
    changed["categories"]["health"]["lambda_per_hour"] = FROZEN_CATEGORIES["health"][
        "lambda_per_hour"]
    assert changed == FROZEN
    assert table.categories[Category.HEALTH].half_life_days == pytest.approx(28.9, abs=0.05)


@pytest.mark.parametrize("text, key", [
    ("[categories.vacations]\nalpha = 0.1\n", "categories.vacations"),
    ("[categories.health]\nhalf_life = 3.0\n", "categories.health.half_life"),
    ("[categories.health]\nalpha = \"high\"\n", "categories.health.alpha"),
    ("[categories.health]\nexpiry_guard = \"sometimes\"\n", "categories.health.expiry_guard"),
    # Strict types: TOML says what a value is, so a quoted number or 1 for true is a mistake.
    ("[categories.health]\nalpha = \"0.5\"\n", "categories.health.alpha"),
    ("[categories.health]\nexpiry_guard = 1\n", "categories.health.expiry_guard"),
    ("[retention]\ncompress_min_facts = 2.5\n", "retention.compress_min_facts"),
    ("[categories.health]\nsemantic_floor = 1.2\n", "categories.health.semantic_floor"),
    ("[categories.health]\nsupersession = \"merge\"\n", "categories.health.supersession"),
    ("fulltext_weight = -0.5\n", "fulltext_weight"),
    ("[retention]\ndurable_capacity = -3\n", "retention.durable_capacity"),
    ("[retention]\nworking_capcity = 3\n", "retention.working_capcity"),
    ('[groups."u-1".categories.hobbies]\nalpha = 2.0\n', "groups.u-1.categories.hobbies.alpha"),
    ('[groups."u-1".categories.obligations]\nvalidity_mu_per_hour = 0.0001\n',
     "groups.u-1.categories.obligations"),
])
def test_bad_override_is_one_line_naming_file_and_key(tmp_path: Path, text: str,
                                                       key: str) -> None:
    path = tmp_path / "policy.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        PolicyTable.from_toml(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"invalid policy in {path}: {key}: "), message


def test_not_toml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    path.write_text("this is not toml\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=f"^policy file {path} is not valid TOML: "):
        PolicyTable.from_toml(path)


@pytest.mark.parametrize("edit, key", [
    (lambda t: t.replace("\n[categories.health]\n", "\n[categories.wellness]\n", 1),
     "categories.wellness"),
    (lambda t: t.replace("routing_strength = 0.25", "routing_strength = \"some\"", 1),
     "routing_strength"),
    (lambda t: t.replace("working_strength = 0.30", "working_strenght = 0.30", 1),
     "retention.working_strenght"),
    (lambda t: t.replace("lambda_per_hour = 0.0025", "lambda_per_hour = 0.0", 1),
     "categories.health.lambda_per_hour"),
    # A field missing from the default file is an error too: it has no fallback.
    (lambda t: t.replace("fulltext_weight = 0.85\n", "", 1), "fulltext_weight"),
    (lambda t: t.replace("pin_strength = 1.0\n", "", 1), "retention.pin_strength"),
])
def test_bad_default_file_is_one_line_naming_file_and_key(tmp_path: Path, edit: Any,
                                                          key: str) -> None:
    text = _packaged_text()
    broken = edit(text)
    assert broken != text, "the edit must apply to the current default file"
    path = tmp_path / DEFAULT_POLICY_RESOURCE
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_default_policy(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"invalid policy in {path}: {key}: "), message


def test_default_policy_source_names_the_packaged_file() -> None:
    source = default_policy_source()
    assert source.endswith(DEFAULT_POLICY_RESOURCE)
    assert Path(source).read_text(encoding="utf-8") == _packaged_text()

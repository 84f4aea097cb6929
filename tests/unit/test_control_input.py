"""Argument checks of the user-control commands (no store needed)."""

from __future__ import annotations

import pytest

from fr_graph.cli.control import parse_weights
from fr_graph.core.ontology import Category
from fr_graph.errors import InputError
from fr_graph.pipeline.control import category_weights


def test_category_weights_are_validated_and_normalized() -> None:
    assert category_weights("health", None) == (Category.HEALTH, {"health": 1.0})
    primary, mix = category_weights("health", {"preferences": 1, "health": 3})
    assert primary is Category.HEALTH
    assert mix == {"health": 0.75, "preferences": 0.25}  # ontology order
    assert list(mix) == ["health", "preferences"]


@pytest.mark.parametrize(("category", "weights", "named"), [
    ("hobby", None, "'hobby'"),
    ("health", {"cooking": 1.0}, "'cooking'"),
    ("health", {"health": -1.0}, "health=-1.0"),
    ("health", {"health": float("nan")}, "health=nan"),
    ("health", {"health": float("inf")}, "health=inf"),
    ("health", {"other": 1.0}, "'health' needs a positive weight"),
])
def test_bad_categories_and_weights_are_named(category: str, weights: dict[str, float] | None,
                                              named: str) -> None:
    with pytest.raises(InputError, match=named.replace("(", r"\(")):
        category_weights(category, weights)


def test_weights_option_parsing() -> None:
    assert parse_weights([]) is None
    assert parse_weights(["health=0.7,other=0.3", "identity=1"]) == {
        "health": 0.7, "other": 0.3, "identity": 1.0}
    for bad, named in ((["health"], "'health'"), (["health=x"], "health=x"),
                       (["=1"], "'=1'"), (["a=1", "a=2"], "a: given twice")):
        with pytest.raises(InputError, match=named):
            parse_weights(bad)

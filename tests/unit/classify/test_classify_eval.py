"""Regression guard: the labeled evaluation set and the classifier's scores on it.

Floors are the scores measured when the rules were written, minus a margin: a change that
drops below them has broken something, not merely moved noise. See bench/classifier_eval.py.
"""

from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from fr_graph.core.lifecycle import Marker
from fr_graph.core.ontology import Category

ROOT = Path(__file__).resolve().parents[3]
EVAL = ROOT / "bench" / "classifier_eval.py"

# Measured: dev macro-F1 0.994 / accuracy 0.994; heldout macro-F1 0.663 / accuracy 0.645.
DEV_MACRO_F1_FLOOR = 0.95
DEV_ACCURACY_FLOOR = 0.95
HELDOUT_MACRO_F1_FLOOR = 0.60
HELDOUT_ACCURACY_FLOOR = 0.58
MARKER_FLOOR = 0.95
EVENT_TIME_FLOOR = 0.95
HAS_NUMBER_FLOOR = 0.97


def _load_eval() -> ModuleType:
    spec = importlib.util.spec_from_file_location("classifier_eval", EVAL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("classifier_eval", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return _load_eval()


@pytest.fixture(scope="module")
def report(bench: ModuleType) -> dict[str, Any]:
    result: dict[str, Any] = bench.evaluate()
    return result


def test_dataset_is_well_formed(bench: ModuleType) -> None:
    rows = bench.load()
    assert len(rows) >= 320
    keys = {"id", "text", "observed_at", "category", "slot_key", "marker", "event_time",
            "has_number", "world_knowledge", "instruction_like", "split"}
    assert len({r["id"] for r in rows}) == len(rows)
    for row in rows:
        assert keys <= set(row), row["id"]
        Category(row["category"])
        Marker(row["marker"])
        assert datetime.fromisoformat(row["observed_at"]).tzinfo is not None
        if row["event_time"] is not None:
            datetime.fromisoformat(row["event_time"])
        assert row["split"] in ("dev", "heldout")
        assert row["slot_key"] is None or "|" in row["slot_key"]
    per_category = Counter(r["category"] for r in rows)
    assert min(per_category.values()) >= 30
    assert set(per_category) == {c.value for c in Category}
    heldout = sum(r["split"] == "heldout" for r in rows) / len(rows)
    assert 0.2 <= heldout <= 0.3
    assert Counter(r["marker"] for r in rows).keys() == {m.value for m in Marker}


def test_dev_scores_hold(report: dict[str, Any]) -> None:
    dev = report["splits"]["dev"]
    assert dev["macro_f1"] >= DEV_MACRO_F1_FLOOR
    assert dev["accuracy"] >= DEV_ACCURACY_FLOOR
    assert dev["marker_accuracy"] >= MARKER_FLOOR
    assert dev["event_time_accuracy"] >= EVENT_TIME_FLOOR
    assert dev["has_number_accuracy"] >= HAS_NUMBER_FLOOR
    assert dev["weights_sum_to_1"]


def test_heldout_scores_hold(report: dict[str, Any]) -> None:
    heldout = report["splits"]["heldout"]
    assert heldout["macro_f1"] >= HELDOUT_MACRO_F1_FLOOR
    assert heldout["accuracy"] >= HELDOUT_ACCURACY_FLOOR
    assert heldout["weights_sum_to_1"]


def test_metrics_are_computed_correctly(bench: ModuleType) -> None:
    gold = ["identity", "identity", "health", "other"]
    pred = ["identity", "health", "health", "other"]
    per = bench.prf(gold, pred)
    assert per["identity"]["precision"] == 1.0 and per["identity"]["recall"] == 0.5
    assert per["health"]["precision"] == 0.5 and per["health"]["recall"] == 1.0
    assert bench.cohen_kappa(gold, gold) == 1.0
    # observed 0.75; expected (2*1 + 1*2 + 1*1) / 16 = 5/16 -> kappa = (0.75 - 0.3125) / 0.6875
    assert bench.cohen_kappa(gold, pred) == pytest.approx(0.4375 / 0.6875)


def test_cli_prints_markdown_and_json(
    bench: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert bench.main([]) == 0
    out = capsys.readouterr().out
    assert "| macro_f1 |" in out and "heldout" in out
    assert bench.main(["--json"]) == 0
    assert '"macro_f1"' in capsys.readouterr().out

"""A short run of bench/load_test.py (20 searchers + 2 importers, ~10 s) on each backend:
no error, every search answered, the importers made progress, and the slots they kept
superseding still have exactly one current value each."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from fr_graph.api import FrGraph
from fr_graph.config import Settings
from tests.integration.reliability.state import slot_rows

LOAD_TEST = Path(__file__).resolve().parents[3] / "bench" / "load_test.py"


def load_module() -> object:
    spec = importlib.util.spec_from_file_location("load_test", LOAD_TEST)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


async def test_twenty_searchers_and_two_importers_run_clean(settings: Settings,
                                                            tmp_path: Path) -> None:
    bench = load_module()
    group = f"load-{os.urandom(4).hex()}"
    report = await bench.run_load(settings, group, seconds=10.0, searchers=20,  # type: ignore[attr-defined]
                                  importers=2, base_facts=120, workdir=tmp_path)
    assert report.errors == []
    assert report.searches >= 20 and report.facts_imported > 0
    assert 0 < report.p95_ms <= report.max_ms
    async with FrGraph(settings) as fr:
        rows = await slot_rows(fr.store, group)
    assert len(rows) == 120 + report.facts_imported
    slots = {r["slot_key"] for r in rows}
    assert sorted(r["slot_key"] for r in rows if r["state"] == "active") == sorted(slots)

"""The StageMem diagnostics harness (bench/retention_regimes.py) keeps the paper's
qualitative findings on the pure core (a few seeds; the full run is in BENCHMARKS.md)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import retention_regimes as bench


def test_the_paper_failure_axes_separate() -> None:
    results = bench.harness(seeds=3)
    table1 = results["Table 1: premise realization under compression pressure"]
    assert table1["fr-graph (StageMem)"]["Prem"] == 1.0
    assert table1["fr-graph (StageMem)"]["FinalLoad"] < 1.0
    assert table1["confidence-only"]["Prem"] == 0.0  # credible residue wins
    assert table1["single-state"]["Prem"] == 0.0
    assert table1["single-layer"]["Prem"] == 1.0 and table1["single-layer"]["FinalLoad"] == 1.0
    heavy = results["Tables 2/9: heavy admitted content"]
    assert heavy["fr-graph (StageMem)"]["ImpRet"] == 1.0
    # The front door at its best threshold keeps what matters only by keeping almost all;
    # a stricter door loses it (Figure 1).
    front = heavy["front-door-only (Mem0-style)"]
    assert front["ImpRet"] == 1.0
    assert front["FinalLoad"] > heavy["fr-graph (StageMem)"]["FinalLoad"] + 0.1
    sweep = results["Figure 1: front-door threshold sweep (heavy regime)"]
    assert sweep["front-door threshold 0.60"]["ImpRet"] == 0.0
    assert heavy["reinforced-flat (MemoryBank-style)"]["ImpRet"] == 0.0
    gate = results["Table 3: gate-strength-lifecycle"]
    assert gate["strength-only lifecycle"]["FalsePrem"] > 0  # no validity gate
    assert gate["confidence+strength (fr-graph)"]["Behav"] == 1.0
    quadrant = results["Table 4: confidence x strength quadrants"]["fr-graph (StageMem)"]
    assert quadrant["GoodProt"] == 1.0 and quadrant["BadProt"] == 0.0
    heuristics = results["Table 5: implicit heuristics"]
    assert heuristics["explicit strength lifecycle (fr-graph)"]["Behav"] == 1.0
    assert all(row["Behav"] < 1.0 for name, row in heuristics.items()
               if not name.startswith("explicit"))

"""The micro-benchmark's batch generator still produces valid batches the reranker takes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from fr_graph.core.intent import analyze_query
from fr_graph.core.policy import PolicyTable
from fr_graph.core.rerank import UNTYPED, CandidateBatch, rerank

BENCH = Path(__file__).resolve().parents[3] / "bench" / "rerank_micro.py"


def test_bench_batches_rerank() -> None:
    spec = importlib.util.spec_from_file_location("rerank_micro", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(0)
    query = analyze_query("what is my rent now?", module.NOW)
    for k in (20, 300):
        for slots in (False, True):
            batch = CandidateBatch(**module.columns(k, rng, slots=slots))
            for config in (None, UNTYPED):
                args = (batch, query, PolicyTable.default(), module.NOW.timestamp())
                result = rerank(*args) if config is None else rerank(*args, config)
                assert 0 < result.order.shape[0] <= k
    median, best = module.time_calls(lambda: None, 10, 2)
    assert median >= 0.0 and best >= 0.0

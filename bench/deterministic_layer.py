"""The whole in-process part of one fr-graph search, per stage, at k = 20, 100, 1000.

``bench/rerank_micro.py`` times :func:`rerank` on a prebuilt :class:`CandidateBatch`. A
search does more between the store's rows and its results: ``analyze_query`` (cached per
query text; the line "text not seen before" times the rules themselves), ``build_batch``
(the fetched rows read field by field into columns, then one vectorized check of the
batch) and, after ``rerank``, the named terms and one :class:`ScoredFact` per returned
hit. This times each of those stages separately and together, on rows shaped as
``fetch_facts`` returns them (Graphiti fields plus the ``FrFact`` overlay made by the
importer's own ``overlay_for`` and the rules classifier on ``bench/store_bench.py``-style
facts), in the order ``FrGraph.search`` runs them (``analyze_query``, ``build_batch``,
``rerank`` and ``scored_facts``, as ``search_facts`` calls them after retrieval).

Timing: ``time.perf_counter_ns`` around single calls after a warm-up, several rounds; the
median over all calls and the lowest round median are printed (shared, noisy machine).

    python bench/deterministic_layer.py [--calls 500] [--rounds 5] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rerank_micro import time_calls
from store_bench import make_facts

from fr_graph.classify.rules import classify_fact
from fr_graph.core import intent
from fr_graph.core.intent import analyze_query
from fr_graph.core.policy import PolicyTable
from fr_graph.core.rerank import FULL, Ranked, rerank
from fr_graph.overlay import stable_uuid
from fr_graph.pipeline.ingest import overlay_for
from fr_graph.pipeline.records import FactRecord
from fr_graph.pipeline.search import Candidates, ScoredFact, build_batch, scored_facts

NOW = datetime(2025, 6, 1, tzinfo=UTC)
SIZES = (20, 100, 1000)
LIMIT = 10
QUERY = "what am I allergic to these days?"


def fetched_rows(k: int, seed: int) -> list[dict[str, Any]]:
    """``k`` rows as ``fetch_facts`` returns them (overlay = the FrFact's properties)."""
    rows = []
    for raw in make_facts("g", k, seed):
        record = FactRecord.model_validate(raw)
        overlay = overlay_for(record, stable_uuid("g", "fact", record.id),
                              classify_fact(record.fact, record.observed_at))
        props = {k: v for k, v in overlay.to_row().items() if v is not None}
        props["revision"] = 1
        rows.append({"uuid": overlay.edge_uuid, "fact": record.fact,
                     "valid_at": record.observed_at, "invalid_at": None,
                     "created_at": NOW - timedelta(days=1), "expired_at": None,
                     "semantic": 0.0, "overlay": props})
    return rows


def candidates(rows: list[dict[str, Any]], rng: random.Random) -> Candidates:
    k = len(rows)
    cosine = np.array([rng.uniform(0.70, 0.99) for _ in range(k)])
    fulltext = np.array([rng.random() if rng.random() < 0.2 else 0.0 for _ in range(k)])
    forced = np.array([rng.random() < 0.1 for _ in range(k)], dtype=bool)
    return Candidates(rows, cosine, fulltext, forced)


def results(found: Candidates, ranked: Ranked) -> list[ScoredFact]:
    """The named terms and the top ``LIMIT`` results, as ``FrGraph.search`` builds them."""
    return scored_facts(found, ranked, ranked.order[:LIMIT])


def first_analysis(text: str) -> object:
    """``analyze_query`` on a text its cache has not seen (the rules run): the uncached
    function behind the cache, when there is one (the code before the cache had none)."""
    read = getattr(intent, "_read", None)
    return read.__wrapped__(text) if read is not None else analyze_query(text, NOW)


def tail(found: Candidates, policy: PolicyTable) -> list[ScoredFact]:
    """``FrGraph.search`` after ``gather_candidates``."""
    analysis = analyze_query(QUERY, NOW)
    return results(found, rerank(build_batch(found), analysis, policy, NOW.timestamp(), FULL))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    policy = PolicyTable.default()
    analysis = analyze_query(QUERY, NOW)
    rng = random.Random(args.seed)
    all_rows = fetched_rows(max(SIZES), args.seed)
    print(f"{'stage':<40}{'k':>6}{'median us':>12}{'best-round us':>15}{'us/cand':>10}")
    for k in SIZES:
        found = candidates(all_rows[:k], rng)
        batch = build_batch(found)
        ranked = rerank(batch, analysis, policy, NOW.timestamp(), FULL)
        cases: list[tuple[str, Callable[[], object]]] = [
            ("analyze_query", partial(analyze_query, QUERY, NOW)),
            ("analyze_query, text not seen before", partial(first_analysis, QUERY)),
            ("build_batch (rows -> CandidateBatch)", partial(build_batch, found)),
            ("rerank full", partial(rerank, batch, analysis, policy, NOW.timestamp(), FULL)),
            ("terms + top-10 ScoredFact", partial(results, found, ranked)),
            ("whole layer (FrGraph.search tail)", partial(tail, found, policy)),
        ]
        for name, call in cases:
            median, best = time_calls(call, args.calls, args.rounds)
            print(f"{name:<40}{k:>6}{median:>12.1f}{best:>15.1f}{median / k:>10.3f}")


if __name__ == "__main__":
    main()

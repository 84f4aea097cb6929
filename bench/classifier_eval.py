"""Evaluate the offline rules classifier against the hand-labeled set.

    python bench/classifier_eval.py                 # markdown tables, dev and heldout
    python bench/classifier_eval.py --json          # the same numbers as JSON
    python bench/classifier_eval.py --errors dev    # list dev-split misclassifications

Metrics per split (``dev`` is the tuning split; ``heldout`` is written in different phrasing
families and must not be tuned on): category accuracy, macro-F1 over the 11 categories,
Cohen's kappa, per-category precision / recall / F1, marker accuracy, event-time accuracy
(same calendar day in the fact's ``observed_at`` timezone; both-absent counts as correct),
has_number / world_knowledge / instruction_like accuracy, slot-key exact match, and
slot-attribute match (the ``subject|attribute`` part before any ``:instance``).

Pipeline metrics run what ingestion runs: ``extract_facts`` on the text, then
``classify_fact`` on the first extracted (third-person) fact. ``extract_kept`` is the share
of rows that yield at least one fact; ``pipeline_accuracy`` scores the category of that
fact, counting a dropped row as predicted ``other`` (it is never stored as personal memory).
Throughput is facts per second over the whole file, cold (first pass, empty date cache)
and warm.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fr_graph.classify.extract import extract_facts  # noqa: E402
from fr_graph.classify.rules import classify_fact  # noqa: E402
from fr_graph.core.classification import Classification  # noqa: E402
from fr_graph.core.ontology import Category  # noqa: E402

DATA = ROOT / "bench" / "data" / "classifier_eval.jsonl"
SPLITS = ("dev", "heldout")
LABELS = [c.value for c in Category]


def load(path: Path = DATA) -> list[dict[str, Any]]:
    """The labeled rows, in file order."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _gold_day(value: str | None) -> date | None:
    if value is None:
        return None
    return datetime.fromisoformat(value).date() if "T" in value else date.fromisoformat(value)


def _pred_day(pred: Classification, observed_at: datetime) -> date | None:
    if pred.event_time is None:
        return None
    when = pred.event_time
    if when.tzinfo is not None and observed_at.tzinfo is not None:
        when = when.astimezone(observed_at.tzinfo)
    return when.date()


def _iso(day: date | None) -> str | None:
    return None if day is None else day.isoformat()


def _attr(slot: str | None) -> str | None:
    return None if slot is None else slot.split(":", 1)[0]


def prf(gold: Sequence[str], pred: Sequence[str]) -> dict[str, dict[str, float]]:
    """Per-label precision, recall, F1 and support."""
    out: dict[str, dict[str, float]] = {}
    for label in LABELS:
        tp = sum(1 for g, p in zip(gold, pred, strict=True) if g == label and p == label)
        fp = sum(1 for g, p in zip(gold, pred, strict=True) if g != label and p == label)
        fn = sum(1 for g, p in zip(gold, pred, strict=True) if g == label and p != label)
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        out[label] = {"precision": precision, "recall": recall, "f1": f1,
                      "support": float(tp + fn)}
    return out


def cohen_kappa(gold: Sequence[str], pred: Sequence[str]) -> float:
    """Cohen's kappa between two labelings of the same items."""
    n = len(gold)
    if n == 0:
        return 0.0
    observed = sum(1 for g, p in zip(gold, pred, strict=True) if g == p) / n
    g_counts, p_counts = Counter(gold), Counter(pred)
    expected = sum(g_counts[label] * p_counts[label] for label in LABELS) / (n * n)
    return 1.0 if expected == 1.0 else (observed - expected) / (1.0 - expected)


def _score_split(
    rows: list[dict[str, Any]], preds: list[Classification], piped: list[str | None]
) -> dict[str, Any]:
    gold = [r["category"] for r in rows]
    pred = [p.category.value for p in preds]
    n = len(rows)
    per = prf(gold, pred)
    present = [label for label in LABELS if per[label]["support"] > 0]
    macro = sum(per[label]["f1"] for label in present) / len(present) if present else 0.0

    def acc(check: list[bool]) -> float:
        return sum(check) / len(check) if check else 0.0

    obs = [datetime.fromisoformat(r["observed_at"]) for r in rows]
    return {
        "n": n,
        "accuracy": acc([g == p for g, p in zip(gold, pred, strict=True)]),
        "macro_f1": macro,
        "kappa": cohen_kappa(gold, pred),
        "per_category": per,
        "marker_accuracy": acc([r["marker"] == p.marker.value
                                for r, p in zip(rows, preds, strict=True)]),
        "event_time_accuracy": acc([
            _gold_day(r["event_time"]) == _pred_day(p, o)
            for r, p, o in zip(rows, preds, obs, strict=True)
        ]),
        "has_number_accuracy": acc([r["has_number"] == p.has_number
                                    for r, p in zip(rows, preds, strict=True)]),
        "world_knowledge_accuracy": acc([r["world_knowledge"] == p.world_knowledge
                                         for r, p in zip(rows, preds, strict=True)]),
        "instruction_like_accuracy": acc([r["instruction_like"] == p.instruction_like
                                          for r, p in zip(rows, preds, strict=True)]),
        "slot_key_exact": acc([r["slot_key"] == p.slot_key
                               for r, p in zip(rows, preds, strict=True)]),
        "slot_attribute": acc([_attr(r["slot_key"]) == _attr(p.slot_key)
                               for r, p in zip(rows, preds, strict=True)]),
        "extract_kept": acc([p is not None for p in piped]),
        "pipeline_accuracy": acc([r["category"] == (p or "other")
                                  for r, p in zip(rows, piped, strict=True)]),
        "weights_sum_to_1": all(abs(sum(p.weights.values()) - 1.0) < 1e-6 for p in preds),
    }


def evaluate(path: Path = DATA) -> dict[str, Any]:
    """Classify every row and score each split; also measures throughput."""
    rows = load(path)
    started = time.perf_counter()
    preds = [classify_fact(r["text"], datetime.fromisoformat(r["observed_at"])) for r in rows]
    cold = time.perf_counter() - started
    started = time.perf_counter()
    repeats = 3
    for _ in range(repeats):
        for r in rows:
            classify_fact(r["text"], datetime.fromisoformat(r["observed_at"]))
    warm = (time.perf_counter() - started) / repeats
    piped: list[str | None] = []
    for r in rows:
        when = datetime.fromisoformat(r["observed_at"])
        facts = extract_facts(r["text"], when)
        piped.append(classify_fact(facts[0].fact, when).category.value if facts else None)
    report: dict[str, Any] = {"n": len(rows), "splits": {}, "rows": []}
    for split in SPLITS:
        idx = [i for i, r in enumerate(rows) if r.get("split", "dev") == split]
        if idx:
            report["splits"][split] = _score_split(
                [rows[i] for i in idx], [preds[i] for i in idx], [piped[i] for i in idx])
    report["splits"]["all"] = _score_split(rows, preds, piped)
    report["throughput"] = {
        "cold_facts_per_s": len(rows) / cold if cold else float("inf"),
        "warm_facts_per_s": len(rows) / warm if warm else float("inf"),
    }
    for r, p in zip(rows, preds, strict=True):
        report["rows"].append({
            "id": r["id"], "split": r.get("split", "dev"), "text": r["text"],
            "gold": r["category"], "pred": p.category.value,
            "gold_marker": r["marker"], "pred_marker": p.marker.value,
            "gold_event": r["event_time"],
            "pred_event": _iso(_pred_day(p, datetime.fromisoformat(r["observed_at"]))),
            "gold_slot": r["slot_key"], "pred_slot": p.slot_key,
            "gold_number": r["has_number"], "pred_number": p.has_number,
        })
    return report


def markdown(report: dict[str, Any]) -> str:
    """The report as markdown tables."""
    splits = [s for s in (*SPLITS, "all") if s in report["splits"]]
    lines = ["| metric | " + " | ".join(splits) + " |",
             "|---|" + "---:|" * len(splits)]
    metrics = [
        ("n", "{:.0f}"), ("accuracy", "{:.3f}"), ("macro_f1", "{:.3f}"), ("kappa", "{:.3f}"),
        ("marker_accuracy", "{:.3f}"), ("event_time_accuracy", "{:.3f}"),
        ("has_number_accuracy", "{:.3f}"), ("world_knowledge_accuracy", "{:.3f}"),
        ("instruction_like_accuracy", "{:.3f}"), ("slot_key_exact", "{:.3f}"),
        ("slot_attribute", "{:.3f}"), ("extract_kept", "{:.3f}"),
        ("pipeline_accuracy", "{:.3f}"),
    ]
    for name, fmt in metrics:
        lines.append(f"| {name} | " + " | ".join(
            fmt.format(report["splits"][s][name]) for s in splits) + " |")
    lines += ["", "| category | " + " | ".join(f"{s} P / R / F1" for s in splits) + " |",
              "|---|" + "---|" * len(splits)]
    for label in LABELS:
        cells = []
        for s in splits:
            m = report["splits"][s]["per_category"][label]
            cells.append(f"{m['precision']:.2f} / {m['recall']:.2f} / **{m['f1']:.2f}** "
                         f"(n={m['support']:.0f})")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    t = report["throughput"]
    lines += ["", f"Throughput: {t['cold_facts_per_s']:.0f} facts/s cold (first pass), "
                  f"{t['warm_facts_per_s']:.0f} facts/s warm."]
    return "\n".join(lines)


def errors(report: dict[str, Any], split: str) -> str:
    """One line per category, marker or event-time miss in ``split``."""
    out = []
    for row in report["rows"]:
        if row["split"] != split:
            continue
        misses = []
        if row["gold"] != row["pred"]:
            misses.append(f"cat {row['gold']}->{row['pred']}")
        if row["gold_marker"] != row["pred_marker"]:
            misses.append(f"marker {row['gold_marker']}->{row['pred_marker']}")
        if row["gold_event"] != row["pred_event"]:
            misses.append(f"event {row['gold_event']}->{row['pred_event']}")
        if row["gold_number"] != row["pred_number"]:
            misses.append(f"num {row['gold_number']}->{row['pred_number']}")
        if misses:
            out.append(f"{row['id']}: {'; '.join(misses)} :: {row['text']}")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="labeled JSONL file")
    parser.add_argument("--json", action="store_true", help="print JSON instead of markdown")
    parser.add_argument("--errors", choices=SPLITS, help="list the misses of one split")
    args = parser.parse_args(argv)
    report = evaluate(args.data)
    if args.json:
        slim = {k: v for k, v in report.items() if k != "rows"}
        print(json.dumps(slim, indent=2, sort_keys=True))
    else:
        print(markdown(report))
    if args.errors:
        print()
        print(errors(report, args.errors))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

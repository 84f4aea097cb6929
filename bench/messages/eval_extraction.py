"""Offline extraction from chat messages: fact recall and precision against a careful
reader's facts, crashes, silent messages, facts taken from pasted code.

    .venv/bin/python bench/messages/eval_extraction.py [FILE.jsonl ...] [--out FILE.json]

Each record of ``bench/messages/*.jsonl`` (written by hand for this benchmark, see
``README.md`` there) is a user message with the facts a careful reader would keep, each
with 1-3 key phrases copied from the message, and the exact pasted regions (code, logs,
traces, tables, quotes) it contains. An extracted fact *matches* a gold fact when it
contains every key (case-insensitive). Scores:

* recall: gold facts matched by some extracted fact;
* precision: extracted facts that match a gold fact or an ``also_ok`` key list;
* crash: the message record path (``facts_from_message``) raised;
* silent: a message with gold facts that gave no fact at all;
* code facts: extracted facts whose source span overlaps a pasted region.

The extraction runs through ``fr_graph.pipeline.ingest.facts_from_message``, the path an
import takes, so a record that would be invalid counts as a crash.
"""

from __future__ import annotations

import argparse
import json
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from fr_graph.bench.provenance import provenance
from fr_graph.pipeline.ingest import extract_from_message
from fr_graph.pipeline.records import MessageRecord

HERE = Path(__file__).resolve().parent


def load(paths: list[Path]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for path in paths:
        with path.open(encoding="utf-8") as handle:
            records.extend(json.loads(line) for line in handle if line.strip())
    return records


def matches(fact: str, keys: list[str]) -> bool:
    lower = fact.lower()
    return all(key.lower() in lower for key in keys)


def code_spans(record: dict[str, Any]) -> list[tuple[int, int]]:
    spans = []
    for snippet in record.get("code", []):
        start = record["text"].find(snippet)
        if start >= 0:
            spans.append((start, start + len(snippet)))
    return spans


def evaluate(records: list[dict[str, Any]]) -> dict[str, Any]:
    gold_total = gold_hit = extracted_total = extracted_ok = 0
    crashes: list[str] = []
    silent: list[str] = []
    code_facts: list[dict[str, str]] = []
    misses: list[dict[str, str]] = []
    wrong: list[dict[str, str]] = []
    by_domain: dict[str, dict[str, int]] = {}
    seconds = 0.0
    for record in records:
        message = MessageRecord(
            type="message", group_id="bench", role="user", content=record["text"],
            observed_at=datetime.fromisoformat(record["observed_at"].replace("Z", "+00:00")),
            id=record["id"])
        started = time.perf_counter()
        try:
            extraction = extract_from_message(message)
        except Exception as exc:
            crashes.append(f"{record['id']}: {type(exc).__name__}: {str(exc)[:120]}")
            continue
        finally:
            seconds += time.perf_counter() - started
        facts = [(f.record.fact, f.span) for f in extraction.facts]
        gold = record["facts"]
        accepted = [fact["keys"] for fact in gold] + record.get("also_ok", [])
        domain = by_domain.setdefault(record["domain"], {"gold": 0, "hit": 0,
                                                         "extracted": 0, "ok": 0})
        for fact in gold:
            hit = any(matches(text, fact["keys"]) for text, _ in facts)
            gold_hit += hit
            domain["hit"] += hit
            if not hit:
                misses.append({"id": record["id"], "gold": fact["fact"]})
        gold_total += len(gold)
        domain["gold"] += len(gold)
        spans = code_spans(record)
        for text, (start, end) in facts:
            ok = any(matches(text, keys) for keys in accepted)
            extracted_ok += ok
            domain["ok"] += ok
            if not ok:
                wrong.append({"id": record["id"], "fact": text})
            if any(start < c_end and c_start < end for c_start, c_end in spans):
                code_facts.append({"id": record["id"], "fact": text})
        extracted_total += len(facts)
        domain["extracted"] += len(facts)
        if gold and not facts:
            silent.append(record["id"])
    with_gold = sum(1 for r in records if r["facts"])
    return {
        "messages": len(records),
        "characters": sum(len(r["text"]) for r in records),
        "gold_facts": gold_total,
        "extracted_facts": extracted_total,
        "recall": gold_hit / max(gold_total, 1),
        "precision": extracted_ok / max(extracted_total, 1),
        "crash_share": len(crashes) / max(len(records), 1),
        "silent_share": len(silent) / max(with_gold, 1),
        "code_facts": len(code_facts),
        "messages_per_second": len(records) / max(seconds, 1e-9),
        "by_domain": {
            name: {"recall": d["hit"] / max(d["gold"], 1),
                   "precision": d["ok"] / max(d["extracted"], 1), **d}
            for name, d in sorted(by_domain.items())
        },
        "crashes": crashes,
        "silent": silent,
        "code_fact_examples": code_facts,
        "misses": misses,
        "unmatched": wrong,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    files = args.files or sorted(HERE.glob("dev_*.jsonl"))
    result = evaluate(load(files))
    result["files"] = [str(p.relative_to(HERE.parent.parent)) if p.is_absolute() else str(p)
                       for p in (f.resolve() for f in files)]
    result["provenance"] = provenance()
    summary = {k: v for k, v in result.items() if not isinstance(v, list | dict)}
    print(json.dumps(summary, indent=1))
    for name, d in result["by_domain"].items():
        print(f"  {name:12} recall {d['recall']:.2f} precision {d['precision']:.2f} "
              f"({d['gold']} gold, {d['extracted']} extracted)")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()

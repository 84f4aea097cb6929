"""Store-level linking on hand-written timelines: what the linker hides, and what it should.

    .venv/bin/python bench/linking/timelines.py FILE.jsonl [FILE ...] [--out F.json] [--verbose]

Each line of a timeline file is one person's notes in time order, with the links a careful
reader draws between them (``{"persona", "notes": [{"n", "day", "text"}], "links": [{"later",
"earlier", "relation"}]}``; relations ``updates``, ``cancels``, ``completes``, ``retracts``,
``contradicts``, ``restates``). The notes are imported text-only, in order, into a temporary
embedded store, as a user with no metadata would (the rules infer everything and the linker
compares each note with its vector neighbours), and every note's final state is compared
with the reader's:

* ``hidden_right``: hidden (superseded or retracted) and a later note ends it;
* ``hidden_wrong``: hidden while the reader keeps it true, the failure that matters most
  (a true fact no longer answers);
* ``hidden_neutral``: hidden, and the reader only marked it contradicted or restated;
* ``missed``: a later note ends it and it stays visible (a stale hit waiting to happen).

Pair files (``pairs/*.jsonl``) score the verifier on one pair at a time; these score the
whole write path (rules slots, the verifier on real neighbours, the guards) where every
other note of the person is a candidate. ``--verbose`` lists each hidden or missed note with
the links that hid it. ``--bands UPDATES/CANCELS/COMPLETES`` runs with other hard bands than
the shipped verifier's (how the shipped ones were chosen: BENCHMARKS.md); ``--verifier FILE``
scores a candidate model written by ``train_verifier.py --out``; ``--cross-encoder [GRAPH]``
the cross-encoder cascade (``fr_graph.classify.cross_encoder``: the shipped verifier first,
the fine-tuned encoder re-reading the pairs it gives less than the gate of ``unrelated``),
with the shipped graph or one ``crossencoder_onnx.py --ship`` wrote, and ``--cross-bands
U/C/C`` / ``--gate P`` instead of the shipped ones.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from fr_graph.api import FrGraph
from fr_graph.bench.provenance import provenance
from fr_graph.classify.linking import (
    LinkVerifier,
    OfflineVerifier,
    shipped_model,
    verifier_from_json,
)
from fr_graph.config import Settings
from fr_graph.core.linking import Relation
from fr_graph.pipeline.records import FactRecord

HIDDEN = ("superseded", "retracted")
ENDING = ("updates", "cancels", "completes", "retracts")
NEUTRAL = ("contradicts", "restates")
START = datetime(2025, 1, 6, 9, tzinfo=UTC)


def load(paths: list[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            rows.extend(json.loads(line) for line in handle if line.strip())
    return rows


def records(persona: dict[str, Any], group_id: str) -> list[FactRecord]:
    # Notes of one day keep their order: a minute apart.
    return [FactRecord(type="fact", group_id=group_id, id=f"n{note['n']}", fact=note["text"],
                       observed_at=START + timedelta(days=note["day"], minutes=note["n"]))
            for note in persona["notes"]]


def chosen_verifier(model_file: str | None, spec: str | None) -> OfflineVerifier | None:
    """The verifier of ``model_file`` (default: the shipped one), with hard bands
    ``UPDATES/CANCELS/COMPLETES`` when ``spec`` is given (the soft band drops to the lowest of
    them where it was higher); None for the shipped verifier as it is."""
    if model_file is None and spec is None:
        return None
    model = (verifier_from_json(json.loads(Path(model_file).read_text("utf-8")))
             if model_file else shipped_model())
    if spec is None:
        return OfflineVerifier(model)
    return OfflineVerifier(replace(model, bands=model.bands.with_hard_bands(
        *hard_bands(spec, "--bands"))))


def hard_bands(spec: str, option: str) -> tuple[float, float, float]:
    """``UPDATES/CANCELS/COMPLETES`` as three bands; a one-line exit naming ``option``."""
    try:
        updates, cancels, completes = (float(part) for part in spec.split("/"))
    except ValueError as exc:
        raise SystemExit(f"{option}: expected UPDATES/CANCELS/COMPLETES, got {spec!r}") from exc
    return updates, cancels, completes


async def score(personas: list[dict[str, Any]], verbose: bool,
                verifier: LinkVerifier | None = None) -> dict[str, Any]:
    counts: Counter[str] = Counter()
    by_relation: Counter[str] = Counter()
    found_by_relation: Counter[str] = Counter()
    cases: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder:
        async with FrGraph(Settings(db=f"{folder}/db"), verifier=verifier) as fr:
            for persona in personas:
                group_id = f"tl_{persona['persona']}".replace("-", "_")
                await fr.import_records(records(persona, group_id))
                items = {item.source_id: item for item in await fr.show(group_id)}
                text = {f"n{note['n']}": note["text"] for note in persona["notes"]}
                gold: dict[str, str] = {}
                for link in persona["links"]:
                    earlier = f"n{link['earlier']}"
                    # An ending relation wins over a neutral one on the same note.
                    if link["relation"] in ENDING or earlier not in gold:
                        gold[earlier] = link["relation"]
                for note in persona["notes"]:
                    sid = f"n{note['n']}"
                    item = items.get(sid)
                    hidden = item is not None and item.state in HIDDEN
                    relation = gold.get(sid)
                    counts["notes"] += 1
                    if relation in ENDING:
                        by_relation[relation] += 1
                        if hidden:
                            found_by_relation[relation] += 1
                    outcome = ("hidden_right" if hidden and relation in ENDING
                               else "hidden_neutral" if hidden and relation in NEUTRAL
                               else "hidden_wrong" if hidden
                               else "missed" if relation in ENDING else None)
                    if outcome is None:
                        continue
                    counts[outcome] += 1
                    if verbose and item is not None:
                        view = await fr.fact(item.uuid, group_id=group_id)
                        by = [{"fact": link.fact, "reason": link.reason}
                              for link in view.links if link.direction == "superseded_by"]
                        cases.append({"persona": persona["persona"], "note": sid,
                                      "outcome": outcome, "text": text[sid],
                                      "gold": relation, "state": item.state,
                                      "category": item.category, "slot": item.slot_key,
                                      "by": by})
    right, wrong = counts["hidden_right"], counts["hidden_wrong"]
    ending = sum(by_relation.values())
    summary: dict[str, Any] = {
        **{k: counts[k] for k in ("notes", "hidden_right", "hidden_wrong", "hidden_neutral",
                                  "missed")},
        "gold_ended": ending,
        "hide_precision": round(right / (right + wrong), 3) if right + wrong else None,
        "ended_recall": round(right / ending, 3) if ending else None,
        "recall_by_relation": {r: f"{found_by_relation[r]}/{by_relation[r]}"
                               for r in ENDING if by_relation[r]},
    }
    if verbose:
        summary["cases"] = cases
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--out", help="write the result (with provenance) here")
    parser.add_argument("--verbose", action="store_true",
                        help="list every wrongly hidden and missed note with its link")
    parser.add_argument("--bands", help="hard bands UPDATES/CANCELS/COMPLETES for this run")
    parser.add_argument("--verifier", help="a candidate verifier file (train_verifier.py --out) "
                        "instead of the shipped one")
    parser.add_argument("--cross-encoder", nargs="?", const="shipped", metavar="GRAPH",
                        help="the cross-encoder cascade (fr_graph.classify.cross_encoder) as "
                        "the verifier: the shipped graph, or GRAPH written by "
                        "crossencoder_onnx.py --ship (give its --cross-bands)")
    parser.add_argument("--cross-bands",
                        help="with --cross-encoder: its hard bands UPDATES/CANCELS/COMPLETES "
                        "(default: the shipped ones)")
    parser.add_argument("--gate", type=float,
                        help="with --cross-encoder: read again only the pairs the shipped "
                        "verifier gives less than this of unrelated (default: the shipped "
                        "gate; 1: every pair)")
    args = parser.parse_args()
    verifier: LinkVerifier | None = chosen_verifier(args.verifier, args.bands)
    cross = None
    if args.cross_encoder:
        from fr_graph.classify.cross_encoder import CrossEncoder, CrossEncoderVerifier

        graph = None if args.cross_encoder == "shipped" else Path(args.cross_encoder)
        bands = (None if args.cross_bands is None else dict(zip(
            (Relation.UPDATES, Relation.CANCELS, Relation.COMPLETES),
            hard_bands(args.cross_bands, "--cross-bands"), strict=True)))
        verifier = cross = CrossEncoderVerifier(CrossEncoder(graph), gate=args.gate,
                                                hard_by_relation=bands)
    started = time.perf_counter()
    result = asyncio.run(score(load(args.files), args.verbose, verifier))
    result["wall_s"] = round(time.perf_counter() - started, 1)
    if cross is not None:
        result.update({"cross_encoder": args.cross_encoder, "gate": cross.gate,
                       "cross_bands": "/".join(str(cross.bands.hard_for(r)) for r in (
                           Relation.UPDATES, Relation.CANCELS, Relation.COMPLETES)),
                       "pairs_judged": cross.pairs_seen,
                       "pairs_read_by_cross_encoder": cross.pairs_read})
    if args.bands:
        result["bands"] = args.bands
    if args.verifier:
        result["verifier"] = args.verifier
    result["files"] = [Path(f).name for f in args.files]
    cases = result.pop("cases", [])
    print(json.dumps(result))
    for case in cases:
        print(json.dumps(case))
    if args.out:
        result["provenance"] = provenance()
        with open(args.out, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=1)
            handle.write("\n")


if __name__ == "__main__":
    main()

"""What linking costs per imported fact, embedding excluded, side by side with no linking.

    .venv/bin/python bench/linking/link_cost.py [--db DIR_OR_BOLT_URI] [--facts 2000] [--rounds 2]
        [--cross-encoder]

Facts are the texts of the hand-written training pairs that carry dates
(``bench/linking/pairs/train_*.jsonl``), each at its own date, so a group holds real
neighbours (updates, cancellations, hard negatives). Each round imports them into fresh
groups once per arm, rotating the arms' order: ``linked`` (no slot given: the linker
judges every fact's neighbours) and ``unlinked`` (``"slot_key": null`` given: no linking);
``--cross-encoder`` adds ``cross``, linked with the cross-encoder cascade
(``link_verifier = "cross-encoder"``). Reported per fact: the store time (Graphiti's save,
overlay, transitions and mirror; the linker's candidate query, verdicts and decisions
included for the linked arms), the linker's own share, and the embedding time (excluded
from the comparison). Default store: embedded FalkorDB in a temporary folder.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from fr_graph.api import FrGraph
from fr_graph.config import Settings
from fr_graph.pipeline.records import FactRecord

sys.path.insert(0, str(Path(__file__).parent))
from train_verifier import load_pairs


def facts(limit: int) -> list[dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for row in load_pairs("bench/linking/pairs/train_*.jsonl"):
        if "older_at" not in row:  # pairs derived from the timelines carry no dates
            continue
        for side in ("older", "newer"):
            text = row[side]
            out.setdefault(text, {"fact": text, "observed_at": row[f"{side}_at"] + "T12:00:00Z",
                                  "id": f"{row['id']}-{side}"})
    ordered = sorted(out.values(), key=lambda f: (f["observed_at"], f["id"]))
    return ordered[:limit]


ARMS = ("linked", "unlinked", "cross")


async def arm(fr: FrGraph, rows: list[dict[str, Any]], name: str) -> dict[str, Any]:
    group = f"cost_{name}_{uuid.uuid4().hex[:8]}"
    extra: dict[str, Any] = {"slot_key": None} if name == "unlinked" else {}
    fr.settings = fr.settings.model_copy(
        update={"link_verifier": "cross-encoder" if name == "cross" else "offline"})
    records = [FactRecord.model_validate({"type": "fact", "group_id": group, **r, **extra})
               for r in rows]
    report = await fr.import_records(records)
    n = max(report.imported, 1)
    return {"arm": name, "facts": report.imported,
            "store_ms_per_fact": 1000 * report.store_seconds / n,
            "link_ms_per_fact": 1000 * report.link_seconds / n,
            "embed_ms_per_fact": 1000 * report.embed_seconds / n,
            "pairs_judged": report.link_pairs,
            "transitions": dict(report.transitions)}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=None)
    parser.add_argument("--facts", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--cross-encoder", action="store_true",
                        help="add the arm linked by the cross-encoder cascade")
    args = parser.parse_args()
    rows = facts(args.facts)
    db = args.db or str(Path(tempfile.mkdtemp(prefix="fr-link-cost-")) / "store")
    names = ARMS if args.cross_encoder else ARMS[:2]
    results: list[dict[str, Any]] = []
    async with FrGraph(Settings(db=db)) as fr:
        fr.embedder.cache_passages()
        for index in range(args.rounds):
            # Rotate the order, so no arm always runs first (a cold store) or last.
            for name in names[index % len(names):] + names[:index % len(names)]:
                result = await arm(fr, rows, name)
                result["round"] = index
                results.append(result)
                print(json.dumps(result), flush=True)
    for name in names:
        mine = [r for r in results if r["arm"] == name]
        store = sorted(r["store_ms_per_fact"] for r in mine)[len(mine) // 2]
        print(f"{name:9s} store {store:.2f} ms/fact (median of {len(mine)} rounds), linker "
              f"{sorted(r['link_ms_per_fact'] for r in mine)[len(mine) // 2]:.2f} ms/fact")
    print(f"date {datetime.now().isoformat(timespec='seconds')}, store {db}")


if __name__ == "__main__":
    asyncio.run(main())

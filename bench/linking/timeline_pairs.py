"""Training pairs from timelines: each note against the neighbours the linker would judge.

    .venv/bin/python bench/linking/timeline_pairs.py TIMELINE.jsonl [...] --out PAIRS.jsonl

Hand-written pair files hold a pair and its look-alikes; in a store, a new fact meets every
fact of the person that is near it in meaning, and most of those are unrelated. Pairs drawn
the way the linker draws them (each note's nearest notes of the same person, at most
``LINK_NEIGHBOURS``, cosine at least ``LINK_MIN_COSINE``) teach the verifier, and calibrate
its bands on, the negatives it really meets. Labels come from the timeline's links:

* a linked pair takes the link's relation (``retracts`` -> ``cancels``: both retract the
  earlier fact; ``restates`` pairs are left out, the verifier has no such class);
* a pair whose earlier note a link had already ended, by the time of the later note, is left
  out (whatever the verifier says, that note is over; a chain is drawn link by link);
* every other pair is ``unrelated``.

Each row's ``group`` is its person, so cross-validation never splits one person's notes.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
from timelines import ENDING  # this script's folder: the store-level scorer's relations

from fr_graph.clients import LocalEmbedder
from fr_graph.pipeline.lifecycle import LINK_MIN_COSINE, LINK_NEIGHBOURS

RELABEL = {"retracts": "cancels"}


def persona_pairs(persona: dict[str, Any], vectors: np.ndarray) -> list[dict[str, Any]]:
    notes = persona["notes"]
    links = {(link["earlier"], link["later"]): link["relation"] for link in persona["links"]}
    ended_at: dict[int, int] = {}
    for (earlier, later), relation in links.items():
        if relation in ENDING:
            ended_at[earlier] = min(later, ended_at.get(earlier, later))
    similarity = vectors @ vectors.T
    np.fill_diagonal(similarity, -1.0)
    chosen: set[tuple[int, int]] = set()
    for i in range(len(notes)):
        order = np.argsort(-similarity[i])[:LINK_NEIGHBOURS]
        for j in order:
            if similarity[i, j] >= LINK_MIN_COSINE:
                chosen.add((min(i, int(j)), max(i, int(j))))
    chosen |= {(old - 1, new - 1) for old, new in links}  # missed neighbours still teach
    rows = []
    for i, j in sorted(chosen):
        earlier, later = notes[i]["n"], notes[j]["n"]
        relation = links.get((earlier, later))
        if relation == "restates":
            continue
        if relation is None:
            if earlier in ended_at and ended_at[earlier] <= later:
                continue
            relation = "unrelated"
        rows.append({"id": f"tl-{persona['persona']}-{earlier}-{later}",
                     "category": "timeline", "group": f"tl-{persona['persona']}",
                     "older": notes[i]["text"], "newer": notes[j]["text"],
                     "relation": RELABEL.get(relation, relation)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("timelines", nargs="+")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    embedder = LocalEmbedder()
    rows: list[dict[str, Any]] = []
    for path in args.timelines:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    persona = json.loads(line)
                    texts = [note["text"] for note in persona["notes"]]
                    rows.extend(persona_pairs(
                        persona, embedder.embed_passages(texts).astype(np.float64)))
    with open(args.out, "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    counts: dict[str, int] = {}
    for row in rows:
        counts[row["relation"]] = counts.get(row["relation"], 0) + 1
    print(f"{len(rows)} pairs from {len(args.timelines)} files: {counts} -> {Path(args.out)}")


if __name__ == "__main__":
    main()

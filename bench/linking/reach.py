"""Where the write path loses ended notes: before the verifier, or at it?

    .venv/bin/python bench/linking/reach.py TIMELINE.jsonl [...] --verbose-runs OUT.txt [...]

For every link of the timelines that ends a note (``updates``, ``cancels``, ``completes``,
``retracts``), whether the later note would have the earlier one among its linker
candidates: among the ``LINK_NEIGHBOURS`` nearest notes written before it (e5 passage
cosine) and at ``LINK_MIN_COSINE`` or above. Counted by the earlier note's outcome in
``timelines.py --verbose`` runs of the same files (``hidden_right`` or ``missed``). A missed
link whose earlier note was a candidate was lost at the verifier (or a guard after it); one
that was not never reached it. Notes imported in one batch also meet each other, so this
reads the candidates as a one-note-at-a-time import would.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np
from timelines import ENDING, load  # this script's folder: the store-level scorer

from fr_graph.clients import LocalEmbedder
from fr_graph.pipeline.lifecycle import LINK_MIN_COSINE, LINK_NEIGHBOURS


def outcomes(paths: list[str]) -> dict[tuple[str, str], str]:
    found = {}
    for path in paths:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            note = json.loads(line)
            if "outcome" in note:
                found[(note["persona"], note["note"])] = note["outcome"]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--verbose-runs", nargs="+", required=True,
                        help="timelines.py --verbose outputs of the same files")
    args = parser.parse_args()
    outcome = outcomes(args.verbose_runs)
    embedder = LocalEmbedder()
    counts: Counter[tuple[str, str]] = Counter()
    for person in load(args.files):
        position = {note["n"]: i for i, note in enumerate(person["notes"])}
        vectors = embedder.embed_passages([note["text"] for note in person["notes"]])
        for link in person["links"]:
            state = outcome.get((person["persona"], f"n{link['earlier']}"))
            if link["relation"] not in ENDING or state not in ("hidden_right", "missed"):
                continue
            later, earlier = position[link["later"]], position[link["earlier"]]
            cosine = vectors[:later] @ vectors[later]
            nearest = np.argsort(-cosine, kind="stable")[:LINK_NEIGHBOURS]
            if cosine[earlier] < LINK_MIN_COSINE:
                reach = "below the cosine floor"
            elif earlier not in nearest:
                reach = f"not among the {LINK_NEIGHBOURS} nearest"
            else:
                reach = "a candidate"
            counts[(state, reach)] += 1
    print(json.dumps({f"{state}: {reach}": n for (state, reach), n in sorted(counts.items())},
                     indent=1))


if __name__ == "__main__":
    main()

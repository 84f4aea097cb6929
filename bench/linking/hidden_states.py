"""What the linker hides on LifecycleBench with inferred metadata, against gold's final state.

    .venv/bin/python bench/linking/hidden_states.py [--personas 10]

Imports each persona's facts text-only (as ``full@inferred`` does, all at once, in time
order) into a temporary embedded store and counts, per fact, the linker's final state
against the generator's: hidden (superseded or retracted) and gold agrees, hidden while gold
keeps it active, and gold-hidden facts left visible. LifecycleBench's own scores only see
the facts its questions ask about; this counts every fact, small talk included.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from collections import Counter

from fr_graph.api import FrGraph
from fr_graph.bench.runner import load_suite
from fr_graph.config import Settings
from fr_graph.pipeline.records import FactRecord

HIDDEN = ("superseded", "retracted")


async def count(personas: int) -> dict[str, int]:
    suite = load_suite(0, "full")
    counts: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as folder:
        async with FrGraph(Settings(db=f"{folder}/db")) as fr:
            for persona in suite.personas[:personas]:
                group_id = f"hidden{persona.id}"
                facts = sorted(persona.facts, key=lambda f: (f.observed_at, f.id))
                await fr.import_records([FactRecord.model_validate(
                    f.to_record(group_id, gold=False)) for f in facts])
                state = {item.source_id: item.state for item in await fr.show(group_id)}
                for fact in facts:
                    gold = fact.states[-1][1].value
                    if state.get(fact.id) in HIDDEN:
                        counts["hidden_right" if gold in HIDDEN else f"hidden_gold_{gold}"] += 1
                    elif gold in HIDDEN:
                        counts["visible_gold_hidden"] += 1
    return dict(sorted(counts.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--personas", type=int, default=10)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(count(args.personas))))


if __name__ == "__main__":
    main()

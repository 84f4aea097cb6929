"""What mending FalkorDB's reloaded fact index costs, for groups of several sizes: the probe
and the rebuild timed alone, then, after another reopen, the group's first search with
Graphiti's own search (``policy="off"``: it waits for the mend) next to a second one.
fr-graph's own searches do not wait for the mend. Query embedding is included (distinct
texts).

    .venv/bin/python bench/reopen_mend.py --sizes 1000 5000 20000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from store_bench import machine, make_facts

from fr_graph.api import FrGraph
from fr_graph.config import Settings


async def one_size(facts: int) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="reopen-"))
    settings = Settings(db=str(folder / "store"))
    group = f"reopen-{facts}"
    data = folder / "facts.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in make_facts(group, facts, seed=0)))
    async with FrGraph(settings) as fr:
        await fr.import_file(data)
    async with FrGraph(settings) as fr:
        store: Any = fr.store
        store._checked_fact_index.add(group)  # look at the index as FalkorDB loaded it
        started = time.perf_counter()
        broken = await store.fact_index_broken(group)
        probe = time.perf_counter() - started
        started = time.perf_counter()
        await store.rebuild_fact_index(group)
        rebuild = time.perf_counter() - started
    async with FrGraph(settings) as fr:
        started = time.perf_counter()
        await fr.search("what am I allergic to", group, limit=10, policy="off")
        first = time.perf_counter() - started
        started = time.perf_counter()
        await fr.search("what instrument am I learning", group, limit=10, policy="off")
        second = time.perf_counter() - started
    return {"facts": facts, "index_was_broken": broken, "probe_ms": round(probe * 1000, 1),
            "rebuild_ms": round(rebuild * 1000, 1),
            "first_off_search_ms": round(first * 1000, 1),
            "second_off_search_ms": round(second * 1000, 1)}


async def run(sizes: list[int]) -> dict[str, Any]:
    return {"machine": machine(), "sizes": [await one_size(n) for n in sizes]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000])
    print(json.dumps(asyncio.run(run(parser.parse_args().sizes)), indent=2))


if __name__ == "__main__":
    main()

"""Whether the linker's neighbours from Neo4j 2026's group-filtered vector index are the
exact scan's, on real e5 vectors.

    python bench/link_index_recall.py build --db bolt://127.0.0.1:PORT --group e5-30k --facts 30000
    python bench/link_index_recall.py measure --db bolt://127.0.0.1:PORT --group e5-30k

``build`` writes one group of ``--facts`` facts with the bundled e5 engine's vectors: every
hand-written note of ``bench/linking/timelines/`` first (9,410 of them), then
``bench/store_bench.py``'s generated personal facts, each an annotated fact (an ``FrFact``)
as the linker sees it. ``measure`` takes 250 of the hand-written notes as a batch of new
facts and asks the store's ``link_candidates`` for each one's 8 neighbours twice: from the
index (the path taken past ``LINK_INDEX_MIN_FACTS``) and from the exact scan of the group;
it prints how many of the exact pairs the index path found, with no cosine floor and at the
linker's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from store_bench import machine, make_facts

from fr_graph.api import FrGraph
from fr_graph.clients import LocalEmbedder
from fr_graph.config import Settings
from fr_graph.pipeline.lifecycle import LINK_MIN_COSINE, LINK_NEIGHBOURS
from fr_graph.stores import neo4j as neo4j_store

TIMELINES = Path(__file__).resolve().parent / "linking" / "timelines"
WRITE = """
MERGE (s:Entity {uuid: $group + '-s'}) SET s.group_id = $group, s.name = 'user'
MERGE (t:Entity {uuid: $group + '-t'}) SET t.group_id = $group, t.name = 'thing'
WITH s, t
UNWIND $edges AS edge
CREATE (s)-[r:RELATES_TO {uuid: edge.uuid, group_id: $group, name: 'STATES', fact: edge.fact,
                          valid_at: edge.at}]->(t)
CREATE (:FrFact {edge_uuid: edge.uuid, group_id: $group, category: 'other', state: 'active',
                 observed_at: edge.at})
WITH r, edge
CALL db.create.setRelationshipVectorProperty(r, 'fact_embedding', edge.vector)
RETURN count(*) AS written
"""
PROBES = range(0, 9000, 36)  # 250 hand-written notes, spread over the timelines


def edge_uuid(group: str, index: int) -> str:
    return f"{group}-{index:06d}"


def texts(total: int) -> list[str]:
    notes = [note["text"] for path in sorted(TIMELINES.glob("*.jsonl"))
             for line in path.read_text(encoding="utf-8").splitlines()
             for note in json.loads(line)["notes"]]
    generated = [str(raw["fact"]) for raw in make_facts("g", total * 2, 3)]
    return list(dict.fromkeys(notes + generated))[:total]


async def build(db: str, group: str, total: int) -> dict[str, Any]:
    chosen = texts(total)
    started = time.perf_counter()
    embedder = LocalEmbedder()
    vectors = np.vstack([embedder.embed_passages(chosen[i:i + 256])
                         for i in range(0, len(chosen), 256)])
    embed_s = time.perf_counter() - started
    async with FrGraph(Settings(db=db)) as fr:
        await fr.store.ensure_schema(group)
        for start in range(0, len(chosen), 2000):
            edges = [{"uuid": edge_uuid(group, i), "fact": chosen[i],
                      "vector": vectors[i].tolist(), "at": f"2025-01-01T00:00:{i % 60:02d}Z"}
                     for i in range(start, min(start + 2000, len(chosen)))]
            await fr.store.run_text("write", WRITE, group, group=group, edges=edges)
    return {"group": group, "facts": len(chosen), "embed_s": round(embed_s, 1)}


async def measure(db: str, group: str) -> dict[str, Any]:
    probes = [edge_uuid(group, i) for i in PROBES]
    result: dict[str, Any] = {"group": group, "probes": len(probes), "k": LINK_NEIGHBOURS}
    shipped = neo4j_store.LINK_INDEX_MIN_FACTS
    async with FrGraph(Settings(db=db)) as fr:
        for label, floor in (("no_floor", -1.0), ("shipped_floor", LINK_MIN_COSINE)):
            found: dict[str, set[tuple[str, str]]] = {}
            for path, min_facts in (("index", -1), ("exact", sys.maxsize)):
                neo4j_store.LINK_INDEX_MIN_FACTS = min_facts
                try:
                    hits = await fr.store.link_candidates(group, probes, LINK_NEIGHBOURS, floor)
                finally:
                    neo4j_store.LINK_INDEX_MIN_FACTS = shipped
                found[path] = {(hit["probe"], hit["uuid"]) for hit in hits}
            shared = len(found["index"] & found["exact"])
            result[label] = {"exact_pairs": len(found["exact"]),
                             "index_pairs": len(found["index"]), "shared": shared,
                             "recall": round(shared / max(1, len(found["exact"])), 4)}
    result["machine"] = machine()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("build", "measure"):
        command = commands.add_parser(name)
        command.add_argument("--db", required=True, help="bolt://host:port of a Neo4j 2026")
        command.add_argument("--group", required=True)
        if name == "build":
            command.add_argument("--facts", type=int, default=30_000)
    args = parser.parse_args()
    if args.command == "build":
        print(json.dumps(asyncio.run(build(args.db, args.group, args.facts))))
    else:
        print(json.dumps(asyncio.run(measure(args.db, args.group))))


if __name__ == "__main__":
    main()

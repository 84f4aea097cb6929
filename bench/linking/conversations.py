"""Long single-project conversations: does lifecycle cost current-answer recall?

    .venv/bin/python bench/linking/conversations.py [--db DIR] [--out FILE.json]
        [--verifier FILE] [--bands UPDATES/CANCELS/COMPLETES] [--link-verifier cross-encoder]

Imports every ``bench/linking/conversations/conv_*.jsonl`` (user messages of one evolving
project each, written for this benchmark) as message records through ``FrGraph.import_file``
on the offline default (the rules extractor turns messages into facts; no LLM), then asks
``questions.jsonl`` at each question's ``now`` and scores, next to Graphiti's own hybrid
search (``search_`` with ``EDGE_HYBRID_SEARCH_RRF``, given the same e5 query vector fr-graph
uses) on the same graph in the same process:

* current-answer recall@10: every message named in ``current`` has a fact in the top 10;
* stale@5 (questions with a ``stale`` message): a fact of a stale message in the top 5;
* clean: recall@10 and not stale@5.

Group ids are used with ``-`` replaced by ``_``: Graphiti's FalkorDB fulltext filter matches
nothing for a group id with ``-`` (see the drop-in issue), which would leave its hybrid
search on cosine alone.

Messages whose facts the extractor never produced count against both systems alike (the
report says how many). ``--verifier`` and ``--bands`` run a candidate verifier as
``timelines.py`` does; the result lists, per question, whether each system found the
current answer and was stale (``per_question``), so two runs can be diffed. The same script
runs against another checkout's library with ``PYTHONPATH=that/checkout`` (the before/after
comparison in BENCHMARKS).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

from timelines import chosen_verifier  # this script's folder

from fr_graph._graphiti import EDGE_HYBRID_SEARCH_RRF
from fr_graph.api import FrGraph
from fr_graph.bench.provenance import provenance
from fr_graph.config import Settings

DATA = Path(__file__).resolve().parent / "conversations"


def safe_group(group_id: str) -> str:
    return group_id.replace("-", "_")


def message_of(source_id: str | None) -> str | None:
    """The message id a fact came from (``<message id>#<part>``)."""
    return source_id.split("#", 1)[0] if source_id else None


async def graphiti_top(fr: FrGraph, query: str, group: str, limit: int) -> list[str | None]:
    recipe = EDGE_HYBRID_SEARCH_RRF.model_copy(deep=True)
    recipe.limit = limit
    found = await fr.graphiti(group).search_(
        query, config=recipe, group_ids=[group],
        query_vector=fr.embedder.embed_query(query).tolist())
    uuids = [e.uuid for e in found.edges]
    rows = await fr.store.run_text(
        "bench_sources", "MATCH (f:FrFact) WHERE f.edge_uuid IN $uuids "
        "RETURN f.edge_uuid AS uuid, f.source_id AS source_id", group, uuids=uuids)
    source = {r["uuid"]: r["source_id"] for r in rows}
    return [message_of(source.get(u)) for u in uuids]


def judged(q: dict[str, Any], top: list[str | None]) -> tuple[bool, bool]:
    """(every current message in the top 10, a stale message in the top 5)."""
    return (all(m in top[:10] for m in q["current"]),
            bool(q["stale"]) and any(m in top[:5] for m in q["stale"]))


def score(questions: list[dict[str, Any]], tops: dict[str, list[str | None]]
          ) -> dict[str, Any]:
    recall = stale = clean = with_stale = 0
    by_kind: Counter[str] = Counter()
    hits_by_kind: Counter[str] = Counter()
    for q in questions:
        found, is_stale = judged(q, tops[q["id"]])
        recall += found
        stale += is_stale
        with_stale += bool(q["stale"])
        clean += found and not is_stale
        by_kind[q["kind"]] += 1
        hits_by_kind[q["kind"]] += found
    n = len(questions)
    return {"questions": n, "current_recall_at_10": recall / n,
            "stale_at_5": stale / max(with_stale, 1), "clean": clean / n,
            "recall_by_kind": {k: hits_by_kind[k] / v for k, v in sorted(by_kind.items())}}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default=None)
    parser.add_argument("--out", default=None)
    parser.add_argument("--bands", help="hard bands UPDATES/CANCELS/COMPLETES for this run")
    parser.add_argument("--verifier", help="a candidate verifier file (train_verifier.py --out) "
                        "instead of the shipped one")
    parser.add_argument("--link-verifier", choices=("offline", "cross-encoder"),
                        default="offline", help="the Settings.link_verifier to run with")
    args = parser.parse_args()
    verifier = chosen_verifier(args.verifier, args.bands)
    questions = [json.loads(line) for line in (DATA / "questions.jsonl").open(encoding="utf-8")
                 if line.strip()]
    for q in questions:
        q["group_id"] = safe_group(q["group_id"])
    work = Path(tempfile.mkdtemp(prefix="fr-conv-"))
    db = args.db or str(work / "store")
    tops: dict[str, dict[str, list[str | None]]] = {"full": {}, "graphiti": {}}
    extracted: set[str] = set()
    messages = 0
    async with FrGraph(Settings(db=db, link_verifier=args.link_verifier),
                       verifier=verifier) as fr:
        for path in sorted(DATA.glob("conv_*.jsonl")):
            records = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
            for record in records:
                record["group_id"] = safe_group(record["group_id"])
            copy = work / path.name
            copy.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
            report = await fr.import_file(copy)
            messages += report.messages
            if report.rejected:
                print(f"{path.name}: rejected {report.rejected[:3]}")
        for q in questions:
            now = datetime.fromisoformat(q["now"].replace("Z", "+00:00"))
            found = await fr.search(q["query"], q["group_id"], now=now, limit=10)
            tops["full"][q["id"]] = [message_of(r.source_id) for r in found]
            tops["graphiti"][q["id"]] = await graphiti_top(fr, q["query"], q["group_id"], 10)
        for group in sorted({q["group_id"] for q in questions}):
            rows = await fr.store.run_text(
                "bench_all_sources", "MATCH (f:FrFact {group_id: $g}) RETURN f.source_id AS s",
                group, g=group)
            extracted.update(m for r in rows if (m := message_of(r["s"])))
    needed = {m for q in questions for m in q["current"]}
    result = {
        "provenance": provenance(), "messages": messages,
        "questions": len(questions),
        "current_messages_without_fact": len(needed - extracted),
        "current_messages": len(needed),
        "systems": {name: score(questions, found) for name, found in tops.items()},
        "verifier": args.verifier, "bands": args.bands, "link_verifier": args.link_verifier,
        "per_question": {q["id"]: {name: dict(zip(("found", "stale"), judged(q, found[q["id"]]),
                                                  strict=True))
                                   for name, found in tops.items()} for q in questions},
    }
    print(json.dumps({k: v for k, v in result.items() if k != "per_question"}, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(main())

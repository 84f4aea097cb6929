"""Pinned rankings of the in-process search layer over the LifecycleBench question set.

Two halves:

* :func:`build_inputs` (run once, by ``python -m tests.search_golden``) turns the generated
  quick suite (seed 0: three personas, every question) into frozen candidate inputs: per
  persona and metadata source (``gold``: the generator's metadata; ``inferred``: the offline
  rules classifier's), the ``fetch_facts`` rows of its facts (overlay made by the
  importer's own ``overlay_for``), and per question the facts visible at its query time
  with their state then, their e5 cosine to the question, a keyword score and the rows the
  store's category-forced query would return. Inputs are frozen so the golden rankings do
  not move when the classifier, the generator or the embedder change: only the search
  layer (query analysis, candidate merging, ``build_batch``, ``rerank``, result building)
  is under test.
* :func:`rank_question` runs one question through :func:`search_facts` (with a fake store
  and embedder that answer from the frozen inputs), :func:`context_block` and every arm and
  ablation the benchmark ranks with, and returns what is pinned: the top-10 fact ids with
  their scores, the hidden-state counts, the history, the first results' JSON and a digest
  of the context block.

``tests/data/search_golden.json`` holds both inputs and expected outputs; regenerate it
(only when a ranking change is intended) with::

    .venv/bin/python -m tests.search_golden
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import numpy as np

from fr_graph.clients import LocalEmbedder
from fr_graph.core.intent import analyze_query
from fr_graph.core.policy import PolicyTable
from fr_graph.core.rerank import ABLATIONS
from fr_graph.pipeline.search import (
    Candidates,
    context_block,
    gather_candidates,
    rank,
    search_facts,
)
from fr_graph.stores.base import GraphStore

GOLDEN = Path(__file__).resolve().parent / "data" / "search_golden.json"
SEED = 0
SIZE = "quick"
LIMIT = 10
SHOWN = 2  # results whose whole JSON is pinned
_WORD = re.compile(r"[a-z0-9]+")


# -- replay (what the test runs) ----------------------------------------------------------


def _rows_at(group: dict[str, Any], question: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The visible facts' ``fetch_facts`` rows at the question's time (fresh copies)."""
    out: dict[str, dict[str, Any]] = {}
    for index, cosine in enumerate(question["cosine"]):  # the visible facts: a prefix
        base = group["facts"][index]
        uuid = base["uuid"]
        row = {**base, "semantic": cosine}
        if isinstance(row["valid_at"], str) and base.get("valid_at_datetime"):
            row["valid_at"] = datetime.fromisoformat(row["valid_at"])
        row.pop("valid_at_datetime", None)
        overlay = base["overlay"]
        if overlay is not None:
            overlay = dict(overlay)
            changed = question["states"].get(str(index))
            if changed is not None:
                overlay["state"], overlay["valid_to"] = changed
            row["overlay"] = overlay
        out[uuid] = row
    return out


class FakeStore:
    """Answers ``gather_candidates``' four queries from one question's frozen inputs."""

    def __init__(self, group: dict[str, Any], question: dict[str, Any]) -> None:
        self.rows = _rows_at(group, question)
        self.by_index = [fact["uuid"] for fact in group["facts"]]
        self.question = question

    async def vector_candidate_rows(self, group_id: str, embedding: list[float],
                                    limit: int) -> list[dict[str, Any]]:
        ranked = sorted(self.rows.values(), key=lambda r: (-r["semantic"], r["uuid"]))
        return [{**r, "score": r["semantic"]} for r in ranked[:limit]]

    async def fulltext_candidates(self, group_id: str, text: str,
                                  limit: int) -> list[tuple[str, float]]:
        facts = self.question["fulltext"]
        return [(self.by_index[i], score) for i, score in facts][:limit]

    async def run(self, name: str, group: str, /, **params: Any) -> list[dict[str, Any]]:
        if name == "forced_candidates":
            wanted = set(params["categories"])
            hits = [r for r in self.rows.values() if r["overlay"] is not None
                    and r["overlay"]["category"] in wanted]
            hits.sort(key=lambda r: (r["overlay"]["observed_at"], r["uuid"]), reverse=True)
            return [{"uuid": r["uuid"]} for r in hits[:params["limit"]]]
        if name == "fetch_facts":
            return [self.rows[u] for u in params["edge_uuids"] if u in self.rows]
        raise AssertionError(f"unexpected query {name}")


class FakeEmbedder:
    def embed_query(self, text: str) -> np.ndarray:
        return np.zeros(1)


def _ids_scores(hits: list[Any], fact_id: dict[str, str]) -> list[list[Any]]:
    return [[fact_id[hit.uuid], hit.score] for hit in hits]


async def rank_question(group: dict[str, Any], question: dict[str, Any],
                        policy: PolicyTable) -> dict[str, Any]:
    """What is pinned for one question (see the module docstring)."""
    now = datetime.fromisoformat(question["now"])
    fact_id = {row["uuid"]: i for row, i in zip(group["facts"], group["ids"], strict=True)}
    text, group_id = question["text"], question["group"]
    store = cast(GraphStore, FakeStore(group, question))
    embedder = cast(LocalEmbedder, FakeEmbedder())
    report = await search_facts(store, embedder, policy, text, group_id, now=now,
                                limit=LIMIT, config=ABLATIONS["full"], include_history=True)
    out: dict[str, Any] = {
        "hits": _ids_scores(report.hits, fact_id),
        "hidden": dict(sorted(report.hidden.items())),
        "history": _ids_scores(report.history, fact_id),
        "shown": [hit.to_json() for hit in report.hits[:SHOWN]],
    }
    context = await context_block(store, embedder, policy, text, group_id, now=now,
                                  limit=LIMIT, config=ABLATIONS["full"])
    out["context_sha256"] = hashlib.sha256(context.encode()).hexdigest()
    analysis = analyze_query(text, now)
    arms: dict[str, list[list[Any]]] = {}
    routed = await gather_candidates(store, embedder, group_id, text, analysis)
    unrouted = await gather_candidates(store, embedder, group_id, text, None)
    for name, config in ABLATIONS.items():
        found: Candidates = unrouted if name == "no_routing" else routed
        if not found.rows:
            arms[name] = []
            continue
        ranked = rank(found, analysis, policy, now, config)
        arms[name] = [[fact_id[found.rows[i]["uuid"]], float(ranked.scores[i])]
                      for i in ranked.order[:LIMIT]]
    out["arms"] = arms
    return out


async def rank_all(fixture: dict[str, Any]) -> dict[str, dict[str, Any]]:
    policy = PolicyTable.default()
    return {q["key"]: await rank_question(fixture["groups"][q["group"]], q, policy)
            for q in fixture["questions"]}


# -- the frozen inputs (what the generator script builds) ---------------------------------


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _keyword_scores(query: str, texts: list[str]) -> list[tuple[int, float]]:
    """A BM25-like stand-in for the fulltext index: idf-weighted shared words, top 20."""
    words = set(_WORD.findall(query.lower()))
    docs = dict(enumerate(set(_WORD.findall(t.lower())) for t in texts))
    n = len(docs)
    frequency = Counter(w for d in docs.values() for w in d)
    scores = {u: sum(math.log(1.0 + n / frequency[w]) for w in words & d)
              for u, d in docs.items()}
    hits = sorted(((u, s) for u, s in scores.items() if s > 0), key=lambda h: (-h[1], h[0]))
    return [(u, round(s, 6)) for u, s in hits[:20]]


def build_inputs() -> dict[str, Any]:
    """The frozen candidate inputs for every question of the quick suite (seed 0)."""
    from fr_graph.bench.generator import generate
    from fr_graph.classify.rules import classify_fact
    from fr_graph.core.lifecycle import LifecycleState
    from fr_graph.overlay import stable_uuid
    from fr_graph.pipeline.ingest import overlay_for
    from fr_graph.pipeline.records import FactRecord

    suite = generate(SEED, SIZE)
    embedder = LocalEmbedder()
    groups: dict[str, Any] = {}
    questions: list[dict[str, Any]] = []
    for persona in suite.personas:
        facts = sorted(persona.facts, key=lambda f: (f.observed_at, f.id))
        vectors = embedder.embed_passages([f.text for f in facts])
        for source in ("gold", "inferred"):
            group_id = f"{persona.id}-{source}"
            rows: list[dict[str, Any]] = []
            for index, fact in enumerate(facts):
                record = FactRecord.model_validate(fact.to_record(group_id,
                                                                  gold=source == "gold"))
                uuid = stable_uuid(group_id, "fact", fact.id)
                overlay: dict[str, Any] | None = {
                    k: v for k, v in overlay_for(record, uuid, classify_fact(
                        record.fact, record.observed_at)).to_row().items() if v is not None}
                assert overlay is not None
                overlay["revision"] = 1
                # Retention variety: some facts settled durable with some strength.
                if index % 5 == 2:
                    overlay["stage"], overlay["strength"] = "durable", 0.2 + 0.1 * (index % 7)
                if index % 13 == 7:
                    overlay = None  # a plain Graphiti fact, not yet backfilled
                rows.append({"uuid": uuid, "fact": fact.text,
                              "valid_at": _iso(fact.observed_at),
                              "valid_at_datetime": index % 2 == 0,
                              "invalid_at": None,
                              "created_at": _iso(fact.observed_at + timedelta(minutes=1)),
                              "expired_at": None, "overlay": overlay})
            groups[group_id] = {"facts": rows, "ids": [f.id for f in facts]}
            for question in sorted(persona.questions, key=lambda q: (q.query_time, q.id)):
                visible = [(i, f) for i, f in enumerate(facts)
                           if f.observed_at <= question.query_time]
                assert [i for i, _ in visible] == list(range(len(visible)))  # a prefix
                query = embedder.embed_query(question.text)
                cosine = [round(float(vectors[i] @ query), 9) for i, _ in visible]
                states: dict[str, list[str | None]] = {}
                for i, fact in visible:
                    state = fact.state_at(question.query_time)
                    if state is not LifecycleState.ACTIVE:
                        since = max(t for t, s in fact.states if t <= question.query_time)
                        closes = state in (LifecycleState.EXPIRED, LifecycleState.SUPERSEDED)
                        states[str(i)] = [
                            state.value, _iso(since) if closes else None]
                texts = [f.text for _, f in visible]
                questions.append({
                    "key": f"{question.id}@{source}", "group": group_id,
                    "text": question.text, "now": question.query_time.isoformat(),
                    "cosine": cosine, "states": states,
                    "fulltext": _keyword_scores(question.text, texts),
                })
    return {"seed": SEED, "size": SIZE, "limit": LIMIT, "groups": groups,
            "questions": questions}


def _lines(fixture: dict[str, Any]) -> str:
    """Compact JSON with one group, question or expected result per line (readable diffs)."""
    def dump(value: Any) -> str:
        return json.dumps(value, separators=(",", ":"))

    def block(entries: list[str], open_: str, close: str) -> str:
        return open_ + "\n" + ",\n".join(entries) + "\n" + close

    head = ",".join(f"{dump(k)}:{dump(fixture[k])}" for k in ("seed", "size", "limit"))
    groups = block([f"{dump(k)}:{dump(v)}" for k, v in fixture["groups"].items()], "{", "}")
    questions = block([dump(q) for q in fixture["questions"]], "[", "]")
    expected = block([f"{dump(k)}:{dump(v)}" for k, v in fixture["expected"].items()],
                     "{", "}")
    return (f"{{{head},\n\"groups\":{groups},\n\"questions\":{questions},\n"
            f"\"expected\":{expected}}}\n")


def main() -> None:
    fixture = build_inputs()
    fixture["expected"] = asyncio.run(rank_all(fixture))
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_text(_lines(fixture))
    print(f"{GOLDEN}: {len(fixture['questions'])} questions, "
          f"{GOLDEN.stat().st_size / 1024:.0f} KiB")


if __name__ == "__main__":
    main()

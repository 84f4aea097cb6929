"""Run LifecycleBench: replay each persona into fresh groups, ask every question at its own
query time with every system, score, run the robustness grid, write the report.

Replay: a persona's facts are imported in ``observed_at`` order, and before each question
exactly the facts observed up to its query time are in the graph, so every lifecycle
transition a question sees happened before it was asked (a question asked before an
appointment sees it upcoming; one asked after its cancellation sees the retraction).

Each persona gets one group per metadata source: ``gold`` (the generator's category, slot
key, event time, marker and confidence ride on the records) and ``inferred`` (text only:
the offline rules classifier decides). Group ids carry a per-run nonce so a rerun on the
same database never meets an earlier run's facts; the report never names them.

Embedding dominates cost, and both sources (and the robustness grid) import the same texts:
the embedder's passage cache embeds each text once per run, up front, in suite order.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from fr_graph.bench.dataset import GoldFact, Persona, Question, Size, Suite
from fr_graph.bench.generator import generate
from fr_graph.bench.phrases import load_wording
from fr_graph.bench.robustness import GRID
from fr_graph.bench.systems import (
    GroupIds,
    flat_cosine,
    fr_graph_rankings,
    graphiti_off,
    graphiti_reranked,
    graphiti_valid,
)
from fr_graph.errors import InputError
from fr_graph.pipeline.records import FactRecord

if TYPE_CHECKING:
    from fr_graph.api import FrGraph

Progress = Callable[[str], None]
Rankings = dict[str, dict[str, list[str]]]  # question id -> system -> fact ids, best first
Ask = Callable[[Question, dict[str, GroupIds]], Awaitable[None]]

#: Personas the robustness grid re-imports per cell (the first ones of the suite).
ROBUSTNESS_PERSONAS: Final[dict[str, int]] = {"quick": 1, "full": 4}
_EMBED_CHUNK: Final = 256


@dataclass(slots=True)
class Timings:
    embed_seconds: float = 0.0
    import_embed_seconds: float = 0.0
    import_store_seconds: float = 0.0
    query_seconds: float = 0.0
    robustness_seconds: float = 0.0
    total_seconds: float = 0.0
    facts_imported: int = 0

    def to_json(self) -> dict[str, float]:
        return {"embed_s": round(self.embed_seconds, 2),
                "import_embed_s": round(self.import_embed_seconds, 2),
                "import_store_s": round(self.import_store_seconds, 2),
                "query_s": round(self.query_seconds, 2),
                "robustness_s": round(self.robustness_seconds, 2),
                "total_s": round(self.total_seconds, 2),
                "facts_imported": self.facts_imported}


@dataclass(slots=True)
class BenchReport:
    """What a run produced: ``data`` is ``report.json``; ``files`` everything written."""

    data: dict[str, Any]
    out: Path
    files: list[Path] = field(default_factory=list)


@dataclass(slots=True)
class RobustnessRun:
    """Rankings of ``full`` per grid cell, on the personas the grid covers."""

    personas: list[str]
    cells: dict[str, Rankings]
    changed: dict[str, int]


def load_suite(seed: int, size: Size, wording: str | None = None) -> Suite:
    """The generated suite for ``seed`` and ``size``, in a fresh ``wording`` if named
    (:data:`fr_graph.bench.phrases.WORDINGS`)."""
    return generate(seed, size, load_wording(wording) if wording is not None else None)


async def _import(fr: FrGraph, facts: Sequence[GoldFact], ids: GroupIds, gold: bool,
                  timings: Timings) -> None:
    records = [FactRecord.model_validate(f.to_record(ids.group_id, gold=gold)) for f in facts]
    report = await fr.import_records(records)
    ids.add([f.id for f in facts])
    timings.import_embed_seconds += report.embed_seconds
    timings.import_store_seconds += report.store_seconds
    timings.facts_imported += report.imported


async def replay(fr: FrGraph, facts: Sequence[GoldFact], questions: Sequence[Question],
                 groups: dict[str, tuple[str, bool]], ask: Ask, timings: Timings) -> None:
    """Import ``facts`` into each group (``source -> (group id, gold?)``) in time order and
    call ``ask`` for each question once the facts observed up to its query time are in."""
    ordered = sorted(facts, key=lambda f: (f.observed_at, f.id))
    ids = {source: GroupIds(group_id, {}) for source, (group_id, _) in groups.items()}
    done = 0
    for question in sorted(questions, key=lambda q: (q.query_time, q.id)):
        upto = done
        while upto < len(ordered) and ordered[upto].observed_at <= question.query_time:
            upto += 1
        if upto > done:
            for source, (_, gold) in groups.items():
                await _import(fr, ordered[done:upto], ids[source], gold, timings)
            done = upto
        started = time.perf_counter()
        await ask(question, ids)
        timings.query_seconds += time.perf_counter() - started


async def _prewarm(fr: FrGraph, suite: Suite, timings: Timings, progress: Progress) -> None:
    """Embed every fact text once, in suite order (deterministic batches)."""
    fr.embedder.cache_passages()
    texts = list(dict.fromkeys(f.text for p in suite.personas for f in p.facts))
    started = time.perf_counter()
    for start in range(0, len(texts), _EMBED_CHUNK):
        fr.embedder.embed_passages(texts[start:start + _EMBED_CHUNK])
        progress(f"embedded {min(start + _EMBED_CHUNK, len(texts))}/{len(texts)} texts")
    timings.embed_seconds += time.perf_counter() - started


async def run_systems(fr: FrGraph, suite: Suite, nonce: str, timings: Timings,
                      progress: Progress) -> Rankings:
    """Every system's top 10 for every question."""
    rankings: Rankings = {}

    async def ask(question: Question, ids: dict[str, GroupIds]) -> None:
        now, text = question.query_time, question.text
        out: dict[str, list[str]] = {}
        for source, group in ids.items():
            gold = source == "gold"
            suffix = "" if gold else "@inferred"
            found = await fr_graph_rankings(fr, group.group_id, text, now, ablations=gold)
            out.update({f"{name}{suffix}": ranking for name, ranking in found.items()})
            out[f"graphiti_valid{suffix}"] = await graphiti_valid(fr, group, text)
            if gold:
                out["off"] = await graphiti_off(fr, group.group_id, text, now)
                out["off_rerank"] = await graphiti_reranked(fr, group, text)
                out["flat"] = await flat_cosine(fr, group, text)
        rankings[question.id] = out

    for index, persona in enumerate(suite.personas, start=1):
        base = f"lb-{nonce}-{index}"
        await replay(fr, persona.facts, persona.questions,
                     {"gold": (f"{base}-gold", True), "inferred": (f"{base}-inferred", False)},
                     ask, timings)
        progress(f"persona {index}/{len(suite.personas)} ({persona.id}): "
                 f"{len(persona.questions)} questions")
    return rankings


async def run_robustness(fr: FrGraph, personas: Sequence[Persona], seed: int, nonce: str,
                         timings: Timings, progress: Progress) -> RobustnessRun:
    """``full`` on gold metadata corrupted by each grid cell, re-imported per cell."""
    run = RobustnessRun([p.id for p in personas], {}, {})
    started = time.perf_counter()
    for cell_index, cell in enumerate(GRID, start=1):
        rankings: Rankings = {}
        changed = 0

        async def ask(question: Question, ids: dict[str, GroupIds],
                      into: Rankings = rankings) -> None:
            group = ids["gold"].group_id
            found = await fr_graph_rankings(fr, group, question.text, question.query_time,
                                            ablations=False)
            into[question.id] = {"full": found["full"]}

        for index, persona in enumerate(personas, start=1):
            facts, count = cell.apply(persona.facts, seed, persona.id)
            changed += count
            group = f"lb-{nonce}-r{cell_index}-{index}"
            await replay(fr, facts, persona.questions, {"gold": (group, True)}, ask, timings)
        run.cells[cell.name] = rankings
        run.changed[cell.name] = changed
        progress(f"robustness {cell_index}/{len(GRID)}: {cell.name}")
    timings.robustness_seconds += time.perf_counter() - started
    return run


async def server_version(fr: FrGraph) -> str | None:
    """The graph server's version where it can be asked (Neo4j); the embedded and FalkorDB
    stores are versioned by their packages in the provenance block."""
    if fr.settings.backend != "neo4j":
        return None
    rows = await fr.store.run("server_version", "")
    return str(rows[0]["version"]) if rows else None


async def run_lifecycle_bench(fr: FrGraph, size: Size = "quick", seed: int = 0,
                              out: Path = Path("lifecycle-bench"), *,
                              suite: Suite | None = None,
                              robustness_personas: int | None = None,
                              wording: str | None = None,
                              progress: Progress | None = None) -> BenchReport:
    """Run the whole benchmark on ``fr``'s store and write the report into ``out``.

    ``suite`` replaces the generated one (tests); ``robustness_personas`` overrides how many
    personas the robustness grid re-imports (:data:`ROBUSTNESS_PERSONAS`); ``wording`` names
    a fresh wording to generate the suite in (a held-out split written after a freeze).

    Raises:
        InputError: ``size`` is not quick or full, or ``out`` is a file.
    """
    from fr_graph.bench.provenance import provenance
    from fr_graph.bench.report import build_report, write_report

    if size not in ROBUSTNESS_PERSONAS:
        raise InputError(f"--size {size!r}: use quick or full")
    if out.exists() and not out.is_dir():
        raise InputError(f"--out {str(out)!r}: is a file, not a folder")
    say = progress or (lambda _message: None)
    started = time.perf_counter()
    timings = Timings()
    if suite is None:
        suite = load_suite(seed, size, wording)
    if not suite.questions:
        raise InputError("the suite has no questions")
    nonce = uuid.uuid4().hex[:10]
    await _prewarm(fr, suite, timings, say)
    rankings = await run_systems(fr, suite, nonce, timings, say)
    count = robustness_personas or ROBUSTNESS_PERSONAS[size]
    robust = await run_robustness(fr, suite.personas[:count], suite.seed, nonce, timings, say)
    timings.total_seconds = time.perf_counter() - started
    data = build_report(suite, rankings, robust, timings.to_json(),
                        backend=fr.settings.backend)
    data["provenance"] = provenance(server=await server_version(fr))
    files = write_report(data, out)
    return BenchReport(data=data, out=out, files=files)

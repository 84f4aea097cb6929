"""StageMem's controlled diagnostics (seed 003, Tables 1-5, 9, 10) on fr-graph's retention core.

Every regime is a stream of admitted items over maintenance cycles. Each item has a role
(premise, support, residue, false premise, ...), a confidence and a cue strength; the final
readout asks whether the roles that matter are still in memory. The controllers differ only
in post-admission control, as in the paper:

* ``fr-graph``: :mod:`fr_graph.core.retention` as shipped (Eq. 1 gates, stage capacities,
  compression and eviction, App. E strength growth from accesses);
* component ablations on the same core: ``confidence-only`` (strength := confidence),
  ``strength-only`` (no validity gate: tau_c = 0 and no inactive-first), ``single-state``
  (one decaying score, evicted below a floor), ``single-layer`` (one flat store of the same
  total capacity, evict lowest strength when full);
* control-style analogues: ``front-door-only`` (Mem0-style: admit when the write-time score
  clears a threshold, then a flat store), ``reinforced-flat`` (MemoryBank-style: forgetting
  curve, reinforced by access), and flat heuristics (recency, frequency, query relevance,
  generic importance, cue-aware flat score, binary strength flag, confidence flat).

Each regime runs on an in-memory harness over the pure core (many seeds) and, for the
fr-graph controller and the ablations expressible as policy or record settings, on the real
graph through the library (``FrGraph.import_records``, ``record_access``, ``maintain``,
then the stored stages and states), one seed per regime, on embedded FalkorDB (and Neo4j
with ``--neo4j URI``). Metric names are the paper's.

    python bench/retention_regimes.py [--seeds 50] [--graph-seeds 1] [--db DIR] [--neo4j URI]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import platform
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.retention import (
    DURABLE,
    STATE_INDEX,
    TRANSIENT,
    WORKING,
    RetentionPolicy,
    evidence_shock,
    grow_strength,
    settle,
    update_confidence,
)

ACTIVE = STATE_INDEX[LifecycleState.ACTIVE]
CATEGORIES = (Category.PROJECTS, Category.HOBBIES, Category.PREFERENCES, Category.OTHER)
ARCHIVED = STATE_INDEX[LifecycleState.ARCHIVED]
T0 = datetime(2025, 1, 1, tzinfo=UTC)


@dataclass
class Item:
    """One admitted item of a stream."""

    id: str
    role: str  # premise, support, residue, important, false, distractor, hchs, ...
    c: float  # confidence at admission
    m: float  # cue strength at admission
    cycle: int  # admitted at this maintenance cycle
    key: int = 0  # compression key (category)
    accesses: dict[int, int] = field(default_factory=dict)  # cycle -> uses
    repeats: tuple[int, ...] = ()  # cycles where it is restated (corroboration)
    relevance: float = 0.0  # closeness to the final query
    importance: float = 0.0  # a generic-importance proxy


@dataclass(frozen=True)
class Regime:
    name: str
    cycles: int
    policy: RetentionPolicy
    items: list[Item]


# -- streams -----------------------------------------------------------------------------------


def _retention(**capacities: int) -> RetentionPolicy:
    """The default retention policy with a regime's stage capacities."""
    return PolicyTable.default().retention.model_copy(update=capacities)


def _jit(rng: random.Random, value: float, width: float = 0.04) -> float:
    return min(max(value + rng.uniform(-width, width), 0.0), 1.0)


def premise_regime(seed: int) -> Regime:
    """Table 1: an early premise, credible residue creating pressure, late support."""
    rng = random.Random(seed)
    items = [Item("premise", "premise", _jit(rng, 0.75), _jit(rng, 0.90), 0, key=0,
                  relevance=0.5, importance=0.9)]
    for cycle in range(10):
        for j in range(rng.randint(2, 4)):
            items.append(Item(f"r{cycle}-{j}", "residue", _jit(rng, 0.86, 0.06),
                              rng.uniform(0.05, 0.45), cycle, key=1 + j % 2,
                              relevance=0.2, importance=0.3))
    for cycle in (8, 9):
        items.append(Item(f"s{cycle}", "support", _jit(rng, 0.90), _jit(rng, 0.50), cycle,
                          key=3, relevance=0.9, importance=0.4))
    return Regime("premise", 10, _retention(transient_capacity=4, working_capacity=3,
                                                  durable_capacity=2), items)


def heavy_regime(seed: int, transient: int = 8) -> Regime:
    """Tables 2, 9, 10: many plausible items, one becomes important later (used from cycle
    6 on), after every write-time signal looked ordinary."""
    rng = random.Random(seed)
    items = []
    for cycle in range(12):
        for j in range(4):
            items.append(Item(f"h{cycle}-{j}", "residue", _jit(rng, 0.82, 0.08),
                              rng.uniform(0.05, 0.22), cycle, key=1 + j % 3))
    items.append(Item("important", "important", _jit(rng, 0.82), 0.25, 3, key=1,
                      accesses={6: 3, 7: 3, 8: 3}))
    return Regime(f"heavy-t{transient}", 12, _retention(
        transient_capacity=transient, working_capacity=3, durable_capacity=2), items)


def gate_regime(seed: int) -> Regime:
    """Table 3: a valid premise, later support, high-confidence local distractors and
    low-confidence high-cue false premises in one stream."""
    rng = random.Random(seed)
    items = [Item("premise", "premise", _jit(rng, 0.80), _jit(rng, 0.85), 0, key=0)]
    items += [Item(f"false{i}", "false", _jit(rng, 0.25), _jit(rng, 0.92), 1 + i, key=0)
              for i in range(2)]
    for cycle in range(8):
        items += [Item(f"d{cycle}-{j}", "distractor", _jit(rng, 0.92), rng.uniform(0.05, 0.2),
                       cycle, key=1) for j in range(3)]
    items += [Item(f"s{c}", "support", _jit(rng, 0.88), _jit(rng, 0.45), c, key=2)
              for c in (6, 7)]
    return Regime("gate", 8, _retention(transient_capacity=4, working_capacity=3,
                                              durable_capacity=2), items)


def quadrant_regime(seed: int) -> Regime:
    """Table 4: one item per confidence x strength quadrant among five local distractors."""
    rng = random.Random(seed)
    items = [Item("hchs", "hchs", _jit(rng, 0.90), _jit(rng, 0.90), 0),
             Item("mchs", "mchs", _jit(rng, 0.72), _jit(rng, 0.85), 0),
             Item("hcls", "hcls", _jit(rng, 0.90), _jit(rng, 0.10), 0),
             Item("lcls", "lcls", _jit(rng, 0.20), _jit(rng, 0.10), 0)]
    items += [Item(f"local{j}", "distractor", _jit(rng, 0.88), rng.uniform(0.05, 0.25), 1, key=1)
              for j in range(5)]
    # Not full saturation: seven places for nine items, as the paper's Load of 7.
    return Regime("quadrant", 2, _retention(transient_capacity=5, working_capacity=1,
                                                  durable_capacity=2), items)


def heuristic_regime(seed: int) -> Regime:
    """Table 5: a sparse early premise, repeated query-near support, recent local residue
    and high-importance-looking false premises."""
    rng = random.Random(seed)
    items = [Item("premise", "premise", _jit(rng, 0.80), _jit(rng, 0.88), 0, key=0,
                  relevance=0.35, importance=0.9)]
    items += [Item(f"false{i}", "false", _jit(rng, 0.22), _jit(rng, 0.90), 1 + i, key=0,
                   relevance=0.3, importance=0.92) for i in range(4)]
    items += [Item(f"s{i}", "support", _jit(rng, 0.88), _jit(rng, 0.45), 2 + i, key=2,
                   repeats=(5, 6, 7), relevance=0.85, importance=0.4) for i in range(2)]
    items += [Item(f"local{i}", "distractor", _jit(rng, 0.85), rng.uniform(0.05, 0.2),
                   5 + i % 3, key=1, relevance=0.45, importance=0.3) for i in range(6)]
    return Regime("heuristic", 8, _retention(transient_capacity=3, working_capacity=2,
                                                   durable_capacity=2), items)


# -- controllers on the harness -----------------------------------------------------------------


@dataclass
class Outcome:
    """The final memory: per item id, (stage code or -1 when flat, live), plus budget hits
    per cycle and the total capacity."""

    live: dict[str, bool]
    stage: dict[str, int]
    budget_hits: list[bool]
    capacity: int
    admitted: set[str]
    summaries: int = 0


def stagemem(regime: Regime, *, strength_from: str = "strength", gate: bool = True
             ) -> Outcome:
    """fr-graph's settlement on the pure core, cycle by cycle (``strength_from``:
    ``strength``, or ``confidence`` for the confidence-only ablation)."""
    policy = regime.policy if gate else regime.policy.model_copy(
        update={"working_confidence": 0.0, "durable_confidence": 0.0})
    items: list[Item] = []
    stage: list[int] = []
    state: list[int] = []
    c: list[float] = []
    m: list[float] = []
    hits: list[bool] = []
    summaries = 0
    for cycle in range(regime.cycles):
        for it in regime.items:
            if it.cycle == cycle:
                items.append(it)
                stage.append(TRANSIENT)
                state.append(ACTIVE)
                c.append(it.c)
                m.append(it.c if strength_from == "confidence" else it.m)
        for i, it in enumerate(items):
            if state[i] != ACTIVE:
                continue
            uses = it.accesses.get(cycle, 0)
            if uses and strength_from == "strength":
                m[i] = float(grow_strength(m[i], c[i], evidence_shock(uses, policy),
                                           stage[i], policy))
            if cycle in it.repeats:
                c[i] = float(update_confidence(c[i], it.c, 1, m[i], stage[i], policy))
                if strength_from == "confidence":
                    m[i] = c[i]
        out = settle(stage=np.array(stage), state=np.array(state), confidence=np.array(c),
                     strength=np.array(m), pinned=np.zeros(len(items), dtype=bool),
                     observed_at=np.array([float(it.cycle) for it in items]),
                     compress_key=np.array([it.key for it in items]), policy=policy)
        # BudgetHit: the whole memory was over its total capacity (as for a flat store),
        # not merely one stage under pressure, which is settlement's normal operation.
        hits.append(sum(out.load_before) > sum(x or 0 for x in policy.capacities))
        stage = out.stage.tolist()
        state = [ARCHIVED if gone else s for gone, s in zip(out.leaving, state, strict=True)]
        for index, (key, where) in enumerate(out.summaries):  # summaries are items too
            members = np.flatnonzero(out.summary == index)
            items.append(Item(f"summary{summaries}", "summary",
                              float(np.mean([c[i] for i in members])),
                              max(m[i] for i in members), cycle, key=key))
            summaries += 1
            stage.append(where)
            state.append(ACTIVE)
            c.append(items[-1].c)
            m.append(items[-1].m)
    capacity = sum(x or 0 for x in policy.capacities)
    live = {it.id: s != ARCHIVED for it, s in zip(items, state, strict=True)}
    return Outcome(live, {it.id: st for it, st in zip(items, stage, strict=True)}, hits,
                   capacity, {it.id for it in items}, summaries=summaries)


def flat(regime: Regime, score: Callable[[Item, int], float], *, capacity: int | None = None,
         admit: Callable[[Item], bool] = lambda it: True) -> Outcome:
    """A single flat store: admit (``admit``), keep everything until full, then evict the
    lowest ``score(item, cycle)`` (ties: oldest)."""
    cap = capacity if capacity is not None else sum(x or 0 for x in regime.policy.capacities)
    held: list[Item] = []
    admitted: set[str] = set()
    hits = []
    for cycle in range(regime.cycles):
        for it in regime.items:
            if it.cycle == cycle and admit(it):
                held.append(it)
                admitted.add(it.id)
        over = len(held) - cap
        hits.append(over > 0)
        if over > 0:
            held.sort(key=lambda it: (score(it, cycle), it.cycle))
            held = held[over:]
    keep = {it.id for it in held}
    return Outcome({i: i in keep for i in admitted}, {i: -1 for i in admitted}, hits, cap,
                   admitted)


def single_state(regime: Regime, decay: float = 0.12, floor: float = 0.35) -> Outcome:
    """One carried score per item, ``(c + m) / 2`` at admission, that decays each cycle
    unless the item is restated or used; items below ``floor`` are dropped."""
    score: dict[str, float] = {}
    admitted: set[str] = set()
    hits = []
    policy = regime.policy
    for cycle in range(regime.cycles):
        for it in regime.items:
            if it.cycle == cycle:
                score[it.id] = (it.c + it.m) / 2
                admitted.add(it.id)
        for it in regime.items:
            if it.id not in score:
                continue
            if cycle in it.repeats or it.accesses.get(cycle):
                score[it.id] = float(update_confidence(score[it.id], it.c, 1, 0.0, TRANSIENT,
                                                       policy))
            elif it.cycle < cycle:
                score[it.id] -= decay
        hits.append(False)
        score = {k: v for k, v in score.items() if v >= floor}
    cap = sum(x or 0 for x in policy.capacities)
    return Outcome({i: i in score for i in admitted}, {i: -1 for i in admitted}, hits, cap,
                   admitted)


def reinforced_flat(regime: Regime, keep: float = 0.4) -> Outcome:
    """MemoryBank-style: retention ``exp(-dt / S)``, ``S`` grows by one per use; an item
    whose retention falls below ``keep`` is forgotten at the end of a cycle."""
    last: dict[str, int] = {}
    memory: dict[str, float] = {}
    admitted: set[str] = set()
    for cycle in range(regime.cycles):
        for it in regime.items:
            if it.cycle == cycle:
                last[it.id], memory[it.id] = cycle, 1.0
                admitted.add(it.id)
            if it.id in memory and (it.accesses.get(cycle) or cycle in it.repeats):
                last[it.id], memory[it.id] = cycle, memory[it.id] + 1.0
        memory = {k: s for k, s in memory.items()
                  if math.exp(-(cycle + 1 - last[k]) / s) >= keep}
    cap = sum(x or 0 for x in regime.policy.capacities)
    return Outcome({i: i in memory for i in admitted}, {i: -1 for i in admitted},
                   [False] * regime.cycles, cap, admitted)


# -- metrics ------------------------------------------------------------------------------------


def _live(out: Outcome, role: str, regime: Regime) -> list[bool]:
    return [out.live.get(it.id, False) for it in regime.items if it.role == role]


def _protected(out: Outcome, item_id: str) -> bool:
    """Protected retention: live in working or durable (every live item of a flat store)."""
    return out.live.get(item_id, False) and out.stage.get(item_id, -1) in (-1, WORKING, DURABLE)


def premise_metrics(out: Outcome, regime: Regime) -> dict[str, float]:
    prem = all(_live(out, "premise", regime))
    support = _live(out, "support", regime)
    supp = sum(support) / len(support)
    live = [i for i, alive in out.live.items() if alive]
    critical = {it.id for it in regime.items if it.role in ("premise", "support")}
    noncrit = [i for i in live if i not in critical]
    return {
        "Adm": float("premise" in out.admitted), "Prem": float(prem), "Supp": supp,
        "Behav": float(prem and supp == 1.0), "CritLoss": float("premise" in out.admitted
                                                               and not prem),
        "FinalLoad": len(live) / out.capacity, "NonCrit": len(noncrit) / max(len(live), 1),
        "BudgetHit": sum(out.budget_hits) / len(out.budget_hits),
    }


def heavy_metrics(out: Outcome, regime: Regime) -> dict[str, float]:
    kept = out.live.get("important", False)
    live = [i for i, alive in out.live.items() if alive]
    return {"Recall": float(kept), "ImpRet": float(kept),
            "FinalLoad": len(live) / out.capacity,
            "NonCrit": (len(live) - int(kept)) / max(len(live), 1),
            "BudgetHit": sum(out.budget_hits) / len(out.budget_hits)}


def gate_metrics(out: Outcome, regime: Regime) -> dict[str, float]:
    prem = all(_live(out, "premise", regime))
    supp = sum(_live(out, "support", regime)) / 2
    false = sum(_protected(out, it.id) for it in regime.items if it.role == "false")
    return {"Prem": float(prem), "Supp": supp,
            "Behav": float(prem and supp == 1.0 and false == 0), "FalsePrem": float(false)}


def quadrant_metrics(out: Outcome, regime: Regime) -> dict[str, float]:
    q = {name: float(_protected(out, name)) for name in ("hchs", "mchs", "hcls", "lcls")}
    local = sum(_protected(out, it.id) for it in regime.items if it.role == "distractor")
    prot = sum(_protected(out, i) for i in out.live)
    return {"HcHs": q["hchs"], "McHs": q["mchs"], "HcLs": q["hcls"], "LcLs": q["lcls"],
            "GoodProt": (q["hchs"] + q["mchs"]) / 2, "BadProt": (q["hcls"] + q["lcls"]) / 2,
            "LocalProt": float(local), "ProtLoad": float(prot),
            "Load": float(sum(out.live.values()))}


def heuristic_metrics(out: Outcome, regime: Regime) -> dict[str, float]:
    prem = all(_live(out, "premise", regime))
    supp = sum(_live(out, "support", regime)) / 2
    false = sum(_protected(out, it.id) for it in regime.items if it.role == "false")
    residue = sum(_protected(out, it.id) for it in regime.items if it.role == "distractor")
    return {"Prem": float(prem), "Supp": supp,
            "Behav": float(prem and supp == 1.0 and false == 0), "FalsePrem": float(false),
            "Residue": float(residue)}


# -- tables ------------------------------------------------------------------------------------

Controller = Callable[[Regime], Outcome]


def _freq(it: Item, cycle: int) -> float:
    return len([r for r in it.repeats if r <= cycle]) + sum(
        n for c, n in it.accesses.items() if c <= cycle)


#: The front-door baseline's admission threshold: the highest of the Figure 1 sweep at which
#: it keeps what matters in the heavy regime (at 0.6 it admits nothing: a strawman).
FRONT_DOOR_THRESHOLD = 0.5

TABLES: dict[str, tuple[Callable[[int], Regime], Callable[[Outcome, Regime], dict[str, float]],
                        dict[str, Controller]]] = {
    "Table 1: premise realization under compression pressure": (premise_regime, premise_metrics, {
        "fr-graph (StageMem)": stagemem,
        "confidence-only": lambda r: stagemem(r, strength_from="confidence"),
        "single-state": single_state,
        "single-layer": lambda r: flat(r, lambda it, _: it.m),
    }),
    "Tables 2/9: heavy admitted content": (heavy_regime, heavy_metrics, {
        "fr-graph (StageMem)": stagemem,
        "single-layer": lambda r: flat(r, lambda it, cy: it.m + 0.1 * _freq(it, cy)),
        "front-door-only (Mem0-style)": lambda r: flat(
            r, lambda it, _: it.m,
            admit=lambda it: 0.5 * it.c + 0.5 * it.m >= FRONT_DOOR_THRESHOLD),
        "reinforced-flat (MemoryBank-style)": reinforced_flat,
    }),
    "Table 3: gate-strength-lifecycle": (gate_regime, gate_metrics, {
        "front-door gate only": lambda r: flat(r, lambda it, _: it.cycle,
                                               admit=lambda it: it.c >= 0.5),
        "confidence-only lifecycle": lambda r: stagemem(r, strength_from="confidence"),
        "strength-only lifecycle": lambda r: stagemem(r, gate=False),
        "confidence+strength (fr-graph)": stagemem,
    }),
    "Table 4: confidence x strength quadrants": (quadrant_regime, quadrant_metrics, {
        "fr-graph (StageMem)": stagemem,
        "cue-aware flat score": lambda r: flat(r, lambda it, _: it.m + it.c),
        "binary strength flag": lambda r: flat(r, lambda it, _: float(it.m >= 0.5),
                                               admit=lambda it: it.m >= 0.5),
        "confidence-only staged": lambda r: stagemem(r, strength_from="confidence"),
        "confidence flat": lambda r: flat(r, lambda it, _: it.c),
    }),
    "Table 5: implicit heuristics": (heuristic_regime, heuristic_metrics, {
        "recency priority": lambda r: flat(r, lambda it, _: it.cycle),
        "frequency priority": lambda r: flat(r, _freq),
        "query relevance priority": lambda r: flat(r, lambda it, _: it.relevance),
        "generic importance priority": lambda r: flat(r, lambda it, _: it.importance),
        "cue-aware flat score": lambda r: flat(r, lambda it, _: it.m + 0.5 * it.importance),
        "explicit strength lifecycle (fr-graph)": stagemem,
    }),
}


def harness(seeds: int) -> dict[str, dict[str, dict[str, float]]]:
    results: dict[str, dict[str, dict[str, float]]] = {}
    for title, (make, metric, controllers) in TABLES.items():
        results[title] = {}
        for name, run in controllers.items():
            rows = [metric(run(make(seed)), make(seed)) for seed in range(seeds)]
            results[title][name] = {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}
    sweep: dict[str, dict[str, float]] = {}
    for transient in (4, 6, 8, 12, 16):
        for name, run in TABLES["Tables 2/9: heavy admitted content"][2].items():
            rows = [heavy_metrics(run(heavy_regime(s, transient)), heavy_regime(s, transient))
                    for s in range(seeds)]
            sweep[f"transient {transient:>2}: {name}"] = {
                k: float(np.mean([r[k] for r in rows])) for k in ("ImpRet", "FinalLoad",
                                                                   "NonCrit")}
    results["Table 10: capacity sweep (heavy regime)"] = sweep
    front: dict[str, dict[str, float]] = {}
    for threshold in (0.3, 0.4, 0.5, 0.55, 0.6, 0.7):
        def admit(it: Item, t: float = threshold) -> bool:
            return 0.5 * it.c + 0.5 * it.m >= t

        rows = [heavy_metrics(flat(heavy_regime(s), lambda it, _: it.m, admit=admit),
                              heavy_regime(s)) for s in range(seeds)]
        front[f"front-door threshold {threshold:.2f}"] = {
            k: float(np.mean([r[k] for r in rows])) for k in ("ImpRet", "FinalLoad")}
    results["Figure 1: front-door threshold sweep (heavy regime)"] = front
    return results


# -- the same regimes on the real graph ---------------------------------------------------------


async def graph_run(settings: Any, regime: Regime, metric: Callable[[Outcome, Regime],
                                                                      dict[str, float]],
                    *, strength_from: str = "strength", gate: bool = True
                    ) -> dict[str, float]:
    """One regime through the library: each cycle imports its items (records carry the
    confidence and cue strength; a unique object and slot per item, so nothing supersedes
    and no dependents accrue), records the cycle's accesses, then runs ``maintain``."""
    from fr_graph.api import FrGraph
    from fr_graph.core.policy import PolicyTable
    from fr_graph.overlay import stable_uuid
    from fr_graph.pipeline.records import FactRecord

    policy = regime.policy.model_dump(exclude_defaults=True)
    if not gate:
        policy.update(working_confidence=0.0, durable_confidence=0.0)
    group = f"ret-{regime.name}-{strength_from}-{int(gate)}-{time.time_ns() % 10**9}"
    hits: list[bool] = []
    async with FrGraph(settings) as fr:
        fr.policy = PolicyTable.from_mapping({"retention": policy})
        for cycle in range(regime.cycles):
            at = T0 + timedelta(days=cycle)
            fresh = [it for it in regime.items if it.cycle == cycle]
            await fr.import_records([FactRecord(
                type="fact", group_id=group, id=it.id, fact=f"Note {it.id}: {it.role} detail",
                observed_at=at, subject="user", object=f"topic {it.id}",
                category=CATEGORIES[it.key % 4],
                slot_key=f"note|{it.id}", confidence=it.c,
                strength=it.c if strength_from == "confidence" else it.m) for it in fresh])
            uses = [stable_uuid(group, "fact", it.id) for it in regime.items
                    for _ in range(it.accesses.get(cycle, 0))]
            if uses and strength_from == "strength":
                for uuid in uses:
                    await fr.record_access(group, [uuid])
            report = (await fr.maintain(group, now=at + timedelta(hours=12)))[0]
            hits.append(sum(report.load_before) > sum(x or 0 for x in report.capacities))
        rows = await fr.store.run("retention_facts", group, group_id=group)
    live: dict[str, bool] = {}
    stage: dict[str, int] = {}
    summaries = 0
    for row in rows:
        overlay = row["overlay"]
        source = str(overlay["source_id"])
        if source.startswith("summary:"):
            summaries += int(overlay["state"] != "archived")
            continue
        live[source] = overlay["state"] != "archived"
        stage[source] = ("transient", "working", "durable").index(overlay["stage"])
    for i in range(summaries):  # live summaries hold places: count them as residue
        live[f"summary{i}"], stage[f"summary{i}"] = True, TRANSIENT
    return metric(Outcome(live, stage, hits, sum(x or 0 for x in regime.policy.capacities),
                          set(live), summaries), regime)


GRAPH_RUNS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "Table 1: premise realization under compression pressure": [
        ("fr-graph (StageMem)", {}), ("confidence-only", {"strength_from": "confidence"})],
    "Tables 2/9: heavy admitted content": [("fr-graph (StageMem)", {})],
    "Table 3: gate-strength-lifecycle": [
        ("confidence-only lifecycle", {"strength_from": "confidence"}),
        ("strength-only lifecycle", {"gate": False}),
        ("confidence+strength (fr-graph)", {})],
    "Table 4: confidence x strength quadrants": [
        ("fr-graph (StageMem)", {}), ("confidence-only staged", {"strength_from": "confidence"})],
    "Table 5: implicit heuristics": [("explicit strength lifecycle (fr-graph)", {})],
}


async def graph(settings: Any, seeds: int) -> dict[str, dict[str, dict[str, float]]]:
    results: dict[str, dict[str, dict[str, float]]] = {}
    for title, runs in GRAPH_RUNS.items():
        make, metric, _ = TABLES[title]
        results[title] = {}
        for name, options in runs:
            rows = [await graph_run(settings, make(seed), metric, **options)
                    for seed in range(seeds)]
            results[title][name] = {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}
    return results


# -- report ------------------------------------------------------------------------------------


def render(results: dict[str, dict[str, dict[str, float]]]) -> str:
    lines = []
    for title, rows in results.items():
        if not rows:
            continue
        columns = list(next(iter(rows.values())))
        lines += [f"**{title}**", "", "| method | " + " | ".join(columns) + " |",
                  "| --- |" + " ---: |" * len(columns)]
        lines += ["| " + name + " | " + " | ".join(_fmt(row[c]) for c in columns) + " |"
                  for name, row in rows.items()]
        lines.append("")
    return "\n".join(lines)


def _fmt(value: float) -> str:
    return f"{value:.2f}" if value != int(value) or abs(value) < 10 else f"{value:.0f}"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=50, help="harness seeds per cell")
    parser.add_argument("--graph-seeds", type=int, default=1,
                        help="seeds per cell on the real graph (0: skip)")
    parser.add_argument("--db", type=Path, default=None,
                        help="embedded FalkorDB folder (default: a temporary one)")
    parser.add_argument("--neo4j", default=None, help="also run on this bolt:// URI")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    print(f"# StageMem diagnostics on fr-graph ({platform.machine()}, "
          f"{platform.python_version()})\n")
    print(f"## In-memory harness over fr_graph.core.retention ({args.seeds} seeds)\n")
    print(render(harness(args.seeds)))
    print(f"harness: {time.perf_counter() - started:.1f}s\n")
    if args.graph_seeds <= 0:
        return
    from fr_graph.config import Settings

    targets = []
    folder = args.db or Path(tempfile.mkdtemp(prefix="fr-retention-"))
    targets.append(("embedded FalkorDB", Settings(db=str(folder))))
    if args.neo4j:
        targets.append(("Neo4j", Settings(db=args.neo4j, neo4j_user="neo4j",
                                          neo4j_password="test-password")))
    for label, settings in targets:
        began = time.perf_counter()
        print(f"## Real graph through the library: {label} ({args.graph_seeds} seed(s))\n")
        print(render(asyncio.run(graph(settings, args.graph_seeds))))
        print(f"{label}: {time.perf_counter() - began:.1f}s\n")
    if args.db is None:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()


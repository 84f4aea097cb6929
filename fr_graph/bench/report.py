"""Aggregate rankings into ``report.json``, ``report.md`` and PNG charts.

Everything in ``report.json`` except ``timings`` is a function of the suite and the
rankings, so the same seed gives the same report (bootstrap resamples are seeded per
system and scope).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from fr_graph.bench.dataset import AttackVector, GoldFact, Question, Suite
from fr_graph.bench.robustness import GRID
from fr_graph.bench.scoring import (
    STALE_AT,
    Outcome,
    bootstrap_mean,
    jaccard_at,
    kendall_tau_at,
    mcnemar,
    paired_difference,
    score,
)
from fr_graph.bench.systems import ABLATION_SYSTEMS

if TYPE_CHECKING:
    from fr_graph.bench.runner import Rankings, RobustnessRun


@dataclass(frozen=True, slots=True)
class SystemSpec:
    key: str
    source: str  # gold | inferred
    kind: str  # fr-graph | peer | ablation
    about: str


SYSTEMS: Final[tuple[SystemSpec, ...]] = (
    SystemSpec("full", "gold", "fr-graph", "fr-graph lifecycle-aware ranking"),
    SystemSpec("untyped", "gold", "fr-graph", "untyped arm: latest-slot-wins, date expiry, "
               "retraction drop over semantic ranking (world knowledge and instruction-like "
               "text dropped, as in full)"),
    SystemSpec("off", "gold", "peer", "Graphiti's own hybrid search (RRF)"),
    SystemSpec("off_rerank", "gold", "peer",
               "Graphiti's hybrid search with its cross-encoder recipe (local cross-encoder)"),
    SystemSpec("graphiti_valid", "gold", "peer",
               "Graphiti's search without invalidated edges (invalid_at IS NULL)"),
    SystemSpec("flat", "gold", "peer", "Mem0-style flat cosine store, no lifecycle"),
    SystemSpec("full@inferred", "inferred", "fr-graph", "full on rules-classifier metadata"),
    SystemSpec("untyped@inferred", "inferred", "fr-graph",
               "untyped on rules-classifier metadata"),
    SystemSpec("graphiti_valid@inferred", "inferred", "peer",
               "graphiti_valid on the group whose transitions the rules classifier drove"),
    *(SystemSpec(name, "gold", "ablation", f"full {name.replace('_', ' ')}")
      for name in ABLATION_SYSTEMS),
)
SCOPES: Final[tuple[str, ...]] = ("all", "dev", "heldout")
REFERENCE: Final = "full"
FAILURES_PER_AV: Final = 3
#: Systems drawn in the per-attack-vector charts.
CHARTED: Final[tuple[str, ...]] = ("full", "full@inferred", "untyped", "graphiti_valid",
                                   "off", "flat")


def _seed(*parts: object) -> int:
    return zlib.crc32("/".join(str(p) for p in parts).encode())


def _metrics(outcomes: Sequence[Outcome], reference: Sequence[Outcome], seed: int,
             compare: bool) -> dict[str, Any]:
    """Point estimates with bootstrap CIs; paired comparison with ``reference`` if asked."""
    clean = [float(o.clean) for o in outcomes]
    doc: dict[str, Any] = {
        "n": len(outcomes),
        "pass": bootstrap_mean([float(o.passed) for o in outcomes], seed).to_json(),
        "stale": bootstrap_mean([float(o.stale) for o in outcomes], seed + 1).to_json(),
        "clean": bootstrap_mean(clean, seed + 2).to_json(),
        "mrr": bootstrap_mean([o.reciprocal_rank for o in outcomes], seed + 3).to_json(),
    }
    if compare:
        doc["vs_full"] = {
            "clean_diff": paired_difference(clean, [float(o.clean) for o in reference],
                                            seed + 4).to_json(),
            "mcnemar_p": round(mcnemar([o.clean for o in outcomes],
                                       [o.clean for o in reference]), 6),
        }
    return doc


def _scoped(questions: Sequence[Question], scope: str) -> list[Question]:
    return [q for q in questions if scope == "all" or q.split == scope]


def _system_block(spec: SystemSpec, questions: Sequence[Question],
                  outcomes: dict[str, dict[str, Outcome]], seed: int) -> dict[str, Any]:
    compare = spec.key != REFERENCE

    def block(subset: Sequence[Question], tag: str) -> dict[str, Any]:
        mine = [outcomes[spec.key][q.id] for q in subset]
        ref = [outcomes[REFERENCE][q.id] for q in subset]
        return _metrics(mine, ref, _seed(seed, spec.key, tag), compare)

    overall = {scope: block(_scoped(questions, scope), scope) for scope in SCOPES}
    by_av = {av.value: {scope: block(_scoped([q for q in questions if q.attack_vector is av],
                                             scope), f"{av.value}/{scope}")
                        for scope in SCOPES}
             for av in AttackVector}
    return {"source": spec.source, "kind": spec.kind, "about": spec.about,
            "overall": overall, "by_av": by_av}


def _fact_view(fact: GoldFact | None, fact_id: str, question: Question) -> dict[str, Any]:
    role = ("support" if fact_id in question.support_ids
            else "stale" if fact_id in question.stale_ids else "other")
    if fact is None:
        return {"id": fact_id, "role": role}
    return {"id": fact_id, "role": role, "text": fact.text, "category": fact.category.value,
            "slot_key": fact.slot_key, "marker": fact.marker.value,
            "state_at_query": fact.state_at(question.query_time).value}


def _failures(system: str, questions: Sequence[Question], rankings: Rankings,
              outcomes: dict[str, Outcome], facts: dict[str, GoldFact]) -> dict[str, Any]:
    """Per attack vector: why ``system`` failed (counts) and the first few failing questions."""
    out: dict[str, Any] = {}
    for av in AttackVector:
        failing = [q for q in questions if q.attack_vector is av and not outcomes[q.id].clean]
        causes = {"missed_support": sum(1 for q in failing if not outcomes[q.id].passed
                                        and not outcomes[q.id].stale),
                  "stale_in_top5": sum(1 for q in failing if outcomes[q.id].passed
                                       and outcomes[q.id].stale),
                  "both": sum(1 for q in failing if not outcomes[q.id].passed
                              and outcomes[q.id].stale)}
        examples = []
        for q in failing[:FAILURES_PER_AV]:
            top = rankings[q.id][system]
            examples.append({
                "question": q.id, "text": q.text, "query_time": q.query_time.isoformat(),
                "split": q.split, "min_support": q.min_support,
                "support": [_fact_view(facts.get(i), i, q) for i in q.support_ids],
                "stale_in_top5": [i for i in top[:STALE_AT] if i in q.stale_ids],
                "top5": [_fact_view(facts.get(i), i, q) for i in top[:STALE_AT]],
            })
        out[av.value] = {"failing": len(failing), "causes": causes, "examples": examples}
    return out


def _robustness(suite: Suite, rankings: Rankings, robust: RobustnessRun) -> dict[str, Any]:
    covered = set(robust.personas)
    questions = [q for q in suite.questions if q.persona in covered]
    clean = {q.id: score(rankings[q.id]["full"], q) for q in questions}

    def rate(outcomes: Sequence[Outcome], attr: str) -> float:
        return float(np.mean([getattr(o, attr) for o in outcomes])) if outcomes else 0.0

    base = {attr: rate(list(clean.values()), attr) for attr in ("passed", "stale", "clean")}
    cells = []
    for cell in GRID:
        cell_rankings = robust.cells[cell.name]
        outcomes = [score(cell_rankings[q.id]["full"], q) for q in questions]
        jaccard = [jaccard_at(cell_rankings[q.id]["full"], rankings[q.id]["full"])
                   for q in questions]
        tau = [kendall_tau_at(cell_rankings[q.id]["full"], rankings[q.id]["full"])
               for q in questions]
        cells.append({
            "name": cell.name, "family": cell.family, "level": cell.level,
            "changed_facts": robust.changed[cell.name],
            "jaccard10": round(float(np.mean(jaccard)) if jaccard else 1.0, 6),
            "kendall_tau": round(float(np.mean(tau)) if tau else 1.0, 6),
            "pass_delta": round(rate(outcomes, "passed") - base["passed"], 6),
            "stale_delta": round(rate(outcomes, "stale") - base["stale"], 6),
            "clean_delta": round(rate(outcomes, "clean") - base["clean"], 6),
        })
    return {"personas": robust.personas, "questions": len(questions),
            "clean_baseline": {"pass": round(base["passed"], 6),
                               "stale": round(base["stale"], 6),
                               "clean": round(base["clean"], 6)},
            "cells": cells}


def build_report(suite: Suite, rankings: Rankings, robust: RobustnessRun,
                 timings: dict[str, float], *, backend: str) -> dict[str, Any]:
    """The whole ``report.json`` document."""
    questions = sorted(suite.questions, key=lambda q: q.id)
    facts = {f.id: f for p in suite.personas for f in p.facts}
    outcomes = {spec.key: {q.id: score(rankings[q.id][spec.key], q) for q in questions}
                for spec in SYSTEMS}
    return {
        "benchmark": "lifecycle", "backend": backend, "seed": suite.seed, "size": suite.size,
        "wording": suite.wording,
        "suite": {
            "personas": len(suite.personas),
            "facts": sum(len(p.facts) for p in suite.personas),
            "questions": len(questions),
            "questions_by_av": {av.value: sum(1 for q in questions if q.attack_vector is av)
                                for av in AttackVector},
            "questions_by_split": {s: sum(1 for q in questions if q.split == s)
                                   for s in ("dev", "heldout")},
        },
        "systems": {spec.key: _system_block(spec, questions, outcomes, suite.seed)
                    for spec in SYSTEMS},
        "failures": {key: _failures(key, questions, rankings, outcomes[key], facts)
                     for key in ("full", "full@inferred")},
        "robustness": _robustness(suite, rankings, robust),
        "timings": timings,
    }


# -- writing -------------------------------------------------------------------------------


def _pct(cell: dict[str, float]) -> str:
    return f"{100 * cell['value']:.1f} [{100 * cell['low']:.0f}–{100 * cell['high']:.0f}]"


def _provenance_lines(block: dict[str, Any] | None) -> list[str]:
    if not block:
        return []
    versions = ", ".join(f"{k} {v}" for k, v in block["versions"].items())
    machine = block["machine"]
    command = " ".join([*(f"{k}={v}" for k, v in block.get("environment", {}).items()),
                        block["command"]])
    return [f"Commit `{block['commit'] or 'unknown'}`, run {block['date']} as "
            f"`{command}` on {machine['system']} ({machine['cpus']} CPUs, "
            f"{machine['memory_gib']} GiB, load {machine['load_average']}); {versions}.", ""]


def _share(scope: dict[str, Any]) -> str:
    """A split's clean pass %, or a dash for a split with no question."""
    return f"{100 * scope['clean']['value']:.1f}" if scope["n"] else "—"


def _wording_lines(name: str | None) -> list[str]:
    if name is None:
        return []
    return [f"Fresh wording `{name}`: every storyline's frames, questions and state clauses "
            "come from text written after the rules froze, so every question is held out "
            "(the dev split is empty).", ""]


def _markdown(data: dict[str, Any]) -> str:
    suite = data["suite"]
    lines = [
        "# LifecycleBench report", "",
        f"Backend `{data['backend']}`, size `{data['size']}`, seed {data['seed']}: "
        f"{suite['personas']} personas, {suite['facts']} facts, {suite['questions']} questions "
        f"(dev {suite['questions_by_split']['dev']}, held-out "
        f"{suite['questions_by_split']['heldout']}).", "",
        *_wording_lines(data.get("wording")),
        "Percentages with 95% bootstrap CIs. clean = pass@10 and not stale@5. "
        "Δ clean and McNemar p are paired against `full` (gold metadata).", "",
        *_provenance_lines(data.get("provenance")),
        "## Systems (all questions)", "",
        "| system | metadata | clean pass | pass@10 | stale@5 | MRR | Δ clean vs full | "
        "McNemar p |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for key, block in data["systems"].items():
        m = block["overall"]["all"]
        versus = m.get("vs_full")
        delta = (f"{100 * versus['clean_diff']['value']:+.1f}" if versus else "—")
        p_value = f"{versus['mcnemar_p']:.3g}" if versus else "—"
        lines.append(f"| `{key}` | {block['source']} | {_pct(m['clean'])} | {_pct(m['pass'])} "
                     f"| {_pct(m['stale'])} | {m['mrr']['value']:.3f} | {delta} | {p_value} |")
    lines += ["", "## Splits (clean pass %)", "", "| system | dev | held-out |",
              "| --- | --- | --- |"]
    for key, block in data["systems"].items():
        o = block["overall"]
        lines.append(f"| `{key}` | {_share(o['dev'])} | {_share(o['heldout'])} |")
    avs = [av.value for av in AttackVector]
    for metric, title in (("clean", "clean pass"), ("pass", "pass@10"), ("stale", "stale@5")):
        lines += ["", f"## Per attack vector: {title} %", "",
                  "| system | " + " | ".join(avs) + " |",
                  "| --- | " + " | ".join("---" for _ in avs) + " |"]
        for key, block in data["systems"].items():
            cells = [f"{100 * block['by_av'][av]['all'][metric]['value']:.0f}" for av in avs]
            lines.append(f"| `{key}` | " + " | ".join(cells) + " |")
    lines += ["", "## Failures of `full` (gold) by attack vector", "",
              "| AV | failing | missed support | stale in top 5 | both |",
              "| --- | --- | --- | --- | --- |"]
    for av, info in data["failures"]["full"].items():
        c = info["causes"]
        lines.append(f"| {av} | {info['failing']} | {c['missed_support']} | "
                     f"{c['stale_in_top5']} | {c['both']} |")
    for av, info in data["failures"]["full"].items():
        for example in info["examples"]:
            lines.append("")
            lines.append(f"- **{av} {example['question']}** ({example['split']}, asked "
                         f"{example['query_time']}): “{example['text']}”")
            for fact in example["support"]:
                lines.append(f"  - support `{fact['id']}` ({fact.get('state_at_query')}): "
                             f"{fact.get('text', '')}")
            for rank, fact in enumerate(example["top5"], start=1):
                lines.append(f"  - top{rank} [{fact['role']}, {fact.get('state_at_query')}] "
                             f"`{fact['id']}`: {fact.get('text', '')}")
    robust = data["robustness"]
    base = robust["clean_baseline"]
    lines += ["", "## Robustness grid (`full`, corrupted gold metadata)", "",
              f"{robust['questions']} questions of {len(robust['personas'])} personas "
              f"({', '.join(robust['personas'])}); clean baseline: pass "
              f"{100 * base['pass']:.1f}%, stale {100 * base['stale']:.1f}%, clean "
              f"{100 * base['clean']:.1f}%.", "",
              "| corruption | facts changed | Jaccard@10 | Kendall τ | Δ pass | Δ stale | "
              "Δ clean |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for cell in robust["cells"]:
        lines.append(f"| {cell['name']} | {cell['changed_facts']} | {cell['jaccard10']:.3f} | "
                     f"{cell['kendall_tau']:.3f} | {100 * cell['pass_delta']:+.1f} | "
                     f"{100 * cell['stale_delta']:+.1f} | {100 * cell['clean_delta']:+.1f} |")
    t = data["timings"]
    lines += ["", "## Timings", "", "| " + " | ".join(t) + " |",
              "| " + " | ".join("---" for _ in t) + " |",
              "| " + " | ".join(str(v) for v in t.values()) + " |", ""]
    return "\n".join(lines)


def _charts(data: dict[str, Any], out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    avs = [av.value for av in AttackVector] + ["all"]
    width = 0.8 / len(CHARTED)
    written: list[Path] = []
    for metric, title in (("clean", "clean pass"), ("pass", "pass@10"), ("stale", "stale@5")):
        fig, ax = plt.subplots(figsize=(11, 4))
        for index, key in enumerate(CHARTED):
            block = data["systems"][key]
            values = [block["by_av"][av]["all"][metric]["value"] for av in avs[:-1]]
            values.append(block["overall"]["all"][metric]["value"])
            ax.bar(np.arange(len(avs)) + index * width, values, width, label=key)
        ax.set_xticks(np.arange(len(avs)) + width * (len(CHARTED) - 1) / 2, avs)
        ax.set_ylim(0, 1)
        ax.set_ylabel(title)
        ax.set_title(f"LifecycleBench {title} per attack vector ({data['backend']})")
        ax.legend(ncols=3, fontsize=8)
        fig.tight_layout()
        path = out / f"{metric}_by_av.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    cells = data["robustness"]["cells"]
    families = list(dict.fromkeys(c["family"] for c in cells))
    fig, axes = plt.subplots(1, len(families), figsize=(3.2 * len(families), 3.4), sharey=True)
    for ax, family in zip(np.atleast_1d(axes), families, strict=True):
        rows = [c for c in cells if c["family"] == family]
        levels = [c["level"] for c in rows]
        for key, label in (("jaccard10", "Jaccard@10"), ("kendall_tau", "Kendall τ"),
                           ("clean_delta", "Δ clean"), ("stale_delta", "Δ stale")):
            ax.plot(levels, [c[key] for c in rows], marker="o", label=label)
        ax.set_title(family, fontsize=9)
        ax.set_xlabel("days" if family == "event_shift" else "rate")
        ax.axhline(0, color="grey", linewidth=0.5)
    np.atleast_1d(axes)[0].legend(fontsize=7)
    fig.suptitle("Robustness of full to corrupted gold metadata")
    fig.tight_layout()
    path = out / "robustness.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)
    return written


def write_report(data: dict[str, Any], out: Path) -> list[Path]:
    """Write ``report.json``, ``report.md`` and the charts into ``out`` (created)."""
    out.mkdir(parents=True, exist_ok=True)
    json_path, md_path = out / "report.json", out / "report.md"
    json_path.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
    md_path.write_text(_markdown(data))
    return [json_path, md_path, *_charts(data, out)]

"""Maintenance: expiry, strength growth and staged settlement of one group (StageMem).

One run per group, in three steps:

1. **Load** (``retention_facts``): every annotated fact with its overlay, its dependents
   (other current facts on its target entity) and its soft contradictions.
2. **Decide** (pure, :mod:`fr_graph.core.retention`): active facts whose date or validity
   interval has passed become ``expired``; new accesses and dependents since the last run
   grow strength (Eqs. 6-7, once per run, so a second run finds nothing new); the validity
   gate and effective strength go through settlement (Eq. 1, stage capacities, ``budget``).
3. **Write** (unless ``dry_run``): each summary's ``RELATES_TO`` through Graphiti's save (as
   import does), then one atomic ``apply_retention`` query with the summaries' ``FrFact``
   nodes, every stage / state / strength change, ``FR_COMPRESSES`` provenance edges and the
   mirror. A re-run after a crash makes the same decisions (summary ids are uuid5 of their
   originals), so maintenance is idempotent.

Compressed and evicted facts become ``archived``: excluded from default retrieval, kept,
restorable (``archived_from`` records the state to return to). Nothing is deleted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

import numpy as np

from fr_graph._graphiti import EntityEdge, Graphiti
from fr_graph.core.lifecycle import LifecycleState, Marker
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.retention import (
    STAGE_CODE,
    STAGES,
    STATE_INDEX,
    Action,
    Reason,
    Settlement,
    effective_strength,
    evidence_shock,
    gate_confidence,
    grow_strength,
    settle,
)
from fr_graph.core.validity import is_expired_by_date
from fr_graph.overlay import FactOverlay, from_iso, stable_uuid, to_iso
from fr_graph.pipeline.ingest import mirror_attributes
from fr_graph.pipeline.vectors import FactEmbedders, write_lifecycle_vectors
from fr_graph.stores.base import GraphStore

_STATES: Final = tuple(LifecycleState)
_STRENGTH_EPS: Final = 1e-9
SUMMARY_PREDICATE: Final = "SUMMARIZES"


@dataclass(frozen=True, slots=True)
class Move:
    """One fact maintenance changed: stage and state before and after, and why."""

    uuid: str
    fact: str
    action: str
    reason: str
    from_stage: str
    to_stage: str
    from_state: str
    to_state: str
    strength_before: float
    strength_after: float
    confidence: float


@dataclass(frozen=True, slots=True)
class Summary:
    """A summary fact written by compression, with the originals it keeps links to."""

    uuid: str
    fact: str
    stage: str
    originals: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RetentionChange:
    """The outcome of pin, unpin or restore on one fact (``pinned`` None: not reported;
    ``note``: what else restore did or why it left the fact alone)."""

    uuid: str
    group_id: str
    pinned: bool | None
    state: str
    stage: str
    changed: bool
    note: str | None = None


@dataclass(slots=True)
class MaintenanceReport:
    """What one group's maintenance did (or, with ``dry_run``, would do)."""

    group_id: str
    dry_run: bool
    now: datetime
    facts: int = 0
    moves: list[Move] = field(default_factory=list)
    summaries: list[Summary] = field(default_factory=list)
    load_before: tuple[int, int, int] = (0, 0, 0)
    load_after: tuple[int, int, int] = (0, 0, 0)
    capacities: tuple[int | None, int | None, int | None] = (None, None, None)
    budget: int | None = None
    budget_hit: bool = False
    over_budget: bool = False

    @property
    def counts(self) -> Counter[str]:
        """Moves by action (``promote``, ``demote``, ``compress``, ``evict``, ``expire``,
        ``reinforce``)."""
        return Counter(move.action for move in self.moves)

    def to_json(self) -> dict[str, Any]:
        return {
            "group_id": self.group_id, "dry_run": self.dry_run, "now": to_iso(self.now),
            "facts": self.facts, "counts": dict(self.counts),
            "load_before": dict(zip(STAGES, self.load_before, strict=True)),
            "load_after": dict(zip(STAGES, self.load_after, strict=True)),
            "capacities": dict(zip(STAGES, self.capacities, strict=True)),
            "budget": self.budget, "budget_hit": self.budget_hit,
            "over_budget": self.over_budget,
            "moves": [{**_asdict(m)} for m in self.moves],
            "summaries": [{"uuid": s.uuid, "fact": s.fact, "stage": s.stage,
                           "originals": list(s.originals)} for s in self.summaries],
        }


def _asdict(move: Move) -> dict[str, Any]:
    return {name: getattr(move, name) for name in Move.__dataclass_fields__}


@dataclass(slots=True)
class _Group:
    """The loaded facts of one group as columns (row order = query order)."""

    rows: list[dict[str, Any]]
    overlays: list[FactOverlay]

    def column(self, name: str, dtype: type = np.float64) -> np.ndarray:
        return np.array([getattr(o, name) for o in self.overlays], dtype=dtype)


def summary_text(facts: Sequence[str], category: str) -> str:
    """The text of a summary: every original verbatim (numbers included), duplicates once."""
    unique = list(dict.fromkeys(" ".join(f.split()).rstrip(".") for f in facts))
    return f"Summary of {len(unique)} {category} facts: " + "; ".join(unique) + "."


async def maintain_group(store: GraphStore, embedders: FactEmbedders,
                         graphiti_for: Callable[[str], Graphiti], group_id: str,
                         policy: PolicyTable, *, now: datetime, budget: int | None = None,
                         dry_run: bool = False) -> MaintenanceReport:
    """Expire, reinforce and settle one group; see the module docstring."""
    retention = policy.retention
    report = MaintenanceReport(group_id=group_id, dry_run=dry_run, now=now,
                               capacities=retention.capacities, budget=budget)
    if not await store.has_group(group_id):
        return report
    rows = await store.run("retention_facts", group_id, group_id=group_id)
    group = _Group(rows, [FactOverlay.from_row({**(r["overlay"] or {}), "group_id": group_id})
                          for r in rows])
    report.facts = len(rows)
    if not rows:
        return report
    stamp = to_iso(now)
    overlays = group.overlays
    state_before = [o.state for o in overlays]
    state = [_expire(o, now, policy) for o in overlays]
    stage = np.array([STAGE_CODE[o.stage] for o in overlays], dtype=np.intp)
    state_code = np.array([STATE_INDEX[s] for s in state], dtype=np.intp)
    confidence = group.column("confidence")
    strength_before = group.column("strength")
    pinned = group.column("pinned", bool)

    # Strength growth from evidence beyond the high-water mark of what it already absorbed.
    dependents = np.array([int(r["dependents"] or 0) for r in rows])
    evidence = group.column("access_count", np.int64) + dependents
    seen = group.column("evidence_seen", np.int64)
    fresh = np.maximum(evidence - seen, 0)
    grows = (fresh > 0) & (state_code == STATE_INDEX[LifecycleState.ACTIVE])
    strength = strength_before.copy()
    if grows.any():
        strength[grows] = grow_strength(strength[grows], confidence[grows],
                                        evidence_shock(fresh[grows], retention), stage[grows],
                                        retention)
    seen_after = np.maximum(seen, evidence)

    conflicts = np.array([int(r["conflicts"] or 0) for r in rows])
    gate = gate_confidence(confidence, state_code, conflicts, strength, stage, retention)
    keys = _compress_keys(overlays)
    observed = np.array([_epoch(o.observed_at) for o in overlays])
    settlement = settle(stage=stage, state=state_code, confidence=gate,
                        strength=effective_strength(strength, pinned, retention),
                        pinned=pinned, observed_at=observed, compress_key=keys,
                        policy=retention, budget=budget)
    report.load_before, report.load_after = settlement.load_before, settlement.load_after
    report.budget_hit, report.over_budget = settlement.budget_hit, settlement.over_budget

    summaries, summary_rows, links = _summaries(group, settlement, stamp, now)
    report.summaries = summaries
    moves: list[dict[str, Any]] = []
    for i, overlay in enumerate(overlays):
        action = Action(int(settlement.action[i]))
        new_stage = STAGES[int(settlement.stage[i])]
        new_state = LifecycleState.ARCHIVED if settlement.leaving[i] else state[i]
        expired = state[i] is not state_before[i]
        grew = strength[i] > strength_before[i] + _STRENGTH_EPS
        changed = new_stage is not overlay.stage or new_state is not state_before[i]
        if not (changed or grew or seen_after[i] != seen[i]):
            continue
        moves.append({
            "edge_uuid": overlay.edge_uuid, "stage": new_stage.value, "state": new_state.value,
            "archived_from": (state[i].value if new_state is LifecycleState.ARCHIVED
                              else overlay.archived_from),
            "strength": float(strength[i]), "dependency": int(dependents[i]),
            "evidence_seen": int(seen_after[i]), "settled_at": stamp,
        })
        if not (changed or grew):
            continue  # bookkeeping only: the evidence high-water mark moved
        report.moves.append(Move(
            uuid=overlay.edge_uuid, fact=str(rows[i]["fact"] or ""),
            action=_action_name(action, expired, grew), reason=_reason(
                action, Reason(int(settlement.reason[i])), expired, grew, state[i]),
            from_stage=overlay.stage.value, to_stage=new_stage.value,
            from_state=state_before[i].value, to_state=new_state.value,
            strength_before=float(strength_before[i]), strength_after=float(strength[i]),
            confidence=float(gate[i])))
    if dry_run or not (moves or summary_rows):
        return report
    await _save_summary_edges(store, graphiti_for(group_id), embedders, group, settlement,
                              summaries, summary_rows, now)
    touched = [m["edge_uuid"] for m in moves] + [s.uuid for s in summaries]
    await store.run("apply_retention", group_id, summaries=[o.to_row() for o in summary_rows],
                    moves=moves, links=links, mirror=touched)
    return report


def _expire(overlay: FactOverlay, now: datetime, policy: PolicyTable) -> LifecycleState:
    """An active fact whose validity interval closed or whose dated event passed the expiry
    buffer (guarded categories, numbers exempt: App. H, K) becomes ``expired``."""
    if overlay.state is not LifecycleState.ACTIVE:
        return overlay.state
    valid_to = from_iso(overlay.valid_to)
    weights = dict(zip(overlay.categories, overlay.category_weights, strict=False))
    if (valid_to is not None and valid_to <= now) or is_expired_by_date(
            from_iso(overlay.event_time), {Category(c): w for c, w in weights.items()}, now,
            policy, has_number=overlay.has_number):
        return LifecycleState.EXPIRED
    return overlay.state


def _epoch(value: str | None) -> float:
    moment = from_iso(value)
    return moment.timestamp() if moment else 0.0


def _compress_keys(overlays: Sequence[FactOverlay]) -> np.ndarray:
    """Facts compress together when they share a primary category (slot keys are too fine:
    same-slot facts mostly supersede each other, and inactive facts are evicted, never
    compressed)."""
    codes: dict[str, int] = {}
    return np.array([codes.setdefault(o.category.value, len(codes)) for o in overlays],
                    dtype=np.intp)


def _action_name(action: Action, expired: bool, grew: bool) -> str:
    if action is not Action.KEEP:
        return action.name.lower()
    return "expire" if expired else "reinforce" if grew else "keep"


def _reason(action: Action, reason: Reason, expired: bool, grew: bool,
            state: LifecycleState) -> str:
    parts = []
    if expired:
        parts.append("event date or validity interval passed")
    if grew:
        parts.append("new accesses or dependents grew strength")
    if action is not Action.KEEP or reason is Reason.DURABLE_FULL:
        parts.append(reason.label)
    if action in (Action.COMPRESS, Action.EVICT) and state is not LifecycleState.ACTIVE:
        parts.append(f"was {state.value}")
    return "; ".join(p for p in parts if p)


def _summaries(group: _Group, settlement: Settlement, stamp: str | None, now: datetime
               ) -> tuple[list[Summary], list[FactOverlay], list[dict[str, Any]]]:
    out: list[Summary] = []
    overlays_out: list[FactOverlay] = []
    links: list[dict[str, Any]] = []
    for index, (_, stage_code) in enumerate(settlement.summaries):
        members = np.flatnonzero(settlement.summary == index)
        originals = [group.overlays[i] for i in members]
        ids = sorted(o.edge_uuid for o in originals)
        uuid = stable_uuid(originals[0].group_id, "summary", *ids)
        category = Counter(o.category for o in originals).most_common(1)[0][0]
        text = summary_text([str(group.rows[i]["fact"] or "") for i in members],
                            category.value)
        observed = max((o.observed_at or "" for o in originals), default="") or stamp
        overlays_out.append(FactOverlay(
            edge_uuid=uuid, group_id=originals[0].group_id, category=category,
            categories=[category.value], category_weights=[1.0], slot_key=None,
            state=LifecycleState.ACTIVE, marker=Marker.ASSERTION,
            valid_from=observed, observed_at=observed,
            confidence=float(np.mean([o.confidence for o in originals])),
            strength=float(max(o.strength for o in originals)),
            stage=STAGES[stage_code], source_id=f"summary:{uuid}",
            has_number=any(o.has_number for o in originals), settled_at=stamp,
        ))
        out.append(Summary(uuid=uuid, fact=text, stage=STAGES[stage_code].value,
                           originals=tuple(ids)))
        links += [{"summary": uuid, "original": i, "at": stamp,
                   "reason": "compressed under capacity pressure"} for i in ids]
    return out, overlays_out, links


async def _save_summary_edges(store: GraphStore, graphiti: Graphiti, embedders: FactEmbedders,
                              group: _Group,
                              settlement: Settlement, summaries: Sequence[Summary],
                              overlays: Sequence[FactOverlay], now: datetime) -> None:
    """Each summary's ``RELATES_TO`` through Graphiti's save, between the endpoints of its
    first original (as import writes facts)."""
    if not summaries:
        return
    vectors = await embedders.graph_vectors([s.fact for s in summaries])
    edges = []
    for index, (summary, overlay, vector) in enumerate(
            zip(summaries, overlays, vectors, strict=True)):
        first = group.rows[int(np.flatnonzero(settlement.summary == index)[0])]
        observed = from_iso(overlay.observed_at) or now
        edges.append(EntityEdge(
            uuid=summary.uuid, group_id=overlay.group_id,
            source_node_uuid=first["source_uuid"], target_node_uuid=first["target_uuid"],
            name=SUMMARY_PREDICATE, fact=summary.fact, fact_embedding=vector,
            episodes=[], created_at=now.astimezone(UTC), valid_at=observed, invalid_at=None,
            expired_at=None, attributes=mirror_attributes(overlay)))
    await graphiti.edges.entity.save_bulk(edges)
    if not embedders.shared:
        await write_lifecycle_vectors(store, overlays[0].group_id, embedders.local,
                                      [(s.uuid, s.fact) for s in summaries])


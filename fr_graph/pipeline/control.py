"""User control over stored facts: recategorize, forget (retract) and purge (hard delete).

- **recategorize** sets a fact's category (and weights) on its ``FrFact``, re-applies the
  ``fr_*`` mirror (revision + 1) and records an ``(:FrRequest {action: 'recategorize',
  from_category, to_category, at, reason})-[:FR_REQUESTED]->(:FrFact)``. The fact then ranks
  with its new category's policy. Slot chains already decided are not re-decided.
- **forget** retracts facts by uuid or a whole slot (its key and the keys under it) through
  the lifecycle machinery (:meth:`~fr_graph.pipeline.lifecycle.Planner.retract_on_request`,
  written by ``apply_lifecycle``: state, validity, Graphiti's ``invalid_at``, mirror) and
  records the transition as ``(:FrRequest {action: 'forget'})-[:FR_SUPERSEDES {kind:
  'retract', reason: 'user request'}]->(:FrFact)``. Nothing is deleted.
- **restore** undoes an automatic change of one fact, in one unit of work
  (:func:`restore`). An archived fact returns to the state it had and, when that is
  ``active``, re-enters its slot as if it arrived now (:meth:`Planner.reenter`): a newer
  value of the slot supersedes it, or it supersedes the older ones, each link saying it
  happened on restore (restore it again to undo that). Otherwise the automatic links acting
  on it become ``reverted`` (``revert_links``) and it is active again; if its slot holds
  another active fact, the two are kept side by side by a ``reverted`` link
  (``keep_beside``), so neither ``check`` nor a later import sees two heads. A fact the
  user forgot stays retracted: forget is the user's own decision, not an automatic one.
- **purge** is the only delete path. For facts: the sentences holding the fact's text are
  removed from entity, community and saga summaries and from episode content
  (:mod:`fr_graph.core.redaction`); an episode left empty is deleted with its edges, and
  Graphiti's ``NEXT_EPISODE`` chain is bridged over it (``bridge_episodes``); a
  purged middle version's ``FR_SUPERSEDES`` links are bridged (``relink_purged``); then the
  ``RELATES_TO`` (its embedding and every index entry go with it), the ``FrFact`` and the
  requests about it are deleted. A retention summary that compressed the fact (it quotes
  its originals verbatim) is rebuilt from its other originals and re-embedded, or purged
  with it when it compressed nothing else. For a group: every node and relationship of the group
  (the whole graph on FalkorDB). Either way an ``FrAudit`` record keeps ids, counts, time
  and reason, never content, in :data:`~fr_graph.stores.base.AUDIT_GRAPH`.
"""

from __future__ import annotations

import uuid as uuidlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.redaction import fact_phrases, mentions, redact
from fr_graph.errors import InputError, NotFoundError
from fr_graph.overlay import stable_uuid, to_iso
from fr_graph.pipeline.lifecycle import Link, Planner
from fr_graph.pipeline.maintain import RetentionChange, summary_text
from fr_graph.pipeline.vectors import FactEmbedders
from fr_graph.stores.base import AUDIT_GRAPH, GraphStore, QueryRunner

#: Labels whose ``summary`` Graphiti writes from facts; episodes keep theirs in ``content``.
SUMMARY_LABELS = ("Entity", "Community", "Saga")


@dataclass(slots=True)
class RecategorizeReport:
    uuid: str
    group_id: str
    previous: str | None
    category: str
    categories: dict[str, float]

    def to_json(self) -> dict[str, Any]:
        return {"uuid": self.uuid, "group_id": self.group_id, "previous": self.previous,
                "category": self.category, "categories": self.categories}


@dataclass(slots=True)
class ForgetReport:
    group_id: str
    retracted: list[str] = field(default_factory=list)
    already_retracted: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"group_id": self.group_id, "retracted": self.retracted,
                "already_retracted": self.already_retracted}


@dataclass(slots=True)
class PurgeReport:
    """What a purge deleted and cleaned. ``not_cleaned`` names text that may still restate
    a purged fact in other words (a paraphrase cannot be found by its text)."""

    group_id: str
    audit_id: str
    facts: list[str] = field(default_factory=list)
    group_deleted: bool = False
    nodes_deleted: int = 0
    relinked: int = 0
    summary_facts_rebuilt: list[str] = field(default_factory=list)
    summaries_cleaned: list[str] = field(default_factory=list)
    episodes_redacted: list[str] = field(default_factory=list)
    episodes_deleted: list[str] = field(default_factory=list)
    not_cleaned: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def category_weights(category: str, weights: Mapping[str, float] | None
                     ) -> tuple[Category, dict[str, float]]:
    """Validate a category and optional weights (normalized to sum 1; the category needs a
    positive weight). Raises InputError naming the bad value."""
    valid = ", ".join(c.value for c in Category)
    if category not in {c.value for c in Category}:
        raise InputError(f"CATEGORY {category!r}: use one of {valid}")
    chosen = dict(weights or {category: 1.0})
    for name, weight in chosen.items():
        if name not in {c.value for c in Category}:
            raise InputError(f"--weights {name!r}: use one of {valid}")
        if not weight >= 0.0 or weight == float("inf"):
            raise InputError(f"--weights {name}={weight}: must be a finite weight >= 0")
    if chosen.get(category, 0.0) <= 0.0:
        raise InputError(f"--weights: CATEGORY {category!r} needs a positive weight")
    total = sum(chosen.values())
    ordered = {c.value: chosen[c.value] / total for c in Category if chosen.get(c.value, 0) > 0}
    return Category(category), ordered


async def control_facts(store: GraphStore, group_id: str, uuids: Sequence[str]
                        ) -> list[dict[str, Any]]:
    """The rows of ``control_facts`` for ``uuids``, in their order; NotFoundError names the
    first uuid that is not a fact of the group."""
    rows = await store.run("control_facts", group_id, group_id=group_id,
                           edge_uuids=list(uuids))
    by_uuid = {row["uuid"]: row for row in rows}
    for uuid in uuids:
        if uuid not in by_uuid:
            raise NotFoundError(f"fact {uuid}: not found in group {group_id!r}")
    return [by_uuid[uuid] for uuid in uuids]


async def recategorize(store: GraphStore, group_id: str, uuid: str, category: str,
                       weights: Mapping[str, float] | None, *, now: datetime,
                       reason: str | None) -> RecategorizeReport:
    primary, ordered = category_weights(category, weights)
    [row] = await control_facts(store, group_id, [uuid])
    if not row["annotated"]:
        raise NotFoundError(f"fact {uuid}: has no fr-graph overlay yet (run `fr-graph "
                            "backfill` first)")
    at = to_iso(now)

    async def write(runner: QueryRunner) -> str | None:
        done = await runner.run(
            "recategorize_fact", group_id, edge_uuid=uuid, group_id=group_id,
            request_uuid=str(uuidlib.uuid4()), category=primary.value,
            categories=list(ordered), category_weights=list(ordered.values()),
            at=at, reason=reason)
        await runner.run("apply_mirror", group_id, edge_uuids=[uuid])
        return done[0]["previous"] if done else None

    previous = await store.transact(group_id, write)
    return RecategorizeReport(uuid, group_id, previous, primary.value, ordered)


async def forget(store: GraphStore, group_id: str, policy: PolicyTable, *,
                 uuids: Sequence[str] = (), slot_key: str | None = None, now: datetime,
                 reason: str | None) -> ForgetReport:
    """Retract ``uuids`` or every fact of ``slot_key`` (and the slots under it) on request."""
    if slot_key is not None:
        params = {"group_id": group_id, "keys": [slot_key], "prefixes": [slot_key + "|"],
                  "edge_uuids": []}
        if not await store.run("lifecycle_facts", group_id, **params):
            raise NotFoundError(f"--slot {slot_key!r}: no facts with that slot key in group "
                                f"{group_id!r}")
    else:
        for row in await control_facts(store, group_id, uuids):
            if not row["annotated"]:
                raise NotFoundError(f"fact {row['uuid']}: has no fr-graph overlay yet (run "
                                    "`fr-graph backfill` first)")
        params = {"group_id": group_id, "keys": [], "prefixes": [],
                  "edge_uuids": sorted(set(uuids))}
    at = to_iso(now)

    async def decide_and_write(runner: QueryRunner) -> ForgetReport:
        report = ForgetReport(group_id)
        stored = await runner.run("lifecycle_facts", group_id, **params)
        planner = Planner(policy, stored)
        for row in sorted(stored, key=lambda r: r["edge_uuid"]):
            fact_id = row["edge_uuid"]
            retracted = planner.retract_on_request(fact_id, now)
            (report.retracted if retracted else report.already_retracted).append(fact_id)
        write = planner.write_params(now)
        if write["updates"]:
            await runner.run("apply_lifecycle", group_id, **write)
        # Every fact gets its request edge, also one retracted before (a re-run completes it).
        await runner.run("record_forget_requests", group_id, group_id=group_id, at=at,
                         reason=reason,
                         requests=[{"edge_uuid": r["edge_uuid"],
                                    "request_uuid": stable_uuid(group_id, "forget",
                                                                r["edge_uuid"])}
                                   for r in stored])
        return report

    return await store.transact(group_id, decide_and_write)


#: What restore says about a fact a forget request retracted.
FORGOTTEN_NOTE = ("forgotten on request (fr-graph forget): restore undoes automatic changes "
                  "only, so the fact stays retracted")
_VERBS = {"supersede": "supersedes", "soft": "contests", "retract": "retracts",
          "complete": "completes", "contradict": "contradicts"}


async def restore(store: GraphStore, group_id: str, policy: PolicyTable, uuid: str, *,
                  now: datetime, reason: str) -> RetentionChange:
    """Undo an automatic lifecycle change of one fact (see the module doc), keeping one
    head per slot. ``changed`` is False when there was nothing to undo; ``note`` says what
    the slot did to the restored fact, or why it was left alone."""
    at = to_iso(now)

    async def work(runner: QueryRunner) -> RetentionChange | None:
        rows = await runner.run("restore_fact", group_id, edge_uuid=uuid)
        if not rows:
            return None  # raised outside: the store wraps errors raised inside a unit
        row = rows[0]
        spared = [str(u) for u in row["reverted_with"] or []]
        stage = str(row["stage"])
        if row["was_archived"]:
            state, note = await _reenter(runner, group_id, policy, uuid, row, spared, now)
            await runner.run("apply_mirror", group_id, edge_uuids=[uuid])
            return RetentionChange(uuid, group_id, None, state, stage, changed=True, note=note)
        if row["forgotten"]:
            return RetentionChange(uuid, group_id, None, str(row["state"]), stage,
                                   changed=False, note=FORGOTTEN_NOTE)
        reverted = await runner.run("revert_links", group_id, edge_uuid=uuid, at=at,
                                    reason=reason)
        if not reverted:
            return RetentionChange(uuid, group_id, None, str(row["state"]), stage,
                                   changed=False)
        note = await _keep_beside(runner, group_id, policy, uuid, reverted[0],
                                  [*spared, *reverted[0]["partners"]], at, reason)
        await runner.run("apply_mirror", group_id, edge_uuids=[uuid])
        return RetentionChange(uuid, group_id, None, str(reverted[0]["state"]), stage,
                               changed=True, note=note)

    change = await store.transact(group_id, work)
    if change is None:
        raise NotFoundError(f"fact {uuid}: no overlay in group {group_id!r} (backfill it)")
    return change


def _slot_params(group_id: str, slot_key: str, uuid: str) -> dict[str, Any]:
    """``lifecycle_facts`` parameters for one fact's slot, the slots above it (a retraction
    of a whole plan) and those under it."""
    parts = slot_key.split("|")
    return {"group_id": group_id, "keys": ["|".join(parts[:n]) for n in range(1, len(parts) + 1)],
            "prefixes": [slot_key + "|"], "edge_uuids": [uuid]}


async def _reenter(runner: QueryRunner, group_id: str, policy: PolicyTable, uuid: str,
                   row: Mapping[str, Any], spared: Sequence[str], now: datetime
                   ) -> tuple[str, str | None]:
    """Decide a fact back from the archive in its slot; returns its state and a note."""
    state, slot_key = str(row["state"]), row["slot_key"]
    if not slot_key:
        return state, None
    planner = Planner(policy, await runner.run("lifecycle_facts", group_id,
                                               **_slot_params(group_id, slot_key, uuid)))
    planner.reenter(uuid, spared)
    write = planner.write_params(now)
    if write["updates"] or write["links"]:
        await runner.run("apply_lifecycle", group_id, **write)
    mine = [link for link in planner.links.values() if uuid in (link.newer, link.older)]
    if not mine:
        return str(planner.facts[uuid].state), None
    return str(planner.facts[uuid].state), (
        f"back from the archive into slot {slot_key!r}, which changed meanwhile: "
        + "; ".join(_describe(link, uuid) for link in mine)
        + " (restore a fact again to undo a link)")


def _describe(link: Link, uuid: str) -> str:
    verb = _VERBS.get(str(link.kind), str(link.kind))
    return f"{link.newer} {verb} it" if link.older == uuid else f"it {verb} {link.older}"


async def _keep_beside(runner: QueryRunner, group_id: str, policy: PolicyTable, uuid: str,
                       reverted: Mapping[str, Any], spared: Sequence[str], at: str | None,
                       reason: str) -> str | None:
    """Keep a fact whose links were just reverted beside the other active facts of its slot
    (reverted links, newer -> older); returns a note naming them, None when alone."""
    slot_key = reverted["slot_key"]
    if not slot_key:
        return None
    planner = Planner(policy, await runner.run("lifecycle_facts", group_id, group_id=group_id,
                                               keys=[slot_key], prefixes=[],
                                               edge_uuids=[uuid]))
    heads = planner.clashing_heads(uuid, spared)
    if not heads:
        return None
    pairs = []
    for head in heads:
        a, b = planner.facts[uuid], planner.facts[head]
        newer, older = (a, b) if (a.observed_at or "", a.id) > (b.observed_at or "", b.id) \
            else (b, a)
        pairs.append({"newer": newer.id, "older": older.id,
                      "reason": f"{reason} (kept beside the current value of slot "
                                f"{slot_key!r}: both active)"})
    await runner.run("keep_beside", group_id, pairs=pairs, at=at)
    return (f"kept beside the current value of slot {slot_key!r} ({', '.join(heads)}): both "
            "active, recorded as a reverted link")


async def _write_audit(store: GraphStore, *, action: str, group_id: str,
                       targets: Sequence[str], facts: int, now: datetime,
                       reason: str | None) -> str:
    audit_id = str(uuidlib.uuid4())
    await store.run("write_audit", AUDIT_GRAPH, id=audit_id, action=action, group_id=group_id,
                    target_uuids=list(targets), facts=facts, at=to_iso(now), reason=reason)
    return audit_id


async def _rebuild_summaries(store: GraphStore, embedders: FactEmbedders, group_id: str,
                             uuids: Sequence[str]) -> tuple[list[str], list[str]]:
    """Rebuild the compression summaries quoting ``uuids`` from their other originals.
    Returns the summaries rebuilt and those that compressed only purged facts (to purge)."""
    rebuilt: list[str] = []
    emptied: list[str] = []
    for row in await store.run("compressed_into", group_id, edge_uuids=list(uuids)):
        if not row["kept"]:
            emptied.append(row["summary_uuid"])
            continue
        text = summary_text([str(k) for k in row["kept"]], str(row["category"]))
        [graph_vector] = await embedders.graph_vectors([text])
        await store.run("rewrite_fact_text", group_id, edge_uuid=row["summary_uuid"],
                        fact=text, embedding=graph_vector,
                        lifecycle_embedding=embedders.local.embed_passages([text])[0].tolist())
        rebuilt.append(row["summary_uuid"])
    return rebuilt, emptied


def episode_bridges(group_id: str, links: Sequence[tuple[str, str]], deleted: set[str]
                    ) -> list[dict[str, str]]:
    """NEXT_EPISODE edges that keep a saga's episode chain whole when ``deleted`` go: from
    each surviving episode whose next is deleted to the first surviving one after it (none
    when the chain ends among the deleted)."""
    following = dict(links)
    bridges: list[dict[str, str]] = []
    for source, first in links:
        if source in deleted or first not in deleted:
            continue
        target: str | None = first
        seen: set[str] = set()
        while target is not None and target in deleted and target not in seen:  # no cycles
            seen.add(target)
            target = following.get(target)
        if target is not None and target not in deleted:
            bridges.append({"uuid": stable_uuid(group_id, "next_episode", source, target),
                            "source": source, "first": first, "target": target})
    return bridges


async def purge_facts(store: GraphStore, embedders: FactEmbedders, group_id: str,
                      uuids: Sequence[str], *, now: datetime, reason: str | None,
                      audit: bool = True) -> PurgeReport:
    """Hard-delete facts and clean their text from Graphiti's prose (see the module doc).
    ``audit=False``: the caller writes the audit record (one per user request).

    Order makes a re-run safe: summaries and prose first (idempotent), then chains and the
    facts, then the audit record. A fact already deleted is reported as not found.
    """
    uuids = list(dict.fromkeys(uuids))
    rows = await control_facts(store, group_id, uuids)
    rebuilt, summaries_left_empty = await _rebuild_summaries(store, embedders, group_id, uuids)
    uuids += [u for u in summaries_left_empty if u not in uuids]
    rows += await control_facts(store, group_id, summaries_left_empty)
    texts = [row["fact"] or "" for row in rows]
    endpoints = sorted({u for row in rows for u in (row["source_uuid"], row["target_uuid"])})
    episodes = sorted({e for row in rows for e in row["episodes"] or []})
    holders = await store.run(
        "text_holders", group_id, group_id=group_id, node_uuids=endpoints,
        episode_uuids=episodes, probes=sorted({p for t in texts for p in fact_phrases(t)}))
    report = PurgeReport(group_id=group_id, audit_id="", facts=uuids,
                         summary_facts_rebuilt=rebuilt)
    rewrites: dict[str, list[dict[str, str]]] = {label: [] for label in
                                                 (*SUMMARY_LABELS, "Episodic")}
    emptied: list[str] = []
    for holder in holders:
        result = redact(holder["text"] or "", *texts)
        where = f"{holder['label']} {holder['uuid']}"
        if result.paraphrases:
            report.not_cleaned.append(f"{where}: {len(result.paraphrases)} sentence(s) may "
                                      "restate a purged fact in other words (left as is)")
        if not result.removed:
            continue
        if holder["label"] == "Episodic" and result.empty:
            emptied.append(holder["uuid"])
            continue
        if mentions(result.text, *texts):
            report.not_cleaned.append(f"{where}: the fact text spans sentences (left as is)")
        rewrites[holder["label"]].append({"uuid": holder["uuid"], "text": result.text})
        (report.episodes_redacted if holder["label"] == "Episodic"
         else report.summaries_cleaned).append(holder["uuid"])
    report.episodes_deleted = emptied

    if any(rewrites.values()):
        await store.run("redact_texts", group_id, entities=rewrites["Entity"],
                        communities=rewrites["Community"], sagas=rewrites["Saga"],
                        episodes=rewrites["Episodic"])
    if emptied:
        links = await store.run("episode_links", group_id, group_id=group_id,
                                episode_uuids=emptied)
        bridges = episode_bridges(group_id, [(r["source_uuid"], r["target_uuid"]) for r in links],
                                  set(emptied))
        if bridges:
            await store.run("bridge_episodes", group_id, group_id=group_id, bridges=bridges)
        await store.run("delete_episodes", group_id, group_id=group_id, episode_uuids=emptied)

    async def delete(runner: QueryRunner) -> int:
        relinked = 0
        for uuid in uuids:
            relinked += len(await runner.run("relink_purged", group_id, edge_uuid=uuid))
        await runner.run("purge_facts", group_id, group_id=group_id, edge_uuids=uuids,
                         episode_uuids=[e for e in episodes if e not in emptied])
        return relinked

    report.relinked = await store.transact(group_id, delete)
    if audit:
        report.audit_id = await _write_audit(store, action="purge", group_id=group_id,
                                             targets=uuids, facts=len(uuids), now=now,
                                             reason=reason)
    return report


async def purge_episode(store: GraphStore, embedders: FactEmbedders, group_id: str,
                        episode_uuid: str, *, now: datetime, reason: str | None
                        ) -> PurgeReport:
    """Delete an episode: every fact only it supports is purged (as :func:`purge_facts`),
    facts other episodes also support stay, and the episode goes with its edges, Graphiti's
    ``NEXT_EPISODE`` chain bridged over it. One audit record covers it all."""
    if not await store.has_group(group_id) or not await store.run(
            "episode_exists", group_id, group_id=group_id, episode_uuid=episode_uuid):
        raise NotFoundError(f"episode {episode_uuid}: not found in group {group_id!r}")
    rows = await store.run("episode_facts", group_id, group_id=group_id,
                           episode_uuid=episode_uuid)
    only_here = [str(r["uuid"]) for r in rows if int(r["sources"]) <= 1]
    report = (await purge_facts(store, embedders, group_id, only_here, now=now, reason=reason,
                                audit=False) if only_here
              else PurgeReport(group_id=group_id, audit_id=""))
    if episode_uuid not in report.episodes_deleted:
        links = await store.run("episode_links", group_id, group_id=group_id,
                                episode_uuids=[episode_uuid])
        bridges = episode_bridges(group_id, [(r["source_uuid"], r["target_uuid"])
                                             for r in links], {episode_uuid})
        if bridges:
            await store.run("bridge_episodes", group_id, group_id=group_id, bridges=bridges)
        await store.run("delete_episodes", group_id, group_id=group_id,
                        episode_uuids=[episode_uuid])
        report.episodes_deleted.append(episode_uuid)
    report.audit_id = await _write_audit(store, action="purge_episode", group_id=group_id,
                                         targets=[episode_uuid, *only_here],
                                         facts=len(only_here), now=now, reason=reason)
    return report


async def purge_group(store: GraphStore, group_id: str, *, now: datetime,
                      reason: str | None) -> PurgeReport:
    """Delete every node and relationship of ``group_id`` (other groups are untouched)."""
    facts = 0
    if await store.has_group(group_id):
        census = await store.run("group_census", group_id, group_id=group_id)
        facts = sum(int(row["facts"]) for row in census)
    deleted = await store.drop_group(group_id)
    if not deleted:
        raise NotFoundError(f"group {group_id!r}: no such group")
    audit_id = await _write_audit(store, action="purge_group", group_id=group_id, targets=[],
                                  facts=facts, now=now, reason=reason)
    return PurgeReport(group_id=group_id, audit_id=audit_id, group_deleted=True,
                       nodes_deleted=deleted)


async def audit_records(store: GraphStore, group_id: str | None) -> list[dict[str, Any]]:
    return await store.run("audit_records", AUDIT_GRAPH, group_id=group_id)

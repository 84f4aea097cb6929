"""Import: JSONL records -> classified facts -> Graphiti's schema + the overlay.

Facts are written through Graphiti's own persistence (its namespace save API, no LLM),
with deterministic uuids so that importing a record twice creates nothing new. The write
order (entities, then the ``RELATES_TO`` edges, then one atomic query with the ``FrFact``
overlays, the lifecycle transitions they cause and the mirror; see
:mod:`fr_graph.pipeline.lifecycle`) makes an interrupted import safe to rerun: a record
counts as imported only once its overlay node exists, and a chunk's overlays and
transitions are written together or not at all. A chunk's writes run inside the group's
unit of work (:meth:`~fr_graph.stores.base.GraphStore.transact`), so concurrent imports
into one group neither duplicate entities nor decide from a stale slot.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial

from fr_graph._graphiti import EntityEdge, EntityNode, EpisodeType, EpisodicNode, Graphiti
from fr_graph.classify.extract import extract_message
from fr_graph.classify.linking import LinkVerifier
from fr_graph.classify.llm import AsyncFactClassifier
from fr_graph.classify.prose import Region
from fr_graph.classify.rules import classify_fact
from fr_graph.classify.strength import cue_strength
from fr_graph.core.classification import Classification
from fr_graph.core.lifecycle import LifecycleState, Stage
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.overlay import MIRRORED_FIELDS, FactOverlay, stable_uuid, to_iso
from fr_graph.pipeline.lifecycle import LifecycleOutcome, apply_transitions, transition_batch
from fr_graph.pipeline.records import FactRecord, MessageRecord
from fr_graph.pipeline.vectors import FactEmbedders
from fr_graph.stores.base import GraphStore, QueryRunner

Progress = Callable[[int], None]
CHUNK = 256
#: ``source_description`` of a message episode imported by the offline extractor.
OFFLINE = "fr-graph import (offline)"


@dataclass(slots=True)
class ImportReport:
    """What an import did. ``rejected`` holds ``(line_number, reason)`` per bad line;
    ``transitions`` counts the supersession links written, by kind; ``silent_messages``
    holds ``(line_number, message id)`` per user message that gave no fact (offline)."""

    lines: int = 0
    imported: int = 0
    already_present: int = 0
    messages: int = 0
    facts_from_messages: int = 0
    rejected: list[tuple[int, str]] = field(default_factory=list)
    embed_seconds: float = 0.0
    store_seconds: float = 0.0
    transitions: Counter[str] = field(default_factory=Counter)
    #: The linker's share of store_seconds, and the pairs it judged.
    link_seconds: float = 0.0
    link_pairs: int = 0
    silent_messages: list[tuple[int, str]] = field(default_factory=list)
    #: Code, logs, tables, quotes and pasted letters set aside by offline extraction.
    pasted_regions: int = 0


def _snake(text: str) -> str:
    words = re.findall(r"[A-Za-z0-9]+", text)
    return "_".join(words).upper()[:64] or "STATES"


def _entity_key(name: str) -> str:
    return " ".join(name.lower().split())


@dataclass(frozen=True, slots=True)
class MessageFact:
    """A fact record taken from a message, with the span of the message it came from."""

    record: FactRecord
    span: tuple[int, int]


@dataclass(frozen=True, slots=True)
class MessageFacts:
    """What offline extraction took from one message: its facts (``source_id`` =
    ``<message id>#<part>``) and the pasted regions (code, logs, quotes) it set aside."""

    message_id: str
    facts: list[MessageFact]
    regions: list[Region]


def extract_from_message(message: MessageRecord) -> MessageFacts:
    """Offline extraction: the user's statements become fact records; other roles give none.

    Every record returned is valid: the extractor bounds the length of each field.
    """
    base_id = message_id(message)
    if message.role != "user":
        return MessageFacts(base_id, [], [])
    extraction = extract_message(message.content, message.observed_at)
    facts = [
        MessageFact(FactRecord(
            type="fact", group_id=message.group_id, id=f"{base_id}#{index}",
            fact=extracted.fact, observed_at=message.observed_at,
            subject=extracted.subject or None, predicate=extracted.predicate or None,
            object=extracted.object or None, episode=message.episode,
        ), extracted.span)
        for index, extracted in enumerate(extraction.facts)
    ]
    return MessageFacts(base_id, facts, extraction.regions)


def message_id(message: MessageRecord) -> str:
    """The record id, or a hash of the message's group, text and time when it has none."""
    return message.id or stable_uuid(message.group_id, "message", message.content,
                                     message.observed_at.isoformat())


def episode_uuid_of(group_id: str, message_id: str) -> str:
    """The Graphiti episode of message ``message_id`` (the same on the offline and the LLM
    path)."""
    return stable_uuid(group_id, "episode", message_id)


def episode_uuid(message: MessageRecord) -> str:
    return episode_uuid_of(message.group_id, message_id(message))


def episode_body(message: MessageRecord) -> str:
    """Graphiti's message episodes are ``speaker: text`` lines (the speaker becomes an entity)."""
    return f"{message.role}: {message.content}"


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a fact taken from a message came from: its episode, and the ``[start, end)``
    offsets of its sentence in the episode's content."""

    episode_uuid: str
    span: tuple[int, int]

    @classmethod
    def of(cls, message: MessageRecord, span: tuple[int, int]) -> Provenance:
        shift = _body_offset(message)
        return cls(episode_uuid(message), (span[0] + shift, span[1] + shift))


def _body_offset(message: MessageRecord) -> int:
    """Where the message text starts in its episode's content (after ``speaker: ``)."""
    return len(episode_body(message)) - len(message.content)


def pasted_pointers(message: MessageRecord, regions: Sequence[Region]) -> list[str]:
    """``"kind:start:end"`` per region, offsets into the message's episode content."""
    shift = _body_offset(message)
    return [f"{r.kind}:{r.start + shift}:{r.end + shift}" for r in regions]


def message_episode(message: MessageRecord, created_at: datetime) -> EpisodicNode:
    """The episode that keeps a message's whole text on the offline path."""
    return EpisodicNode(
        uuid=episode_uuid(message), name=message.episode or message_id(message),
        group_id=message.group_id, labels=[], source=EpisodeType.message,
        content=episode_body(message), source_description=OFFLINE,
        created_at=created_at, valid_at=message.observed_at)


def overlay_for(record: FactRecord, edge_uuid: str, verdict: Classification) -> FactOverlay:
    """The overlay of a new fact: caller-supplied gold metadata wins over the classifier."""
    if record.categories:
        weights = dict(record.categories)
        primary = record.category or max(weights, key=lambda c: weights[c])
    elif record.category:
        weights, primary = {record.category: 1.0}, record.category
    else:
        weights = dict(verdict.weights) or {verdict.category: 1.0}
        primary = verdict.category
    ordered = [c for c in Category if weights.get(c, 0.0) > 0.0]
    # An explicit null ("slot_key": null) means "none"; an absent field means "infer it".
    given = record.model_fields_set
    event_time = record.event_time if "event_time" in given else verdict.event_time
    # A given slot key is used as it is, and so is the LLM classifier's; the rules' is only
    # a proposal (slot_hint) until the linker confirms it (see FactOverlay.slot_source).
    slot_given = "slot_key" in given
    proposed = not slot_given and verdict.slot_is_proposal
    return FactOverlay(
        edge_uuid=edge_uuid,
        group_id=record.group_id,
        category=primary,
        categories=[c.value for c in ordered],
        category_weights=[float(weights[c]) for c in ordered],
        slot_key=record.slot_key if slot_given else None if proposed else verdict.slot_key,
        slot_source="given" if slot_given else "inferred" if proposed else "classifier",
        slot_hint=verdict.slot_key if proposed else None,
        state=record.state or LifecycleState.ACTIVE,
        marker=record.marker or verdict.marker,
        event_time=to_iso(event_time),
        valid_from=to_iso(record.observed_at),
        valid_to=None,
        observed_at=to_iso(record.observed_at),
        confidence=record.confidence if record.confidence is not None else verdict.confidence,
        # Retention consequence from premise / constraint cues (StageMem), unless given.
        strength=(record.strength if record.strength is not None
                  else float(cue_strength([record.fact])[0])),
        stage=Stage.TRANSIENT,
        source_id=record.id,
        episode=record.episode,
        has_number=verdict.has_number,
        world_knowledge=verdict.world_knowledge,
        instruction_like=verdict.instruction_like,
        ambiguous=False,
        emotional_loading=verdict.emotional_loading,
    )


def mirror_attributes(overlay: FactOverlay) -> dict[str, object]:
    """The ``fr_*`` properties Graphiti writes with the edge (its attributes round-trip)."""
    row = overlay.to_row()
    return {f"fr_{name}": row[name] for name in MIRRORED_FIELDS}


class Ingestor:
    """Writes fact records of one store, chunk by chunk, in ``observed_at`` order."""

    def __init__(self, store: GraphStore, embedders: FactEmbedders,
                 graphiti_for: Callable[[str], Graphiti],
                 policy: PolicyTable | None = None, *,
                 classifier: AsyncFactClassifier | None = None,
                 verifier: LinkVerifier | None = None) -> None:
        self.store = store
        self.embedders = embedders
        self.graphiti_for = graphiti_for
        #: None: the offline rules classifier.
        self.classifier = classifier
        self.policy = policy or PolicyTable.default()
        #: None: the shipped offline link verifier.
        self.verifier = verifier

    async def save_episodes(self, messages: Sequence[MessageRecord],
                            pasted: Mapping[str, Sequence[Region]] | None = None) -> int:
        """Save each message as a Graphiti episode (whole text kept), unless already there,
        with pointers to its pasted regions (``pasted``, by message id, offsets into the
        message text). Returns how many were created."""
        by_group: dict[str, dict[str, MessageRecord]] = {}
        for message in messages:
            by_group.setdefault(message.group_id, {})[episode_uuid(message)] = message
        created = 0
        for group_id, wanted in by_group.items():
            await self.store.ensure_schema(group_id)
            created += await self.store.transact(
                group_id, partial(self._write_episodes, group_id, wanted, pasted or {}))
        return created

    async def _write_episodes(self, group_id: str, wanted: Mapping[str, MessageRecord],
                              pasted: Mapping[str, Sequence[Region]], runner: QueryRunner
                              ) -> int:
        graphiti = self.graphiti_for(group_id)
        stored = {e.uuid for e in await graphiti.nodes.episode.get_by_uuids(list(wanted))}
        missing = [m for u, m in wanted.items() if u not in stored]
        if not missing:
            return 0
        wall_now = datetime.now(UTC)
        await graphiti.nodes.episode.save_bulk([message_episode(m, wall_now) for m in missing])
        rows = [{"uuid": episode_uuid(m), "regions": pointers} for m in missing
                if (pointers := pasted_pointers(m, pasted.get(message_id(m), ())))]
        if rows:
            await runner.run("mark_pasted_regions", group_id, rows=rows)
        return len(missing)

    async def ingest(self, facts: Sequence[FactRecord], report: ImportReport,
                     progress: Progress | None = None, *,
                     provenance: Mapping[str, Provenance] | None = None) -> None:
        """Write ``facts``; ``provenance`` (by record id) links facts taken from messages
        to their episode and sentence."""
        by_group: dict[str, list[FactRecord]] = {}
        seen: set[tuple[str, str]] = set()
        for record in facts:
            key = (record.group_id, record.id)
            if key in seen:  # a repeated id inside one file is the same record
                report.already_present += 1
                if progress:
                    progress(1)
                continue
            seen.add(key)
            by_group.setdefault(record.group_id, []).append(record)
        for group_id, records in by_group.items():
            await self.store.ensure_schema(group_id)
            records.sort(key=lambda r: r.observed_at)
            for start in range(0, len(records), CHUNK):
                chunk = records[start:start + CHUNK]
                await self._ingest_chunk(group_id, chunk, report, provenance or {})
                if progress:
                    progress(len(chunk))

    async def _ingest_chunk(self, group_id: str, chunk: list[FactRecord],
                            report: ImportReport, provenance: Mapping[str, Provenance]
                            ) -> None:
        rows = await self.store.run("existing_sources", group_id, group_id=group_id,
                                    source_ids=[r.id for r in chunk])
        present = {row["source_id"] for row in rows}
        fresh = [r for r in chunk if r.id not in present]
        report.already_present += len(chunk) - len(fresh)
        if not fresh:
            return

        overlays: list[FactOverlay] = []
        entity_names: dict[str, str] = {}
        endpoints: list[tuple[str, str]] = []
        verdicts = await self.classify(fresh)
        for record, verdict in zip(fresh, verdicts, strict=True):
            overlay = overlay_for(record, stable_uuid(group_id, "fact", record.id), verdict)
            origin = provenance.get(record.id)
            if origin is not None:
                overlay.source_span = list(origin.span)
            overlays.append(overlay)
            subject = record.subject or "user"
            attribute = (overlay.slot_key or overlay.slot_hint or "").split("|")[1:2]
            obj = record.object or (attribute[0].replace("_", " ") if attribute else subject)
            source = stable_uuid(group_id, "entity", _entity_key(subject))
            target = stable_uuid(group_id, "entity", _entity_key(obj))
            entity_names.setdefault(source, subject)
            entity_names.setdefault(target, obj)
            endpoints.append((source, target))

        started = time.perf_counter()
        texts = [r.fact for r in fresh]
        fact_vectors = await self.embedders.graph_vectors(texts)  # Graphiti's
        existing = await self.store.run("existing_entities", group_id,
                                        uuids=list(entity_names))
        missing = [u for u in entity_names if u not in {row["uuid"] for row in existing}]
        name_vectors = await self.embedders.graph_vectors([entity_names[u] for u in missing])
        own_vectors = (None if self.embedders.shared  # fr-graph's, when not Graphiti's
                       else self.embedders.local.embed_passages(texts))
        report.embed_seconds += time.perf_counter() - started

        started = time.perf_counter()
        wall_now = datetime.now(UTC)
        graphiti = self.graphiti_for(group_id)
        name_vector = dict(zip(missing, name_vectors, strict=True))
        fact_vector = dict(zip((o.edge_uuid for o in overlays), fact_vectors, strict=True))
        policy = self.policy.for_group(group_id)

        async def write(runner: QueryRunner) -> LifecycleOutcome:
            # Inside the group's unit of work, so that a concurrent import of the same
            # records or entities sees what the other wrote: Graphiti MERGEs nodes by uuid
            # without a uniqueness constraint, which duplicates them under concurrency.
            rows = await runner.run("existing_sources", group_id, group_id=group_id,
                                    source_ids=[r.id for r in fresh])
            done = {row["source_id"] for row in rows}
            rows = await runner.run("existing_entities", group_id, uuids=list(name_vector))
            saved = {row["uuid"] for row in rows}
            nodes = [
                EntityNode(uuid=u, name=entity_names[u], group_id=group_id, labels=["Entity"],
                           summary="", created_at=wall_now, name_embedding=vec)
                for u, vec in name_vector.items() if u not in saved
            ]
            if nodes:
                await graphiti.nodes.entity.save_bulk(nodes)
            todo = [(record, overlay, ends) for record, overlay, ends
                    in zip(fresh, overlays, endpoints, strict=True) if record.id not in done]
            edges = [
                EntityEdge(
                    uuid=overlay.edge_uuid, group_id=group_id, source_node_uuid=source,
                    target_node_uuid=target, name=_snake(record.predicate or "states"),
                    fact=record.fact, fact_embedding=fact_vector[overlay.edge_uuid],
                    episodes=([provenance[record.id].episode_uuid] if record.id in provenance
                              else []), created_at=wall_now, valid_at=record.observed_at,
                    invalid_at=None, expired_at=None, attributes=mirror_attributes(overlay),
                )
                for record, overlay, (source, target) in todo
            ]
            if edges:
                await graphiti.edges.entity.save_bulk(edges)
            if own_vectors is not None and edges:
                own = dict(zip((o.edge_uuid for o in overlays), own_vectors, strict=True))
                await runner.run("set_lifecycle_vectors", group_id, rows=[
                    {"uuid": e.uuid, "embedding": own[e.uuid].tolist()} for e in edges])
            return await transition_batch(runner, group_id, [o for _, o, _ in todo], policy,
                                          verifier=self.verifier)

        outcome = await self.store.transact(group_id, write)
        report.store_seconds += time.perf_counter() - started
        # A concurrent import of the same records may have written some of them first.
        report.imported += outcome.created
        report.already_present += len(fresh) - outcome.created
        report.transitions.update(outcome.transitions)
        report.link_seconds += outcome.link_seconds
        report.link_pairs += outcome.link_pairs

    async def classify(self, records: Sequence[FactRecord]) -> list[Classification]:
        """Each record's classification: the LLM classifier when set, else the rules."""
        if self.classifier is None:
            return [classify_fact(r.fact, r.observed_at) for r in records]
        return await self.classifier.classify_batch([r.fact for r in records],
                                                    [r.observed_at for r in records])

    async def write_overlays(self, group_id: str, overlays: Sequence[FactOverlay]
                             ) -> LifecycleOutcome:
        """Write new facts (their edges already saved) with the transitions they cause and
        the mirror, atomically (Graphiti may have rewritten the mirror meanwhile)."""
        return await apply_transitions(self.store, group_id, overlays,
                                       self.policy.for_group(group_id), verifier=self.verifier)

"""Message import with an LLM: Graphiti's ``add_episode``, then the overlay annotates.

One message is one Graphiti episode. Graphiti (through the configured LLM) extracts entities
and facts, dedupes them against the group and invalidates contradicted facts; fr-graph then
post-processes the edges ``add_episode`` returns:

- a fact this episode created (no ``FrFact`` yet, the episode in ``edge.episodes``) is
  classified by the rules classifier and gets an overlay, exactly as an imported fact
  record would (``overlay_for``), with ``source_id = "<message id>#<edge uuid>"``;
- a pre-existing annotated fact that Graphiti re-saved (judged a duplicate, or invalidated
  by this message) gets its ``fr_*`` mirror re-applied: Graphiti's ``SET e = $edge_data``
  drops the mirror when it resets a duplicate's attributes;
- lifecycle: a fact Graphiti invalidated (``invalid_at`` / ``expired_at``, see
  :func:`~fr_graph.pipeline.lifecycle.graphiti_evidence`) becomes ``superseded`` first; then
  the new facts go through the same slot-key transitions as imported facts
  (``write_overlays``, i.e. :func:`~fr_graph.pipeline.lifecycle.apply_transitions`); last,
  each invalidated fact is linked to the new fact that invalidated it.

Idempotency. The episode uuid is ``stable_uuid(group, "episode", message id)`` (the id
defaults to the offline path's content hash). Graphiti's ``add_episode(uuid=...)`` *loads*
an existing episode rather than creating one with that uuid, so the episode is saved first
with ``source_description`` = :data:`PENDING` and switched to :data:`DONE` only after the
overlays are written. A message whose episode is DONE is skipped (no LLM call); a PENDING
one (an interrupted import) is processed again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from fr_graph._graphiti import EntityEdge, EpisodeType, EpisodicNode, Graphiti
from fr_graph.classify.llm import AsyncFactClassifier
from fr_graph.classify.rules import classify_fact
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.overlay import FactOverlay, to_iso
from fr_graph.pipeline.ingest import episode_body, episode_uuid, message_id, overlay_for
from fr_graph.pipeline.lifecycle import (
    apply_graphiti_evidence,
    graphiti_evidence,
    link_graphiti_invalidations,
)
from fr_graph.pipeline.records import FactRecord, MessageRecord
from fr_graph.stores.base import GraphStore

WriteOverlays = Callable[[str, Sequence[FactOverlay]], Awaitable[object]]

#: ``source_description`` of an episode fr-graph has fully processed (Graphiti + overlay).
DONE = "fr-graph import"
#: ``source_description`` of an episode saved but not (yet) fully processed.
PENDING = "fr-graph import (pending)"
#: How many earlier messages Graphiti sees as context (its own default for add_episode).
CONTEXT_EPISODES = 10


@dataclass(slots=True)
class EpisodeOutcome:
    """What importing one message did."""

    episode_uuid: str
    already_present: bool = False
    facts_created: int = 0
    edges_remirrored: int = 0
    #: Edges Graphiti returned that fr-graph neither created nor annotates (e.g. facts
    #: written by a plain Graphiti client that this message invalidated).
    edges_foreign: int = 0
    #: Annotated facts Graphiti invalidated that became ``superseded``.
    superseded_by_graphiti: int = 0
    new_edge_uuids: list[str] = field(default_factory=list)


async def ingest_message_with_llm(graphiti: Graphiti, store: GraphStore,
                                  message: MessageRecord,
                                  write_overlays: WriteOverlays, *,
                                  classifier: AsyncFactClassifier | None = None
                                  ) -> EpisodeOutcome:
    """Run one message through ``add_episode`` and annotate the edges it returns.

    ``graphiti`` must be bound to the graph that holds ``message.group_id`` and carry a real
    LLM client; ``write_overlays`` writes new ``FrFact`` nodes with their lifecycle
    transitions and mirror (``Ingestor.write_overlays``). Messages of one group must be
    imported one at a time, in ``observed_at`` order (Graphiti's own requirement for
    ``add_episode``). ``classifier`` (default: the rules) classifies the new facts, with
    the message as their session context.
    """
    group = message.group_id
    base_id = message_id(message)
    outcome = EpisodeOutcome(episode_uuid=episode_uuid(message))
    await store.ensure_schema(group)

    stored = await graphiti.nodes.episode.get_by_uuids([outcome.episode_uuid])
    if stored and stored[0].source_description == DONE:
        outcome.already_present = True
        return outcome

    # The context add_episode would pick itself, minus our (already saved) episode.
    previous = await graphiti.retrieve_episodes(
        message.observed_at, last_n=CONTEXT_EPISODES, group_ids=[group],
        source=EpisodeType.message)
    if not stored:
        await graphiti.nodes.episode.save(EpisodicNode(
            uuid=outcome.episode_uuid, name=message.episode or base_id, group_id=group,
            labels=[], source=EpisodeType.message, content=episode_body(message),
            source_description=PENDING, created_at=datetime.now(UTC),
            valid_at=message.observed_at,
        ))

    # With ``uuid`` set, add_episode loads the saved episode: name/body/description are
    # taken from it; they are passed again only because the signature requires them.
    result = await graphiti.add_episode(
        name=message.episode or base_id, episode_body=episode_body(message),
        source_description=PENDING, reference_time=message.observed_at,
        source=EpisodeType.message, group_id=group, uuid=outcome.episode_uuid,
        previous_episode_uuids=[e.uuid for e in previous if e.uuid != outcome.episode_uuid],
    )

    edges = _unique(result.edges)
    annotated = await store.run("apply_mirror", group, edge_uuids=[e.uuid for e in edges])
    remirrored = {row["edge_uuid"] for row in annotated}
    outcome.edges_remirrored = len(remirrored)

    now = datetime.now(UTC)
    invalidated: dict[str, tuple[LifecycleState, datetime | None]] = {}
    for edge in edges:
        if edge.uuid in remirrored:
            state, valid_to = graphiti_evidence(edge.invalid_at, edge.expired_at, now)
            if state is not LifecycleState.ACTIVE or valid_to is not None:
                invalidated[edge.uuid] = (state, valid_to)
    if invalidated:
        # Before the new facts are decided, so a fact Graphiti already judged contradicted
        # is not also soft-linked (and flagged ambiguous) by the slot-key rules.
        evidence = await apply_graphiti_evidence(store, group, invalidated, now)
        outcome.superseded_by_graphiti = evidence.updated

    created: list[EntityEdge] = []
    for edge in edges:
        if edge.uuid in remirrored:
            continue
        if outcome.episode_uuid not in edge.episodes:
            outcome.edges_foreign += 1
            continue
        created.append(edge)
    if classifier is None:
        verdicts = [classify_fact(e.fact, message.observed_at) for e in created]
    else:
        verdicts = await classifier.classify_batch(
            [e.fact for e in created], message.observed_at,
            [episode_body(message)] * len(created))
    overlays: list[FactOverlay] = []
    for edge, verdict in zip(created, verdicts, strict=True):
        record = FactRecord.model_construct(
            type="fact", group_id=group, id=f"{base_id}#{edge.uuid}", fact=edge.fact,
            observed_at=message.observed_at, episode=message.episode,
        )
        overlay = overlay_for(record, edge.uuid, verdict)
        # An edge Graphiti dated with an end ("lived in Denver until 2020") enters as such.
        overlay.state, valid_to = graphiti_evidence(edge.invalid_at, edge.expired_at, now)
        overlay.valid_to = to_iso(valid_to)
        overlays.append(overlay)
    if overlays:
        await write_overlays(group, overlays)
    if invalidated or overlays:
        await link_graphiti_invalidations(store, group)
    outcome.facts_created = len(overlays)
    outcome.new_edge_uuids = [o.edge_uuid for o in overlays]

    episode = result.episode
    episode.source_description = DONE
    await graphiti.nodes.episode.save(episode)
    return outcome


def _unique(edges: Sequence[EntityEdge]) -> list[EntityEdge]:
    """Graphiti returns resolved + invalidated edges; one edge may appear in both."""
    seen: dict[str, EntityEdge] = {}
    for edge in edges:
        seen.setdefault(edge.uuid, edge)
    return list(seen.values())

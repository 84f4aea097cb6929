"""Vectors for facts: the deployment's (Graphiti's ``fact_embedding``) and fr-graph's own.

fr-graph ranks and links with local e5 vectors, whose cosines its thresholds and its link
verifier were fitted on. When the deployment embeds with another model (its own embedder,
e.g. OpenAI's 1536-d), Graphiti's vectors stay that model's, so plain Graphiti keeps
searching its graph, and fr-graph keeps its e5 vectors beside them (``fr_embedding``; see
``GraphStore.lifecycle_vector``). With the local embedder both are one property.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fr_graph._graphiti import EmbedderClient
from fr_graph.clients import LocalEmbedder
from fr_graph.config import EmbedderSettings
from fr_graph.errors import ConfigError
from fr_graph.stores.base import AUDIT_GRAPH, GraphStore, QueryRunner

#: Facts embedded and written per call when filling in missing vectors.
FILL_PAGE = 500
#: Stored vectors sampled to tell the dimension of a graph with no embedder record.
_SAMPLE = 3


@dataclass(frozen=True, slots=True)
class FactEmbedders:
    """The local embedder (fr-graph's ranking and linking) and the deployment's one."""

    local: LocalEmbedder
    graph: EmbedderClient
    settings: EmbedderSettings

    @property
    def shared(self) -> bool:
        """Whether Graphiti's vectors are fr-graph's own (the local embedder)."""
        return self.graph is self.local

    async def graph_vectors(self, texts: Sequence[str]) -> list[list[float]]:
        """The deployment embedder's vectors of ``texts`` (passages), checked for size."""
        if not texts:
            return []
        if self.shared:
            return self.local.embed_passages(list(texts)).tolist()  # type: ignore[no-any-return]
        vectors = await self.graph.create_batch(list(texts))
        wrong = {len(v) for v in vectors} - {self.settings.dimension}
        if wrong:
            raise ConfigError(
                f"--embedding-dim: the embedder {self.settings.label} returned "
                f"{sorted(wrong)[0]}-d vectors, not the configured {self.settings.dimension}")
        return [list(map(float, v)) for v in vectors]


async def write_lifecycle_vectors(runner: QueryRunner, group_id: str, local: LocalEmbedder,
                                  facts: Sequence[tuple[str, str]]) -> int:
    """Store fr-graph's own vectors of ``facts`` (``(uuid, text)``) beside Graphiti's."""
    if not facts:
        return 0
    vectors = local.embed_passages([text for _, text in facts])
    rows = [{"uuid": uuid, "embedding": vector.tolist()}
            for (uuid, _), vector in zip(facts, vectors, strict=True)]
    written = await runner.run("set_lifecycle_vectors", group_id, rows=rows)
    return int(written[0]["written"]) if written else 0


async def fill_lifecycle_vectors(store: GraphStore, group_id: str, local: LocalEmbedder
                                 ) -> int:
    """Give every fact of the group that lacks fr-graph's own vector one. A no-op when the
    deployment embeds with the local model (the vectors are Graphiti's)."""
    if store.lifecycle_vector == "fact_embedding":
        return 0
    filled = 0
    while True:
        rows = await store.run("missing_lifecycle_vectors", group_id, group_id=group_id,
                               limit=FILL_PAGE)
        facts = [(str(r["uuid"]), str(r["fact"] or "")) for r in rows]
        filled += await write_lifecycle_vectors(store, group_id, local, facts)
        if len(rows) < FILL_PAGE:
            return filled


async def check_embedder(store: GraphStore, settings: EmbedderSettings) -> None:
    """Refuse a store whose Graphiti vectors another embedder wrote, in one line naming
    both: comparing vectors of two models gives meaningless results, never an error.

    The store's record (made on first write) decides; a graph with no record (written by
    plain Graphiti, or before records were kept) is judged by the size of a few vectors.
    """
    rows = (await store.run("embedder_record", AUDIT_GRAPH)
            if await store.has_group(AUDIT_GRAPH) else [])  # FalkorDB: asking creates it
    if rows:
        model, dim = str(rows[0]["model"]), int(rows[0]["dim"])
        if (model, dim) != (settings.label, settings.dimension):
            raise ConfigError(
                f"--embedder: this store's facts were embedded by {model} ({dim}-d), but the "
                f"configured embedder is {settings.label} ({settings.dimension}-d); "
                "configure the store's embedder")
        return
    for group in await store.sample_scopes(_SAMPLE):
        for row in await store.run("stored_fact_vectors", group, limit=1):
            dim = len(row["embedding"])
            if dim != settings.dimension:
                raise ConfigError(
                    f"--embedder: group {group!r} holds {dim}-d fact embeddings, but the "
                    f"configured embedder {settings.label} is {settings.dimension}-d; "
                    "configure the embedder that built the graph (--embedder openai "
                    "--embedding-model … --embedding-dim …)")

"""Neo4j (>= 5.26) through graphiti-core's Neo4j driver. Groups share one database."""

from __future__ import annotations

import re
from typing import Any

from fr_graph import cypher
from fr_graph._graphiti import GraphDriver, Neo4jDriver
from fr_graph.config import Settings
from fr_graph.stores.base import GraphStore, Tracer, settle_index_task

# Lucene's special characters; escaped so user text is always searched as words.
_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
_LUCENE_OPERATORS = re.compile(r"\b(AND|OR|NOT|TO)\b")


def lucene_escape(text: str) -> str:
    """Make arbitrary text safe as a Lucene query: every special character escaped."""
    cleaned = _LUCENE_SPECIAL.sub(r"\\\1", text)
    return _LUCENE_OPERATORS.sub(lambda m: m.group(0).lower(), cleaned)


def _to_python(value: Any) -> Any:
    to_native = getattr(value, "to_native", None)
    if callable(to_native):
        return to_native()
    if isinstance(value, list):
        return [_to_python(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_python(v) for k, v in value.items()}
    return value


class Neo4jStore(GraphStore):
    dialect: cypher.Dialect = "neo4j"

    @classmethod
    def connect(cls, settings: Settings, tracer: Tracer | None = None) -> Neo4jStore:
        assert settings.db is not None
        driver = Neo4jDriver(settings.db, settings.neo4j_user, settings.neo4j_password)
        return cls(driver, settings, tracer)

    def driver_for(self, group_id: str) -> GraphDriver:
        return self.driver

    def _schema_scope(self, group_id: str) -> str:
        return ""  # one database holds every group

    async def _create_schema(self, group_id: str) -> None:
        await settle_index_task(self.driver)
        await self.driver.build_indices_and_constraints()
        for statement in cypher.load_statements("schema", self.dialect):
            text = statement.replace("{embedding_dim}", str(int(self.settings.embedding_dim)))
            await self.run_text("schema", text, group_id)
        await self.run_text("await_indexes", "CALL db.awaitIndexes(300)", group_id)

    async def list_groups(self) -> list[str]:
        rows = await self.run("list_groups", "")
        return [r["group_id"] for r in rows if r["group_id"] is not None]

    async def vector_candidates(
        self, group_id: str, embedding: list[float], limit: int
    ) -> list[tuple[str, float]]:
        fetch = limit * self.settings.vector_oversample
        rows = await self.run("vector_candidates", group_id, group_id=group_id,
                              embedding=embedding, fetch=fetch, limit=limit)
        if len(rows) < limit:
            # Too few of the index's global top hits are ours: scan the group exactly.
            rows = await self.run("vector_candidates_exact", group_id, group_id=group_id,
                                  embedding=embedding, limit=limit)
        return [(r["uuid"], float(r["score"])) for r in rows]

    async def fulltext_candidates(
        self, group_id: str, text: str, limit: int
    ) -> list[tuple[str, float]]:
        query = lucene_escape(text).strip()
        if not query:
            return []
        rows = await self.run("fulltext_candidates", group_id, group_id=group_id,
                              query=query, limit=limit)
        return [(r["uuid"], float(r["score"])) for r in rows]

    def _normalize_record(self, record: Any) -> dict[str, Any]:
        return {key: _to_python(value) for key, value in dict(record).items()}

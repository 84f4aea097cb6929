"""fr-graph's queries on Neo4j, inside the lifecycle transaction and outside it, ask the
server for no "unrecognized" notifications: a store with no superseded or reverted facts yet
(or no store info, on a new database) names properties, labels and relationship types that do
not exist, and the driver logs each such notification as a WARNING as long as the query."""

from __future__ import annotations

import logging
import uuid
from typing import Any

import pytest

from fr_graph.stores.base import QueryRunner
from fr_graph.stores.neo4j import Neo4jStore, _Transaction
from tests.neo4j_target import Neo4jTarget

pytestmark = pytest.mark.integration


async def test_fr_graph_queries_log_no_unrecognized_name_warnings(
        neo4j_target: Neo4jTarget, caplog: pytest.LogCaptureFixture) -> None:
    absent = f"fr_absent_{uuid.uuid4().hex}"  # a property key no database has
    query = f"MATCH (n:FrFact {{group_id: $group_id}}) RETURN n.{absent} AS value LIMIT 1"
    group = f"quiet-{uuid.uuid4().hex[:8]}"
    store = Neo4jStore.connect(neo4j_target.settings())
    caplog.set_level(logging.WARNING, logger="neo4j.notifications")
    try:
        # The control: the same query through Graphiti's driver draws the warning, so the
        # assertions below can fail.
        await store.driver.execute_query(query, group_id=group)
        assert any(absent in r.getMessage() for r in caplog.records)
        caplog.clear()

        assert await store.run_text("absent_property", query, group, group_id=group) == []
        assert not [r for r in caplog.records if absent in r.getMessage()]

        async def work(runner: QueryRunner) -> list[Any]:
            assert isinstance(runner, _Transaction)
            result = await runner.tx.run(query, {"group_id": group})
            return [record async for record in result]

        assert await store.transact(group, work) == []
        assert not [r for r in caplog.records if absent in r.getMessage()]
    finally:
        await store.close()

"""The ``falkordb://host:port`` backend against a real FalkorDB server."""

from __future__ import annotations

from pathlib import Path

import pytest

from fr_graph.api import FrGraph
from fr_graph.config import Settings
from tests.integration.helpers import group_file

pytestmark = pytest.mark.integration


async def test_import_search_and_groups_on_a_falkordb_server(
    falkordb_server_url: str, group_id: str, tmp_path: Path
) -> None:
    settings = Settings(db=falkordb_server_url)
    assert settings.backend == "falkordb"
    async with FrGraph(settings) as fr:
        report = await fr.import_file(group_file(tmp_path, "facts_small.jsonl", group_id))
        assert report.imported == 6
        hits = await fr.search("chess", group_id)
        assert hits[0].source_id == "f-6"
        assert group_id in await fr.groups()
    async with FrGraph(settings) as fr:  # a second connection sees the same data
        [stats] = await fr.stats(group_id)
        assert stats.facts == 6

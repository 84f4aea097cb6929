"""The single doorway to graphiti-core: import it only through this module.

graphiti-core calls ``load_dotenv()`` at import (a ``.env`` anywhere above its install dir
would silently configure it) and sends a telemetry event when ``Graphiti`` is built unless
``GRAPHITI_TELEMETRY_ENABLED=false``. fr-graph must never reach the network unless asked,
so both are switched off here, before the first graphiti module loads: ``load_dotenv`` only
while graphiti-core imports (the caller's own use of it is untouched), telemetry unless the
user set ``GRAPHITI_TELEMETRY_ENABLED`` themselves (an explicit ``true`` is their choice).
"""

from __future__ import annotations

import os

os.environ.setdefault("GRAPHITI_TELEMETRY_ENABLED", "false")

import dotenv

_real_load_dotenv = dotenv.load_dotenv
dotenv.load_dotenv = lambda *args, **kwargs: False
try:
    from graphiti_core import Graphiti
    from graphiti_core.cross_encoder.client import CrossEncoderClient
    from graphiti_core.driver.driver import GraphDriver, GraphProvider
    from graphiti_core.driver.falkordb_driver import FalkorDriver
    from graphiti_core.driver.neo4j_driver import Neo4jDriver
    from graphiti_core.edges import EntityEdge, NextEpisodeEdge
    from graphiti_core.embedder.client import EmbedderClient
    from graphiti_core.llm_client.client import LLMClient
    from graphiti_core.llm_client.config import LLMConfig
    from graphiti_core.nodes import EntityNode, EpisodeType, EpisodicNode
    from graphiti_core.search.search_config import SearchConfig, SearchResults
    from graphiti_core.search.search_config_recipes import (
        EDGE_HYBRID_SEARCH_CROSS_ENCODER,
        EDGE_HYBRID_SEARCH_RRF,
    )
finally:
    dotenv.load_dotenv = _real_load_dotenv

__all__ = [
    "EDGE_HYBRID_SEARCH_CROSS_ENCODER",
    "EDGE_HYBRID_SEARCH_RRF",
    "CrossEncoderClient",
    "EmbedderClient",
    "EntityEdge",
    "EntityNode",
    "EpisodeType",
    "EpisodicNode",
    "FalkorDriver",
    "GraphDriver",
    "GraphProvider",
    "Graphiti",
    "LLMClient",
    "LLMConfig",
    "Neo4jDriver",
    "NextEpisodeEdge",
    "SearchConfig",
    "SearchResults",
]

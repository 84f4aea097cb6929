"""The single doorway to graphiti-core: import it only through this module.

graphiti-core calls ``load_dotenv()`` at import (a ``.env`` anywhere above its install dir
would silently configure it) and sends a telemetry event when ``Graphiti`` is built unless
``GRAPHITI_TELEMETRY_ENABLED=false``. fr-graph must never reach the network unless asked,
so both are switched off here, before the first graphiti module loads.
"""

from __future__ import annotations

import os

os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"

import dotenv  # noqa: E402  (must be patched before graphiti_core is imported)

_real_load_dotenv = dotenv.load_dotenv
dotenv.load_dotenv = lambda *args, **kwargs: False
try:
    from graphiti_core import Graphiti  # noqa: E402
    from graphiti_core.cross_encoder.client import CrossEncoderClient  # noqa: E402
    from graphiti_core.driver.driver import GraphDriver, GraphProvider  # noqa: E402
    from graphiti_core.driver.falkordb_driver import FalkorDriver  # noqa: E402
    from graphiti_core.driver.neo4j_driver import Neo4jDriver  # noqa: E402
    from graphiti_core.edges import EntityEdge  # noqa: E402
    from graphiti_core.embedder.client import EmbedderClient  # noqa: E402
    from graphiti_core.llm_client.client import LLMClient  # noqa: E402
    from graphiti_core.llm_client.config import LLMConfig  # noqa: E402
    from graphiti_core.nodes import EntityNode  # noqa: E402
    from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF  # noqa: E402
finally:
    dotenv.load_dotenv = _real_load_dotenv

__all__ = [
    "EDGE_HYBRID_SEARCH_RRF",
    "CrossEncoderClient",
    "EmbedderClient",
    "EntityEdge",
    "EntityNode",
    "FalkorDriver",
    "GraphDriver",
    "GraphProvider",
    "Graphiti",
    "LLMClient",
    "LLMConfig",
    "Neo4jDriver",
]

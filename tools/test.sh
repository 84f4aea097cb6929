#!/usr/bin/env bash
# The test command: set-up (venv, install, Neo4j launcher build), lint, types, tests.
# Integration tests start a real Neo4j 5.26 (NEO4J_URI, Docker, or the Maven launcher) and
# a real embedded FalkorDB themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
.venv/bin/python tools/neo4j_server.py --build-only
.venv/bin/ruff check fr_graph tests bench tools
.venv/bin/mypy fr_graph
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"

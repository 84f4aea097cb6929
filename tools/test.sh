#!/usr/bin/env bash
# The test command: set-up (venv, install, Chromium for the report test, Neo4j launcher
# build), lint, types, tests.
# Integration tests start a real Neo4j 5.26 (NEO4J_URI, Docker with the "docker" extra, or the
# Maven launcher: the path CI takes, as it has no Docker engine; tests/neo4j_target.py), a
# Neo4j 2026 (Maven launcher) and a real embedded FalkorDB themselves.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
# The report test opens the page in Debian's headless Chromium (driven by Playwright, which
# downloads no browser of its own). Installed only when missing; needs root (or sudo).
if [ ! -x /usr/bin/chromium ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "test: /usr/bin/chromium missing and no apt-get: install Chromium for the report test" >&2
  else
    as_root=""
    if [ "$(id -u)" -ne 0 ]; then as_root="sudo"; fi
    if [ -n "$as_root" ] && ! command -v sudo >/dev/null 2>&1; then
      echo "test: /usr/bin/chromium missing; as root run: apt-get install -y chromium" >&2
    else
      echo "test: installing chromium with apt-get (for the report test)" >&2
      $as_root apt-get update -q >/dev/null
      DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -q chromium >/dev/null
    fi
  fi
else
  echo "test: chromium already installed (/usr/bin/chromium)" >&2
fi
.venv/bin/python tools/neo4j_server.py --build-only
# The 2026 line (in-index filtered vector search) needs Java 21+: NEO4J_2026_JAVA_HOME, a
# JAVA_HOME of 21+, or the Temurin 25 JDK at /usr/lib/jvm/temurin-25-jdk-amd64.
.venv/bin/python tools/neo4j_server.py --build-only --line 2026
.venv/bin/ruff check fr_graph tests bench tools
.venv/bin/mypy fr_graph
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
# A full run (no pytest arguments) also runs Graphiti's compatibility and the import/search
# path on Neo4j 2026 (the main run uses 5.26, what most Graphiti users run) and tests the
# oldest supported graphiti-core.
if [ "$#" -eq 0 ]; then
  NEO4J_TEST_LINE=2026 .venv/bin/python -m pytest -q -p no:cacheprovider -k "not embedded" \
    tests/integration/test_graphiti_compat.py tests/integration/test_import_search.py
  bash tools/test_graphiti_floor.sh
fi

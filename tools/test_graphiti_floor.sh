#!/usr/bin/env bash
# The oldest graphiti-core and openai fr-graph supports (the floors of their ranges in
# pyproject.toml), tested in a venv of its own (.venv-floor): the unit tests and the
# integration tests that go through Graphiti's own code (its search, add_episode, index
# build, reopen). The main run (tools/test.sh) covers the newest version the range allows, which set-up installs.
set -euo pipefail
cd "$(dirname "$0")/.."
floor_of() {  # the ">=" version of one dependency in pyproject.toml
  .venv/bin/python -c '
import re, sys, tomllib
deps = tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]
spec = next(d for d in deps if d.startswith(sys.argv[1]))
print(re.search(r">=\s*([0-9.]+)", spec).group(1))' "$1"
}
floor="$(floor_of graphiti-core)"
openai_floor="$(floor_of openai)"  # graphiti-core's own floor too: both ends meet here
if [ ! -x .venv-floor/bin/python ]; then
  .venv/bin/python -m venv .venv-floor
fi
echo "test: graphiti-core $floor and openai $openai_floor.*, the oldest supported, in" \
  ".venv-floor (a few minutes)" >&2
.venv-floor/bin/python -m pip install -q --upgrade pip
.venv-floor/bin/python -m pip install -q -e ".[dev,bench,report,cross-encoder]" "graphiti-core==$floor" \
  "openai==$openai_floor.*"
.venv-floor/bin/python -m pip list 2>/dev/null | grep -E "^(graphiti-core|openai) " >&2
.venv-floor/bin/python -m pytest -q -p no:cacheprovider tests/unit \
  tests/integration/test_graphiti_compat.py tests/integration/test_graphiti_after_reopen.py \
  tests/integration/test_llm_ingest.py tests/integration/test_llm_wiring.py \
  tests/integration/test_import_search.py tests/integration/test_transitions.py \
  tests/integration/test_linking.py tests/integration/test_message_path.py \
  tests/integration/test_bench_lifecycle.py

#!/usr/bin/env bash
# The main job on the embedded default: set up, then run the offline demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
.venv/bin/fr-graph demo

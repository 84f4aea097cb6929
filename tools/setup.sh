#!/usr/bin/env bash
# Creates .venv (Python >= 3.12) and installs fr-graph with its dev extras. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
pick_python() {
  for candidate in "${PYTHON:-}" python3.13 python3.12 "$HOME/.pyenv/versions/3.12.1/bin/python" \
                   "$HOME/.pyenv/versions/3.13.0/bin/python" python3; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  echo "error: fr-graph needs Python >= 3.12 (falkordblite requires it)" >&2; return 1
}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv" >&2
  "$(pick_python)" -m venv .venv
fi
# pip is quiet (-q); say what is happening, as a first install takes several minutes.
echo "setup: installing fr-graph and its dependencies into .venv (first run: a few minutes)" >&2
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[dev,bench,report,cross-encoder]"
echo "setup: done" >&2

"""The shipped examples run as documented."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fr_graph.pipeline.records import read_file

pytestmark = pytest.mark.integration

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_example_files_are_valid() -> None:
    records, problems = read_file(EXAMPLES / "facts.jsonl")
    assert problems == [] and len(records) == 6
    for line in (EXAMPLES / "queries.jsonl").read_text().splitlines():
        assert set(json.loads(line)) == {"id", "group_id", "query", "now"}


def test_quickstart_answers_current_and_historical_questions() -> None:
    env = {k: v for k, v in os.environ.items() if k != "FR_GRAPH_DB"}
    done = subprocess.run([sys.executable, str(EXAMPLES / "quickstart.py")], env=env,
                          capture_output=True, text=True, timeout=300, check=True)
    current, history = done.stdout.split("What did my rent use to be?")
    first_current = current.split("How much is my rent?")[1].strip().splitlines()[0]
    assert "$1,100" in first_current and "active" in first_current
    first_history = history.strip().splitlines()[0]
    assert "$950" in first_history and "superseded" in first_history

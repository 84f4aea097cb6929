"""The search layer ranks the LifecycleBench question set exactly as it did when the golden
file was made (``tests/search_golden.py``; regenerate only for an intended change).

Per question and metadata source: the top-10 fact ids of ``search_facts`` (and of every arm
and ablation) with their scores (within 1e-9), the hidden-state counts, the history, the
first results' JSON and the context block's digest.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.search_golden import GOLDEN, rank_all

TOLERANCE = 1e-9


def _same_ranking(got: list[list[Any]], want: list[list[Any]], where: str) -> None:
    assert [i for i, _ in got] == [i for i, _ in want], where
    for (fact, score), (_, expected) in zip(got, want, strict=True):
        assert score == pytest.approx(expected, abs=TOLERANCE, rel=0), f"{where}: {fact}"


def test_rankings_match_the_golden_file() -> None:
    fixture = json.loads(GOLDEN.read_text())
    expected: dict[str, dict[str, Any]] = fixture["expected"]
    got = asyncio.run(rank_all(fixture))
    assert got.keys() == expected.keys()
    for key, want in expected.items():
        have = got[key]
        _same_ranking(have["hits"], want["hits"], f"{key} hits")
        _same_ranking(have["history"], want["history"], f"{key} history")
        assert have["hidden"] == want["hidden"], key
        assert have["arms"].keys() == want["arms"].keys(), key
        for arm, ranking in want["arms"].items():
            _same_ranking(have["arms"][arm], ranking, f"{key} {arm}")
        assert have["shown"] == want["shown"], key
        assert have["context_sha256"] == want["context_sha256"], key

"""The Neo4j linker's neighbour search scored in the client (``NearestFacts``): the rows the
former Cypher query chose, page by page (the live comparison with that query is in
BENCHMARKS.md, "Lifecycle write path")."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np

from fr_graph.stores.neo4j import FactVectors, NearestFacts


def fact(uuid: str, vector: list[float], day: int = 1, text: str = "x") -> dict[str, Any]:
    return {"uuid": uuid, "vector": vector, "valid_at": datetime(2025, 1, day, tzinfo=UTC),
            "fact": text}


def chosen(nearest: NearestFacts) -> list[tuple[str, str]]:
    return [(hit["probe"], hit["uuid"]) for hit in nearest.hits()]


def test_each_probe_gets_its_k_nearest_above_the_floor_never_itself() -> None:
    page = [fact("p", [1.0, 0.0]), fact("a", [0.9, 0.1]), fact("b", [0.6, 0.4]),
            fact("c", [0.0, 1.0])]
    nearest = NearestFacts({"p": [1.0, 0.0]}, k=2, min_cosine=0.5)
    nearest.add(page)
    assert chosen(nearest) == [("p", "a"), ("p", "b")]  # c is below the floor
    [best, _] = nearest.hits()
    assert abs(best["score"] - 0.9 / np.hypot(0.9, 0.1)) < 1e-9  # rounded to 9 places
    assert nearest.vectors() == {"a": [0.9, 0.1], "b": [0.6, 0.4]}


def test_equal_scores_go_to_the_newest_fact_then_the_text_then_the_uuid() -> None:
    twins = [fact("z", [1.0, 1.0], day=3, text="b"), fact("y", [1.0, 1.0], day=5, text="c"),
             fact("x", [1.0, 1.0], day=3, text="a"), fact("w", [1.0, 1.0], day=3, text="a")]
    nearest = NearestFacts({"p": [2.0, 2.0]}, k=3, min_cosine=0.0)
    nearest.add(twins)
    assert chosen(nearest) == [("p", "y"), ("p", "w"), ("p", "x")]


def test_equal_vectors_tie_wherever_they_sit_in_a_page() -> None:
    # The matrix product alone scored equal vectors a few ulps apart by their position, so
    # a rerun that split the facts differently chose other neighbours among equals.
    rng = np.random.default_rng(1)
    shapes = rng.standard_normal((4, 384))
    picks = rng.integers(0, 4, 1100)
    facts = [fact(f"f{i:04d}", list(shapes[s]), day=1 + i % 28, text=str(i))
             for i, s in enumerate(picks)]
    probes = {row["uuid"]: row["vector"] for row in facts[:250]}
    nearest = NearestFacts(probes, k=8, min_cosine=0.0)
    nearest.add(facts)
    for probe in nearest.probes:
        scores = {hit["score"] for hit in nearest.hits() if hit["probe"] == probe}
        assert len(scores) == 1  # its own shape's facts, all equal


def test_pages_in_any_order_give_the_result_of_one_page() -> None:
    rng = np.random.default_rng(7)
    facts = [fact(f"f{i:03d}", list(rng.standard_normal(8)), day=1 + i % 20, text=str(i % 3))
             for i in range(300)]
    probes = {row["uuid"]: row["vector"] for row in facts[:25]}
    whole = NearestFacts(probes, k=8, min_cosine=-0.2)
    whole.add(facts)
    paged = NearestFacts(probes, k=8, min_cosine=-0.2)
    for start in (200, 0, 100):
        paged.add(facts[start:start + 100])
    assert whole.hits() == paged.hits()
    assert len(whole.hits()) == 25 * 8


def test_facts_without_a_usable_vector_are_never_neighbours() -> None:
    nearest = NearestFacts({"p": [1.0, 0.0], "empty": [0.0, 0.0]}, k=4, min_cosine=-1.0)
    nearest.add([fact("zero", [0.0, 0.0]), fact("short", [1.0]), fact("a", [0.5, 0.5])])
    assert chosen(nearest) == [("p", "a")]  # a zero probe finds nothing either


def test_vectors_read_once_are_held_until_their_text_changes() -> None:
    held = FactVectors(capacity=3)
    scan = [{"uuid": "a", "fact": "Drives a Civic"}, {"uuid": "b", "fact": "Lives in Porto"}]
    assert held.split(scan) == ({}, ["a", "b"])
    held.keep({"a": "Drives a Civic", "b": "Lives in Porto"},
              {"a": np.array([1.0, 0.0]), "b": np.array([0.0, 1.0])})
    vectors, missing = held.split(scan)
    assert missing == [] and vectors["a"].tolist() == [1.0, 0.0]
    # A rewritten text (a redaction) has another vector: read again.
    vectors, missing = held.split([{"uuid": "a", "fact": "[redacted]"}, scan[1]])
    assert missing == ["a"] and list(vectors) == ["b"]


def test_the_oldest_vectors_leave_first_past_the_capacity() -> None:
    held = FactVectors(capacity=2)
    for uuid in ("a", "b", "c"):
        held.keep({uuid: uuid}, {uuid: np.array([1.0])})
    assert len(held) == 2
    assert held.split([{"uuid": u, "fact": u} for u in "abc"])[1] == ["a"]


def test_held_arrays_score_as_the_lists_read_from_the_store() -> None:
    rng = np.random.default_rng(3)
    facts = [fact(f"f{i:02d}", list(rng.standard_normal(6)), text=str(i)) for i in range(40)]
    probes = {row["uuid"]: row["vector"] for row in facts[:5]}
    as_lists, as_arrays = (NearestFacts(probes, k=4, min_cosine=-1.0) for _ in range(2))
    as_lists.add(facts)
    as_arrays.add([{**row, "vector": np.asarray(row["vector"])} for row in facts])
    assert as_lists.hits() == as_arrays.hits()

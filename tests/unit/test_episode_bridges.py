"""Bridging Graphiti's NEXT_EPISODE chain over episodes a purge deletes (pure part)."""

from __future__ import annotations

from fr_graph.pipeline.control import episode_bridges


def pairs(bridges: list[dict[str, str]]) -> list[tuple[str, str, str]]:
    return [(b["source"], b["first"], b["target"]) for b in bridges]


def test_one_deleted_episode_is_bridged() -> None:
    links = [("a", "b"), ("b", "c")]
    assert pairs(episode_bridges("g", links, {"b"})) == [("a", "b", "c")]


def test_a_run_of_deleted_episodes_is_bridged_once() -> None:
    links = [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e")]
    assert pairs(episode_bridges("g", links, {"b", "c", "d"})) == [("a", "b", "e")]


def test_chain_ends_and_cycles_give_no_bridge() -> None:
    assert episode_bridges("g", [("a", "b")], {"b"}) == []  # b was the last episode
    assert episode_bridges("g", [("a", "b")], {"a"}) == []  # a was the first
    assert episode_bridges("g", [("a", "b"), ("b", "c"), ("c", "b")], {"b", "c"}) == []


def test_bridge_ids_are_stable() -> None:
    first = episode_bridges("g", [("a", "b"), ("b", "c")], {"b"})
    again = episode_bridges("g", [("a", "b"), ("b", "c")], {"b"})
    other = episode_bridges("h", [("a", "b"), ("b", "c")], {"b"})
    assert first == again and first[0]["uuid"] != other[0]["uuid"]

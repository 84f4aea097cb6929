"""The robustness grid's corruptions: exact rates, determinism, only the named field changes."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import numpy as np
import pytest

from fr_graph.bench.robustness import (
    CONFUSED,
    GRID,
    Corruption,
    delete_event_times,
    flip_categories,
    merge_slots,
    shift_event_times,
    split_slots,
)
from tests.lifecycle_suite import tiny_suite

FACTS = list(tiny_suite().personas[0].facts)


def changed(before: list, after: list, field: str) -> list[int]:
    return [i for i, (a, b) in enumerate(zip(before, after, strict=True))
            if getattr(a, field) != getattr(b, field)]


@pytest.mark.parametrize("rate", [0.1, 0.2, 0.5])
@pytest.mark.parametrize("confused", [False, True])
def test_category_flips_change_exactly_the_rate(rate: float, confused: bool) -> None:
    out, count = flip_categories(FACTS, rate, np.random.default_rng(1), confused=confused)
    eligible = [f for f in FACTS if not confused or CONFUSED[f.category]]
    assert count == round(rate * len(eligible))
    flipped = changed(FACTS, out, "category")
    assert len(flipped) == count
    for i in flipped:
        if confused:
            assert out[i].category in CONFUSED[FACTS[i].category]
        assert out[i].text == FACTS[i].text and out[i].slot_key == FACTS[i].slot_key


@pytest.mark.parametrize("rate", [0.05, 0.1, 0.2])
def test_slot_merge_and_split_change_exactly_the_rate(rate: float) -> None:
    slotted = [f for f in FACTS if f.slot_key]
    keys = {f.slot_key for f in slotted}
    merged, count = merge_slots(FACTS, rate, np.random.default_rng(2))
    assert count == round(rate * len(slotted)) == len(changed(FACTS, merged, "slot_key"))
    assert all(merged[i].slot_key in keys for i in changed(FACTS, merged, "slot_key"))
    split, count = split_slots(FACTS, rate, np.random.default_rng(2))
    moved = changed(FACTS, split, "slot_key")
    assert count == len(moved) == round(rate * len(slotted))
    assert all(split[i].slot_key not in keys for i in moved)
    assert len({split[i].slot_key for i in moved}) == len(moved)


def test_event_shift_and_delete_touch_every_timed_fact() -> None:
    timed = [i for i, f in enumerate(FACTS) if f.event_time is not None]
    out, count = shift_event_times(FACTS, 90, np.random.default_rng(3))
    assert count == len(timed) == len(changed(FACTS, out, "event_time"))
    for i in timed:
        assert abs(out[i].event_time - FACTS[i].event_time) == timedelta(days=90)
    gone, count = delete_event_times(FACTS)
    assert count == len(timed) and all(f.event_time is None for f in gone)


def test_grid_cells_are_deterministic_per_seed_and_persona() -> None:
    for cell in GRID:
        first, n1 = cell.apply(FACTS, 11, "p1")
        again, n2 = cell.apply(FACTS, 11, "p1")
        assert first == again and n1 == n2
    cell = Corruption("category_uniform", 0.5)
    assert cell.apply(FACTS, 11, "p1")[0] != cell.apply(FACTS, 12, "p1")[0]
    assert len({c.name for c in GRID}) == len(GRID) == 15


def test_merge_needs_two_slots() -> None:
    one = [replace(f, slot_key="user|x") for f in FACTS[:4]]
    assert merge_slots(one, 0.5, np.random.default_rng(0)) == (one, 0)

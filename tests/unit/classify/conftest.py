"""The fake LLM server (a real local HTTP server behind Graphiti's real OpenAI client) for
the LLM classifier's and the LLM link verifier's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fr_graph._graphiti import LLMClient
from fr_graph.clients import build_llm_client
from fr_graph.config import LLMSettings
from tests.fake_llm import FakeLLM


@pytest.fixture(scope="module")
def server() -> Iterator[FakeLLM]:
    with FakeLLM() as running:  # one server per module: stopping one takes ~0.5 s
        yield running


@pytest.fixture
def fake(server: FakeLLM) -> FakeLLM:
    """The module's server, with a clean record and no failure switches."""
    server.requests.clear()
    server.unhandled.clear()
    server.canned.clear()
    server.fail_status = None
    return server


@pytest.fixture
def llm(fake: FakeLLM) -> LLMClient:
    return build_llm_client(LLMSettings(base_url=fake.url + "/v1", api_key="test",
                                        model="fake"))

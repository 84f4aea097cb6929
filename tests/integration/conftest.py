"""Fixtures of the integration tests: FrGraph on each real store, checked after every test
(``fr-graph check`` on each group the test wrote), and, for the tests that use an LLM, a
local fake OpenAI-compatible server (the only remote service faked, at its client
interface) with FrGraph configured for it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from fr_graph.api import FrGraph
from fr_graph.config import LLMSettings, Settings
from tests.fake_llm import FakeLLM
from tests.integration.helpers import assert_lifecycle_invariants


class _CheckedGroups:
    """The groups one test wrote: its ``group_id`` and every group that appeared while it
    ran (tests name extra groups after their own, or make one of their own)."""

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self.own = request.getfixturevalue("group_id") \
            if "group_id" in request.fixturenames else None
        self.skip = request.node.get_closest_marker("breaks_lifecycle_invariants") is not None
        self.before: set[str] = set()

    async def start(self, fr: FrGraph) -> None:
        if not self.skip:
            self.before = set(await fr.store.list_groups())

    async def verify(self, fr: FrGraph) -> None:
        if self.skip:
            return
        written = set(await fr.store.list_groups()) - self.before
        await assert_lifecycle_invariants(fr, *written, *([self.own] if self.own else []))


@pytest.fixture
async def fr(settings: Settings, request: pytest.FixtureRequest) -> AsyncIterator[FrGraph]:
    """FrGraph on the test's store; afterwards every group the test wrote is checked
    (mark a test ``breaks_lifecycle_invariants`` when it corrupts one on purpose)."""
    groups = _CheckedGroups(request)
    async with FrGraph(settings) as graph:
        await groups.start(graph)
        yield graph
        await groups.verify(graph)


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    """A fake LLM server for one test (its requests are recorded on it)."""
    with FakeLLM() as server:
        yield server


@pytest.fixture
async def llm_fr(settings: Settings, fake: FakeLLM, request: pytest.FixtureRequest
                 ) -> AsyncIterator[FrGraph]:
    """FrGraph on the test's store with the fake LLM configured; checked like ``fr``."""
    groups = _CheckedGroups(request)
    llm = LLMSettings(base_url=fake.url + "/v1", api_key="test", model="fake")
    async with FrGraph(settings.model_copy(update={"llm": llm})) as graph:
        await groups.start(graph)
        yield graph
        await groups.verify(graph)

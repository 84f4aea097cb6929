"""The clients for OpenAI-compatible servers send through an ``openai.AsyncOpenAI`` that
fr-graph builds (its own declared dependency), pointed at the configured server."""

from __future__ import annotations

from openai import AsyncOpenAI

from fr_graph.clients import LocalEmbedder, build_graph_embedder, build_llm_client
from fr_graph.config import EmbedderSettings, LLMSettings


def test_llm_clients_send_through_the_client_fr_graph_built() -> None:
    for base_url, client_type in (("http://127.0.0.1:9/v1", "OpenAIGenericClient"),
                                  (None, "OpenAIClient")):
        llm = build_llm_client(LLMSettings(base_url=base_url, api_key="k", model="m"))
        assert type(llm).__name__ == client_type
        sdk = llm.client  # type: ignore[attr-defined]
        assert isinstance(sdk, AsyncOpenAI) and sdk.api_key == "k"
        assert str(sdk.base_url).rstrip("/") == (base_url or "https://api.openai.com/v1")


def test_the_embedder_sends_through_the_client_fr_graph_built() -> None:
    settings = EmbedderSettings(provider="openai", model="e", dim=8,
                                base_url="http://127.0.0.1:9/v1")
    embedder = build_graph_embedder(settings, LocalEmbedder())
    sdk = embedder.client  # type: ignore[attr-defined]
    assert isinstance(sdk, AsyncOpenAI) and sdk.api_key == "not-needed"
    assert str(sdk.base_url).rstrip("/") == "http://127.0.0.1:9/v1"

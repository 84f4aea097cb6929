"""Settings: where the graph lives and which clients fr-graph builds.

Nothing here reads the environment at import time; call :meth:`Settings.from_env`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fr_graph.backends import backend_for
from fr_graph.errors import ConfigError


def default_data_dir() -> Path:
    """Where the embedded store keeps its file when no ``--db`` is given."""
    return Path(platformdirs.user_data_dir("fr-graph", appauthor=False))


class LLMSettings(BaseModel):
    """An LLM is used only when configured; fr-graph never needs one."""

    model_config = ConfigDict(frozen=True)

    api_key: str | None = None
    base_url: str | None = None
    model: str = "gpt-4.1-mini"
    small_model: str | None = None
    #: Sampling temperature of every call (Graphiti's and fr-graph's own). Graphiti's
    #: default is 1; 0 keeps classification and distillation as repeatable as the server is.
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)

    @property
    def configured(self) -> bool:
        return bool(self.api_key or self.base_url)


#: The local model's label, as recorded in a store (see :class:`EmbedderSettings`).
LOCAL_EMBEDDER = "multilingual-e5-small (local)"
LOCAL_EMBEDDING_DIM = 384


class EmbedderSettings(BaseModel):
    """The deployment's embedder: what Graphiti's ``fact_embedding`` and ``name_embedding``
    hold, and what plain Graphiti searches with.

    ``local`` (default) is fr-graph's in-process e5. ``openai`` is Graphiti's
    ``OpenAIEmbedder``: api.openai.com, or any OpenAI-compatible server (``base_url``: Ollama,
    vLLM, LM Studio, Azure's v1 endpoint). fr-graph's own ranking and linking always use
    local e5 vectors (their thresholds were fitted on e5 cosines); with another embedder they
    are stored beside Graphiti's, as ``fr_embedding``.
    """

    model_config = ConfigDict(frozen=True)

    #: ``client``: an embedder client handed over in Python (``FrGraph.attach``).
    provider: Literal["local", "openai", "client"] = "local"
    model: str = "text-embedding-3-small"
    base_url: str | None = None
    api_key: str | None = None
    dim: int = Field(default=1536, ge=1, le=65536)

    @property
    def is_local(self) -> bool:
        return self.provider == "local"

    @property
    def label(self) -> str:
        """What a store records of the embedder that wrote its vectors."""
        return LOCAL_EMBEDDER if self.is_local else self.model

    @property
    def dimension(self) -> int:
        return LOCAL_EMBEDDING_DIM if self.is_local else self.dim


class Settings(BaseModel):
    """Everything fr-graph needs to connect. Frozen; build variants with ``model_copy``.

    Example:
        >>> Settings(db="bolt://localhost:7687").backend
        'neo4j'
    """

    model_config = ConfigDict(frozen=True)

    db: str | None = Field(
        default=None,
        description="bolt:// or neo4j:// URI, falkordb://host:port, or a path for the "
        "embedded store. None means the embedded store in the user data directory.",
    )
    neo4j_user: str = "neo4j"
    neo4j_password: str = "neo4j"
    llm: LLMSettings = LLMSettings()
    embedder: EmbedderSettings = EmbedderSettings()
    #: Dimension of fr-graph's own (lifecycle) vectors: the local e5 model's.
    embedding_dim: int = LOCAL_EMBEDDING_DIM
    #: A TOML policy file overriding the paper's defaults (per deployment and per group); it
    #: has the shape of the packaged ``fr_graph/core/default_policy.toml``.
    policy_file: Path | None = None
    #: How many vector-index hits to ask for per wanted candidate: the Neo4j 5.26 vector
    #: index cannot filter by group, so other groups' facts are dropped after the query.
    vector_oversample: int = Field(default=8, ge=1, le=100)
    #: Parts of an exact vector scan of a large group, run concurrently (Neo4j runs each
    #: query on one thread, so a scan split in two uses two cores; ``FR_GRAPH_SCAN_PARTITIONS``).
    #: 1 turns splitting off; more than the database's idle cores only adds overhead.
    scan_partitions: int = Field(default=2, ge=1, le=16)
    #: Tries per store call or transaction when the store fails transiently (unreachable,
    #: session expired, deadlock); waits ``store_backoff_s * 2**n`` between tries.
    store_attempts: int = Field(default=4, ge=1, le=20)
    store_backoff_s: float = Field(default=0.25, ge=0.0, le=30.0)
    #: Classify imported facts with the LLM instead of the rules (``FR_GRAPH_LLM_CLASSIFY``).
    #: Only with an LLM configured; a failed call falls back to the rules, with a warning.
    llm_classifier: bool = False
    #: Let the LLM distill search candidates to the top 20 (``FR_GRAPH_LLM_DISTILL``).
    #: Only with an LLM configured; a failed call keeps fr-graph's ranking, with a warning.
    llm_distill: bool = False
    #: Decide links between facts with the LLM (``FR_GRAPH_LLM_LINK``) instead of the offline
    #: verifier. Only with an LLM configured; a failed call falls back to the offline one.
    llm_link: bool = False
    #: The offline link verifier (``FR_GRAPH_LINK_VERIFIER``): ``offline``, the shipped
    #: feature model, or ``cross-encoder``, that model with the fine-tuned e5 cross-encoder
    #: re-reading the pairs it does not rule out (more links found at the same precision,
    #: about 10 ms per re-read pair; needs the ``cross-encoder`` extra). Not used when the
    #: LLM verifier is on (it falls back to the feature model).
    link_verifier: Literal["offline", "cross-encoder"] = "offline"

    @property
    def use_llm_classifier(self) -> bool:
        return self.llm_classifier and self.llm.configured

    @property
    def use_llm_link(self) -> bool:
        return self.llm_link and self.llm.configured

    @property
    def use_llm_distill(self) -> bool:
        return self.llm_distill and self.llm.configured

    @property
    def backend(self) -> str:
        """The name of the backend ``db`` selects (``fr_graph.backends``)."""
        return backend_for(self.db).name

    @property
    def embedded_path(self) -> Path:
        """The embedded store's database file (``--db PATH`` may name a folder or a file)."""
        if self.db:
            path = Path(self.db).expanduser()
            return path / "fr-graph.db" if path.suffix == "" else path
        return default_data_dir() / "fr-graph.db"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Read ``FR_GRAPH_DB``, ``NEO4J_USER``, ``NEO4J_PASSWORD``, ``FR_GRAPH_POLICY`` and
        the LLM variables.

        The LLM is configured by ``OPENAI_API_KEY`` and/or ``FR_GRAPH_LLM_BASE_URL`` (any
        OpenAI-compatible server, e.g. Ollama or vLLM) with ``FR_GRAPH_LLM_MODEL`` and
        ``FR_GRAPH_LLM_TEMPERATURE``. The deployment's embedder is ``FR_GRAPH_EMBEDDER``
        (``local`` or ``openai``) with ``FR_GRAPH_EMBEDDING_MODEL``, ``FR_GRAPH_EMBEDDING_DIM``,
        ``FR_GRAPH_EMBEDDING_BASE_URL`` and ``FR_GRAPH_EMBEDDING_API_KEY`` (else
        ``OPENAI_API_KEY``). ``FR_GRAPH_LLM_CLASSIFY`` and ``FR_GRAPH_LLM_DISTILL``
        (``1``/``true``/``yes``) switch on the LLM classifier and distillation;
        ``FR_GRAPH_LINK_VERIFIER=cross-encoder`` puts the cross-encoder behind the offline
        link verifier.
        ``FR_GRAPH_STORE_ATTEMPTS`` and ``FR_GRAPH_STORE_BACKOFF`` (seconds) tune the retries
        after transient store failures; ``FR_GRAPH_SCAN_PARTITIONS`` sets how many concurrent
        parts an exact vector scan of a large group is split into on Neo4j.
        Explicit ``overrides`` that are not None win over the environment.
        """
        env = os.environ if env is None else env
        values: dict[str, object] = {
            "db": env.get("FR_GRAPH_DB") or None,
            "neo4j_user": env.get("NEO4J_USER", "neo4j"),
            "neo4j_password": env.get("NEO4J_PASSWORD", "neo4j"),
            "policy_file": env.get("FR_GRAPH_POLICY") or None,
            "llm": {  # a dict, so a bad value is reported as a setting error below
                "api_key": env.get("OPENAI_API_KEY") or None,
                "base_url": env.get("FR_GRAPH_LLM_BASE_URL") or None,
                "model": env.get("FR_GRAPH_LLM_MODEL", "gpt-4.1-mini"),
                "small_model": env.get("FR_GRAPH_LLM_SMALL_MODEL") or None,
                "temperature": env.get("FR_GRAPH_LLM_TEMPERATURE") or 0.0,
            },
            "embedder": {
                "provider": env.get("FR_GRAPH_EMBEDDER") or "local",
                "model": env.get("FR_GRAPH_EMBEDDING_MODEL") or "text-embedding-3-small",
                "base_url": env.get("FR_GRAPH_EMBEDDING_BASE_URL") or None,
                "api_key": (env.get("FR_GRAPH_EMBEDDING_API_KEY") or env.get("OPENAI_API_KEY")
                            or None),
                "dim": env.get("FR_GRAPH_EMBEDDING_DIM") or 1536,
            },
            "llm_classifier": env.get("FR_GRAPH_LLM_CLASSIFY") or False,
            "llm_distill": env.get("FR_GRAPH_LLM_DISTILL") or False,
            "llm_link": env.get("FR_GRAPH_LLM_LINK") or False,
            "link_verifier": env.get("FR_GRAPH_LINK_VERIFIER") or "offline",
            "store_attempts": env.get("FR_GRAPH_STORE_ATTEMPTS") or 4,
            "store_backoff_s": env.get("FR_GRAPH_STORE_BACKOFF") or 0.25,
            "scan_partitions": env.get("FR_GRAPH_SCAN_PARTITIONS") or 2,
        }
        embedder_overrides = overrides.pop("embedder", None)
        values.update({k: v for k, v in overrides.items() if v is not None})
        if isinstance(embedder_overrides, Mapping):  # CLI options over the environment
            embedder = values["embedder"]
            assert isinstance(embedder, dict)
            embedder.update({k: v for k, v in embedder_overrides.items() if v is not None})
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise ConfigError(f"setting {where}: {first['msg']}") from exc

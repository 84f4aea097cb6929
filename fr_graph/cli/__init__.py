"""The ``fr-graph`` command: a thin shell over :mod:`fr_graph.api`.

Each command parses its arguments, makes one library call and prints. Any
:class:`~fr_graph.errors.FrGraphError` becomes one line on stderr and exit code 1.

One module per command group, each with its own ``commands`` app merged here:
:mod:`.memory` (import, search, backfill, sync, mcp, demo), :mod:`.inspect` (stats, check,
context, explain, show, query, policy), :mod:`.retention` (maintain, pin, unpin, restore),
:mod:`.control` (recategorize, forget, purge) and :mod:`.bench` (``bench lifecycle``, which
alone loads the benchmark package). :mod:`.common` holds what they share.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from fr_graph.backends import db_option_help
from fr_graph.cli import bench, control, inspect, memory, retention
from fr_graph.cli.common import State, log_verbosely, quiet_driver_notifications

app = typer.Typer(
    name="fr-graph",
    help="Lifecycle policy for Graphiti knowledge graphs: current answers, not merely similar.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


DbOption = Annotated[str | None, typer.Option(
    "--db", envvar="FR_GRAPH_DB",
    help=db_option_help())]


class EmbedderName(StrEnum):
    LOCAL = "local"
    OPENAI = "openai"


EmbedderOption = Annotated[EmbedderName | None, typer.Option(
    "--embedder", case_sensitive=False,
    help="What your graph's fact and entity vectors hold: local (fr-graph's e5, 384-d; "
         "default) or openai (Graphiti's OpenAIEmbedder: api.openai.com or any "
         "OpenAI-compatible --embedding-base-url). Env: FR_GRAPH_EMBEDDER.")]
EmbeddingModelOption = Annotated[str | None, typer.Option(
    "--embedding-model", help="Model of --embedder openai (default text-embedding-3-small; "
                              "env FR_GRAPH_EMBEDDING_MODEL).")]
EmbeddingDimOption = Annotated[int | None, typer.Option(
    "--embedding-dim", min=1, help="Vector size of --embedder openai (default 1536; env "
                                   "FR_GRAPH_EMBEDDING_DIM).")]
EmbeddingUrlOption = Annotated[str | None, typer.Option(
    "--embedding-base-url", help="OpenAI-compatible server for --embedder openai (e.g. "
                                 "Ollama's http://localhost:11434/v1; env "
                                 "FR_GRAPH_EMBEDDING_BASE_URL). The key is "
                                 "FR_GRAPH_EMBEDDING_API_KEY or OPENAI_API_KEY.")]


VerboseOption = Annotated[bool, typer.Option(
    "--verbose", help="Log fr-graph's and Graphiti's INFO messages to stderr (default: quiet).")]


@app.callback()
def main_options(db: DbOption = None, embedder: EmbedderOption = None,
                 embedding_model: EmbeddingModelOption = None,
                 embedding_dim: EmbeddingDimOption = None,
                 embedding_base_url: EmbeddingUrlOption = None,
                 verbose: VerboseOption = False) -> None:
    """fr-graph: lifecycle for Graphiti facts (categories, supersession, expiry, recall)."""
    if verbose:
        log_verbosely()
    else:
        quiet_driver_notifications()
    State.db = db
    State.embedder = {"provider": embedder.value if embedder else None,
                      "model": embedding_model, "dim": embedding_dim,
                      "base_url": embedding_base_url}


for group in (memory, inspect, retention, control):
    app.add_typer(group.commands)
app.add_typer(inspect.policy_commands, name="policy")
app.add_typer(bench.commands, name="bench")


def main() -> None:
    app()

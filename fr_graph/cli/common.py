"""What every command module of the ``fr-graph`` command shares: the global options' state,
the library runners, output helpers and the option types used by several commands.

Command modules import this module and nothing else of :mod:`fr_graph.cli`, so the package
has no import cycle.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
import sys
from collections.abc import Callable, Coroutine, Iterator
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, ClassVar, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from fr_graph.config import Settings
from fr_graph.errors import FrGraphError, InputError
from fr_graph.overlay import parse_instant

out = Console()
err = Console(stderr=True)


class State:
    """The global options (``--db``, ``--embedder`` …), set by the app's callback."""

    db: str | None = None
    #: ``--embedder`` and its options, over the environment (None: not given).
    embedder: ClassVar[dict[str, object]] = {}


#: The loggers ``--verbose`` turns on: fr-graph's own and Graphiti's.
VERBOSE_LOGGERS = ("fr_graph", "graphiti_core")
_VERBOSE_HANDLER = "fr-graph --verbose"


def log_verbosely() -> None:
    """Send fr-graph's and Graphiti's INFO records to stderr. Without it the library adds no
    handler, so only Python's last-resort warnings reach the terminal."""
    for name in VERBOSE_LOGGERS:
        logger = logging.getLogger(name)
        logger.setLevel(logging.INFO)
        if not any(h.name == _VERBOSE_HANDLER for h in logger.handlers):  # once per process
            handler = logging.StreamHandler(sys.stderr)
            handler.name = _VERBOSE_HANDLER
            handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
            logger.addHandler(handler)


def quiet_driver_notifications() -> None:
    """Keep the Neo4j driver's query notifications off the terminal: it logs one WARNING per
    query that names a property no edge has yet (Graphiti's searches read
    ``reference_time``), which the last-resort handler prints as a screenful of text per
    search. ``--verbose`` leaves them on."""
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)


def settings() -> Settings:
    return Settings.from_env(db=State.db, embedder=State.embedder)


def fail(exc: Exception) -> NoReturn:
    """One ``error: …`` line on stderr, exit code 1."""
    err.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(1) from None


def run[T](make: Callable[[Any], Coroutine[Any, Any, T]]) -> T:
    """Open the library, run one call, close it; library errors exit cleanly."""
    from fr_graph.api import FrGraph

    async def body() -> T:
        async with FrGraph(settings()) as fr:
            return await make(fr)

    try:
        with _terminate_as_exit():
            return asyncio.run(body())
    except FrGraphError as exc:
        fail(exc)


@contextlib.contextmanager
def _terminate_as_exit() -> Iterator[None]:
    """SIGTERM ends the command as an exception, so the library closes the store on its way
    out (exit status 143). Python's default for SIGTERM kills the process at once, which left
    the embedded store's server running outside the store's lock, free to save its own copy
    over a later process's writes (``fr-graph mcp --transport http`` stopped by a service
    manager). Uvicorn shuts its server down on SIGTERM, then raises the signal again under
    this handler."""

    def exit_on_terminate(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)  # the status a shell reports for a SIGTERM kill

    try:
        previous = signal.signal(signal.SIGTERM, exit_on_terminate)
    except ValueError:  # not the main thread (a test runner's worker): leave it alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def local[T](make: Callable[[Any], T]) -> T:
    """One library call that needs no store (nothing is opened); errors exit cleanly."""
    from fr_graph.api import FrGraph

    try:
        return make(FrGraph(settings()))
    except FrGraphError as exc:
        fail(exc)


def write(text: str) -> None:
    """Plain text to stdout: no markup, no wrapping, no highlighting (safe for any fact)."""
    sys.stdout.write(text + "\n")


def write_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")


def parse_now(value: str | None) -> datetime | None:
    return parse_instant(value, "--now")


def query_time(value: str | None) -> datetime | None:
    """``--now`` parsed before anything is opened; a bad value exits like any error."""
    try:
        return parse_now(value)
    except InputError as exc:
        fail(exc)


def print_results(results: list[Any]) -> None:
    """Search hits as a table: rank, score, category, state, fact."""
    table = Table(show_lines=False)
    for col in ("#", "score", "category", "state", "fact"):
        table.add_column(col)
    for rank, hit in enumerate(results, start=1):
        table.add_row(str(rank), f"{hit.score:.3f}", hit.category or "-", hit.state or "-",
                      escape(hit.fact))
    out.print(table)


class PolicyName(StrEnum):
    """The ranking policies of ``search``, ``context`` and ``explain``."""

    FULL = "full"
    UNTYPED = "untyped"
    OFF = "off"


GroupOption = Annotated[str, typer.Option("--group", help="Group (user) id.")]
NowOption = Annotated[str | None, typer.Option(
    help="Query time, ISO-8601 (default: now).")]
PolicyOption = Annotated[PolicyName, typer.Option(
    "--policy", case_sensitive=False,
    help="full: lifecycle-aware ranking (default); untyped: latest-slot-wins, date expiry "
         "and retraction drop over semantic ranking; off: Graphiti's own hybrid search.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON.")]

"""The ``fr-graph`` command: a thin shell over :mod:`fr_graph.api`.

Each command parses its arguments, makes one library call and prints. Any
:class:`~fr_graph.errors.FrGraphError` becomes one line on stderr and exit code 1.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable, Coroutine
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from fr_graph.config import Settings
from fr_graph.errors import FrGraphError, ImportValidationError, InputError

T = TypeVar("T")

app = typer.Typer(
    name="fr-graph",
    help="Lifecycle policy for Graphiti knowledge graphs: current answers, not merely similar.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
out = Console()
err = Console(stderr=True)


class State:
    db: str | None = None


def _settings() -> Settings:
    return Settings.from_env(db=State.db)


def _run[T](make: Callable[[Any], Coroutine[Any, Any, T]]) -> T:
    """Open the library, run one call, close it; library errors exit cleanly."""
    from fr_graph.api import FrGraph

    async def body() -> T:
        async with FrGraph(_settings()) as fr:
            return await make(fr)

    try:
        return asyncio.run(body())
    except FrGraphError as exc:
        err.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None


def _parse_now(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"--now {value!r}: not an ISO-8601 date-time") from None
    if parsed.tzinfo is None:
        from datetime import UTC

        parsed = parsed.replace(tzinfo=UTC)
    return parsed


DbOption = Annotated[str | None, typer.Option(
    "--db", envvar="FR_GRAPH_DB",
    help="bolt://… or neo4j://… (Neo4j), falkordb://host:port, or a path for the embedded "
         "store. Default: the embedded store in your user data folder.")]


@app.callback()
def main_options(db: DbOption = None) -> None:
    """fr-graph: lifecycle for Graphiti facts (categories, supersession, expiry, recall)."""
    State.db = db


@app.command("import")
def import_cmd(
    file: Annotated[Path, typer.Argument(help="JSONL file of fact and message records.")],
    strict: Annotated[bool, typer.Option(help="Abort before writing if any line is bad.")]
    = False,
) -> None:
    """Import facts and messages from a JSONL file (idempotent by record id)."""
    with Progress(TextColumn("[bold]importing"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err, transient=True) as bar:
        task = bar.add_task("import", total=None)

        async def call(fr: Any) -> Any:
            return await fr.import_file(
                file, strict=strict,
                progress=lambda n: bar.advance(task, n),
                on_total=lambda total: bar.update(task, total=total))

        try:
            report = _run(call)
        except typer.Exit:
            raise
    for line, reason in report.rejected:
        err.print(f"line {line}: {reason}", markup=False, highlight=False)
    out.print(
        f"imported {report.imported} facts, {report.already_present} already present, "
        f"{len(report.rejected)} lines rejected ({report.messages} messages gave "
        f"{report.facts_from_messages} facts); embedding {report.embed_seconds:.1f}s, "
        f"store {report.store_seconds:.1f}s", highlight=False)


def _print_results(results: list[Any]) -> None:
    table = Table(show_lines=False)
    for col in ("#", "score", "category", "state", "fact"):
        table.add_column(col)
    for rank, hit in enumerate(results, start=1):
        table.add_row(str(rank), f"{hit.score:.3f}", hit.category or "-", hit.state or "-",
                      hit.fact)
    out.print(table)


@app.command()
def search(
    query: Annotated[str | None, typer.Argument(help="What to recall.")] = None,
    group: Annotated[str | None, typer.Option("--group", help="Group (user) id.")] = None,
    now: Annotated[str | None, typer.Option(help="Query time, ISO-8601 (default: now).")]
    = None,
    limit: Annotated[int, typer.Option(min=1, max=1000, help="How many results.")] = 10,
    batch: Annotated[Path | None, typer.Option(
        help="JSONL of {id, group_id, query, now}: one result line per query.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Search a group's facts (or a batch of queries in one process)."""
    if batch is not None:
        _search_batch(batch, limit)
        return
    if query is None or group is None:
        err.print("error: QUERY and --group are required (or use --batch FILE)")
        raise typer.Exit(2)
    try:
        when = _parse_now(now)
    except InputError as exc:
        err.print(f"error: {exc}", markup=False)
        raise typer.Exit(1) from None
    results = _run(lambda fr: fr.search(query, group, now=when, limit=limit))
    if as_json:
        sys.stdout.write(json.dumps([r.to_json() for r in results], ensure_ascii=False) + "\n")
    else:
        _print_results(results)


def _search_batch(path: Path, limit: int) -> None:
    from fr_graph.api import BatchQuery

    queries: list[BatchQuery] = []
    try:
        if not path.is_file():
            raise InputError(f"--batch {str(path)!r}: no such file")
        for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw)
                queries.append(BatchQuery(id=str(rec["id"]), group_id=str(rec["group_id"]),
                                          query=str(rec["query"]),
                                          now=_parse_now(rec.get("now"))))
            except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
                raise InputError(f"--batch line {number}: invalid query record ({exc})") from None
    except (InputError, UnicodeDecodeError) as exc:
        err.print(f"error: {exc}", markup=False)
        raise typer.Exit(1) from None
    results = _run(lambda fr: fr.search_batch(queries, limit=limit))
    for query_id, hits in results:
        sys.stdout.write(json.dumps({"id": query_id, "results": [h.to_json() for h in hits]},
                                    ensure_ascii=False) + "\n")


@app.command()
def sync(group: Annotated[str | None, typer.Option("--group")] = None) -> None:
    """Repair fr_* mirrors that drifted from the canonical overlay (e.g. after Graphiti)."""
    report = _run(lambda fr: fr.sync(group))
    out.print(f"repaired {report.repaired} facts in {report.groups} groups", highlight=False)


@app.command()
def stats(
    group: Annotated[str | None, typer.Option("--group")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Fact counts per group by lifecycle state and category."""
    rows = _run(lambda fr: fr.stats(group))
    if as_json:
        from dataclasses import asdict

        sys.stdout.write(json.dumps([asdict(r) for r in rows]) + "\n")
        return
    table = Table()
    for col in ("group", "facts", "by state", "by category", "unannotated", "drifted"):
        table.add_column(col)
    for r in rows:
        table.add_row(r.group_id, str(r.facts),
                      ", ".join(f"{k}={v}" for k, v in sorted(r.by_state.items())),
                      ", ".join(f"{k}={v}" for k, v in sorted(r.by_category.items())),
                      str(r.unannotated), str(r.drifted))
    out.print(table)


@app.command()
def demo() -> None:
    """Import a bundled multi-session conversation history, then run a few searches."""
    from fr_graph.demo import DEMO_GROUP, DEMO_QUERIES, demo_file

    path = demo_file()
    out.print(f"[bold]fr-graph demo[/] — importing {path.name} into group '{DEMO_GROUP}'")

    async def call(fr: Any) -> Any:
        report = await fr.import_file(path)
        answers = [(q, when, await fr.search(q, DEMO_GROUP, now=when, limit=3))
                   for q, when in DEMO_QUERIES]
        return report, answers

    report, answers = _run(call)
    out.print(f"imported {report.imported} facts ({report.already_present} already present)")
    for query, when, hits in answers:
        out.print(f"\n[bold]Q:[/] {query}  [dim](asked {when:%Y-%m-%d})[/]")
        _print_results(hits)


def main() -> None:
    try:
        app()
    except ImportValidationError as exc:  # pragma: no cover - defensive
        err.print(f"error: {exc}", markup=False)
        sys.exit(1)


if __name__ == "__main__":
    main()

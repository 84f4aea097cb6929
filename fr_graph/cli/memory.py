"""Commands that put memory in and get it out: ``import``, ``search``, ``backfill``,
``sync``, ``mcp`` and ``demo``."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from fr_graph.cli.common import (
    JsonOption,
    PolicyName,
    PolicyOption,
    err,
    out,
    parse_now,
    print_results,
    query_time,
    run,
)
from fr_graph.errors import InputError

commands = typer.Typer()


@commands.command("import")
def import_cmd(
    file: Annotated[Path, typer.Argument(help="JSONL file of fact and message records.")],
    strict: Annotated[bool, typer.Option(help="Abort before writing if any line is bad.")]
    = False,
    verbose: Annotated[bool, typer.Option(
        "--verbose", "-v", help="Also list the user messages that gave no fact.")] = False,
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

        report = run(call)
    for line, reason in report.rejected:
        err.print(f"line {line}: {reason}", markup=False, highlight=False)
    if verbose:
        for line, message in report.silent_messages:
            err.print(f"line {line}: message {message} gave no fact", markup=False,
                      highlight=False)
    quiet = len(report.silent_messages)
    silent = f", {quiet} user message{'' if quiet == 1 else 's'} gave none" if quiet else ""
    pasted = (f", {report.pasted_regions} pasted regions set aside"
              if report.pasted_regions else "")
    out.print(
        f"imported {report.imported} facts, {report.already_present} already present, "
        f"{len(report.rejected)} lines rejected ({report.messages} messages gave "
        f"{report.facts_from_messages} facts{silent}{pasted}); "
        f"embedding {report.embed_seconds:.1f}s, store {report.store_seconds:.1f}s",
        highlight=False)


@commands.command()
def search(
    query: Annotated[str | None, typer.Argument(help="What to recall.")] = None,
    group: Annotated[str | None, typer.Option("--group", help="Group (user) id.")] = None,
    now: Annotated[str | None, typer.Option(help="Query time, ISO-8601 (default: now).")]
    = None,
    limit: Annotated[int, typer.Option(min=1, max=1000, help="How many results.")] = 10,
    batch: Annotated[Path | None, typer.Option(
        help="JSONL of {id, group_id, query, now}: one result line per query.")] = None,
    policy: PolicyOption = PolicyName.FULL,
    as_json: JsonOption = False,
) -> None:
    """Search a group's facts (or a batch of queries in one process)."""
    if batch is not None:
        _search_batch(batch, limit, policy.value)
        return
    if query is None or group is None:
        err.print("error: QUERY and --group are required (or use --batch FILE)")
        raise typer.Exit(2)
    when = query_time(now)
    results = run(lambda fr: fr.search(query, group, now=when, limit=limit,
                                         policy=policy.value))
    if as_json:
        sys.stdout.write(json.dumps([r.to_json() for r in results], ensure_ascii=False) + "\n")
    else:
        print_results(results)


def _search_batch(path: Path, limit: int, policy: str) -> None:
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
                                          now=parse_now(rec.get("now"))))
            except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
                raise InputError(f"--batch line {number}: invalid query record ({exc})") from None
    except (InputError, UnicodeDecodeError) as exc:
        err.print(f"error: {exc}", markup=False)
        raise typer.Exit(1) from None
    results = run(lambda fr: fr.search_batch(queries, limit=limit, policy=policy))
    for query_id, hits in results:
        sys.stdout.write(json.dumps({"id": query_id, "results": [h.to_json() for h in hits]},
                                    ensure_ascii=False) + "\n")


@commands.command()
def backfill(group: Annotated[str | None, typer.Option(
        "--group", help="Only this group (default: every group).")] = None) -> None:
    """Annotate an existing Graphiti graph: every fact with no overlay gets one (resumable)."""
    with Progress(TextColumn("[bold]backfilling"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err, transient=True) as bar:
        task = bar.add_task("backfill", total=None)

        async def call(fr: Any) -> Any:
            return await fr.backfill(group, progress=lambda n: bar.advance(task, n),
                                     on_total=lambda total: bar.update(task, total=total))

        report = run(call)
    out.print(
        f"annotated {report.annotated} facts in {report.groups} groups "
        f"({report.edges_per_second:.0f}/s): {sum(report.transitions.values())} supersession "
        f"links, {report.graphiti_superseded} facts Graphiti had invalidated",
        highlight=False)


@commands.command()
def sync(group: Annotated[str | None, typer.Option(
        "--group", help="Only this group (default: every group).")] = None) -> None:
    """Repair fr_* mirrors that drifted from the canonical overlay (e.g. after Graphiti)."""
    report = run(lambda fr: fr.sync(group))
    vectors = f", gave {report.vectors} facts their vector back" if report.vectors else ""
    out.print(f"repaired {report.repaired} facts in {report.groups} groups{vectors}",
              highlight=False)


class McpTransport(StrEnum):
    STDIO = "stdio"
    HTTP = "http"


@commands.command()
def mcp(
    transport: Annotated[McpTransport, typer.Option(
        case_sensitive=False, help="stdio (for a client that starts the server) or http "
                                   "(streamable HTTP at /mcp, with GET /health).")
    ] = McpTransport.STDIO,
    host: Annotated[str, typer.Option(help="HTTP: address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="HTTP: port.")] = 8000,
    group: Annotated[str, typer.Option(
        "--group", help="Group used when a tool call names none.")] = "main",
) -> None:
    """Serve Graphiti's MCP tools, answered with lifecycle ranking, plus lifecycle tools."""
    from fr_graph.mcp_server import serve

    run(lambda fr: serve(fr, transport.value, default_group=group, host=host, port=port))


@commands.command()
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

    report, answers = run(call)
    out.print(f"imported {report.imported} facts ({report.already_present} already present)")
    for query, when, hits in answers:
        out.print(f"\n[bold]Q:[/] {query}  [dim](asked {when:%Y-%m-%d})[/]")
        print_results(hits)

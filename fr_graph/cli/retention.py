"""Retention commands (StageMem): ``maintain``, ``pin``, ``unpin``, ``restore``.

Thin shells over :meth:`fr_graph.api.FrGraph.maintain` and friends.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from fr_graph.cli.common import out, query_time, run, write, write_json

GroupAll = Annotated[str | None, typer.Option(
    "--group", help="Only this group (default: every group).")]
GroupHint = Annotated[str | None, typer.Option(
    "--group", help="The fact's group (default: look it up in every group).")]
UuidArg = Annotated[str, typer.Argument(help="The fact's uuid (see `fr-graph show`).")]
NowArg = Annotated[str | None, typer.Option(
    help="Maintenance time, ISO-8601 (default: now); expiry is judged at it.")]
JsonArg = Annotated[bool, typer.Option("--json", help="Print JSON.")]

commands = typer.Typer()


@commands.command()
def maintain(
    group: GroupAll = None,
    budget: Annotated[int | None, typer.Option(
        "--budget", help="Cap on live facts per group, on top of the policy's stage "
                         "capacities.")] = None,
    dry_run: Annotated[bool, typer.Option(
        "--dry-run", help="Report what would move; write nothing.")] = False,
    now: NowArg = None,
    as_json: JsonArg = False,
) -> None:
    """Expire, reinforce and settle memory (promote, compress, evict) with a report."""
    when = query_time(now)
    reports = run(lambda fr: fr.maintain(group, budget=budget, dry_run=dry_run,
                                              now=when))
    if as_json:
        write_json([r.to_json() for r in reports])
        return
    for report in reports:
        _print_report(report)

@commands.command()
def pin(uuid: UuidArg, group: GroupHint = None) -> None:
    """Pin a fact: maintenance never compresses, evicts or demotes it."""
    change = run(lambda fr: fr.pin(uuid, group_id=group))
    write(f"pinned {change.uuid} ({change.stage}, {change.state})")

@commands.command()
def unpin(uuid: UuidArg, group: GroupHint = None) -> None:
    """Unpin a fact: its own strength decides its retention again."""
    change = run(lambda fr: fr.unpin(uuid, group_id=group))
    write(f"unpinned {change.uuid} ({change.stage}, {change.state})")

@commands.command()
def restore(uuid: UuidArg, group: GroupHint = None) -> None:
    """Undo an automatic change: bring an archived fact back (decided again in its slot),
    or undo the supersession, retraction or contradiction links acting on it (kept as
    'reverted', never re-made). A fact you forgot stays retracted."""
    change = run(lambda fr: fr.restore(uuid, group_id=group))
    verb = "restored" if change.changed else "nothing to undo, unchanged:"
    write(f"{verb} {change.uuid} ({change.stage}, {change.state})")
    if change.note:
        write(f"  {change.note}")


def _print_report(report: Any) -> None:
    mode = " (dry run: nothing written)" if report.dry_run else ""
    loads = ", ".join(
        f"{name} {before}->{after}{'' if cap is None else f'/{cap}'}"
        for name, before, after, cap in zip(
            ("transient", "working", "durable"), report.load_before, report.load_after,
            report.capacities, strict=True))
    counts = ", ".join(f"{k} {v}" for k, v in sorted(report.counts.items())) or "no moves"
    budget = "" if report.budget is None else f"; budget {report.budget}"
    flags = " (budget hit)" if report.budget_hit else ""
    flags += " (still over: only pinned facts left)" if report.over_budget else ""
    out.print(f"[bold]{report.group_id}[/]{mode}: {report.facts} facts; {counts}; "
                  f"load {loads}{budget}{flags}", highlight=False)
    if report.moves:
        table = Table()
        for col in ("uuid", "action", "stage", "state", "strength", "reason", "fact"):
            table.add_column(col)
        for m in report.moves:
            table.add_row(m.uuid, m.action, f"{m.from_stage}->{m.to_stage}",
                          f"{m.from_state}->{m.to_state}",
                          f"{m.strength_before:.2f}->{m.strength_after:.2f}", m.reason,
                          m.fact)
        out.print(table)
    for s in report.summaries:
        write(f"summary {s.uuid} ({s.stage}) of {len(s.originals)} facts: {s.fact}")

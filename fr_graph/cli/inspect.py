"""Commands that look at memory without changing it: ``stats``, ``check``, ``report``,
``context``, ``explain``, ``show``, ``query`` and ``policy show``."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from fr_graph.cli.common import (
    GroupOption,
    JsonOption,
    NowOption,
    PolicyName,
    PolicyOption,
    err,
    fail,
    local,
    out,
    query_time,
    run,
    write,
    write_json,
)
from fr_graph.errors import InputError

commands = typer.Typer()
policy_commands = typer.Typer(help="Inspect the lifecycle policy table.", no_args_is_help=True)


class RankingName(StrEnum):
    """The policies ``explain`` can explain (``off`` is Graphiti's search: no terms)."""

    FULL = "full"
    UNTYPED = "untyped"


@commands.command()
def stats(
    group: Annotated[str | None, typer.Option(
        "--group", help="Only this group (default: every group).")] = None,
    as_json: JsonOption = False,
) -> None:
    """Fact counts per group by lifecycle state and category."""
    rows = run(lambda fr: fr.stats(group))
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


@commands.command()
def check(group: GroupOption, as_json: JsonOption = False) -> None:
    """Verify a group's lifecycle graph: supersession acyclic, one active fact per slot, no
    link to a missing fact, mirrors in sync. Exits 1 when it finds a violation."""
    report = run(lambda fr: fr.check(group))
    if as_json:
        write_json(report.to_json())
    else:
        write("\n".join(report.render()))
    if not report.ok:
        raise typer.Exit(1)


@commands.command()
def report(
    group: GroupOption,
    out_dir: Annotated[Path, typer.Option(
        "--out", help="Folder to write index.html and its charts/ into (created; an "
                      "earlier report there is replaced).")],
    now: Annotated[str | None, typer.Option(
        help="Report time, ISO-8601 (default: now): the end of the timelines and the start "
             "of upcoming expiries.")] = None,
) -> None:
    """Write an HTML report of a group with PNG charts (needs the 'report' extra): facts
    by category and state over time, transitions, decay curves, expiries, slot chains,
    stages and the audit log. Prints the page's path."""
    from fr_graph.errors import FrGraphError
    from fr_graph.report_page import require_report_extra

    try:
        require_report_extra()  # before anything is opened: a missing extra is one line
    except FrGraphError as exc:
        fail(exc)
    when = query_time(now)
    written = run(lambda fr: fr.report(group, out_dir, now=when))
    write(str(written))


@commands.command()
def context(
    query: Annotated[str, typer.Argument(help="What the assistant is about to answer.")],
    group: GroupOption,
    now: NowOption = None,
    limit: Annotated[int, typer.Option(min=1, max=1000, help="How many facts.")] = 10,
    policy: PolicyOption = PolicyName.FULL,
    as_json: Annotated[bool, typer.Option(
        "--json", help='Print {"context": TEXT} as JSON.')] = False,
) -> None:
    """Print the best facts for QUERY as an LLM prompt block grouped by category."""
    when = query_time(now)
    text = run(lambda fr: fr.context(query, group, now=when, limit=limit,
                                      policy=policy.value))
    if as_json:
        write_json({"context": text})
    elif text:
        write(text)
    else:
        err.print("no matching facts", markup=False, highlight=False)


@commands.command()
def explain(
    uuid: Annotated[str, typer.Argument(
        help="The fact's uuid (the `uuid` of a search result or of `fr-graph show`).")],
    query: Annotated[str, typer.Option("--query", help="The query to explain the rank for.")],
    now: NowOption = None,
    group: Annotated[str | None, typer.Option(
        "--group", help="The fact's group (default: looked up).")] = None,
    limit: Annotated[int, typer.Option(
        min=1, max=1000, help="The search limit the rank is compared with.")] = 10,
    policy: Annotated[RankingName, typer.Option(
        "--policy", case_sensitive=False,
        help="full (default) or untyped: the ranking to explain.")] = RankingName.FULL,
    as_json: JsonOption = False,
) -> None:
    """Explain, term by term, why a fact is ranked, masked, expired or superseded for a query."""
    when = query_time(now)
    report = run(lambda fr: fr.explain(uuid, query, group_id=group, now=when,
                                        policy=policy.value, limit=limit))
    if as_json:
        write_json(report.to_json())
    else:
        write("\n".join(report.render()))


@commands.command()
def show(
    group: GroupOption,
    state: Annotated[str | None, typer.Option(
        help="Only this state: active, superseded, expired, retracted, archived.")] = None,
    category: Annotated[str | None, typer.Option(
        help="Only this category (e.g. preferences).")] = None,
    message: Annotated[str | None, typer.Option(
        help="Only what this message (its record id) produced, with the sentence each "
             "fact came from.")] = None,
    as_json: JsonOption = False,
) -> None:
    """List a group's memory by category and lifecycle state, newest first."""
    if message is not None:
        _show_message(group, message, as_json)
        return
    items = run(lambda fr: fr.show(group, state=state, category=category))
    if as_json:
        write_json([item.to_json() for item in items])
        return
    from fr_graph.pipeline.memory_view import group_memory

    write(f"group {group}: {len(items)} facts")
    for cat, states in group_memory(items).items():
        write(f"\n{cat} ({sum(len(v) for v in states.values())})")
        for name, members in states.items():
            write(f"  {name} ({len(members)})")
            for item in members:
                extra = [f"slot {item.slot_key}" if item.slot_key else "",
                         f"event {item.event_time[:16]}" if item.event_time else "",
                         f"source {item.source_id}" if item.source_id else "",
                         f"span {item.source_span[0]}:{item.source_span[1]}"
                         if item.source_span else ""]
                details = "; ".join(e for e in extra if e)
                write(f"    {(item.observed_at or '-')[:10]}  "
                       f"{' '.join(item.fact.split())}"
                       + (f"  ({details})" if details else "") + f"  {item.uuid}")


def _show_message(group: str, message: str, as_json: bool) -> None:
    trace = run(lambda fr: fr.show_message(group, message))
    if as_json:
        write_json(trace.to_json())
        return
    kept = "episode keeps its text" if trace.episode_text is not None else "no episode stored"
    write(f"message {message} in group {group}: {len(trace.facts)} facts ({kept})")
    for item in trace.facts:
        span = f"[{item.source_span[0]}:{item.source_span[1]}] " if item.source_span else ""
        write(f"  {span}{' '.join(item.fact.split())}  ({item.category}, {item.state}"
               + (f", slot {item.slot_key}" if item.slot_key else "") + f")  {item.uuid}")
        sentence = trace.sentence(item)
        if sentence is not None:
            write(f"      from: \"{' '.join(sentence.split())}\"")
    for region in trace.pasted:
        write(f"  [{region.start}:{region.end}] {region.kind} pasted, set aside "
               f"({region.end - region.start} characters)")


def _parse_params(pairs: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            fail(InputError(f"--param {pair!r}: use NAME=VALUE"))
        if key in params:
            fail(InputError(f"--param {key}: given twice"))
        params[key] = value
    return params


def _print_rows(rows: list[dict[str, Any]]) -> None:
    """Rows as aligned plain-text columns (long cells cut at 80 characters)."""
    if not rows:
        err.print("no rows", markup=False, highlight=False)
        return

    def cell(value: Any) -> str:
        if value is None:
            return "-"
        text = ", ".join(str(v) for v in value) if isinstance(value, list) else str(value)
        text = " ".join(text.split())
        return text if len(text) <= 80 else text[:79] + "…"

    columns = list(rows[0])
    table = [columns, *([cell(row.get(c)) for c in columns] for row in rows)]
    widths = [max(len(line[i]) for line in table) for i in range(len(columns))]
    for number, line in enumerate(table):
        write("  ".join(text.ljust(w) for text, w in zip(line, widths, strict=True)).rstrip())
        if number == 0:
            write("  ".join("-" * w for w in widths))


@commands.command()
def query(
    name: Annotated[str | None, typer.Argument(
        help="A query of cypher/queries/ (see --list).")] = None,
    group: Annotated[str | None, typer.Option("--group", help="Group (user) id.")] = None,
    param: Annotated[list[str] | None, typer.Option(
        "--param", help="A query parameter NAME=VALUE (repeatable); times take ISO-8601, "
                        "'now' or an offset like +7d.")] = None,
    list_queries: Annotated[bool, typer.Option(
        "--list", help="List the queries with their parameters.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Run one of fr-graph's ready-made Cypher queries (cypher/queries/) on a group."""
    if list_queries:
        specs = local(lambda fr: fr.user_queries())
        if as_json:
            write_json([spec.to_json() for spec in specs.values()])
            return
        for spec in specs.values():
            write(f"{spec.name}: {spec.summary}")
            for p in spec.params:
                if p.name == "group_id":
                    continue
                default = f", default {p.default}" if p.default is not None else ", required"
                write(f"    --param {p.name}=…  ({p.type}{default}) {p.doc}")
        return
    if name is None or group is None:
        err.print("error: NAME and --group are required (or use --list)")
        raise typer.Exit(2)
    params = _parse_params(param or [])
    rows = run(lambda fr: fr.query(name, group, **params))
    if as_json:
        write_json(rows)
    else:
        _print_rows(rows)


@policy_commands.command("show")
def policy_show(
    group: Annotated[str | None, typer.Option(
        "--group", help="Apply this group's overrides from the policy file.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Print the policy table in force (FR_GRAPH_POLICY file or the paper's defaults)."""
    view = local(lambda fr: fr.policy_view(group))
    if as_json:
        write_json(view.to_json())
    else:
        write("\n".join(view.render()))

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
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, ClassVar, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from fr_graph.cli_control import register as register_control
from fr_graph.config import Settings
from fr_graph.errors import FrGraphError, ImportValidationError, InputError
from fr_graph.overlay import parse_instant

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
    #: ``--embedder`` and its options, over the environment (None: not given).
    embedder: ClassVar[dict[str, object]] = {}


def _settings() -> Settings:
    return Settings.from_env(db=State.db, embedder=State.embedder)


def _fail(exc: Exception) -> NoReturn:
    """One ``error: …`` line on stderr, exit code 1."""
    err.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(1) from None


def _run[T](make: Callable[[Any], Coroutine[Any, Any, T]]) -> T:
    """Open the library, run one call, close it; library errors exit cleanly."""
    from fr_graph.api import FrGraph

    async def body() -> T:
        async with FrGraph(_settings()) as fr:
            return await make(fr)

    try:
        return asyncio.run(body())
    except FrGraphError as exc:
        _fail(exc)


def _local[T](make: Callable[[Any], T]) -> T:
    """One library call that needs no store (nothing is opened); errors exit cleanly."""
    from fr_graph.api import FrGraph

    try:
        return make(FrGraph(_settings()))
    except FrGraphError as exc:
        _fail(exc)


def _write(text: str) -> None:
    """Plain text to stdout: no markup, no wrapping, no highlighting (safe for any fact)."""
    sys.stdout.write(text + "\n")


def _write_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")


def _parse_now(value: str | None) -> datetime | None:
    return parse_instant(value, "--now")


def _when(value: str | None) -> datetime | None:
    """``--now`` parsed before anything is opened; a bad value exits like any error."""
    try:
        return _parse_now(value)
    except InputError as exc:
        _fail(exc)


class PolicyName(StrEnum):
    """The ranking policies of ``search``, ``context`` and ``explain``."""

    FULL = "full"
    UNTYPED = "untyped"
    OFF = "off"


class RankingName(StrEnum):
    """The policies ``explain`` can explain (``off`` is Graphiti's search: no terms)."""

    FULL = "full"
    UNTYPED = "untyped"


GroupOption = Annotated[str, typer.Option("--group", help="Group (user) id.")]
NowOption = Annotated[str | None, typer.Option(
    help="Query time, ISO-8601 (default: now).")]
PolicyOption = Annotated[PolicyName, typer.Option(
    "--policy", case_sensitive=False,
    help="full: lifecycle-aware ranking (default); untyped: latest-slot-wins, date expiry "
         "and retraction drop over semantic ranking; off: Graphiti's own hybrid search.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON.")]


DbOption = Annotated[str | None, typer.Option(
    "--db", envvar="FR_GRAPH_DB",
    help="bolt://… or neo4j://… (Neo4j), falkordb://host:port, or a path for the embedded "
         "store. Default: the embedded store in your user data folder.")]


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


@app.callback()
def main_options(db: DbOption = None, embedder: EmbedderOption = None,
                 embedding_model: EmbeddingModelOption = None,
                 embedding_dim: EmbeddingDimOption = None,
                 embedding_base_url: EmbeddingUrlOption = None) -> None:
    """fr-graph: lifecycle for Graphiti facts (categories, supersession, expiry, recall)."""
    State.db = db
    State.embedder = {"provider": embedder.value if embedder else None,
                      "model": embedding_model, "dim": embedding_dim,
                      "base_url": embedding_base_url}


@app.command("import")
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

        try:
            report = _run(call)
        except typer.Exit:
            raise
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


def _print_results(results: list[Any]) -> None:
    table = Table(show_lines=False)
    for col in ("#", "score", "category", "state", "fact"):
        table.add_column(col)
    for rank, hit in enumerate(results, start=1):
        table.add_row(str(rank), f"{hit.score:.3f}", hit.category or "-", hit.state or "-",
                      escape(hit.fact))
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
    when = _when(now)
    results = _run(lambda fr: fr.search(query, group, now=when, limit=limit,
                                         policy=policy.value))
    if as_json:
        sys.stdout.write(json.dumps([r.to_json() for r in results], ensure_ascii=False) + "\n")
    else:
        _print_results(results)


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
                                          now=_parse_now(rec.get("now"))))
            except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
                raise InputError(f"--batch line {number}: invalid query record ({exc})") from None
    except (InputError, UnicodeDecodeError) as exc:
        err.print(f"error: {exc}", markup=False)
        raise typer.Exit(1) from None
    results = _run(lambda fr: fr.search_batch(queries, limit=limit, policy=policy))
    for query_id, hits in results:
        sys.stdout.write(json.dumps({"id": query_id, "results": [h.to_json() for h in hits]},
                                    ensure_ascii=False) + "\n")


@app.command()
def backfill(group: Annotated[str | None, typer.Option(
        "--group", help="Only this group (default: every group).")] = None) -> None:
    """Annotate an existing Graphiti graph: every fact with no overlay gets one (resumable)."""
    with Progress(TextColumn("[bold]backfilling"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err, transient=True) as bar:
        task = bar.add_task("backfill", total=None)

        async def call(fr: Any) -> Any:
            return await fr.backfill(group, progress=lambda n: bar.advance(task, n),
                                     on_total=lambda total: bar.update(task, total=total))

        report = _run(call)
    out.print(
        f"annotated {report.annotated} facts in {report.groups} groups "
        f"({report.edges_per_second:.0f}/s): {sum(report.transitions.values())} supersession "
        f"links, {report.graphiti_superseded} facts Graphiti had invalidated",
        highlight=False)


@app.command()
def sync(group: Annotated[str | None, typer.Option(
        "--group", help="Only this group (default: every group).")] = None) -> None:
    """Repair fr_* mirrors that drifted from the canonical overlay (e.g. after Graphiti)."""
    report = _run(lambda fr: fr.sync(group))
    vectors = f", gave {report.vectors} facts their vector back" if report.vectors else ""
    out.print(f"repaired {report.repaired} facts in {report.groups} groups{vectors}",
              highlight=False)


@app.command()
def stats(
    group: Annotated[str | None, typer.Option(
        "--group", help="Only this group (default: every group).")] = None,
    as_json: JsonOption = False,
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
def context(
    query: Annotated[str, typer.Argument(help="What the assistant is about to answer.")],
    group: GroupOption,
    now: NowOption = None,
    limit: Annotated[int, typer.Option(min=1, max=1000, help="How many facts.")] = 10,
    policy: PolicyOption = PolicyName.FULL,
    as_json: Annotated[bool, typer.Option(
        "--json", help='Print {"context": TEXT} as JSON.')] = False,
) -> None:
    """Print the best facts for QUERY as an LLM prompt block grouped by category (App. B.4)."""
    when = _when(now)
    text = _run(lambda fr: fr.context(query, group, now=when, limit=limit,
                                      policy=policy.value))
    if as_json:
        _write_json({"context": text})
    elif text:
        _write(text)
    else:
        err.print("no matching facts", markup=False, highlight=False)


@app.command()
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
    when = _when(now)
    report = _run(lambda fr: fr.explain(uuid, query, group_id=group, now=when,
                                        policy=policy.value, limit=limit))
    if as_json:
        _write_json(report.to_json())
    else:
        _write("\n".join(report.render()))


@app.command()
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
    items = _run(lambda fr: fr.show(group, state=state, category=category))
    if as_json:
        _write_json([item.to_json() for item in items])
        return
    from fr_graph.pipeline.inspect import group_memory

    _write(f"group {group}: {len(items)} facts")
    for cat, states in group_memory(items).items():
        _write(f"\n{cat} ({sum(len(v) for v in states.values())})")
        for name, members in states.items():
            _write(f"  {name} ({len(members)})")
            for item in members:
                extra = [f"slot {item.slot_key}" if item.slot_key else "",
                         f"event {item.event_time[:16]}" if item.event_time else "",
                         f"source {item.source_id}" if item.source_id else "",
                         f"span {item.source_span[0]}:{item.source_span[1]}"
                         if item.source_span else ""]
                details = "; ".join(e for e in extra if e)
                _write(f"    {(item.observed_at or '-')[:10]}  "
                       f"{' '.join(item.fact.split())}"
                       + (f"  ({details})" if details else "") + f"  {item.uuid}")


def _show_message(group: str, message: str, as_json: bool) -> None:
    trace = _run(lambda fr: fr.show_message(group, message))
    if as_json:
        _write_json(trace.to_json())
        return
    kept = "episode keeps its text" if trace.episode_text is not None else "no episode stored"
    _write(f"message {message} in group {group}: {len(trace.facts)} facts ({kept})")
    for item in trace.facts:
        span = f"[{item.source_span[0]}:{item.source_span[1]}] " if item.source_span else ""
        _write(f"  {span}{' '.join(item.fact.split())}  ({item.category}, {item.state}"
               + (f", slot {item.slot_key}" if item.slot_key else "") + f")  {item.uuid}")
        sentence = trace.sentence(item)
        if sentence is not None:
            _write(f"      from: \"{' '.join(sentence.split())}\"")
    for region in trace.pasted:
        _write(f"  [{region.start}:{region.end}] {region.kind} pasted, set aside "
               f"({region.end - region.start} characters)")


def _parse_params(pairs: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            _fail(InputError(f"--param {pair!r}: use NAME=VALUE"))
        if key in params:
            _fail(InputError(f"--param {key}: given twice"))
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
        _write("  ".join(text.ljust(w) for text, w in zip(line, widths, strict=True)).rstrip())
        if number == 0:
            _write("  ".join("-" * w for w in widths))


@app.command()
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
        specs = _local(lambda fr: fr.user_queries())
        if as_json:
            _write_json([spec.to_json() for spec in specs.values()])
            return
        for spec in specs.values():
            _write(f"{spec.name}: {spec.summary}")
            for p in spec.params:
                if p.name == "group_id":
                    continue
                default = f", default {p.default}" if p.default is not None else ", required"
                _write(f"    --param {p.name}=…  ({p.type}{default}) {p.doc}")
        return
    if name is None or group is None:
        err.print("error: NAME and --group are required (or use --list)")
        raise typer.Exit(2)
    params = _parse_params(param or [])
    rows = _run(lambda fr: fr.query(name, group, **params))
    if as_json:
        _write_json(rows)
    else:
        _print_rows(rows)


policy_app = typer.Typer(help="Inspect the lifecycle policy table.", no_args_is_help=True)
app.add_typer(policy_app, name="policy")


@policy_app.command("show")
def policy_show(
    group: Annotated[str | None, typer.Option(
        "--group", help="Apply this group's overrides from the policy file.")] = None,
    as_json: JsonOption = False,
) -> None:
    """Print the policy table in force (FR_GRAPH_POLICY file or the paper's defaults)."""
    view = _local(lambda fr: fr.policy_view(group))
    if as_json:
        _write_json(view.to_json())
    else:
        _write("\n".join(view.render()))


class McpTransport(StrEnum):
    STDIO = "stdio"
    HTTP = "http"


@app.command()
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

    _run(lambda fr: serve(fr, transport.value, default_group=group, host=host, port=port))


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


from fr_graph.cli_retention import register as register_retention  # noqa: E402

register_retention(app)


register_control(app, _run)

from fr_graph.cli_bench import register as register_bench  # noqa: E402

register_bench(app)


def main() -> None:
    try:
        app()
    except ImportValidationError as exc:  # pragma: no cover - defensive
        err.print(f"error: {exc}", markup=False)
        sys.exit(1)


if __name__ == "__main__":
    main()

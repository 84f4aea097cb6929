"""``fr-graph bench lifecycle``: a thin shell over ``fr_graph.bench.runner.run_lifecycle_bench``.

The only module of the command that loads the benchmark package (and its ``bench`` extra:
scipy, matplotlib). The embedded backend runs in a temporary store (deleted afterwards: it
only ever holds the benchmark's own groups) unless ``--db`` names one; a server backend
(Neo4j, a FalkorDB server: any registered backend) needs its ``--db`` URI (or the global
``--db`` / ``FR_GRAPH_DB``) and keeps the benchmark's groups (``lb-<nonce>-…``), as nothing
is deleted unless asked by name.
"""

from __future__ import annotations

import asyncio
import importlib.util
import tempfile
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from fr_graph.backends import BACKEND_NAMES, BACKENDS
from fr_graph.cli.common import State, err, fail, out
from fr_graph.errors import FrGraphError, InputError

#: What the benchmark imports from the ``bench`` extra (scoring and charts).
BENCH_EXTRA = ("scipy", "matplotlib")

commands = typer.Typer(help="Benchmarks that run against a real store.", no_args_is_help=True)


class BenchSize(StrEnum):
    QUICK = "quick"
    FULL = "full"


def _registered_backend(value: str) -> str:
    """``--backend``: any registered backend's name, in any case (the registry is the list)."""
    name = value.lower()
    if name not in BACKEND_NAMES:
        raise typer.BadParameter(f"{value!r} is not one of {', '.join(BACKEND_NAMES)}")
    return name


@commands.command("lifecycle")
def lifecycle(
    backend: Annotated[str, typer.Option(
        "--backend", metavar=f"[{'|'.join(BACKEND_NAMES)}]", callback=_registered_backend,
        help="embedded: FalkorDB in a temporary folder (or --db PATH); a server backend "
             "needs its --db URI")] = "embedded",
    db: Annotated[str | None, typer.Option(
        "--db", help="The store to run in (default: the global --db; for embedded, a "
                     "temporary folder).")] = None,
    size: Annotated[BenchSize, typer.Option(
        "--size", case_sensitive=False,
        help="quick: a smoke run of the harness; full: the benchmark.")] = BenchSize.QUICK,
    seed: Annotated[int, typer.Option("--seed", help="Generator and bootstrap seed.")] = 0,
    wording: Annotated[str | None, typer.Option(
        "--wording", metavar="NAME",
        help="Generate the suite in a fresh wording (heldout-2026-12): a held-out split "
             "whose frames, questions and state clauses were written after the rules "
             "froze.")] = None,
    out_dir: Annotated[Path | None, typer.Option(
        "--out", help="Report folder (default: bench/results/lifecycle-BACKEND).")] = None,
) -> None:
    """LifecycleBench: systems, ablations and robustness grid; writes report.md,
    report.json and charts into --out."""
    from fr_graph.api import FrGraph
    from fr_graph.config import Settings

    missing = [name for name in BENCH_EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        fail(InputError(f"fr-graph bench needs the 'bench' extra ({', '.join(missing)} not "
                        "installed): pip install 'fr-graph[bench]'"))
    from fr_graph.bench.runner import run_lifecycle_bench

    target = out_dir or Path("bench") / "results" / f"lifecycle-{backend}"
    uri = db or State.db
    try:
        if wording is not None:
            from fr_graph.bench.phrases import load_wording

            load_wording(wording)  # an unknown name fails before any store is opened
        with tempfile.TemporaryDirectory(prefix="fr-graph-bench-") as scratch:
            if uri is None:
                prefixes = next(b.prefixes for b in BACKENDS if b.name == backend)
                if prefixes:
                    raise InputError(f"--backend {backend}: give --db {prefixes[0]}… "
                                     "(or FR_GRAPH_DB)")
                uri = scratch
            settings = Settings.from_env(db=uri)
            if settings.backend != backend:
                raise InputError(f"--db {uri!r}: not a {backend} store "
                                 f"(it is {settings.backend})")

            async def body() -> Path:
                async with FrGraph(settings) as fr:
                    report = await run_lifecycle_bench(
                        fr, size.value, seed, target, wording=wording,
                        progress=lambda message: err.print(message, markup=False,
                                                           highlight=False))
                return report.out

            written = asyncio.run(body())
    except FrGraphError as exc:
        fail(exc)
    out.print(f"report written to {written}/report.md")

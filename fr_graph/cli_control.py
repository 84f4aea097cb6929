"""User-control commands: ``recategorize``, ``forget`` and ``purge`` (thin shells over
:class:`~fr_graph.api.FrGraph`). ``fr_graph.cli`` calls :func:`register` once."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Annotated, Any

import typer

ReasonOption = Annotated[str | None, typer.Option(
    "--reason", help="Why (kept in the record; ids, time and reason only: no fact text).")]
GroupOrLookup = Annotated[str | None, typer.Option(
    "--group", help="The fact's group (default: looked up).")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def parse_weights(pairs: list[str]) -> dict[str, float] | None:
    """``--weights health=0.7 --weights preferences=0.3`` (or comma-separated) as a dict."""
    from fr_graph.errors import InputError

    weights: dict[str, float] = {}
    for pair in (p for item in pairs for p in item.split(",") if p.strip()):
        name, sep, value = pair.partition("=")
        try:
            weight = float(value)
        except ValueError:
            weight = float("nan")
        if not sep or not name.strip() or weight != weight:
            raise InputError(f"--weights {pair!r}: use CATEGORY=WEIGHT")
        if name.strip() in weights:
            raise InputError(f"--weights {name.strip()}: given twice")
        weights[name.strip()] = weight
    return weights or None


def register(app: typer.Typer, _run: Callable[[Callable[[Any], Coroutine[Any, Any, Any]]], Any]
             ) -> None:
    """Add the user-control commands to ``app``; ``_run`` is the CLI's own library runner
    (passed in: under ``python -m fr_graph.cli`` the CLI module is ``__main__``, and a fresh
    import of ``fr_graph.cli`` would not see its ``--db``)."""
    from fr_graph.cli import _fail, _write, _write_json
    from fr_graph.errors import InputError

    @app.command()
    def recategorize(
        uuid: Annotated[str, typer.Argument(help="The fact's uuid (see `fr-graph show`).")],
        category: Annotated[str, typer.Argument(
            help="The new category: identity, relational, intellectual, health, projects, "
                 "hobbies, preferences, financial, obligations, logistical or other.")],
        weights: Annotated[list[str] | None, typer.Option(
            "--weights", help="The category mix, CATEGORY=WEIGHT (repeatable or "
                              "comma-separated; normalized). Default: CATEGORY=1.")] = None,
        group: GroupOrLookup = None,
        reason: ReasonOption = None,
        as_json: JsonFlag = False,
    ) -> None:
        """Set a fact's category; it then ranks with that category's policy."""
        try:
            mix = parse_weights(weights or [])
        except InputError as exc:
            _fail(exc)
        report = _run(lambda fr: fr.recategorize(uuid, category, weights=mix, group_id=group,
                                                 reason=reason))
        if as_json:
            _write_json(report.to_json())
            return
        mix_text = ", ".join(f"{k}={v:.2f}" for k, v in report.categories.items())
        _write(f"{report.uuid}: category {report.previous or '-'} -> {report.category} "
               f"({mix_text}) in group {report.group_id}")

    @app.command()
    def forget(
        uuid: Annotated[str | None, typer.Argument(
            help="The fact's uuid (or use --slot KEY --group G).")] = None,
        slot: Annotated[str | None, typer.Option(
            "--slot", help="Forget every fact of this slot key and the keys under it "
                           "(e.g. 'user|diet'); needs --group.")] = None,
        group: GroupOrLookup = None,
        reason: ReasonOption = None,
        as_json: JsonFlag = False,
    ) -> None:
        """Retract facts on request: kept (never deleted), left out of current answers."""
        report = _run(lambda fr: fr.forget(uuid, slot_key=slot, group_id=group,
                                           reason=reason))
        if as_json:
            _write_json(report.to_json())
            return
        _write(f"retracted {len(report.retracted)} facts in group {report.group_id} "
               f"({len(report.already_retracted)} already retracted)")
        for fact_uuid in report.retracted:
            _write(f"  {fact_uuid}")

    @app.command()
    def purge(
        uuid: Annotated[str | None, typer.Argument(
            help="The fact's uuid; without it, --group G purges the whole group.")] = None,
        group: Annotated[str | None, typer.Option(
            "--group", help="With UUID: the fact's group (default: looked up). Alone: "
                            "delete this whole group.")] = None,
        reason: ReasonOption = None,
        yes: Annotated[bool, typer.Option("--yes", help="Do not ask for confirmation.")]
        = False,
        as_json: JsonFlag = False,
    ) -> None:
        """Delete a fact, or a whole group, for good: the only command that deletes."""
        if uuid is None and group is None:
            _fail(InputError("purge: give a fact UUID or --group G"))
        what = f"fact {uuid}" if uuid is not None else f"every fact of group {group!r}"
        if not yes and not typer.confirm(f"Delete {what} permanently?", err=True):
            _fail(InputError("purge: not confirmed, nothing deleted"))

        async def call(fr: Any) -> Any:
            if uuid is not None:
                return await fr.purge(uuid, group_id=group, reason=reason)
            return await fr.purge_group(group, reason=reason)

        report = _run(call)
        if as_json:
            _write_json(report.to_json())
            return
        if report.group_deleted:
            _write(f"purged group {report.group_id}: {report.nodes_deleted} nodes deleted "
                   f"(audit {report.audit_id})")
            return
        _write(f"purged {len(report.facts)} fact(s) from group {report.group_id} "
               f"(audit {report.audit_id}): {len(report.summaries_cleaned)} summaries "
               f"cleaned, {len(report.episodes_redacted)} episodes redacted, "
               f"{len(report.episodes_deleted)} episodes deleted, "
               f"{len(report.summary_facts_rebuilt)} summary facts rebuilt, {report.relinked} "
               "chain links bridged")
        for note in report.not_cleaned:
            _write(f"  not cleaned: {note}")

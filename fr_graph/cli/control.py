"""User-control commands: ``recategorize``, ``forget`` and ``purge`` (thin shells over
:class:`~fr_graph.api.FrGraph`)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from fr_graph.cli.common import fail, run, write, write_json
from fr_graph.errors import InputError

ReasonOption = Annotated[str | None, typer.Option(
    "--reason", help="Why (kept in the record; ids, time and reason only: no fact text).")]
GroupOrLookup = Annotated[str | None, typer.Option(
    "--group", help="The fact's group (default: looked up).")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON.")]

commands = typer.Typer()


def parse_weights(pairs: list[str]) -> dict[str, float] | None:
    """``--weights health=0.7 --weights preferences=0.3`` (or comma-separated) as a dict."""
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


@commands.command()
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
        fail(exc)
    report = run(lambda fr: fr.recategorize(uuid, category, weights=mix, group_id=group,
                                             reason=reason))
    if as_json:
        write_json(report.to_json())
        return
    mix_text = ", ".join(f"{k}={v:.2f}" for k, v in report.categories.items())
    write(f"{report.uuid}: category {report.previous or '-'} -> {report.category} "
           f"({mix_text}) in group {report.group_id}")

@commands.command()
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
    report = run(lambda fr: fr.forget(uuid, slot_key=slot, group_id=group,
                                       reason=reason))
    if as_json:
        write_json(report.to_json())
        return
    write(f"retracted {len(report.retracted)} facts in group {report.group_id} "
           f"({len(report.already_retracted)} already retracted)")
    for fact_uuid in report.retracted:
        write(f"  {fact_uuid}")

@commands.command()
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
        fail(InputError("purge: give a fact UUID or --group G"))
    what = f"fact {uuid}" if uuid is not None else f"every fact of group {group!r}"
    if not yes and not typer.confirm(f"Delete {what} permanently?", err=True):
        fail(InputError("purge: not confirmed, nothing deleted"))

    async def call(fr: Any) -> Any:
        if uuid is not None:
            return await fr.purge(uuid, group_id=group, reason=reason)
        return await fr.purge_group(group, reason=reason)

    report = run(call)
    if as_json:
        write_json(report.to_json())
        return
    if report.group_deleted:
        write(f"purged group {report.group_id}: {report.nodes_deleted} nodes deleted "
               f"(audit {report.audit_id})")
        return
    write(f"purged {len(report.facts)} fact(s) from group {report.group_id} "
           f"(audit {report.audit_id}): {len(report.summaries_cleaned)} summaries "
           f"cleaned, {len(report.episodes_redacted)} episodes redacted, "
           f"{len(report.episodes_deleted)} episodes deleted, "
           f"{len(report.summary_facts_rebuilt)} summary facts rebuilt, {report.relinked} "
           "chain links bridged")
    for note in report.not_cleaned:
        write(f"  not cleaned: {note}")

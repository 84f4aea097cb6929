"""Helpers for integration tests: write JSONL for a fresh group, check a group's
lifecycle invariants."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fr_graph.api import FrGraph

DATA = Path(__file__).resolve().parent.parent / "data"


def group_file(tmp_path: Path, name: str, group_id: str) -> Path:
    """A copy of ``tests/data/<name>`` with GROUP replaced by ``group_id``."""
    text = (DATA / name).read_text(encoding="utf-8").replace("GROUP", group_id)
    out = tmp_path / f"{group_id}-{name}"
    out.write_text(text, encoding="utf-8")
    return out


def write_jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


async def assert_lifecycle_invariants(fr: FrGraph, *group_ids: str) -> None:
    """``fr-graph check`` finds no violation in any of ``group_ids`` (a group that no longer
    exists, such as a purged one, is skipped)."""
    problems: list[str] = []
    for group in sorted(set(group_ids)):
        if not await fr.store.has_group(group):
            continue
        report = await fr.check(group)
        if not report.ok:
            problems += [f"group {group}: {line}" for line in report.render()]
    assert not problems, "fr-graph check failed:\n" + "\n".join(problems)


class RunnerWith:
    """``runner`` with its ``run`` replaced (to fail one query inside a real transaction);
    its neighbour search for the linker (a Neo4j transaction scores vectors in the client)
    is its own."""

    def __init__(self, runner: Any, run: Any) -> None:
        self._runner, self.run = runner, run

    async def link_candidates(self, *args: Any) -> Any:
        return await self._runner.link_candidates(*args)

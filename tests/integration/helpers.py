"""Helpers for integration tests: write JSONL for a fresh group."""

from __future__ import annotations

import json
from pathlib import Path

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

"""``FrGraphSync`` end to end on the embedded store: the blocking calls a script makes, from
import through search, undo, forgetting and deletion, give what the async library gives."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from fr_graph import FrGraphSync, Settings

pytestmark = pytest.mark.integration

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LATER = datetime(2025, 10, 5, tzinfo=UTC)


def test_blocking_calls_from_import_to_restore_and_forget(tmp_path: Path) -> None:
    with FrGraphSync(Settings(db=str(tmp_path / "store"))) as fr:
        report = fr.import_file(str(EXAMPLES / "facts.jsonl"))  # a str path is fine
        assert report.imported == 6 and not report.rejected

        found = fr.search_report("How much is my rent?", "alice", now=LATER, limit=3,
                                 include_history=True)
        assert "rent" in found.hits[0].fact and found.hits[0].state == "active"
        assert found.hidden.get("superseded", 0) >= 1  # the old rent, hidden but counted

        current, old_rent = found.hits[0].uuid, found.history[0].uuid
        assert fr.fact(current, group_id="alice").item.uuid == current
        assert [s.group_id for s in fr.stats("alice")] == ["alice"]

        # An automatic supersession is undone by restore; a user's forget is kept.
        assert fr.restore(old_rent, group_id="alice").state == "active"
        forgotten = fr.forget(current, group_id="alice", reason="test")
        assert forgotten.retracted == [current]
        assert [item.uuid for item in fr.show("alice", state="retracted")] == [current]
        fr.purge(current, group_id="alice", reason="test")
        assert [(row["action"], row["target_uuids"]) for row in fr.audit_log("alice")] == [
            ("purge", [current])]

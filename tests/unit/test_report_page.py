"""The report page (``fr_graph.report_page``) without a store: escaping, determinism, the
folder written whole or not at all, and the one-line error without the ``report`` extra.
(The page opened in Chromium on both stores: tests/integration/test_report.py.)"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from fr_graph.core.lifecycle import LifecycleState, Stage
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.report import ReportData, ReportFact, ReportLink, build_report
from fr_graph.errors import InputError
from fr_graph.report_page import write_report
from tests.unit.cli_process import run_cli_without

NOW = datetime(2025, 3, 15, tzinfo=UTC)
HOSTILE = '<script>alert("x")</script> costs $5 and $6 & more'


def report_data() -> ReportData:
    def fact(uuid: str, state: LifecycleState, month: int, **extra: object) -> ReportFact:
        return ReportFact(uuid=uuid, text=HOSTILE if uuid == "b" else f"fact {uuid}",
                          category=Category.FINANCIAL, state=state, stage=Stage.TRANSIENT,
                          slot_key="user|<budget>", observed_at=datetime(2025, month, 2,
                                                                         tzinfo=UTC),
                          **extra)  # type: ignore[arg-type]

    facts = [fact("a", LifecycleState.SUPERSEDED, 1, valid_to=datetime(2025, 2, 2, tzinfo=UTC)),
             fact("b", LifecycleState.ACTIVE, 2, valid_to=datetime(2025, 5, 1, tzinfo=UTC))]
    links = [ReportLink("FR_SUPERSEDES", "b", "a", "supersede", datetime(2025, 2, 2,
                                                                           tzinfo=UTC))]
    audit = [{"id": "p1", "action": "purge", "at": "2025-03-01T00:00:00Z", "facts": 1,
              "target_uuids": ["z"], "reason": "<img src=x onerror=alert(1)>"}]
    return build_report("g<1>", facts, links, audit, PolicyTable.default(), NOW)


def test_user_text_is_escaped_and_the_page_has_every_section(tmp_path: Path) -> None:
    index = write_report(report_data(), tmp_path / "out")
    page = index.read_text(encoding="utf-8")
    assert index == (tmp_path / "out" / "index.html").absolute()
    assert "<script" not in page and "onerror=alert(1)>" not in page
    assert "&lt;script&gt;" in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "g&lt;1&gt;" in page and "user|&lt;budget&gt;" in page
    for heading in ("Facts by category over time", "Facts by state over time",
                    "Transitions per month", "Decay curves", "Upcoming expiries",
                    "Largest slot chains", "Stages and budget", "Audit log"):
        assert f"<h2>{heading}</h2>" in page
    images = sorted(p.name for p in (tmp_path / "out" / "charts").iterdir())
    assert images == ["categories.png", "chain-1.png", "decay.png", "stages.png",
                      "states.png", "transitions.png"]
    for name in images:
        assert f'src="charts/{name}"' in page
        assert (tmp_path / "out" / "charts" / name).read_bytes()[:4] == b"\x89PNG"
    assert "http://" not in page and "https://" not in page  # nothing fetched from elsewhere


def test_the_same_data_gives_the_same_bytes(tmp_path: Path) -> None:
    first = write_report(report_data(), tmp_path / "one").parent
    second = write_report(report_data(), tmp_path / "two").parent
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    for name in files:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    assert b"Software" not in (first / "charts" / "decay.png").read_bytes()


def test_an_earlier_report_is_replaced_and_nothing_is_left_beside_it(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_report(report_data(), out)
    (out / "charts" / "stale.png").write_bytes(b"old")
    write_report(report_data(), out)
    assert not (out / "charts" / "stale.png").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.parametrize("case", ["file", "foreign folder", "under a file"])
def test_a_folder_that_cannot_take_the_report_is_refused_and_left_as_it_was(
        tmp_path: Path, case: str) -> None:
    blocker = tmp_path / "thing"
    if case == "file":
        blocker.write_text("mine")
        out = blocker
    elif case == "foreign folder":
        blocker.mkdir()
        (blocker / "notes.txt").write_text("mine")
        out = blocker
    else:
        blocker.write_text("mine")
        out = blocker / "report"
    with pytest.raises(InputError, match="report folder"):
        write_report(report_data(), out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["thing"]
    if blocker.is_dir():
        assert [p.name for p in blocker.iterdir()] == ["notes.txt"]
    else:
        assert blocker.read_text() == "mine"


def test_report_without_its_extra_names_the_extra_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = run_cli_without("matplotlib", ["--db", str(tmp_path / "mem"), "report",
                                          "--group", "g", "--out", str(out)])
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "error: fr-graph report needs the 'report' extra (matplotlib not installed): "
        "pip install 'fr-graph[report]'"]
    assert list(tmp_path.iterdir()) == []

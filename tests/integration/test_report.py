"""``fr-graph report`` on each real store: a small history with supersessions, a retraction,
an expiry, an archived fact and a purge, written as a report and opened in headless Chromium
(Debian's ``/usr/bin/chromium``, driven by Playwright; tools/setup.sh installs it): no console
or page error, no failed request, every image loaded, every section there. Plus the CLI's
one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from fr_graph.api import FrGraph
from fr_graph.config import Settings
from fr_graph.core.policy import PolicyTable
from fr_graph.errors import InputError, NotFoundError
from fr_graph.overlay import stable_uuid
from fr_graph.pipeline.records import FactRecord
from tests.integration.helpers import write_jsonl

pytestmark = pytest.mark.integration

CHROMIUM = Path("/usr/bin/chromium")
#: Headless, and nothing that reaches for the network (the test machines have none).
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
NOW = datetime(2025, 4, 1, tzinfo=UTC)
SECTIONS = ["Facts by category over time", "Facts by state over time",
            "Transitions per month", "Decay curves", "Upcoming expiries",
            "Largest slot chains", "Stages and budget", "Audit log"]
HOSTILE = 'User wrote <b>bold</b> & "quotes" about $x$ prices'


def record(group_id: str, rid: str, fact: str, month: int, day: int, **extra: Any
           ) -> FactRecord:
    return FactRecord(type="fact", group_id=group_id, id=rid, fact=fact,
                      observed_at=datetime(2025, month, day, 12, tzinfo=UTC), **extra)


def history(group_id: str) -> list[FactRecord]:
    """Two supersessions of one slot, a cancelled plan, a dated obligation that expires, a
    coming appointment, low-value details for maintenance to evict, and a fact to purge."""
    return [
        record(group_id, "home-1", "User lives in Austin", 1, 5, category="logistical",
               slot_key="user|home", confidence=0.9),
        record(group_id, "home-2", "User moved to Denver", 2, 10, category="logistical",
               slot_key="user|home", confidence=0.9),
        record(group_id, "home-3", "User moved to Boulder", 3, 3, category="logistical",
               slot_key="user|home", confidence=0.9),
        record(group_id, "trip", "User plans a trip to Lisbon in May", 1, 20,
               category="projects", slot_key="user|trip:lisbon", confidence=0.8),
        record(group_id, "trip-off", "User called off the Lisbon trip", 2, 15,
               category="projects", slot_key="user|trip:lisbon", marker="retraction",
               confidence=0.9),
        record(group_id, "dentist", "User has a dentist appointment", 1, 10,
               category="obligations", event_time=datetime(2025, 2, 1, 10, tzinfo=UTC)),
        record(group_id, "review", "User has a design review", 3, 20, category="obligations",
               event_time=datetime(2025, 4, 10, 10, tzinfo=UTC)),
        record(group_id, "movie", "User watched a movie", 2, 1, category="other",
               confidence=0.3),
        record(group_id, "tea", "User tried a green tea", 2, 2, category="preferences",
               confidence=0.3),
        record(group_id, "hostile", HOSTILE, 3, 1, category="obligations", confidence=0.6,
               event_time=datetime(2025, 4, 20, 10, tzinfo=UTC)),
        record(group_id, "secret", "User's door code is 4411", 3, 5, category="other"),
    ]


async def build_history(fr: FrGraph, group_id: str) -> None:
    records = {r.id: r for r in history(group_id)}
    details = [records.pop(rid) for rid in ("movie", "tea", "hostile")]
    # Maintenance over capacity first archives inactive facts, so the low-value details are
    # settled (one evicted) before any fact is superseded, retracted or expired.
    policy = fr.policy
    fr.policy = PolicyTable.from_mapping({"retention": {"transient_capacity": 2}})
    await fr.import_records(details)
    await fr.maintain(group_id, now=datetime(2025, 3, 2, tzinfo=UTC))
    fr.policy = policy
    await fr.import_records(list(records.values()))
    await fr.purge(stable_uuid(group_id, "fact", "secret"), reason="user asked <now>")
    await fr.maintain(group_id, now=NOW)


async def open_in_chromium(index: Path) -> dict[str, Any]:
    """Load the page from file:// and report what the browser saw."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: the report test needs Debian's chromium "
                    "(bash tools/setup.sh installs it: apt-get install -y chromium)")
    from playwright.async_api import async_playwright

    problems: list[str] = []
    async with async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=str(CHROMIUM),
                                               args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page()
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
                    if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
            await page.goto(index.as_uri(), wait_until="load")
            images = await page.evaluate(
                "Array.from(document.images).map(i => [i.getAttribute('src'), "
                "i.complete && i.naturalWidth > 0])")
            headings = await page.evaluate(
                "Array.from(document.querySelectorAll('h2')).map(h => h.textContent)")
            text = await page.evaluate("document.body.innerText")
        finally:
            await browser.close()
    return {"problems": problems, "images": images, "headings": headings, "text": text}


async def test_the_report_renders_in_chromium_with_every_image(
        fr: FrGraph, group_id: str, tmp_path: Path) -> None:
    await build_history(fr, group_id)
    by_state = (await fr.stats(group_id))[0].by_state
    assert {"active", "superseded", "retracted", "expired", "archived"} <= set(by_state)

    index = await fr.report(group_id, tmp_path / "report", now=NOW)
    assert index == (tmp_path / "report" / "index.html").absolute()
    seen = await open_in_chromium(index)

    assert seen["problems"] == []
    assert seen["headings"] == SECTIONS
    assert len(seen["images"]) >= 7  # categories, states, transitions, decay, 2 chains, stages
    assert [src for src, loaded in seen["images"] if not loaded] == []
    assert {src for src, _ in seen["images"]} >= {
        "charts/categories.png", "charts/states.png", "charts/transitions.png",
        "charts/decay.png", "charts/chain-1.png", "charts/chain-2.png", "charts/stages.png"}
    text = seen["text"]
    assert HOSTILE in text  # escaped in the HTML, shown as written
    assert "User has a design review" in text  # the coming expiry
    assert "user asked <now>" in text and "purge" in text  # the audit log
    assert "user|home (3 facts)" in text
    page = index.read_text(encoding="utf-8")
    assert "<b>bold</b>" not in page
    for state in ("superseded", "retracted", "expired", "archived"):
        assert f"{state} " in text.split("by state", 1)[1].split("\n", 1)[0], state


async def test_report_errors_write_nothing(fr: FrGraph, group_id: str, tmp_path: Path
                                          ) -> None:
    with pytest.raises(NotFoundError, match=r"no such group|no annotated facts"):
        await fr.report(f"{group_id}-none", tmp_path / "none", now=NOW)
    with pytest.raises(InputError):
        await fr.report("bad group!", tmp_path / "bad", now=NOW)
    await fr.import_records(history(group_id)[:1])
    (tmp_path / "file").write_text("mine")
    with pytest.raises(InputError, match="report folder"):
        await fr.report(group_id, tmp_path / "file" / "out", now=NOW)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def fr_graph_cli(settings: Settings, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FR_GRAPH_DB": settings.db or "", "NEO4J_USER": settings.neo4j_user,
           "NEO4J_PASSWORD": settings.neo4j_password}
    return subprocess.run([sys.executable, "-m", "fr_graph.cli", *args], env=env,
                          capture_output=True, text=True, timeout=300)


def test_cli_prints_the_page_and_fails_in_one_line(settings: Settings, group_id: str,
                                                   tmp_path: Path) -> None:
    # Through the CLI only: the embedded store takes one process at a time.
    facts = write_jsonl(tmp_path / "facts.jsonl", [
        r.model_dump(mode="json", exclude_none=True) for r in history(group_id)[:3]])
    done = fr_graph_cli(settings, "import", str(facts))
    assert done.returncode == 0, done.stderr
    out = tmp_path / "out"
    done = fr_graph_cli(settings, "report", "--group", group_id, "--now",
                        "2025-04-01T00:00:00Z", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(out / "index.html")
    assert (out / "charts" / "decay.png").is_file()

    for args, message in [
            (("--group", f"{group_id}-none"), "error: group "),
            (("--group", group_id, "--now", "yesterday-ish"), "error: --now 'yesterday-ish'"),
            (("--group", group_id, "--out", str(tmp_path / "out" / "index.html")),
             "error: report folder ")]:
        target = ("--out", str(tmp_path / "fresh")) if "--out" not in args else ()
        done = fr_graph_cli(settings, "report", *args, *target)
        assert done.returncode == 1, args
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(message), done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["facts.jsonl", "out"]

"""Regenerate docs/report-screenshot.png: the demo group's report, top of the page.

Imports the bundled demo history into a temporary embedded store, writes the report as of
``--now`` and photographs the first ``--height`` pixels at 1200 px wide in Debian's headless
Chromium (Playwright drives /usr/bin/chromium; nothing is downloaded).

    .venv/bin/python tools/report_screenshot.py [--now 2025-10-01T00:00:00Z]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from fr_graph.api import FrGraph
from fr_graph.config import Settings
from fr_graph.demo import DEMO_GROUP, demo_file
from fr_graph.overlay import parse_instant

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--now", default="2025-10-01T00:00:00Z")
    parser.add_argument("--height", type=int, default=2350)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "report-screenshot.png")
    args = parser.parse_args()
    now = parse_instant(args.now, "--now")
    from playwright.async_api import async_playwright

    with tempfile.TemporaryDirectory(prefix="fr-graph-shot-") as scratch:
        async with FrGraph(Settings(db=str(Path(scratch) / "mem"))) as fr:
            await fr.import_file(demo_file())
            index = await fr.report(DEMO_GROUP, Path(scratch) / "report", now=now)
        async with async_playwright() as driver:
            browser = await driver.chromium.launch(executable_path="/usr/bin/chromium",
                                                   args=CHROMIUM_ARGS)
            page = await browser.new_page(viewport={"width": 1200, "height": args.height})
            await page.goto(index.as_uri(), wait_until="load")
            args.out.parent.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(args.out), full_page=False)
            await browser.close()
    print(args.out)


if __name__ == "__main__":
    asyncio.run(main())

"""Message import throughput, end to end, on the embedded default (what the user waits on).

    .venv/bin/python bench/messages/import_messages.py [FILE.jsonl ...] [--db DIR]

Turns the benchmark's chat messages (default: ``dev_*.jsonl``) into ``{"type":"message"}``
records of one group, and imports them with ``FrGraph.import_file`` into a fresh embedded
store: parsing, offline extraction (pasted regions set aside), episodes, the rules
classifier, the local e5 embedder, Graphiti's save API, the overlay with the linker. Prints
messages/s and facts/s of the whole import and its parts (extraction timed separately on
the same messages).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import tempfile
import time
from pathlib import Path

from fr_graph.api import FrGraph
from fr_graph.bench.provenance import provenance
from fr_graph.config import Settings
from fr_graph.pipeline.ingest import extract_from_message
from fr_graph.pipeline.records import MessageRecord

HERE = Path(__file__).resolve().parent


def message_lines(paths: list[Path], group_id: str) -> list[dict[str, object]]:
    lines: list[dict[str, object]] = []
    for path in paths:
        for raw in path.read_text(encoding="utf-8").splitlines():
            if raw.strip():
                record = json.loads(raw)
                lines.append({"type": "message", "group_id": group_id, "role": "user",
                              "id": record["id"], "content": record["text"],
                              "observed_at": record["observed_at"]})
    return lines


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--db", type=Path)
    args = parser.parse_args()
    files = args.files or sorted(HERE.glob("dev_*.jsonl"))
    lines = message_lines(files, "chat_bench")
    workdir = Path(tempfile.mkdtemp(prefix="fr-msg-"))
    source = workdir / "messages.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")

    started = time.perf_counter()
    for line in lines:
        extract_from_message(MessageRecord.model_validate(line))
    extraction = time.perf_counter() - started

    async with FrGraph(Settings(db=str(args.db or workdir / "db"))) as fr:
        fr.embedder.embed_query("warm up")  # model load is not per-message cost
        started = time.perf_counter()
        report = await fr.import_file(source)
        total = time.perf_counter() - started
    result = {
        "provenance": provenance(),
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "messages": report.messages, "characters": sum(len(str(x["content"])) for x in lines),
        "facts": report.imported, "rejected": len(report.rejected),
        "silent_messages": len(report.silent_messages),
        "pasted_regions": report.pasted_regions,
        "seconds": round(total, 2),
        "messages_per_second": round(report.messages / total, 1),
        "facts_per_second": round(report.imported / total, 1),
        "extraction_seconds": round(extraction, 2),
        "embed_seconds": round(report.embed_seconds, 2),
        "store_seconds": round(report.store_seconds, 2),
        "link_seconds": round(report.link_seconds, 2),
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    asyncio.run(main())

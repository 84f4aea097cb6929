"""fr-graph from Python: import the example facts, then ask as of a given time.

    python examples/quickstart.py            # embedded store in a temporary folder
    FR_GRAPH_DB=bolt://localhost:7687 python examples/quickstart.py
"""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime
from pathlib import Path

from fr_graph import FrGraphSync, Settings

HERE = Path(__file__).resolve().parent


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.from_env(db=None)
        if settings.db is None:
            settings = settings.model_copy(update={"db": str(Path(tmp) / "store")})
        with FrGraphSync(settings) as fr:
            report = fr.import_file(HERE / "facts.jsonl")
            print(f"imported {report.imported} facts")
            when = datetime(2025, 10, 5, tzinfo=UTC)
            for query in ("How much is my rent?", "What did my rent use to be?"):
                print(f"\n{query}")
                for hit in fr.search(query, "alice", now=when, limit=3):
                    print(f"  {hit.score:6.3f}  {hit.state:<10}  {hit.fact}")


if __name__ == "__main__":
    main()

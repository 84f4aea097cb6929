"""The local embedder gives each engine call only the idle cores (issue 14): OpenMP threads
that share a core with other work make the whole call wait."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from fr_graph.clients import LocalEmbedder, _runnable_elsewhere, engine_threads


@pytest.mark.parametrize(("cores", "busy", "threads"), [
    (2, 0, 2), (2, 1, 1), (2, 6, 1), (8, 3, 5), (4, None, 4), (1, 0, 1)])
def test_threads_are_the_idle_cores_and_at_least_one(cores: int, busy: int | None,
                                                     threads: int) -> None:
    assert engine_threads(cores, busy) == threads


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/loadavg")
def test_runnable_tasks_are_read_on_linux() -> None:
    busy = _runnable_elsewhere()
    assert busy is not None and busy >= 0


def test_the_engine_thread_count_is_wired_unless_the_user_set_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    embedder = LocalEmbedder()
    assert embedder._set_threads is not None, "the bundled OpenMP runtime was not found"
    vectors = []
    for threads in (1, 2):  # the vector does not depend on the thread count
        embedder._set_threads(threads)
        vectors.append(np.asarray(embedder._model.query("where do I live now?")))
    assert np.allclose(vectors[0], vectors[1], atol=1e-6)
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    assert LocalEmbedder()._set_threads is None

"""The embedder's opt-in passage cache returns the vectors it would compute, once per text."""

from __future__ import annotations

import numpy as np

from fr_graph.clients import LocalEmbedder


def test_cached_passages_equal_fresh_ones_and_are_kept_per_text() -> None:
    embedder = LocalEmbedder()
    texts = ["I drink green tea now", "My rent is $1,850", "I drink green tea now"]
    fresh = embedder.embed_passages(texts)
    embedder.cache_passages()
    cached = embedder.embed_passages(texts)
    assert np.array_equal(fresh, cached)
    assert embedder._passages is not None and set(embedder._passages) == set(texts)
    again = embedder.embed_passages(["My rent is $1,850"])
    assert np.array_equal(again[0], fresh[1])

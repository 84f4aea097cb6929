"""Keyword queries keep content words only (Graphiti's fulltext indexes keep stop words)."""

from __future__ import annotations

from fr_graph.core.text import FULLTEXT_MAX_WORDS, fulltext_words


def test_function_words_are_dropped() -> None:
    assert fulltext_words("what do I read on?") == "read"
    assert fulltext_words("Where do I listen to music these days?") == "listen music"


def test_a_query_of_function_words_only_is_empty() -> None:
    assert fulltext_words("what is it?") == ""


def test_words_are_distinct_and_capped() -> None:
    words = " ".join(f"w{i}" for i in range(FULLTEXT_MAX_WORDS + 10))
    assert len(fulltext_words(words + " w1 w2").split()) == FULLTEXT_MAX_WORDS
    assert fulltext_words("rent rent Rent") == "rent Rent"

"""Fact extraction and classification.

Two offline pieces, both deterministic and dependency-light:

* :func:`extract_facts` turns a user's chat message into atomic facts (``extract.py``);
* :func:`classify_fact` / :class:`RulesClassifier` give each fact its category, soft
  weights, slot key, lifecycle marker, event time and flags (``rules.py``).

An LLM classifier plugs in by satisfying :class:`FactClassifier`; the pipeline depends on
the protocol, not on the rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from fr_graph.classify.extract import ExtractedFact, extract_facts
from fr_graph.classify.rules import RulesClassifier, classify_fact
from fr_graph.core.classification import Classification


@runtime_checkable
class FactClassifier(Protocol):
    """Anything that classifies facts: the offline rules, an LLM, or caller-supplied gold."""

    def classify(
        self, fact: str, observed_at: datetime, context: str | None = None
    ) -> Classification:
        """Classify one fact said at ``observed_at`` (``context``: surrounding turns)."""
        ...

    def classify_batch(
        self,
        facts: Sequence[str],
        observed_at: datetime | Sequence[datetime],
        contexts: Sequence[str | None] | None = None,
    ) -> list[Classification]:
        """Classify many facts, in order; ``observed_at`` is shared or one per fact."""
        ...


__all__ = [
    "ExtractedFact",
    "FactClassifier",
    "RulesClassifier",
    "classify_fact",
    "extract_facts",
]

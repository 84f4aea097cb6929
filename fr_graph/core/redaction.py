"""Taking a purged fact's text out of free text Graphiti wrote (pure, deterministic).

Graphiti copies facts into prose it owns: entity and community summaries (written by its
LLM) and episode content (the source message). Deleting the fact's ``RELATES_TO`` leaves
that prose as it was (upstream getzep/graphiti#1837). :func:`redact` removes every
sentence that contains the fact's text (compared case- and whitespace-insensitively), so
the unit of removal is the sentence: a sentence that also says something else goes with
it. A sentence that only paraphrases the fact cannot be found by its text; one that shares
most of the fact's content words is reported as a possible paraphrase and left in place.

Example:
    >>> redact("Priya is vegetarian. Priya is allergic to peanuts.",
    ...        "Priya is allergic to peanuts").text
    'Priya is vegetarian.'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from fr_graph.core.text import FUNCTION_WORDS, words

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[^\W_]+")
_EDGE_PUNCTUATION = " \t\n.,;:!?\"'()[]"
#: Words too common to say that a sentence restates a fact.
_STOPWORDS: Final = FUNCTION_WORDS | words("user also")
#: A remaining sentence holding at least this share of the fact's content words (and at
#: least two of them) is reported as a possible paraphrase.
PARAPHRASE_SHARE: Final = 0.6


def normalize(text: str) -> str:
    """Lower case, single spaces, no punctuation at either end: the form texts match in."""
    return _SPACE.sub(" ", text).strip(_EDGE_PUNCTUATION).lower()


def fact_phrases(fact: str) -> list[str]:
    """The normalized sentences of ``fact`` (a summary may quote one sentence of a longer
    fact), each at least 8 characters so that a stray word never matches."""
    phrases = [normalize(s) for s in _SENTENCE_END.split(fact.strip())]
    whole = normalize(fact)
    return sorted({p for p in [whole, *phrases] if len(p) >= 8})


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in _STOPWORDS}


@dataclass(frozen=True, slots=True)
class Redaction:
    """The text with the fact's sentences removed.

    Attributes:
        text: what is left (lines kept, sentences of a line joined by one space).
        removed: how many sentences were removed.
        paraphrases: remaining sentences that may restate the fact in other words.
    """

    text: str
    removed: int
    paraphrases: tuple[str, ...]

    @property
    def empty(self) -> bool:
        return not self.text.strip()


def _is_paraphrase(sentence: str, fact_words: set[str]) -> bool:
    shared = fact_words & _content_words(sentence)
    return len(shared) >= 2 and len(shared) >= PARAPHRASE_SHARE * len(fact_words)


def redact(text: str, *facts: str) -> Redaction:
    """``text`` without the sentences that contain any of ``facts`` (see the module doc)."""
    phrases = [p for fact in facts for p in fact_phrases(fact)]
    words = [w for w in (_content_words(fact) for fact in facts) if w]
    kept_lines: list[str] = []
    removed = 0
    paraphrases: list[str] = []
    for line in text.splitlines():
        kept: list[str] = []
        for sentence in _SENTENCE_END.split(line.strip()):
            if not sentence:
                continue
            flat = _SPACE.sub(" ", sentence).lower()
            if any(p in flat for p in phrases):
                removed += 1
                continue
            if any(_is_paraphrase(sentence, w) for w in words):
                paraphrases.append(sentence)
            kept.append(sentence)
        if kept:
            kept_lines.append(" ".join(kept))
    return Redaction(text="\n".join(kept_lines) if removed else text, removed=removed,
                     paraphrases=tuple(paraphrases))


def mentions(text: str, *facts: str) -> bool:
    """Whether ``text`` still contains one of ``facts`` (case- and whitespace-insensitive)."""
    flat = _SPACE.sub(" ", text).lower()
    return any(p in flat for fact in facts for p in fact_phrases(fact))

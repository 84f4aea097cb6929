"""Word lists and query-text helpers shared by ranking, linking, keyword search and
redaction: one English function-word list, each use adding only its own words, and the
keyword-query preparation both stores' fulltext search starts from.

Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Final


def words(text: str) -> frozenset[str]:
    """A whitespace-separated word list as a frozenset (keeps long lists readable)."""
    return frozenset(text.split())


#: English function words: they say how a sentence is built, not what it is about.
FUNCTION_WORDS: Final = words("""
a about above after again all am an and any are as at be been before being below between
both but by can could did do does doing down during each few for from had has have having
he her here hers him his how i i'd i'll i'm i've if in into is it it's its just me more
most my myself no nor not now of off on once only or other our ours out over own same she
should so some still such than that the their theirs them then there these they this those
through to too under until up very was we were what when where which while who whom why
will with would you your yours yourself
""")

#: Words left out of keyword queries: function words, plus the request words of questions
#: to an assistant. Graphiti's fulltext indexes keep stop words (Neo4j's default analyzer is
#: ``standard-no-stop-words``), so "what do I read on?" would otherwise rank "hmm, not quite
#: what I meant" first on the words "what" and "I".
FULLTEXT_STOP_WORDS: Final = FUNCTION_WORDS | words("""
remind tell know anything something days currently ok okay please
""")

#: Keyword search uses at most this many distinct words of a query: Lucene refuses queries
#: of more than 1024 clauses, and more words add nothing to a ranking of 20 hits.
FULLTEXT_MAX_WORDS: Final = 64

_EDGE_PUNCTUATION = ".,;:!?\"'()[]{}"


def fulltext_words(text: str) -> str:
    """The first FULLTEXT_MAX_WORDS distinct content words of ``text`` (function words
    dropped; each store escapes its own query syntax afterwards)."""
    content = [w for w in text.split()
               if w.lower().strip(_EDGE_PUNCTUATION) not in FULLTEXT_STOP_WORDS]
    return " ".join(list(dict.fromkeys(content))[:FULLTEXT_MAX_WORDS])


# Lucene's special characters; escaped so user text is always searched as words.
_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
_LUCENE_OPERATORS = re.compile(r"\b(AND|OR|NOT|TO)\b")


def lucene_escape(text: str) -> str:
    """Make arbitrary text safe as a Lucene query (Neo4j's fulltext indexes): every special
    character escaped, operator words lower-cased."""
    cleaned = _LUCENE_SPECIAL.sub(r"\\\1", text)
    return _LUCENE_OPERATORS.sub(lambda m: m.group(0).lower(), cleaned)

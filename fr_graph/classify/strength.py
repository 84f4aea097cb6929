"""The rules strength initializer: retention consequence from premise and constraint cues.

A fact's initial strength is the largest weight of the cues it contains (StageMem App. A:
"a fixed cue-to-strength rule over explicit constraint language"); a fact with no cue gets
:data:`BASELINE`. Cues run on the classifier's normalized text, so "I'm", "im" and "the
user is" all match. Implements :class:`fr_graph.core.retention.StrengthInitializer`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

import numpy as np

from fr_graph.classify.rules import normalize

#: Strength of a fact with no premise or constraint cue.
BASELINE: Final = 0.05

#: ``(pattern, strength)``: hard constraints highest, standing rules and deadlines next.
STRENGTH_CUES: Final[tuple[tuple[str, float], ...]] = (
    # Health constraints whose loss is dangerous.
    (r"\b(?:i'm|i am) (?:severely |deathly |highly )?allergic\b", 0.90),
    (r"\ballerg(?:y|ies|ic) to\b", 0.85),
    (r"\b(?:can't|cannot|can not|must not|mustn't) (?:eat|drink|have|take)\b", 0.85),
    (r"\b(?:celiac|coeliac|anaphyla\w*|epinephrine|epipen)\b", 0.85),
    # Standing rules and project constraints.
    (r"\b(?:the |our |this )?(?:project|team|company|code ?base|repo(?:sitory)?) "
     r"(?:must|has to|needs to|may not|must not|can't|cannot)\b", 0.85),
    (r"\bmust(?:n't| not)?\b", 0.75),
    (r"\b(?:always|never)\b", 0.70),
    (r"\b(?:don't|do not) ever\b", 0.70),
    (r"\b(?:under no circumstances|no matter what|non-?negotiable|hard requirement)\b", 0.80),
    (r"\b(?:required|requirement|mandatory|constraint|policy|rule is)\b", 0.60),
    (r"\b(?:have to|has to|need to|needs to)\b", 0.45),
    # Deadlines and commitments.
    (r"\b(?:deadline|due (?:on|by)|no later than|by the end of)\b", 0.60),
    (r"\b(?:budget (?:is|of)|at most|no more than|limit of|maximum of)\b", 0.55),
    (r"\b(?:prefer|please) (?:to )?(?:always|never)\b", 0.70),
)

_COMPILED: Final = tuple((re.compile(pattern), weight) for pattern, weight in STRENGTH_CUES)


def cue_strength(texts: Sequence[str]) -> np.ndarray:
    """Initial strength per text: the largest matching cue weight, else :data:`BASELINE`."""
    out = np.full(len(texts), BASELINE)
    for i, text in enumerate(texts):
        plain = normalize(text)
        for pattern, weight in _COMPILED:
            if weight > out[i] and pattern.search(plain):
                out[i] = weight
    return out

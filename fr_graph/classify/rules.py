"""The offline rules classifier (paper App. B.1, the no-LLM fallback).

``classify_fact`` reads one fact and returns a :class:`Classification`: a primary category
with soft weights over the 10+1 ontology, a slot key, a lifecycle marker, an event-time
anchor, and the has-number / world-knowledge / instruction-like flags.

How it decides, in order:

1. **Normalize** (capped at :data:`MAX_FACT_CHARS`): control characters out, lower case, chat
   shorthand expanded, third-person ``User ...`` rewritten to first person.
2. **Score** each category: the sum of the weights of its lexicon patterns that match
   (``lexicon.CATEGORY_PATTERNS``). Other gets a fixed prior so that a fact with no evidence
   lands there.
3. **Adjust** for what the fact does rather than what it mentions (§3.2): world knowledge
   and injection attempts go to Other; a bare retraction ("the dog thing is dead") is a
   plan; a future day anchor pulls toward Obligations, or Logistical when travel words
   dominate (the paper's event-time routing); weak evidence borrows from ``context``.
4. **Weights**: scores below a fraction of the best are dropped, the rest normalized to 1.

Deterministic and pure; the only I/O-free dependency with a cost is ``dateparser``, which
runs only behind a regex gate and is memoized (``dates.py``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from fr_graph.classify import dates
from fr_graph.classify import lexicon as lx
from fr_graph.classify.dates import resolve_event_time
from fr_graph.classify.slots import (
    COMPILED_ANCHOR_RULES,
    COMPILED_SLOT_RULES,
    NOT_A_NAME,
    ROLE_ALIASES,
)
from fr_graph.core.classification import Classification
from fr_graph.core.lifecycle import Marker
from fr_graph.core.ontology import Category
from fr_graph.core.text import words
from fr_graph.errors import InputError

#: Only this many characters of a fact are read. A fact is a sentence; anything longer is
#: pasted text, and reading all of it would make a hostile input cost O(n) regex work.
MAX_FACT_CHARS = 2000
#: How much of ``context`` is read when the fact alone is inconclusive.
MAX_CONTEXT_CHARS = 2000

OTHER_PRIOR = 0.6
#: A category keeps soft weight only if its score is at least this share of the best score.
KEEP_RATIO = 0.34
#: Evidence below this means "the fact alone is inconclusive" (context is consulted).
WEAK_EVIDENCE = 1.0
#: Confidence of an assertion that states a change of its slot's value: above the 0.95
#: accumulate threshold, so "I moved to Lisbon" hard-supersedes "I live in Berlin".
EXPLICIT_CHANGE_CONFIDENCE = 0.96

_ORDER: tuple[Category, ...] = tuple(Category)

# ------------------------------------------------------------------------ normalization

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u2060\ufeff]")
_QUOTES = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201b": "'", "\u2032": "'", "`": "'",
    "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": " - ", "\u2026": "...",
    "\u00a0": " ",
})
_SHORTHAND = {
    "im": "i'm", "ive": "i've", "dont": "don't", "cant": "can't", "didnt": "didn't",
    "doesnt": "doesn't", "isnt": "isn't", "wasnt": "wasn't", "havent": "haven't",
    "hasnt": "hasn't", "arent": "aren't", "couldnt": "couldn't", "wouldnt": "wouldn't",
    "shouldnt": "shouldn't", "thats": "that's", "whats": "what's", "theres": "there's",
    "u": "you", "ur": "your", "r": "are", "rn": "right now", "tmrw": "tomorrow",
    "tmr": "tomorrow", "tmrrw": "tomorrow", "tomoz": "tomorrow", "2moro": "tomorrow",
    "2morrow": "tomorrow", "tomorow": "tomorrow", "tommorow": "tomorrow",
    "tonite": "tonight", "2nite": "tonight", "appt": "appointment", "appts": "appointments",
    "yrs": "years", "yr": "year", "mos": "months", "wk": "week", "wks": "weeks",
    "bc": "because", "b/c": "because", "cuz": "because", "coz": "because", "w/": "with",
    "thru": "through", "tho": "though", "pls": "please", "plz": "please", "bday": "birthday",
    "gf": "girlfriend", "bf": "boyfriend", "bff": "best friend", "fav": "favorite",
    "fave": "favorite", "abt": "about", "ppl": "people", "hrs": "hours", "mins": "minutes",
    "gonna": "going to", "wanna": "want to", "gotta": "got to", "kinda": "kind of",
    "sorta": "sort of", "dunno": "don't know", "idk": "i don't know", "omw": "on my way",
    "wfh": "working from home", "b4": "before", "thx": "thanks", "defo": "definitely",
    "wed": "wednesday", "thurs": "thursday", "tues": "tuesday", "doc's": "doctor's",
    "dr": "doctor", "iam": "i am",
}
_SHORTHAND_RE = re.compile(
    r"(?<![\w'/])(?:" + "|".join(re.escape(k) for k in sorted(_SHORTHAND, key=len, reverse=True))
    + r")(?![\w'/])"
)
_USER_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(?:the\s+)?user's\b"), "my"),
    (re.compile(r"\b(?:the\s+)?user\s+is\b"), "i am"),
    (re.compile(r"\b(?:the\s+)?user\s+has\b"), "i have"),
    (re.compile(r"\b(?:the\s+)?user\s+was\b"), "i was"),
    (re.compile(r"\b(?:the\s+)?user\s+does\b"), "i do"),
    (re.compile(r"\b(?:the\s+)?user\b"), "i"),
    (re.compile(r"\bthemself\b"), "myself"),
)
_SPACES = re.compile(r"\s+")
# A note-style fragment that opens with a present-tense verb has the user as its subject
# ("Lives in Leeds", "Drives a Civic", "Is a nurse"): read it as "i live in leeds" so the
# first-person patterns apply. Only common verbs that are rarely plural nouns, so "Plans
# for the summer" or "Kids at school" stay as they are.
_FRAGMENT_VERB = re.compile(
    r"^(?:(?:also|still|now|currently|usually|mostly|only|just|really)\s+)?"
    r"(?:lives|works|drives|rides|takes|studies|teaches|plays|owns|rents|has|is|speaks"
    r"|uses|prefers|loves|likes|hates|enjoys|eats|drinks|goes|attends|volunteers|cycles"
    r"|swims|walks|writes|reads|watches|keeps|pays|earns|makes|wants|needs|hopes|shares"
    r"|dates|visits|commutes|practi[cs]es|manages|leads|coaches|tutors|sings|paints|knits"
    r"|bakes|cooks|follows|supports|avoids|wears|sleeps|wakes|gets|buys|sells|saves|spends"
    r"|owes|runs|lifts|climbs|hikes|skis|surfs|does|doesn't|isn't|hasn't|can't|won't"
    r"|never|always)\b"
)
_ADVERB_ALT = (
    r"also|really|just|still|always|never|usually|often|sometimes|actually|honestly|totally"
    r"|literally|only|finally|even|already|mostly|definitely|probably|barely|currently"
    r"|recently|officially|basically|genuinely|seriously|rarely|occasionally|generally|now"
)
#: "i knits" -> "i knit": after the third-person rewrite, put the verb back in first person
#: so one lexicon serves "I knit a lot" and the extracted "User knits a lot".
_I_VERB = re.compile(r"\b(i|we)((?:\s+(?:" + _ADVERB_ALT + r"))*)\s+([a-z']+)\b")
_FIRST_PERSON_VERB = {
    "has": "have", "does": "do", "goes": "go", "is": "am", "doesn't": "don't",
    "hasn't": "haven't", "isn't": "am not", "was": "was", "plays": "play",
}
_KEEP_S = frozenset(["was", "has", "is", "this", "yes", "plus", "always", "as", "us", "its"])


def _first_person_verb(match: re.Match[str]) -> str:
    pronoun, adverbs, verb = match.group(1), match.group(2), match.group(3)
    if verb in _FIRST_PERSON_VERB:
        verb = _FIRST_PERSON_VERB[verb]
        if pronoun == "we" and verb == "am":
            verb = "are"
    elif verb in _KEEP_S or len(verb) < 4 or not verb.endswith("s") or verb.endswith(
            ("ss", "us", "is", "'s")):
        pass
    elif verb.endswith("ies") and len(verb) > 4:
        verb = verb[:-3] + "y"
    elif verb.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
        verb = verb[:-2]
    else:
        verb = verb[:-1]
    return f"{pronoun}{adverbs} {verb}"


def normalize(text: str, limit: int = MAX_FACT_CHARS) -> str:
    """The matching form of ``text``: capped, clean, lower-case, first person."""
    text = text[:limit].translate(_QUOTES)
    text = _CONTROL.sub(" ", text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
    text = text.lower()
    text = _SHORTHAND_RE.sub(lambda m: _SHORTHAND[m.group(0)], text)
    for pattern, replacement in _USER_REWRITES:
        text = pattern.sub(replacement, text)
    text = _SPACES.sub(" ", text).strip()
    if _FRAGMENT_VERB.match(text):
        text = "i " + text
    return _I_VERB.sub(_first_person_verb, text)


# ------------------------------------------------------------------------ compiled tables

_CATEGORY_RES: tuple[tuple[Category, tuple[tuple[re.Pattern[str], float], ...]], ...] = tuple(
    (category, tuple((re.compile(p), w) for p, w in lx.CATEGORY_PATTERNS.get(category, [])))
    for category in _ORDER
)
_RETRACTION_RE = tuple(re.compile(p) for p in lx.RETRACTION_PATTERNS)
_COMPLETION_RE = tuple(re.compile(p) for p in lx.COMPLETION_PATTERNS)
_COMPLETION_GUARD_RE = re.compile(lx.COMPLETION_GUARD)
_TENTATIVE_RE = tuple(re.compile(p) for p in lx.TENTATIVE_PATTERNS)
_CHANGE_RE = tuple(re.compile(p) for p in lx.CHANGE_PATTERNS)
_EMOTION_RE = tuple((re.compile(p), w) for p, w in lx.EMOTION_PATTERNS)
_INSTRUCTION_RE = tuple(re.compile(p) for p in lx.INSTRUCTION_PATTERNS)
_WORLD_RE = tuple(re.compile(p) for p in lx.WORLD_KNOWLEDGE_PATTERNS)
_PERSONAL_RE = re.compile(lx.PERSONAL)
_NUMBER_RE = re.compile(r"\d|\b" + lx.NUMWORD + r"\b|\b(?:a\s+)?(?:couple|half)\s+(?:of\s+)?"
                        r"(?:hundred|thousand|grand|million)\b")
# Dates, clock times and years are anchors, not quantities: App. H rescues "monetary /
# quantity" facts, and a dated appointment must still expire after its day.
_NOT_QUANTITY = re.compile(
    r"\b\d{1,2}(?::\d{2})?\s*(?:a\.?m\b\.?|p\.?m\b\.?)|\b\d{1,2}:\d{2}\b|\b(?:1[89]|20)\d{2}\b",
    re.IGNORECASE)


def _has_quantity(text: str) -> bool:
    """Whether ``text`` carries an amount or count once its dates and times are removed."""
    return bool(_NUMBER_RE.search(_NOT_QUANTITY.sub(" ", dates.DATE_EXPR.sub(" ", text))))


# A capitalized first word is a name only when a predicate follows it ("Maya moved to
# Leeds", "Tom is vegan"); a note-style fragment starts with its verb instead ("Works at the
# county library", "Drives a Civic", "Left the library"), and its subject is the user.
_NAMED_SUBJECT = re.compile(
    r"^\s*([A-Z][a-z]+)\s+(?:[a-z]+(?:ed|s)|is|was|has|had|got|just|now|still|finally|said"
    r"|went|left|made|took|quit|became|began|bought|sold|lost|won|will|can|does|did|never"
    r"|always|also|caught|ran|met|saw|came|gave|found|told|wrote|drove|flew|swam|ate|drank"
    r"|brought|thought|felt|kept|paid|sent|spent|built|broke|chose|fell|forgot|grew|knew"
    r"|rode|sang|sat|slept|spoke|stood|taught|threw|wore|turns|turned|loves|hates)\b"
)
_NOT_NAME_START = words(
    "the a an my our your his her their this that these those there it its user i we you he "
    "she they me on in at for from today tomorrow yesterday tonight just so but and also "
    "honestly lol omg ok okay well maybe please due since "
    # sentence openers that are not names ("Said goodbye to Denver", "Note to self")
    "said note update changed switched moved started finally anyway random btw fyi quick "
    "hmm oh big first new no not officially reminder heads hey guess got had been booked "
    "gave ditched cancelled canceled sold bought quit left joined dropped tbh fwiw side "
    "real small funny writing"
)
_ROLE_SUBJECT = re.compile(
    r"^(?:my|i's)\s+(mom|mum|mother|dad|father|son|daughter|sister|brother|wife|husband"
    r"|partner|kid|grandma|grandpa)(?:'s)?\b"
)
_FIRST_PERSON_SUBJECT = re.compile(r"\b(?:i|i'm|i've|me|we|we're|myself)\b")
_STRANGER_SUBJECT = re.compile(
    r"^(?:omg\s+|lol\s+|so\s+)?(?:(?:the|a|an|this|some)\s+(?:\w+\s+)?(?:guy|man|woman|lady|dude"
    r"|stranger|person|bird|pigeon|fox|squirrel|raccoon|seagull|crow)\b|(?:somebody|someone"
    r"|some guy|some lady|a random)\b)"
)
_SNAKE = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True, slots=True)
class _Evidence:
    """The scored reading of one fact (internal; exposed for tests through ``explain``)."""

    text: str
    scores: dict[Category, float]
    marker: Marker
    event_time: datetime | None
    has_number: bool
    world_knowledge: bool
    instruction_like: bool
    emotional_loading: float
    explicit_change: bool


_CLAUSE_BREAK = re.compile(
    r",|;|\s-\s|\.\s|\s(?:because|since|so that|so|but|though|although|while|as|or)\s"
    r"|\s(?:doc|doctor|landlord|he|she|they)\s+(?:says|said|told)\b"
)
#: Evidence outside the main (first) clause counts this much: "started eating fish again,
#: doc says I need omega-3 for the migraines" is a diet fact, not a health one (§3.2).
TAIL_FACTOR = 0.5


def _score(text: str) -> dict[Category, float]:
    scores = dict.fromkeys(_ORDER, 0.0)
    cut = _CLAUSE_BREAK.search(text)
    head_end = cut.start() if cut and cut.start() >= 8 else len(text)
    for category, patterns in _CATEGORY_RES:
        total = 0.0
        for pattern, weight in patterns:
            if pattern.search(text, 0, head_end):
                total += weight
            elif head_end < len(text) and pattern.search(text, head_end):
                total += TAIL_FACTOR * weight
        scores[category] = total
    return scores


def _marker(text: str) -> Marker:
    if any(p.search(text) for p in _RETRACTION_RE):
        return Marker.RETRACTION
    for pattern in _COMPLETION_RE:
        for match in pattern.finditer(text):
            if not _COMPLETION_GUARD_RE.search(text[max(0, match.start() - 30):match.start()]):
                return Marker.COMPLETION
    if any(p.search(text) for p in _TENTATIVE_RE):
        return Marker.TENTATIVE
    return Marker.ASSERTION


def _emotion(text: str, raw: str) -> float:
    total = sum(weight for pattern, weight in _EMOTION_RE if pattern.search(text))
    letters = [c for c in raw[:MAX_FACT_CHARS] if c.isalpha()]
    if len(letters) >= 8 and sum(c.isupper() for c in letters) / len(letters) > 0.7:
        total += 0.3  # SHOUTING
    return round(min(1.0, total), 3)


def _read(fact: str, observed_at: datetime) -> _Evidence:
    text = normalize(fact)
    scores = _score(text)
    personal = bool(_PERSONAL_RE.search(text))
    instruction_like = any(p.search(text) for p in _INSTRUCTION_RE)
    world = (
        not personal
        and not instruction_like
        and any(p.search(text) for p in _WORLD_RE)
        and max(scores[c] for c in _ORDER if c is not Category.OTHER) < 4.0
    )
    event_time = resolve_event_time(text, observed_at)
    return _Evidence(
        text=text,
        scores=scores,
        marker=_marker(text),
        event_time=event_time,
        has_number=_has_quantity(text),
        world_knowledge=world,
        instruction_like=instruction_like,
        emotional_loading=_emotion(text, fact),
        explicit_change=any(p.search(text) for p in _CHANGE_RE),
    )


def _adjust(ev: _Evidence, observed_at: datetime, context: str | None) -> dict[Category, float]:
    scores = dict(ev.scores)
    scores[Category.OTHER] += OTHER_PRIOR
    personal_best = max(scores[c] for c in _ORDER if c is not Category.OTHER)

    if ev.world_knowledge:
        for c in _ORDER:
            if c is not Category.OTHER:
                scores[c] *= 0.25
        scores[Category.OTHER] += 4.0
        return scores
    if ev.instruction_like:
        if scores[Category.PREFERENCES] >= 3.0:
            scores[Category.PREFERENCES] += 1.5
        else:
            scores[Category.OTHER] += 3.0
        return scores

    if personal_best < WEAK_EVIDENCE and context:
        ctx = _score(normalize(context[-MAX_CONTEXT_CHARS:], MAX_CONTEXT_CHARS))
        for c in _ORDER:
            if c is not Category.OTHER:
                scores[c] += 0.5 * ctx[c]
        personal_best = max(scores[c] for c in _ORDER if c is not Category.OTHER)

    if ev.marker is Marker.RETRACTION:
        # "the ubc thing is dead", "scrapping it": what gets retracted is usually a plan.
        scores[Category.PROJECTS] += 1.5 if personal_best < WEAK_EVIDENCE else 1.0
    elif ev.marker is Marker.TENTATIVE and personal_best < WEAK_EVIDENCE:
        scores[Category.PROJECTS] += 1.5

    if _STRANGER_SUBJECT.search(ev.text):
        # "the guy next to me on the bus ...", "somebody left a piano ...": an incident
        # about a stranger, not a fact about the user's life.
        scores[Category.OTHER] += 2.0

    if ev.event_time is not None:
        base = observed_at if observed_at.tzinfo else observed_at.replace(tzinfo=UTC)
        upcoming = ev.event_time.astimezone(base.tzinfo).date() >= base.date()
        if upcoming and ev.marker is not Marker.COMPLETION:
            if scores[Category.LOGISTICAL] >= 2.5 and scores[Category.LOGISTICAL] >= scores[
                    Category.OBLIGATIONS]:
                scores[Category.LOGISTICAL] += 1.0
            elif scores[Category.OBLIGATIONS] > 0:
                scores[Category.OBLIGATIONS] += 1.2
    return scores


def _weights(scores: dict[Category, float]) -> dict[Category, float]:
    best = max(scores.values())
    if best <= 0:
        return {c: (1.0 if c is Category.OTHER else 0.0) for c in _ORDER}
    kept = {c: s for c, s in scores.items() if s >= KEEP_RATIO * best and s > 0}
    total = sum(kept.values())
    weights = {c: round(kept.get(c, 0.0) / total, 6) for c in _ORDER}
    top = max(_ORDER, key=lambda c: (weights[c], -_ORDER.index(c)))
    weights[top] = round(weights[top] + (1.0 - sum(weights.values())), 6)
    return weights


def _confidence(scores: dict[Category, float], top: Category) -> float:
    ranked = sorted(scores.values(), reverse=True)
    best = ranked[0]
    second = ranked[1] if len(ranked) > 1 else 0.0
    if best <= 0:
        return 0.2
    margin = (best - second) / best
    evidence = min(1.0, best / 4.0)
    confidence = 0.25 + 0.45 * margin + 0.3 * evidence
    if top is Category.OTHER:
        confidence = min(confidence, 0.6)
    return round(max(0.0, min(1.0, confidence)), 3)


def _snake(value: str) -> str:
    return _SNAKE.sub("_", value.lower()).strip("_")[:48]


def _subject(fact: str, text: str, category: Category) -> str:
    role = _ROLE_SUBJECT.match(text)
    if role and category in (Category.HEALTH, Category.HOBBIES):
        rest = text[role.end():]
        if not _FIRST_PERSON_SUBJECT.search(rest):
            return role.group(1)
    if _PERSONAL_RE.search(text):
        return "user"
    named = _NAMED_SUBJECT.match(fact[:200])
    if (named and named.group(1).lower() not in _NOT_NAME_START
            and not named.group(1).endswith(("ing", "ed", "s"))):  # "Runs marathons"
        return named.group(1).lower()
    return "user"


def _slot_key(fact: str, text: str, category: Category, world: bool) -> str | None:
    if world:
        return None
    subject = _subject(fact, text, category)
    rules = [*COMPILED_ANCHOR_RULES, *COMPILED_SLOT_RULES.get(category, [])]
    for pattern, attribute in rules:
        match = pattern.search(text)
        if match is None:
            continue
        if "{0}" in attribute:
            attribute = attribute.replace("{0}", _snake(match.group(0)))
        if "{1}" in attribute:
            groups = [g for g in match.groups() if g]
            instance = groups[0] if groups else ""
            if instance in NOT_A_NAME:
                instance = ""
            instance = ROLE_ALIASES.get(instance, instance)
            if attribute == "{1}":
                attribute = _snake(instance) or "family"
            else:
                head = attribute.split(":", 1)[0]
                attribute = f"{head}:{_snake(instance)}" if _snake(instance) else head
        return f"{subject}|{attribute}"
    if category is Category.OTHER:
        return None
    default = {
        Category.IDENTITY: "identity", Category.RELATIONAL: "relationship",
        Category.INTELLECTUAL: "interest", Category.HEALTH: "health",
        Category.PROJECTS: "project", Category.HOBBIES: "hobby",
        Category.PREFERENCES: "preference", Category.FINANCIAL: "finances",
        Category.OBLIGATIONS: "obligation", Category.LOGISTICAL: "logistics",
    }[category]
    return f"{subject}|{default}"


def classify_fact(
    fact: str, observed_at: datetime, *, context: str | None = None
) -> Classification:
    """Classify one fact offline.

    Args:
        fact: the fact text (a normalized "User ..." sentence or the user's own clause).
            Only the first :data:`MAX_FACT_CHARS` characters are read.
        observed_at: when the fact was said; relative dates resolve against it (a naive
            datetime is taken as UTC).
        context: optional surrounding conversation, consulted only when the fact alone has
            too little evidence ("forget I mentioned it").

    Never raises on any string input.
    """
    if not isinstance(fact, str):
        fact = "" if fact is None else str(fact)
    ev = _read(fact, observed_at)
    scores = _adjust(ev, observed_at, context if isinstance(context, str) else None)
    weights = _weights(scores)
    category = max(_ORDER, key=lambda c: (weights[c], -_ORDER.index(c)))
    slot_key = (None if ev.instruction_like and category is Category.OTHER
                else _slot_key(fact, ev.text, category, ev.world_knowledge))
    confidence = _confidence(scores, category)
    if ev.explicit_change and ev.marker is Marker.ASSERTION and slot_key:
        # A stated change is the explicit contradiction a hard supersession needs.
        confidence = max(confidence, EXPLICIT_CHANGE_CONFIDENCE)
    return Classification(
        category=category,
        weights=weights,
        slot_key=slot_key,
        marker=ev.marker,
        event_time=ev.event_time,
        has_number=ev.has_number,
        world_knowledge=ev.world_knowledge,
        instruction_like=ev.instruction_like,
        confidence=confidence,
        emotional_loading=ev.emotional_loading,
    )


def explain(fact: str, observed_at: datetime, *, context: str | None = None) -> dict[str, float]:
    """Per-category scores after adjustment (for debugging and the eval's error listing)."""
    ev = _read(fact, observed_at)
    return {c.value: round(s, 3) for c, s in _adjust(ev, observed_at, context).items()}


def batch_items(facts: Sequence[str], observed_at: datetime | Sequence[datetime],
                contexts: Sequence[str | None] | None) -> list[tuple[str, datetime, str | None]]:
    """``classify_batch``'s arguments as one (fact, observed_at, context) per fact.

    Raises:
        InputError: a per-fact ``observed_at`` or ``contexts`` whose length differs from
            ``facts``.
    """
    if not isinstance(observed_at, datetime) and len(observed_at) != len(facts):
        raise InputError(
            f"classify_batch: {len(facts)} facts but {len(observed_at)} observed_at values")
    if contexts is not None and len(contexts) != len(facts):
        raise InputError(f"classify_batch: {len(facts)} facts but {len(contexts)} contexts")
    return [(fact, observed_at if isinstance(observed_at, datetime) else observed_at[index],
             contexts[index] if contexts is not None else None)
            for index, fact in enumerate(facts)]


class RulesClassifier:
    """The rules classifier behind the :class:`fr_graph.classify.FactClassifier` protocol."""

    name = "rules"

    def classify(
        self, fact: str, observed_at: datetime, context: str | None = None
    ) -> Classification:
        """Classify one fact (see :func:`classify_fact`)."""
        return classify_fact(fact, observed_at, context=context)

    def classify_batch(
        self,
        facts: Sequence[str],
        observed_at: datetime | Sequence[datetime],
        contexts: Sequence[str | None] | None = None,
    ) -> list[Classification]:
        """Classify many facts; ``observed_at`` is one time for all or one per fact.

        Raises:
            InputError: a per-fact ``observed_at`` or ``contexts`` whose length differs from
                ``facts``.
        """
        return [classify_fact(fact, when, context=context)
                for fact, when, context in batch_items(facts, observed_at, contexts)]

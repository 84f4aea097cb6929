"""Offline fact extraction: a user's chat message -> atomic facts about the user.

``extract_facts`` is the no-LLM stand-in for the paper's extraction call. It is rule based
and deterministic:

1. **Segment** the message into sentences (``.!?;``, ellipses, newlines; abbreviations such
   as "a.m." and "Dr." do not end a sentence) and sentences into clauses (", but", ", so",
   " - ", and a comma followed by a new first-person subject).
2. **Clean** each clause: leading fillers ("so", "btw", "lol", "honestly") and trailing
   chatter ("lol", "haha", emoji) go; chat shorthand for pronouns is repaired.
3. **Keep** statements about the user, their people and plans: clauses with a first-person
   reference ("I", "my", "me", "we"), or with strong personal-domain evidence and no world
   knowledge ("rent is $950/mo", "flight at 6am tomorrow", "Alex caught 7 bass"), or that
   read as instructions to the assistant (kept so the classifier can quarantine them).
   Questions, greetings, small talk and plain requests to the assistant are skipped.
4. **Attach** clauses that only carry a lifecycle marker ("forget I mentioned it", "not
   decided yet", "scrapping it") to the fact before them, so the marker stays with what it
   modifies.
5. **Normalize** to a third-person sentence ("i started eating fish again lol" -> "User
   started eating fish again") and split it best-effort into subject / predicate / object.

Input beyond :data:`MAX_MESSAGE_CHARS` is ignored, so cost is bounded for any input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from fr_graph.classify.lexicon import words
from fr_graph.classify.rules import classify_fact
from fr_graph.core.lifecycle import Marker
from fr_graph.core.ontology import Category

#: Only this much of a message is read.
MAX_MESSAGE_CHARS = 20_000
#: At most this many facts come out of one message.
MAX_FACTS = 64
#: At most this many clauses are examined (bounds the work on pathological input).
MAX_CLAUSES = 400


@dataclass(frozen=True, slots=True)
class ExtractedFact:
    """One atomic fact taken from a message.

    Attributes:
        fact: a normalized, third-person (or neutral) sentence, e.g. "User started eating
            fish again".
        subject: who the fact is about; ``"user"`` for first-person statements.
        predicate: the verb phrase (or attribute), best-effort; ``""`` when unknown.
        object: the rest of the clause, best-effort; ``""`` when unknown.
        span: ``(start, end)`` character offsets of the source clause in the message.
    """

    fact: str
    subject: str
    predicate: str
    object: str
    span: tuple[int, int]


# ------------------------------------------------------------------------ segmentation

_BOUNDARY = re.compile(r"(?:[.!?;\u2026]+|\n+)(?=\s|$|[\"')\]])|\n+")
_ABBREV = re.compile(
    r"(?:\b(?:a\.m|p\.m|dr|mr|mrs|ms|st|vs|etc|e\.g|i\.e|approx|no|jr|sr|prof|mt|ft|u\.s"
    r"|u\.k|inc|ltd|co|ave|blvd|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)|\b[a-z])$",
    re.IGNORECASE,
)
_CLAUSE_SPLIT = re.compile(
    r"\s*(?:,\s*(?:but|so|and then|and|plus)\s+(?=(?:i|i'm|im|i've|ive|i'll|my|we|we're|our"
    r"|she|he|they|it's|its|that's|thats)\b)"
    r"|,?\s+but\s+(?=(?:i|i'm|im|i've|ive|my|we|we're|our|she|he|they|it's|that's)\b)"
    r"|,\s*(?=(?:i|i'm|im|i've|ive|i'll|my|we|we're|we've|our)\b)"
    r"|\s+(?:-|--|\u2013|\u2014)\s+"
    r"|\s+(?:lol|lmao|haha+|hehe)\s+)",
    re.IGNORECASE,
)
_AND_I = re.compile(r"\s+and\s+(?=(?:i|i'm|im|i've|ive|i'll|i'd)\b)", re.IGNORECASE)
_SUBJECT_I = re.compile(r"(?:^|[\s,])(?:i|i'm|im|i've|ive|i'll|i'd)\s", re.IGNORECASE)
_LEAD_FILLER = re.compile(
    r"^(?:(?:so|well|btw|by the way|ok|okay|also|honestly|lol|lmao|haha+|um+|uh+|oh|yeah|yes"
    r"|no|hey|hi|hello|anyway|anyways|and|but|plus|tbh|fyi|ps|omg|ugh|wow|hmm+|oh well"
    r"|update|quick update|fun fact|news)\b[\s,:!.\-]*)+",
    re.IGNORECASE,
)
_TRAIL_FILLER = re.compile(
    r"(?:[\s,]+(?:lol|lmao|haha+|hehe|tbh|btw|xd|:\)|:\(|:d|;\)|<3)(?![a-z]))+[\s.!,]*$"
    r"|[\s\"'(\[]+$|[,:\-\s]+$",
    re.IGNORECASE,
)
_EMOJI = re.compile(
    "[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f\u200d]+",
)
_SMALL_TALK = re.compile(
    r"^(?:hi|hello|hey|yo|hiya|good (?:morning|night|evening|afternoon)|thanks?(?: you)?"
    r"(?: so much| a lot)?|thx|ty|lol|haha+|lmao|ok(?:ay)?|k|cool|nice|great|awesome|sure"
    r"|yes|yeah|yep|no|nope|bye|see ya|see you|how are you(?: doing)?(?: today)?"
    r"|how's it going|what's up|sup|np|no worries|got it|sounds good|makes sense"
    r"|good to know|perfect|wow|omg|ugh|hmm+|interesting|i see|oh|ah|right|true|fair"
    r"|that's (?:cool|great|nice|funny|interesting|wild)|you're (?:welcome|right|the best)"
    r"|love (?:it|that)|me too|same|agreed)\W*$",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(
    r"^(?:what|what's|whats|how|why|when|where|which|who|whom|whose|can you|could you"
    r"|would you|will you|do you|did you|are you|is there|is it|should i|can i|could i"
    r"|do i|does|is this|are there|any (?:tips|ideas|advice)|wdyt)\b",
    re.IGNORECASE,
)
_REQUEST_START = re.compile(
    r"^(?:(?:please|pls|plz)\s+)?(?:tell me|help me|give me|show me|explain|write|draft"
    r"|summari[sz]e|translate|list|find|search|recommend|suggest|let me know|make me|generate"
    r"|create|fix|check|compare|calculate|describe)\b",
    re.IGNORECASE,
)
_PERSONAL = re.compile(
    r"\b(?:i|i'm|im|i've|ive|i'd|i'll|me|my|mine|myself|we|we're|we've|we'll|our|ours|us|user"
    r"|user's)\b",
    re.IGNORECASE,
)

# ------------------------------------------------------------------------ person/agreement

_ADVERBS = words(
    """also really just still always never usually often sometimes actually honestly kinda
    totally literally only finally even already mostly definitely def probably prob barely
    currently recently officially basically genuinely seriously truly apparently obviously
    rarely seldom occasionally generally certainly def defo lowkey highkey weirdly now then
    sort kind"""
)
_UNCHANGED_VERBS = words(
    """went was were had did got saw caught came took made ran said told found gave left lost
    won bought sold thought felt kept met paid put read quit broke tore wrote drove flew ate
    drank began became brought built spent sent slept taught understood woke wore heard held
    fell fought forgot knew grew hung hit hurt let meant rode rang rose sat set shut sang sank
    stood stole stuck swam threw withdrew chose froze cut can can't cannot could couldn't will
    won't would wouldn't should shouldn't might must may did didn't was wasn't had hadn't used
    gotta"""
)
_PRESENT_ED = words(
    "need feed bleed speed proceed succeed exceed seed weed breed heed shred embed"
)
_VERB_MAP = {
    "am": "is", "have": "has", "do": "does", "don't": "doesn't", "dont": "doesn't",
    "haven't": "hasn't", "havent": "hasn't", "go": "goes", "wanna": "wants to",
    "gonna": "is going to", "were": "was", "are": "is", "'m": "is", "aren't": "isn't",
}
_AUX = words(
    """is was has had have been being will would can could should might must may does did
    doesn't didn't hasn't isn't wasn't won't can't cannot not never also really just still
    always finally already to going"""
)
_PAST_START = re.compile(
    r"^(?:just\s+|finally\s+|also\s+|recently\s+|officially\s+)?(?:[a-z]+ed|went|got|had|did"
    r"|saw|caught|came|took|made|ran|said|told|found|gave|left|lost|won|bought|sold|thought"
    r"|felt|kept|met|paid|quit|broke|tore|wrote|drove|flew|ate|drank|began|became|brought"
    r"|built|spent|sent|slept|taught|woke|heard|fell|forgot|knew|grew|hurt|sat|stood|chose"
    r"|took|shipped|wrapped|finished|started|stopped|joined|moved|switched|tried|sent"
    r"|found|might|will|can|could|would|should|must|need|needs|have to|has to|used to"
    r"|haven't|havent|can't|cant|didn't|didnt|won't|don't|dont|love|hate|like|prefer|owe"
    r"|want|wanna|gotta|gonna|need to|trying|hoping|planning)\b",
    re.IGNORECASE,
)
_ING_START = re.compile(r"^(?:just\s+|still\s+|also\s+)?[a-z]+ing\b", re.IGNORECASE)
_BEEN_START = re.compile(r"^(?:just\s+|also\s+)?been\b", re.IGNORECASE)
_NO_CONJ_S = re.compile(r"(?:s|sh|ch|x|z|o)$")


def _conjugate(word: str) -> str:
    lower = word.lower()
    if lower in _VERB_MAP:
        return _VERB_MAP[lower]
    if lower in _UNCHANGED_VERBS or not lower.isalpha():
        return word
    if lower.endswith("ed") and lower not in _PRESENT_ED:
        return word
    if _NO_CONJ_S.search(lower):
        return word + "es"
    if len(lower) > 2 and lower.endswith("y") and lower[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


_NOT_GERUND_START = re.compile(
    r"^(?:nothing|something|everything|anything|morning|evening|thing|spring|ceiling|building"
    r"|wedding|parking|king|sibling|pudding|string|ring|wing|during|boring|ping)\b",
    re.IGNORECASE,
)
_FIRST_PERSON_RE = (
    (re.compile(r"\b(?:i'm|im|i am)\b", re.IGNORECASE), "User is"),
    (re.compile(r"\b(?:i've|ive)\b", re.IGNORECASE), "User has"),
    (re.compile(r"\bi'll\b", re.IGNORECASE), "User will"),
    (re.compile(r"\bi'd\b", re.IGNORECASE), "User would"),
    (re.compile(r"\bi was\b", re.IGNORECASE), "User was"),
    (re.compile(r"\bmy\b", re.IGNORECASE), "User's"),
    (re.compile(r"\bmine\b", re.IGNORECASE), "User's"),
    (re.compile(r"\bmyself\b", re.IGNORECASE), "themself"),
    (re.compile(r"\bme\b", re.IGNORECASE), "User"),
)


def _verb_after_user(word: str) -> str:
    lower = word.lower()
    if lower in _VERB_MAP:
        return _VERB_MAP[lower]
    return _conjugate(word)


def third_person(clause: str) -> str:
    """ "i've been vegetarian for 5 yrs" -> "User has been vegetarian for 5 yrs"."""
    text = clause
    for pattern, replacement in _FIRST_PERSON_RE:
        text = pattern.sub(replacement, text)
    words = text.split(" ")
    for index, word in enumerate(words):
        if word not in ("i", "I"):
            continue
        words[index] = "User"
        if index > 0 and words[index - 1].lower() == "and":
            continue  # "my brother and I haven't spoken": plural agreement stays
        j = index + 1
        while j < len(words) and words[j].lower() in _ADVERBS:
            j += 1
        if j < len(words) and re.fullmatch(r"[A-Za-z']+", words[j]):
            words[j] = _verb_after_user(words[j])
    text = " ".join(words).strip()
    lower = text.lower()
    if not lower.startswith(("user", "we ", "we'", "our ")):
        if _BEEN_START.match(text):
            text = "User has " + text
        elif _ING_START.match(text) and not _NOT_GERUND_START.match(text):
            text = "User is " + text
        elif _PAST_START.match(text):
            head, _, rest = text.partition(" ")
            lead = ""
            if head.lower() in _ADVERBS and rest:
                lead, (head, _, rest) = head + " ", rest.partition(" ")
            text = f"User {lead}{_verb_after_user(head)} {rest}".strip()
    return text[:1].upper() + text[1:]


# ------------------------------------------------------------------------ SPO split

_DETERMINERS = words("a an the this that some my his her their our its no")
_NOT_A_NAME_START = words(
    """the a an this that these those there it its my our your his her their maybe just so
    thesis rent flight today tomorrow tonight yesterday please ignore forget doctor doc dr
    mom dad landlord gate train hotel package taxes parking meeting"""
)


def _spo(fact: str, original: str) -> tuple[str, str, str]:
    """Best-effort (subject, predicate, object); ``("user", "", "")`` when unsure."""
    possessive = re.match(
        r"^User's\s+(.+?)\s+(?:is|are|was|were|has been|have been|got)\s+(.+)$", fact)
    if possessive:
        return "user", possessive.group(1), possessive.group(2).rstrip(".!")
    subject = "user"
    match = re.match(r"^(User|We)\s+(.+)$", fact)
    if match is None:
        named = re.match(r"^([A-Z][a-z]+)\s+(.+)$", original.strip())
        if (named is None or named.group(1).lower() in _NOT_A_NAME_START
                or _PERSONAL.search(original)):
            return "user", "", ""
        subject, rest = named.group(1), named.group(2)
        rest = third_person(rest) if _PERSONAL.search(rest) else rest
    else:
        rest = match.group(2)
    words = rest.split()
    if len(words) >= 2 and words[0].lower() == "and":
        words = words[2:]  # "User and soph ended ..."
    predicate: list[str] = []
    while words and (words[0].lower() in _AUX or words[0].lower() in _ADVERBS) and len(
            predicate) < 5:
        predicate.append(words.pop(0))
    if words and not (predicate and (words[0].lower() in _DETERMINERS
                                     or not words[0].isalpha())):
        predicate.append(words.pop(0))
    return subject, " ".join(predicate), " ".join(words).rstrip(".!")


# ------------------------------------------------------------------------ main


def _sentences(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.start()
        token = match.group(0)
        if (token.startswith(".") and not token.startswith("...") and "\n" not in token
                and _ABBREV.search(text[max(start, end - 6):end])):
            continue
        if end > start:
            spans.append((start, end))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    cursor = start
    for match in _CLAUSE_SPLIT.finditer(text, start, end):
        if match.start() > cursor:
            out.append((cursor, match.start()))
        cursor = match.end()
    if cursor < end:
        out.append((cursor, end))
    split: list[tuple[int, int]] = []
    for c_start, c_end in out:
        cursor = c_start
        for match in _AND_I.finditer(text, c_start, c_end):
            if _SUBJECT_I.search(text, cursor, match.start()):
                split.append((cursor, match.start()))
                cursor = match.end()
        split.append((cursor, c_end))
    return split


def _clean(text: str, start: int, end: int) -> tuple[str, int, int]:
    """Strip fillers and chatter; returns the cleaned clause and its span in ``text``."""
    raw = text[start:end]
    lead = len(raw) - len(raw.lstrip())
    raw_stripped = raw.strip()
    filler = _LEAD_FILLER.match(raw_stripped)
    if filler and filler.end() < len(raw_stripped):
        lead += filler.end()
        raw_stripped = raw_stripped[filler.end():]
    elif filler:
        return "", start, start
    cleaned = _EMOJI.sub(" ", raw_stripped)
    cleaned = _TRAIL_FILLER.sub("", cleaned).strip()
    cleaned = re.sub(r"\s+", " ", cleaned)
    new_start = start + lead
    tail = raw_stripped.rstrip()
    trail_cut = len(tail) - len(_TRAIL_FILLER.sub("", _EMOJI.sub("", tail)).rstrip())
    new_end = new_start + max(0, len(tail) - max(0, trail_cut))
    return cleaned, new_start, max(new_start, new_end)


def _is_question_or_chatter(clause: str, terminator: str) -> bool:
    if "?" in terminator:
        return True
    return bool(_SMALL_TALK.match(clause) or _QUESTION_START.match(clause))


def _terminator(text: str, end: int) -> str:
    return text[end:end + 3]


def extract_facts(text: str, observed_at: datetime) -> list[ExtractedFact]:
    """Atomic facts about the user in one chat message, in order of appearance.

    Args:
        text: the user's message (any string; only the first :data:`MAX_MESSAGE_CHARS`
            characters are read).
        observed_at: when the message was sent (used to judge date-bearing clauses).

    Returns:
        At most :data:`MAX_FACTS` facts; ``[]`` for questions, greetings and small talk.
    """
    if not isinstance(text, str) or not text.strip():
        return []
    text = text[:MAX_MESSAGE_CHARS]
    facts: list[ExtractedFact] = []
    seen: set[str] = set()
    examined = 0
    for s_start, s_end in _sentences(text):
        terminator = _terminator(text, s_end)
        for c_start, c_end in _clauses(text, s_start, s_end):
            examined += 1
            if examined > MAX_CLAUSES:
                return facts
            clause, span_start, span_end = _clean(text, c_start, c_end)
            if len(clause) < 3 or not re.search(r"[A-Za-z]", clause):
                continue
            if _is_question_or_chatter(clause, terminator if c_end == s_end else ""):
                continue
            verdict = classify_fact(clause, observed_at)
            # "saw a double rainbow", "qualified as a solicitor": chat drops the "I".
            personal = bool(_PERSONAL.search(clause) or _PAST_START.match(clause)
                            or _BEEN_START.match(clause))
            if _REQUEST_START.match(clause) and not verdict.instruction_like:
                continue
            evidence = verdict.category is not Category.OTHER and verdict.confidence >= 0.35
            marker_only = (
                verdict.marker in (Marker.RETRACTION, Marker.TENTATIVE, Marker.COMPLETION)
                and not _has_content(clause)
            )
            if marker_only and facts:
                prev = facts[-1]
                merged = f"{prev.fact}; {third_person(clause)}"
                facts[-1] = ExtractedFact(
                    fact=merged, subject=prev.subject, predicate=prev.predicate,
                    object=prev.object, span=(prev.span[0], span_end),
                )
                continue
            keep = (
                verdict.instruction_like
                or (not verdict.world_knowledge and (personal or evidence))
                or verdict.marker is Marker.RETRACTION
            )
            if not keep:
                continue
            fact = third_person(clause)
            key = fact.lower()
            if key in seen:
                continue
            seen.add(key)
            subject, predicate, obj = _spo(fact, clause)
            facts.append(ExtractedFact(fact=fact, subject=subject, predicate=predicate,
                                       object=obj, span=(span_start, span_end)))
            if len(facts) >= MAX_FACTS:
                return facts
    return facts


_CONTENT_FREE = re.compile(
    r"^(?:(?:and|but|so|just|i'm|i am|i|we|we're|am|it's|it is|it|that|this|the whole thing"
    r"|still|yet|anymore|really|honestly|totally|now|though|tho|please|pls|lol|ok|okay"
    r"|about|of|on|with|for|all|you|me|thinking|maybe|might|not|decided|sure|yet|forget"
    r"|mentioned|said|told|scrap(?:ped|ping)?|cancel(?:l)?ed|dead|off|over|done|finished"
    r"|never ?mind|nvm|scratch|called|happening|is|was|considering|deciding|ever|what"
    r"|dropping|dropped|idea|plan|an|a|to|do|it's|isn't)\b[\s,.!']*)+$",
    re.IGNORECASE,
)


def _has_content(clause: str) -> bool:
    """Whether a clause says something beyond a bare lifecycle marker."""
    return not _CONTENT_FREE.match(clause.strip())

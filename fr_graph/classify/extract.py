"""Offline fact extraction: a user's chat message -> atomic facts about the user.

``extract_facts`` is the no-LLM stand-in for the paper's extraction call. It is rule based
and deterministic:

0. **Set aside pasted material**: code (fenced or not), stack traces, logs, tables and
   quoted text are blanked out (:mod:`fr_graph.classify.prose`), offsets kept, and
   reported as :class:`~fr_graph.classify.prose.Region` s; no fact comes from them.
1. **Segment** the message into sentences (``.!?;``, ellipses, newlines; abbreviations such
   as "a.m." and "Dr." do not end a sentence) and sentences into clauses (", but", ", so",
   " - ", and a comma followed by a new first-person subject).
2. **Clean** each clause: leading fillers ("so", "btw", "lol", "honestly") and trailing
   chatter ("lol", "haha", emoji) go; chat shorthand for pronouns is repaired.
3. **Keep** statements about the user, their people and plans: clauses with a first-person
   reference ("I", "my", "me", "we"), or with strong personal-domain evidence and no world
   knowledge ("rent is $950/mo", "flight at 6am tomorrow", "Alex caught 7 bass"), or that
   read as instructions to the assistant (kept so the classifier can quarantine them).
   Questions, greetings, small talk and plain requests to the assistant are skipped, but
   what a request or question discloses in passing is kept: a statement clause before it
   ("I'm building the order page for my bakery's Flask app, can you add login?"), a
   first-person reason inside it ("... since I moved to Leeds?") and a specific thing of
   the user's it names ("... for my daughter Maya's 7th birthday").
4. **Attach** clauses that only carry a lifecycle marker ("forget I mentioned it", "not
   decided yet", "scrapping it") to the fact before them, so the marker stays with what it
   modifies.
5. **Normalize** to a third-person sentence ("i started eating fish again lol" -> "User
   started eating fish again") and split it best-effort into subject / predicate / object.

Input beyond :data:`MAX_MESSAGE_CHARS` and clauses beyond :data:`MAX_CLAUSES` are
ignored, and an over-long clause is cut into pieces of at most :data:`MAX_CLAUSE_CHARS`, so
cost and fact length are bounded for any input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from fr_graph.classify.prose import (
    NOT_A_TIME_WORD,
    Region,
    mask_inline_code,
    mask_regions,
    pasted_letters,
    pasted_regions,
    reads_as_prose,
)
from fr_graph.classify.rules import classify_fact
from fr_graph.core.lifecycle import Marker
from fr_graph.core.ontology import Category
from fr_graph.core.text import words

#: Only this much of a message is read (a message record holds at most this much).
MAX_MESSAGE_CHARS = 200_000
#: At most this many facts come out of one message.
MAX_FACTS = 64
#: At most this many clauses are examined (bounds the work on pathological input).
MAX_CLAUSES = 1_000
#: A longer clause is cut at commas, "and", or word boundaries: a fact stays a sentence.
MAX_CLAUSE_CHARS = 300
#: A fact's text, subject, predicate and object never exceed this (record limits).
MAX_FIELD_CHARS = 500


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
    r"\s*+(?:,\s*(?:but|so|and then|and|plus)\s+(?=(?:i|i'm|im|i've|ive|i'll|my|we|we're|our"
    r"|she|he|they|it's|its|that's|thats)\b)"
    r"|,?\s+but\s+(?=(?:i|i'm|im|i've|ive|my|we|we're|our|she|he|they|it's|that's)\b)"
    r"|,\s*(?=(?:i|i'm|im|i've|ive|i'll|my|we|we're|we've|our)\b)"
    r"|\s+(?:-|--|\u2013|\u2014)\s+"
    r"|\s+(?:lol|lmao|haha+|hehe)\s+)",
    re.IGNORECASE,
)
# A request or question after a statement: "I'm on Django 4.2, can you ...", "my deadline
# is Friday so could you ...". The statement before it stays a clause of its own.
_ASK_SPLIT = re.compile(
    r"(?:,|\s+-|:)?\s++(?:so|and|but|,)?\s*+(?=(?:can|could|would|will) (?:you|u)\b|please\b"
    r"|pls\b|any (?:ideas?|tips|advice|thoughts|suggestions)\b|how (?:do|can|should|would)"
    r" (?:i|we)\b|what (?:should|would|do|can) (?:i|we)\b|do you\b|should (?:i|we)\b"
    r"|help me\b|wdyt\b|is (?:it|that|there) (?:ok|okay|possible|normal|safe|a good)\b)",
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
    r"^(?:please|pls|plz)\b|^(?:tell me|help me|give me|show me|explain|write|draft"
    r"|summari[sz]e|translate|list|find|search|recommend|suggest|let me know|make me|generate"
    r"|create|fix|check|compare|calculate|describe)\b",
    re.IGNORECASE,
)
# Asking for help in the first person ("I need some ideas for ...", "I'd like advice on
# ...") or pointing at a paste ("here's the log"): about this conversation, not the user.
_ASKING = re.compile(
    r"^(?:(?:i|we)\s+(?:really\s+|just\s+|kind of\s+)?(?:need|want|would like|'d like"
    r"|am looking for|'m looking for|was wondering|wonder|could use)|i'd like|im looking for)"
    r"\b.{0,40}?\b(?:help|advice|ideas?|suggestions?|tips|recommendations?|someone|a way"
    r"|feedback|your|you to|to know|to understand|to figure|to ask|a second opinion)\b"
    r"|^(?:here's|here is|here are|heres|below is|below are|attached is|this is what"
    r"|pasting|pasted|see below|sharing)\b",
    re.IGNORECASE,
)
# An indirect question: "I don't know how firm to be", "I'm not sure whether I should
# apply", "I can't decide what to bring".
_WONDERING = re.compile(
    r"^(?:i|i'm|im|we|we're)\s+(?:(?:honestly|just|really|still|kind of|kinda)\s+)*"
    r"(?:(?:don't|dont|do not|can't|cant|cannot)\s+(?:know|decide|figure out|work out)"
    r"|(?:am|'m)?\s*not sure)"
    # ... with what it asks as an infinitive: "how to tell", "how much to set aside",
    # "whether I should", and nothing after it ("..., but my dad was diagnosed").
    r"\s+(?:(?:how|what|which|where|when|who)(?:\s+(?:much|many|long|often|far|firm))?"
    r"\s+to|(?:whether|if)\s+(?:i|we)\s+should)\b(?!.*\b(?:but|because|since|so)\b)",
    re.IGNORECASE)
# Addressed to someone: "your suggestion worked", "you need to check in by 3pm". Without a
# first-person word it is not a statement about the user.
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|you're|you've|you'll|u|ur)\b", re.IGNORECASE)
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


def _split_at(pattern: re.Pattern[str], text: str, spans: list[tuple[int, int]]
              ) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in spans:
        cursor = start
        for match in pattern.finditer(text, start, end):
            if match.start() > cursor:
                out.append((cursor, match.start()))
            cursor = max(cursor, match.end())
        if cursor < end:
            out.append((cursor, end))
    return out


_PIECE_BREAK = re.compile(r"[,;:]\s+|\s+(?:and|which|who|that|while|because|but)\s+")


def _bounded(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``text[start:end]`` in pieces of at most :data:`MAX_CLAUSE_CHARS`: cut at the last
    comma or conjunction that fits, else at the last space, else hard."""
    pieces: list[tuple[int, int]] = []
    while end - start > MAX_CLAUSE_CHARS:
        limit = start + MAX_CLAUSE_CHARS
        breaks = [m for m in _PIECE_BREAK.finditer(text, start + 1, limit)]
        if breaks:
            cut, resume = breaks[-1].start(), breaks[-1].end()
        else:
            space = text.rfind(" ", start + 1, limit)
            cut, resume = (space, space + 1) if space > start else (limit, limit)
        pieces.append((start, cut))
        start = resume
    if end > start:
        pieces.append((start, end))
    return pieces


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans = _split_at(_CLAUSE_SPLIT, text, [(start, end)])
    spans = _split_at(_ASK_SPLIT, text, spans)
    split: list[tuple[int, int]] = []
    for c_start, c_end in spans:
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


# A question without its question mark: an auxiliary before its subject ("is that normal
# sibling stuff or", "isn't that the same thing", "are my kids ok"), or a clause trailing
# off in "or". Not "did"/"had": chat drops the "I" before them ("did my first 10k").
_INVERTED = re.compile(
    r"^(?:is|isn't|are|aren't|am|was|wasn't|were|weren't|should|shouldn't|would|wouldn't"
    r"|could|couldn't|can|can't|will|won't|does|doesn't|do|don't)\s+(?:i|you|we|he|she|it"
    r"|they|that|this|these|those)\b"
    r"|^(?:is|isn't|are|aren't|should|would|could|can|will)\s+(?:the|a|an|my|our|your|his"
    r"|her|their|\d)"
    r"|\s(?:or|or what)$",
    re.IGNORECASE)


def _is_question_or_chatter(clause: str, terminator: str) -> bool:
    if "?" in terminator:
        return True
    return bool(_SMALL_TALK.match(clause) or _QUESTION_START.match(clause)
                or _INVERTED.search(clause))


# Pointing at the message's paste: "my sister sent me this", "got this letter today",
# "found this packing list on a blog", "this is the export from our booking system". What
# it says is the paste's, not news about the user; only what it discloses in passing stays.
_POINTS_AT_PASTE = re.compile(
    r"\b(?:sent|forwarded|got|received|found|gave|wrote|posted|shared|texted|emailed"
    r"|messaged|copied|pasted|read|saw|attached|pulled)(?:\s+(?:me|us|him|her|them"
    r"|assigned|together))?\s+(?:this|these)\b" + NOT_A_TIME_WORD +
    r"|^(?:this|these)\s+(?:is|are|was|were)\s+(?:the|a|an|what|from)\b"
    r"|^(?:this|these)\s+(?:landed|came|arrived)\b",
    re.IGNORECASE)


def _only_points_at_paste(clause: str) -> bool:
    """A short pointer at the paste that names nothing of its own: no number, no name,
    at most eight words ("got this letter today"; not "my trainer Kenji wrote this plan")."""
    tokens = clause.split()
    return (len(tokens) <= 8 and not re.search(r"\d", clause)
            and not any(t[:1].isupper() and t not in ("I", "I'm", "I've", "I'd", "I'll")
                        for t in tokens[1:])
            and bool(_POINTS_AT_PASTE.search(clause)))


def _terminator(text: str, end: int) -> str:
    return text[end:end + 3]


@dataclass(frozen=True, slots=True)
class MessageExtraction:
    """What one message gave: its facts, and the pasted regions no fact came from."""

    facts: list[ExtractedFact]
    regions: list[Region]


# A first-person reason or circumstance inside a question or request: "... since I moved to
# Leeds", "... now that we have 40k users", "... because my landlord raised the rent".
_EMBEDDED_CLAUSE = re.compile(
    r"\b(?:since|because|cause|cuz|as|now that|given that|considering|after|ever since)\s+"
    r"(?=(?:i|i'm|im|i've|ive|we|we're|we've|my|our)\b)",
    re.IGNORECASE,
)
# "... for my daughter Maya's 7th birthday", "... to my bakery's Flask app": a possession of
# the user's named specifically enough to be worth keeping.
_MY_THING = re.compile(
    r"\b(?:my|our)\s+((?:[\w'\u2019.+#&-]+\s+){0,5}?[\w'\u2019.+#&-]+)"
    r"(?=\s+(?:to|for|so|and|but|that|which|with|because|since|if|when|is|are|was|were|can"
    r"|could|would|will|should|do|does|did|has|have|had|i|we|it|this|at|by|from|into|onto|in|on"
    r"|before|after|until|during"
    r"|about|using|without|or|than|then|like|as|me)\b|\s*[,.;:!?)]|\s*$)",
    re.IGNORECASE,
)
_THING_TAIL = re.compile(r"\s+(?:in|on|at|from)\s+(?:[A-Z0-9][\w'\u2019.-]*\s?){1,3}")


def _specific(phrase: str) -> bool:
    """A name, a number or a possessive, or three or more words: "bakery's Flask app",
    "7th birthday", "Honda Civic" - not "code", "laptop", "essay"."""
    return bool(re.search(r"[A-Z0-9]|['\u2019]s\b", phrase[1:] if phrase[:1].isupper()
                          else phrase)) or len(phrase.split()) >= 3


def _disclosures(text: str, start: int, end: int, *, things: bool = True
                 ) -> list[tuple[str, int, int]]:
    """Statements a question or request makes in passing: ``(statement, start, end)``: a
    first-person reason, else (with ``things``) the user's specific possessions it names."""
    clause = text[start:end]
    found: list[tuple[str, int, int]] = []
    reason = _EMBEDDED_CLAUSE.search(clause)
    if reason:
        rest = clause[reason.end():]
        stop = _ASK_SPLIT.search(rest)
        rest = rest[:stop.start()] if stop else rest
        body = rest.rstrip(" ?!.,")
        if len(body.split()) >= 3:
            found.append((body, start + reason.end(), start + reason.end() + len(body)))
    if found or not things:
        return found
    for match in _MY_THING.finditer(clause):
        phrase = match.group(1)
        tail = _THING_TAIL.match(clause, match.end(1))
        if tail:
            phrase = phrase + tail.group(0).rstrip()
        if not _specific(phrase):
            continue
        span_end = start + match.start(1) + len(phrase)
        found.append((f"my {phrase}", start + match.start(), span_end))
    return found


# A project note without a subject still states something when it has a number, a name
# after its first word, a colon heading or a decision verb ("Capacity stays at 8 per slot",
# "Backsplash: white zellige tile", "cutting scope: 24 levels", "Going with XLM-R large").
_DECLARATIVE = re.compile(
    r"\d|^\S+.*?\s[A-Z][\w-]+|^[\w' -]{2,30}:\s+\S|\b(?:going with|switched|switching|dropping"
    r"|dropped|cutting|cut|using|moved|moving|decided|chose|picked|stays?|will be|agreed"
    r"|passed|started|finished|done)\b")


def _project_note(clause: str) -> bool:
    """A terse note about the user's own project or plans, written without a subject."""
    return bool(_DECLARATIVE.search(clause)) and reads_as_prose(clause)


_HEADING_OR_TAIL = re.compile(
    r"^(?:of|for|to|with|from|by|about|into|than)\b",
    re.IGNORECASE)


def _fragment(clause: str) -> bool:
    """Not a statement on its own: a heading ("INTELLECTUAL PROPERTY") or a tail cut off
    by punctuation ("Of fifteen years of business rules")."""
    letters = [c for c in clause if c.isalpha()]
    return (bool(_HEADING_OR_TAIL.match(clause))
            or (len(letters) >= 4 and all(c.isupper() for c in letters)))


_PRONOUNS = words("he she they it we you i this that there here what who")
_PRONOUN_START = re.compile(
    r"^(?:(he|she)(?:'s|\u2019s)?|(they)(?:'re|\u2019re)?)\b", re.IGNORECASE)
# Who a statement is about, when a later "he" / "she" / "they" can mean them: one of the
# user's people ("my sister Ana", "my son") or a name at the start of the sentence.
_PERSON_SUBJECT = re.compile(
    r"^(?:(?:my|our)\s+((?:(?:little|big|older|younger|best|late|new)\s+)?"
    r"(?:wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?|son|daughter|kid|child|baby"
    r"|mum|mom|mother|dad|father|sister|brother|friend|boss|manager|colleague|flatmate"
    r"|roommate|grandma|grandmother|grandpa|grandfather|aunt|uncle|cousin|niece|nephew"
    r"|neighbou?r|landlord|landlady|doctor|therapist|dog|cat)(?:\s+[A-Z][\w\u00c0-\u024f'-]+)?)"
    r"|([A-Z][a-z\u00e0-\u024f'-]+)\s+(?:is|was|has|had|got|gets|loves|hates|likes|started"
    r"|starts|moved|lives|works|turned|turns|just|finally|will|can|does|did|went|said"
    r"|says|wants)\b)")


def _resolve_pronoun(clause: str, person: str | None) -> str | None:
    """ "She starts in September" after "Maya got into Westbrook" -> "Maya starts in
    September"; None when the clause does not open with he/she/they or no one is known."""
    match = _PRONOUN_START.match(clause)
    if match is None or person is None:
        return None
    verb = ""
    if match.group(0).lower().endswith(("'s", "\u2019s")):
        verb = " is"
    elif match.group(0).lower().endswith(("'re", "\u2019re")):
        verb = " are"
    return f"{person}{verb}{clause[match.end():]}"


def _person_of(clause: str) -> str | None:
    """The person a clause is about, if a later pronoun can refer to them."""
    match = _PERSON_SUBJECT.match(clause)
    if match is None:
        return None
    if match.group(1):
        return f"my {match.group(1)}"
    name = match.group(2)
    return None if name.lower() in _NOT_A_NAME_START | _PRONOUNS else name


def _fit(text: str) -> str:
    """At most :data:`MAX_FIELD_CHARS`, cut at a word boundary."""
    if len(text) <= MAX_FIELD_CHARS:
        return text
    cut = text.rfind(" ", 0, MAX_FIELD_CHARS)
    return text[:cut if cut > MAX_FIELD_CHARS // 2 else MAX_FIELD_CHARS].rstrip()


def extract_facts(text: str, observed_at: datetime) -> list[ExtractedFact]:
    """Atomic facts about the user in one chat message, in order of appearance.

    Args:
        text: the user's message (any string; only the first :data:`MAX_MESSAGE_CHARS`
            characters are read).
        observed_at: when the message was sent (used to judge date-bearing clauses).

    Returns:
        At most :data:`MAX_FACTS` facts; ``[]`` for questions, greetings and small talk.
    """
    return extract_message(text, observed_at).facts


def extract_message(text: str, observed_at: datetime) -> MessageExtraction:
    """:func:`extract_facts`, with the pasted regions set aside (spans into ``text``)."""
    if not isinstance(text, str) or not text.strip():
        return MessageExtraction([], [])
    text = text[:MAX_MESSAGE_CHARS]
    regions = pasted_regions(text)
    regions = sorted(regions + pasted_letters(text, regions), key=lambda r: r.start)
    prose = mask_inline_code(mask_regions(text, regions))
    facts: list[ExtractedFact] = []
    seen: set[str] = set()

    def add(clause: str, span: tuple[int, int]) -> bool:
        """Keep one statement; False once the message has given :data:`MAX_FACTS`."""
        fact = _fit(third_person(clause))
        key = fact.lower()
        if key not in seen:
            seen.add(key)
            subject, predicate, obj = _spo(fact, clause)
            facts.append(ExtractedFact(fact=fact, subject=subject, predicate=_fit(predicate),
                                       object=_fit(obj), span=span))
        return len(facts) < MAX_FACTS

    examined = 0
    person: str | None = None
    for s_start, s_end in _sentences(prose):
        terminator = _terminator(prose, s_end)
        # Bounding first keeps every later regex on at most MAX_CLAUSE_CHARS characters.
        clauses = [clause for p_start, p_end in _bounded(prose, s_start, s_end)
                   if prose[p_start:p_end].strip()  # not a masked-out region or blank
                   for clause in _clauses(prose, p_start, p_end)]
        for c_start, c_end in clauses:
            examined += 1
            if examined > MAX_CLAUSES:
                return MessageExtraction(facts, regions)
            clause, span_start, span_end = _clean(prose, c_start, c_end)
            if len(clause) < 3 or not re.search(r"[A-Za-z]", clause):
                continue
            if (regions and len(clause.split()) <= 3 and not _PERSONAL.search(clause)
                    and not _PAST_START.match(clause) and prose.startswith(":", span_end)):
                continue  # a label over the paste: "Test results:", "Macro:" (not "Moved:")
            # "it"/"she" resolved to the message's own topic where simple: a person named
            # in the clause before ("My daughter Maya got in. She starts in September").
            resolved = _resolve_pronoun(clause, person)
            person = _person_of(clause) or (person if resolved else None)
            clause = resolved or clause
            request = bool(_REQUEST_START.match(clause))
            verdict = classify_fact(clause, observed_at) if request else None
            pointer = bool(regions) and _only_points_at_paste(clause)
            if ((_is_question_or_chatter(clause, terminator if c_end == s_end else "")
                    or request or _ASKING.match(clause) or _WONDERING.match(clause)
                    or pointer)
                    and not (verdict and verdict.instruction_like)):
                # Asked, not told: keep only what it discloses in passing. (An instruction
                # to the assistant is kept whole, for the classifier to quarantine.) A
                # pointer's "my X" is the paste's sender or source, not news.
                for statement, d_start, d_end in _disclosures(prose, span_start, span_end,
                                                              things=not pointer):
                    if not add(statement, (d_start, d_end)):
                        return MessageExtraction(facts, regions)
                continue
            verdict = verdict or classify_fact(clause, observed_at)
            # "saw a double rainbow", "qualified as a solicitor": chat drops the "I".
            personal = bool(_PERSONAL.search(clause) or _PAST_START.match(clause)
                            or _BEEN_START.match(clause) or resolved)
            evidence = verdict.category is not Category.OTHER and verdict.confidence >= 0.35
            marker_only = (
                verdict.marker in (Marker.RETRACTION, Marker.TENTATIVE, Marker.COMPLETION)
                and not _has_content(clause)
            )
            if marker_only and facts:
                prev = facts[-1]
                merged = _fit(f"{prev.fact}; {third_person(clause)}")
                facts[-1] = ExtractedFact(
                    fact=merged, subject=prev.subject, predicate=prev.predicate,
                    object=prev.object, span=(prev.span[0], span_end),
                )
                continue
            addressed = bool(_SECOND_PERSON.search(clause)) and not _PERSONAL.search(clause)
            keep = (
                verdict.instruction_like
                or (not verdict.world_knowledge and not addressed
                    and (personal or ((evidence or _project_note(clause))
                                      and not _fragment(clause))))
                or verdict.marker is Marker.RETRACTION
            )
            if keep and not add(clause, (span_start, span_end)):
                return MessageExtraction(facts, regions)
    return MessageExtraction(facts, regions)


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

"""The offline link verifier: how a later fact relates to an earlier one, from the two texts.

A small learned model, shipped in the package (``verifier.json``) and trained by
``bench/linking/train_verifier.py`` on hand-written labeled pairs (``bench/linking/pairs/``).
Its input is one feature vector per pair (:func:`pair_features`): the e5 cosine of the two
texts, what they share (content words, names, numbers, the rules' slot proposal), and
general English cues of change, cancellation, completion, plans, habits, negation and
hedging on each side, with a few interactions. The cue lists are general English written
for this purpose, not taken from any benchmark text.

The model decides the *relation* (:class:`~fr_graph.core.linking.Relation`); what the
relation does to the earlier fact is :func:`fr_graph.core.linking.decide_link`'s business.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from importlib import resources
from typing import Any, Final, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from fr_graph.classify.dates import resolve_event_time
from fr_graph.classify.rules import classify_fact, normalize
from fr_graph.core.linking import RELATIONS, LinkBands, Relation
from fr_graph.core.ontology import Category
from fr_graph.core.text import FUNCTION_WORDS, words
from fr_graph.errors import ConfigError, InputError

FloatArray = npt.NDArray[np.float64]


def _rx(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"(?:^|\b)(?:" + "|".join(alternatives) + r")\b")


# -- general English cues (normalized text: lower case, first person) ---------------------

_CHANGE = _rx(
    r"now", r"anymore", r"any more", r"no longer", r"switch\w*", r"swapp?\w*", r"moved",
    r"moving", r"relocat\w+", r"new", r"instead", r"quit\w*", r"stopp?\w*", r"sold", r"sell\w*",
    r"left", r"leaving", r"chang\w+", r"replac\w+", r"gave up", r"giving up", r"got rid",
    r"upgrad\w+", r"downgrad\w+", r"back to", r"again", r"these days", r"took up", r"taken up",
    r"ditch\w*", r"cut out", r"became", r"raised", r"increas\w+", r"bump\w*", r"went up",
    r"went down", r"lower\w*", r"reduc\w+", r"down to", r"up to", r"retir\w+", r"resign\w*",
    r"fired", r"laid off", r"promot\w+", r"transferr\w+", r"bought", r"traded", r"broke up",
    r"divorc\w+", r"split up", r"started", r"starting", r"joined", r"turned", r"converted",
    r"off (?:\w+ )?now", r"from \w+ to", r"finally", r"not anymore", r"nowadays",
)
_CANCEL = _rx(
    r"cancel\w*", r"call(?:ed|ing)? (?:it |the \w+ )?off", r"scrap\w*", r"shelv\w+", r"nix\w*",
    r"axed", r"abandon\w*", r"back(?:ed|ing)? out", r"pull(?:ed|ing)? out", r"fell through",
    r"falls? through", r"off the table", r"on hold", r"postpon\w+",
    r"not (?:going|doing|happening)", r"isn't happening", r"won't be", r"decided (?:against|not)",
    r"changed (?:my|her|his|their) mind",
    r"after all", r"dead", r"is off", r"are off", r"(?:it's|its|trip's|plan's) off", r"killed",
    r"gave up on", r"withdr\w+", r"declined", r"turned down", r"rejected", r"dropp?\w*",
    r"no (?:longer )?(?:plans?|going)", r"not (?:moving|buying|applying|taking|getting)",
    r"skipp?\w*", r"bail\w*", r"forget (?:about )?(?:it|the)", r"never mind", r"nevermind",
    r"refund\w*", r"no-go",
)
_COMPLETE = _rx(
    r"finish\w*", r"done", r"complet\w+", r"defend\w*", r"submitt?\w*", r"launch\w*",
    r"shipp?\w*", r"wrapp?\w*(?: up)?", r"passed", r"graduat\w+", r"handed in", r"publish\w*",
    r"delivered", r"closed on", r"signed", r"arrived", r"renewed", r"paid off", r"sent off",
    r"filed", r"went live", r"is live", r"over now", r"ran (?:the|my|a|it)", r"crossed",
    r"made it", r"achiev\w+", r"hit (?:my|the) goal", r"accomplish\w*", r"got back",
    r"returned", r"came back", r"had (?:the|my) \w+", r"went to", r"got (?:my|the|it)",
    r"picked up", r"collected", r"received", r"installed", r"fixed", r"sorted", r"took place",
    r"happened", r"moved in", r"settled", r"released", r"opened",
)
_PLAN = _rx(
    r"plan\w*", r"going to", r"gonna", r"will", r"i'll", r"want(?:s|ed)? to", r"hop(?:e|es|ing) to",
    r"thinking (?:about|of)", r"consider\w*", r"might", r"next", r"schedul\w+", r"booked",
    r"book\w*", r"appointment", r"appt", r"deadline", r"due", r"trip", r"need(?:s)? to",
    r"ha(?:ve|s) to", r"apply\w*", r"training for", r"working on", r"writing", r"idea",
    r"tomorrow", r"upcoming", r"soon", r"aim\w*", r"goal", r"intend\w*", r"reserv\w+",
    r"register\w*", r"signed up", r"enrol\w+", r"project", r"building", r"saving (?:up )?for",
    r"getting", r"about to", r"on track", r"launch", r"wedding", r"renovat\w+", r"visit\w*",
    r"meeting", r"interview", r"exam", r"surgery", r"flight", r"in (?:jan|feb|mar|apr|may|jun"
    r"|jul|aug|sep|oct|nov|dec)\w*", r"on (?:mon|tues|wednes|thurs|fri|satur|sun)day",
)
# A near-future arrangement in plain words: the progressive of a going verb ("Flying home
# to Jakarta for Lebaran", "Brendan is coming home for Christmas"), a season ahead ("moving
# to Denver this summer") or a start ("starts in May"). Read only by the guard on what may
# be completed or cancelled, not by the verifier, whose features were trained on _PLAN.
_ARRANGEMENT = _rx(
    r"(?:flying|heading|going|coming|driving|travell?ing|moving|off) "
    r"(?:back |home |up |down |over |out )?(?:to|for)",
    r"(?:flying|heading|going|coming|driving|travell?ing) (?:back |out )?home",
    r"(?:this|next|in|in the|by the|over the) (?:spring|summer|autumn|fall|winter)",
    r"start(?:s|ing)? (?:in|on|next|this|from|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)",
)
_HABIT = _rx(
    r"every", r"always", r"never", r"since", r"daily", r"weekly", r"monthly", r"usually",
    r"often", r"each", r"(?:\d+|once|twice|three times|3x|2x) (?:a|per) (?:day|week|month|year)",
    r"hasn't", r"doesn't", r"don't", r"do not", r"does not", r"hates?", r"can't stand",
    r"sober", r"vegetarian", r"vegan", r"pescatarian", r"teetotal\w*", r"regularly",
    r"religiously", r"allergic", r"loves?", r"only", r"avoid\w*", r"(?:i am|i'm) (?:a|an) \w+",
    r"no (?:meat|alcohol|caffeine|sugar|dairy|gluten|drinks?)", r"not had",
)
_NEGATION = _rx(r"not", r"no", r"never", r"none", r"without", r"nothing", r"\w+n't", r"nor")
_CONTRAST = _rx(r"but", r"actually", r"though", r"although", r"despite", r"however",
                r"turns out", r"anyway", r"yet", r"whoops", r"oops", r"lol")
_TENTATIVE = _rx(r"maybe", r"might", r"thinking about", r"considering", r"possibly",
                 r"not sure", r"perhaps", r"probably", r"wonder\w*", r"leaning", r"may",
                 r"could", r"eyeing", r"tempted")
# A note that records a question asked or something read or heard ("User asked if the tap
# water is safe", "Read that rents went up", "User mentioned reading an article about
# nurses emigrating", "is the museum free on Sundays?") states no
# state of the person, nor does the news: nothing updates, cancels or completes it, and it
# ends nothing.
_REPORTED = re.compile(
    r"^(?:(?:the )?(?:i|he|she|they|we) )?"
    r"(?:(?:mentioned|said|says|noted) (?:that )?(?:(?:i|he|she|they|we) )?)?"
    r"(?:(?:was|is|am|were) )?"
    r"(?:(?:ask\w*|inquir\w*|enquir\w*) (?:if|whether|how|what|when|where|why|which|"
    r"who|about)|ask\w*:|want(?:s|ed)? to know|curious (?:about|if|whether)|"
    r"(?:read|reading|heard|saw|seen) (?:that|about|on the news|an article|somewhere|online)|"
    r"looked up|googl\w+|question (?:about|on|re)\b|"
    # a request to the assistant: "Asked for a vegan recipe", "asked for K-drama recommendations"
    r"(?:ask\w*|request\w*) for (?:[\w'-]+ ){0,4}?(?:recipes?|lists?|tips|ideas?|advice|help|"
    r"recommendations?|suggestions?|options|examples?|explanations?|summary|templates?|names?|"
    r"playlists?|itinerary|workouts?|(?:study |training |meal )?plans?|places?|"
    r"restaurants?|studios?|books?|podcasts?|apps?)\b|"
    # "asked for a good anime to watch on the flight": something to take in, not a state
    r"(?:ask\w*|request\w*) for (?:a|an|some|something|anything|any) (?:[\w'-]+ ){0,3}?"
    r"to (?:watch|read|listen to|cook|play)\b)")
# A note that opens with a question ("how do i get B12 as a vegan? asked for a list").
_LEAD_QUESTION = re.compile(
    r"^(?:is|are|am|was|were|do|does|did|can|could|should|would|will|how|what|when|where|why|"
    r"which|who)\b[^.!?]*\?")
_NEWS = re.compile(r"\b(?:on|in) the news\b|\bheadlines?\b")
# A one-off happening told with its moment ("Watched a film last night", "Had sushi on
# Friday") is over as soon as it is told: a later note does not update it.
_EPISODE = _rx(r"yesterday", r"last night", r"this morning", r"this afternoon", r"tonight",
               r"today", r"earlier today", r"the other day", r"last weekend",
               r"on (?:mon|tues|wednes|thurs|fri|satur|sun)day")
# A note that corrects what was said before ("I misremembered, it was 1700", "User
# corrected that Karim drives trams") says the earlier statement was never right. Not a
# job ("corrections officer"), an intention ("I meant to call"), nor an accident ("deleted
# the photos by mistake"): those correct no statement.
_CORRECTION = _rx(r"correct(?:ion|ed|ing)", r"misremember\w*", r"mis-?spoke", r"misheard",
                  r"got (?:it|that|this|them|the \w+) wrong", r"(?:i|he|she|we) (?:was|were) wrong",
                  r"mixed (?:it|that|this|them) up", r"got (?:it|that|them) mixed up",
                  r"(?:said|wrote|typed|told you) [^.;]{0,40}by mistake", r"my mistake",
                  r"my bad", r"i meant(?! to\b)", r"never actually",
                  r"(?:wasn't|was not|isn't|is not) actually")
# A note that adds a second one beside the one it names ("Bought a second budgie to keep
# Sonny company", "Got a pup, Red, to train up alongside Blue") replaces nothing, unless it
# says the first one is gone ("Sold the Civic, bought a second car").
_ADDITION = re.compile(r"\b(?:a second|alongside|(?:one|two) more)\b(?![-'])"
                       r"|\bkeep (?:\w+ ){1,2}company\b")
_GONE = _rx(r"sold", r"sell\w*", r"left", r"quit\w*", r"gave up", r"got rid", r"replac\w+",
            r"traded", r"died", r"passed away", r"put down", r"rehom\w+", r"lost", r"broke up",
            r"instead", r"no longer", r"anymore", r"any more", r"stopp?\w*", r"ended")
_CLAUSE_BREAK = re.compile(r",(?!\d)|[;:!?]|\.(?!\d)| but | and ")
_QUESTION = re.compile(
    r"^(?:is|are|am|was|were|do|does|did|can|could|should|would|will|how|what|when|where|why|"
    r"which|who|any(?:one)?)\b[^.!;]*\?\s*$")
_ROLE = _rx(
    r"mum", r"mom", r"mother", r"dad", r"father", r"parents?", r"sister", r"brother",
    r"siblings?", r"wife", r"husband", r"partner", r"boyfriend", r"girlfriend", r"fianc\w+",
    r"son", r"daughter", r"kids?", r"children", r"child", r"baby", r"friend", r"boss",
    r"manager", r"colleague", r"co-?worker", r"room-?mate", r"flatmate", r"housemate",
    r"neighbou?r", r"grandma", r"grandmother", r"grandpa", r"grandfather", r"gran", r"nan",
    r"aunt", r"uncle", r"cousin", r"niece", r"nephew", r"in-laws?", r"client", r"landlord",
    r"dog", r"cat", r"puppy", r"kitten", r"pet", r"teammate", r"mentor", r"team",
)
# "with my brother", "for the kids": a companion or beneficiary, not who the fact is about.
_COMPANION = re.compile(r"\b(?:with|for|and|alongside) (?:my|our|his|her|their|the|a) (?:\w+ )?"
                        + _ROLE.pattern.removeprefix(r"(?:^|\b)"))
_FIRST_PERSON = _rx(r"i", r"i'm", r"i've", r"i'd", r"me", r"my", r"mine", r"we", r"we're", r"our",
                    r"us", r"myself")
_PAST = re.compile(r"\b[a-z]{3,}ed\b")
# A comma, a full stop or a colon ends the value unless a digit follows ("1,700", "3:41").
_DISOWNED = re.compile(r"\bnot\s+((?:[^.,;:!?()]|[.,:](?=\d)){1,60})")
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
# Words of any script: an accented letter ("crèche", "Grêmio") does not split a word.
_TOKEN = re.compile(r"[^\W_]+(?:'[^\W\d_]+)?")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([^\W\d_]{2,})")
_ANY_TIME: Final = datetime(2000, 1, 1, tzinfo=UTC)


def _foreign_function_words() -> frozenset[str]:
    """Other languages' function words that are no English word (how the list is made:
    ``tools/foreign_function_words.py``): code-switched notes share them ("… ako")."""
    text = resources.files("fr_graph.classify").joinpath("foreign_function_words.txt")
    return frozenset(line for line in text.read_text("utf-8").splitlines()
                     if line and not line.startswith("#"))


#: Words that say nothing about which attribute two facts share.
_STOP: Final = FUNCTION_WORDS | _foreign_function_words() | words("""
user also got get gets getting really one like bit lot much many
""")


def _stem(word: str) -> str:
    if word.endswith("'s"):
        word = word[:-2]
    for suffix in ("ing", "ied", "ies", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


@dataclass(frozen=True, slots=True)
class TextCues:
    """What one fact's text says, read once (the pair features combine two of these)."""

    words: frozenset[str]
    names: frozenset[str]
    numbers: frozenset[str]
    roles: frozenset[str]
    lead_role: str | None
    change: bool
    cancel: bool
    complete: bool
    plan: bool
    arrangement: bool
    habit: bool
    negation: bool
    contrast: bool
    tentative: bool
    first_person: bool
    past: bool
    reported: bool
    episode: bool
    correction: bool
    #: What the note says is not so ("Valeria is 25, not 24": ``{"24"}``): the first three
    #: words and the numbers of each "not …" up to the end of its clause.
    disowned: frozenset[str]
    addition: bool
    length: int
    category: Category
    slot_key: str | None
    marker: str


def _is_report(text: str, norm: str) -> bool:
    """A question, a request to the assistant, the news, or a thing read or heard, with no
    change stated beside it ("Read about rent caps, the landlord says the flat is 1250 now"
    reports a change all the same)."""
    lowered = text.strip().lower()
    if _QUESTION.search(lowered) or _NEWS.search(norm):
        return True
    question = _LEAD_QUESTION.search(lowered)
    if question is not None:
        return not _states_change(lowered[question.end():])
    found = _REPORTED.search(norm)
    if found is None:
        return False
    rest = _CLAUSE_BREAK.split(norm[found.end():], maxsplit=1)[1:]
    return not (rest and _states_change(rest[0]))


def _states_change(text: str) -> bool:
    return bool(_CHANGE.search(text) or _CANCEL.search(text) or _COMPLETE.search(text))


@lru_cache(maxsize=65536)
def text_cues(text: str) -> TextCues:
    """The cues of one fact text (cached: a text meets many candidates)."""
    norm = normalize(text)
    tokens = _TOKEN.findall(norm)
    verdict = classify_fact(text, _ANY_TIME)  # the slot proposal and marker, not dates
    head = tokens[:3]
    lead_role = next((_stem(t) for t in head if _ROLE.fullmatch(t)), None)
    return TextCues(
        words=frozenset(_stem(t) for t in tokens if t not in _STOP and len(t) > 2),
        names=frozenset(n.lower() for n in _NAME.findall(text)
                        if n[0].isupper() and n.lower() not in _STOP and n != "User"),
        numbers=frozenset(n.replace(",", "") for n in _NUMBER.findall(norm)),
        roles=frozenset(_stem(m.group(0)) for m in _ROLE.finditer(_COMPANION.sub(" ", norm))),
        lead_role=lead_role,
        change=bool(_CHANGE.search(norm)), cancel=bool(_CANCEL.search(norm)),
        complete=bool(_COMPLETE.search(norm)), plan=bool(_PLAN.search(norm)),
        arrangement=bool(_ARRANGEMENT.search(norm)),
        habit=bool(_HABIT.search(norm)), negation=bool(_NEGATION.search(norm)),
        contrast=bool(_CONTRAST.search(norm)), tentative=bool(_TENTATIVE.search(norm)),
        first_person=bool(_FIRST_PERSON.search(norm)), past=bool(_PAST.search(norm)),
        reported=_is_report(text, norm), episode=bool(_EPISODE.search(norm)),
        correction=bool(_CORRECTION.search(norm)), disowned=_disowned(norm),
        addition=bool(_ADDITION.search(norm) and not _GONE.search(norm)),
        length=len(tokens), category=verdict.category, slot_key=verdict.slot_key,
        marker=str(verdict.marker),
    )


def _disowned(norm: str) -> frozenset[str]:
    found: set[str] = set()
    for phrase in _DISOWNED.findall(norm):
        tokens = _TOKEN.findall(phrase)[:3]
        found.update(_stem(t) for t in tokens if t not in _STOP and len(t) > 2)
        found.update(n.replace(",", "") for n in _NUMBER.findall(phrase))
    return frozenset(found)


def names_day_ahead(text: str, observed_at: datetime) -> bool:
    """Whether ``text`` names a day after the one it was said on ("Mock exams start 3 March",
    "Band is playing the school fair on the 12th"): a thing on a calendar, which a later
    note can call off or report done, whatever its wording ("Eye check at the hospital,
    18 November" has no plan word). Day-precise dates only (:mod:`fr_graph.classify.dates`)."""
    day = resolve_event_time(normalize(text), observed_at)
    return day is not None and day.date() > observed_at.date()


def _attribute(slot_key: str | None) -> str | None:
    if not slot_key:
        return None
    parts = slot_key.split("|")
    return parts[1].split(":", 1)[0] if len(parts) > 1 else None


FEATURE_NAMES: Final[tuple[str, ...]] = (
    "bias", "cosine", "cosine_high", "jaccard", "shared_words", "shared_names",
    "names_differ", "shared_numbers", "numbers_differ", "same_slot", "same_attribute",
    "same_category", "lead_role_differs", "role_only_one_side",
    "new_change", "new_cancel", "new_complete", "new_plan", "new_habit", "new_negation",
    "new_contrast", "new_tentative", "new_past", "new_first_person",
    "old_change", "old_cancel", "old_complete", "old_plan", "old_habit", "old_negation",
    "old_tentative", "old_past",
    "negation_flip", "new_marker_retraction", "new_marker_completion", "new_marker_tentative",
    "old_marker_retraction", "len_new", "len_old",
    "cos_x_change", "cos_x_cancel", "cos_x_complete", "plan_x_cancel", "plan_x_complete",
    "habit_x_flip", "words_x_change", "words_x_cancel", "words_x_complete", "slot_x_change",
    "habit_x_contrast", "no_overlap",
)


def pair_features(older: str, newer: str, cosine: float) -> FloatArray:
    """One pair's feature vector (in :data:`FEATURE_NAMES` order)."""
    o, n = text_cues(older), text_cues(newer)
    shared = o.words & n.words
    union = o.words | n.words
    jaccard = len(shared) / len(union) if union else 0.0
    shared_words = min(len(shared), 3) / 3.0
    names_shared = bool(o.names & n.names)
    names_differ = bool(o.names and n.names and not names_shared)
    numbers_shared = bool(o.numbers & n.numbers)
    numbers_differ = bool(o.numbers and n.numbers and o.numbers != n.numbers)
    same_slot = o.slot_key is not None and o.slot_key == n.slot_key
    attr_o, attr_n = _attribute(o.slot_key), _attribute(n.slot_key)
    same_attribute = attr_o is not None and attr_o == attr_n
    lead_differs = o.lead_role != n.lead_role
    role_one_side = bool(o.roles) != bool(n.roles)
    flip = o.negation != n.negation
    high = max(0.0, cosine - 0.85) * 10.0
    centred = (cosine - 0.8) * 10.0
    values = [
        1.0, centred, high, jaccard, shared_words, float(names_shared), float(names_differ),
        float(numbers_shared), float(numbers_differ), float(same_slot), float(same_attribute),
        float(o.category is n.category), float(lead_differs), float(role_one_side),
        float(n.change), float(n.cancel), float(n.complete), float(n.plan), float(n.habit),
        float(n.negation), float(n.contrast), float(n.tentative), float(n.past),
        float(n.first_person),
        float(o.change), float(o.cancel), float(o.complete), float(o.plan), float(o.habit),
        float(o.negation), float(o.tentative), float(o.past),
        float(flip), float(n.marker == "retraction"), float(n.marker == "completion"),
        float(n.marker == "tentative"), float(o.marker == "retraction"),
        min(n.length, 40) / 20.0, min(o.length, 40) / 20.0,
        centred * n.change, centred * n.cancel, centred * n.complete,
        float(o.plan and n.cancel), float(o.plan and n.complete), float(o.habit and flip),
        shared_words * n.change, shared_words * n.cancel, shared_words * n.complete,
        float(same_slot and n.change), float(o.habit and n.contrast), float(not shared),
    ]
    return np.asarray(values, dtype=np.float64)


def feature_matrix(pairs: Sequence[tuple[str, str, float]]) -> FloatArray:
    """Features of many ``(older, newer, cosine)`` pairs, one row each."""
    if not pairs:
        return np.zeros((0, len(FEATURE_NAMES)))
    return np.vstack([pair_features(o, n, c) for o, n, c in pairs])


def evidence(older: str, newer: str) -> list[str]:
    """A short human-readable list of what the two texts share and signal (for explain)."""
    o, n = text_cues(older), text_cues(newer)
    out: list[str] = []
    shared = sorted(o.words & n.words)
    if shared:
        out.append("shared words: " + ", ".join(shared[:5]))
    if o.slot_key and o.slot_key == n.slot_key:
        out.append(f"same slot proposal {o.slot_key}")
    if o.numbers and n.numbers and o.numbers != n.numbers:
        out.append(f"numbers {'/'.join(sorted(o.numbers))} -> {'/'.join(sorted(n.numbers))}")
    signals = (("change", n.change), ("cancellation", n.cancel), ("completion", n.complete),
               ("negation", n.negation != o.negation), ("contrast", n.contrast))
    cues = [name for name, on in signals if on]
    if cues:
        out.append("later fact: " + ", ".join(cues))
    if o.plan:
        out.append("earlier fact is a plan")
    elif o.habit:
        out.append("earlier fact is a habit or standing claim")
    return out


# -- the model ------------------------------------------------------------------------------

#: How a pair's two e5 vectors enter the verifier: ``concat`` (the earlier, then the later
#: vector) or ``interactions`` (the later vector, the element-wise product and the absolute
#: difference: what the two texts share and where they differ, dimension by dimension).
VECTOR_LAYOUTS: Final = ("concat", "interactions")


def vector_inputs(older: FloatArray, newer: FloatArray, layout: str) -> FloatArray:
    """The vector part of the verifier's input rows, in ``layout`` (:data:`VECTOR_LAYOUTS`)."""
    if layout == "interactions":
        return np.hstack([newer, older * newer, np.abs(older - newer)])
    return np.hstack([older, newer])


@dataclass(frozen=True, slots=True)
class VerifierModel:
    """A softmax model over a pair's features and both texts' e5 vectors.

    Input row: :func:`pair_features`, then both texts' vectors in the model's layout
    (:func:`vector_inputs`; the vectors carry what a regex cannot: that "the bakery idea is
    dead" is a cancellation and "planning a bakery" a plan, in any wording).

    Attributes:
        members: one network per ensemble member, each ``((W, b), ...)`` per layer: ReLU
            between layers, softmax at the end; the members' probabilities are averaged
            (several seeds of a small network vary less than one).
        mean / scale: input standardization (learned on the training pairs).
        bands: the decision bands chosen on cross-validation (precision first).
        meta: training provenance (data files, counts, seed, cross-validated scores).
        vectors: the vector layout the model was trained on (:data:`VECTOR_LAYOUTS`).
    """

    members: tuple[tuple[tuple[FloatArray, FloatArray], ...], ...]
    mean: FloatArray
    scale: FloatArray
    bands: LinkBands
    meta: dict[str, Any]
    vectors: str = "concat"

    def probabilities(self, features: FloatArray, older: FloatArray, newer: FloatArray
                      ) -> FloatArray:
        """Relation probabilities, one row per pair, columns in :data:`RELATIONS` order."""
        x = np.hstack([np.atleast_2d(features),
                       vector_inputs(np.atleast_2d(older), np.atleast_2d(newer), self.vectors)])
        if x.shape[1] != self.mean.shape[0]:
            raise ConfigError(f"verifier: expects {self.mean.shape[0]} inputs, got "
                              f"{x.shape[1]} (embedding dimension differs from training?)")
        x = (x - self.mean) / self.scale
        total = np.zeros((x.shape[0], len(RELATIONS)))
        for layers in self.members:
            h = x
            for index, (w, b) in enumerate(layers):
                h = h @ w + b
                if index < len(layers) - 1:
                    np.maximum(h, 0.0, out=h)
            h -= h.max(axis=1, keepdims=True)
            np.exp(h, out=h)
            total += h / h.sum(axis=1, keepdims=True)
        return total / len(self.members)

    def to_json(self, decimals: int | None = None) -> dict[str, Any]:
        """The model as ``verifier.json`` stores it; weights rounded to ``decimals`` places
        when given (6 changes no probability by more than 1e-4, at a third of the size)."""
        def values(array: FloatArray) -> list[Any]:
            stored: list[Any] = (array if decimals is None else np.round(array, decimals)).tolist()
            return stored

        return {"features": list(FEATURE_NAMES), "relations": [str(r) for r in RELATIONS],
                "members": [[{"W": values(w), "b": values(b)} for w, b in layers]
                            for layers in self.members],
                "mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "bands": bands_to_json(self.bands), "vectors": self.vectors,
                "meta": self.meta}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> VerifierModel:
        if list(data.get("features", [])) != list(FEATURE_NAMES):
            raise ConfigError("verifier.json: its features do not match this version's "
                              "(retrain with bench/linking/train_verifier.py)")
        if list(data.get("relations", [])) != [str(r) for r in RELATIONS]:
            raise ConfigError("verifier.json: its relations do not match this version's")
        if not isinstance(data.get("members"), list) or not data["members"]:
            raise ConfigError("verifier.json: no model members (retrain with "
                              "bench/linking/train_verifier.py)")
        members = tuple(
            tuple((np.asarray(layer["W"], dtype=np.float64),
                   np.asarray(layer["b"], dtype=np.float64)) for layer in layers)
            for layers in data["members"])
        vectors = data.get("vectors", "concat")
        if vectors not in VECTOR_LAYOUTS:
            raise ConfigError(f"verifier.json: unknown vector layout {vectors!r} "
                              f"(known: {', '.join(VECTOR_LAYOUTS)})")
        return cls(members, np.asarray(data["mean"], dtype=np.float64),
                   np.asarray(data["scale"], dtype=np.float64), bands_from_json(data["bands"]),
                   dict(data.get("meta", {})), vectors)


@dataclass(frozen=True, slots=True)
class VerifierEnsemble:
    """Verifier models trained apart (on other pairs, or reading the vectors in another
    layout), their probabilities averaged and read with one set of bands: models that err
    on different pairs hide more ended facts at the same precision than any one of them
    (BENCHMARKS.md, issue 11).
    """

    models: tuple[VerifierModel, ...]
    bands: LinkBands
    meta: dict[str, Any]

    def probabilities(self, features: FloatArray, older: FloatArray, newer: FloatArray
                      ) -> FloatArray:
        """The models' relation probabilities, averaged (columns in :data:`RELATIONS` order)."""
        return np.mean([model.probabilities(features, older, newer) for model in self.models],
                       axis=0)

    def to_json(self, decimals: int | None = None) -> dict[str, Any]:
        return {"ensemble": [model.to_json(decimals) for model in self.models],
                "bands": bands_to_json(self.bands), "meta": self.meta}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> VerifierEnsemble:
        parts = data.get("ensemble")
        if not isinstance(parts, list) or not parts:
            raise ConfigError("verifier.json: an ensemble needs at least one model")
        return cls(tuple(VerifierModel.from_json(part) for part in parts),
                   bands_from_json(data["bands"]), dict(data.get("meta", {})))


#: A verifier file's model: one network ensemble, or several models averaged.
Verifier = VerifierModel | VerifierEnsemble


def verifier_from_json(data: dict[str, Any]) -> Verifier:
    """The model a ``verifier.json`` holds, whichever kind it is."""
    if "ensemble" in data:
        return VerifierEnsemble.from_json(data)
    return VerifierModel.from_json(data)


def bands_to_json(bands: LinkBands) -> dict[str, Any]:
    """The bands as ``verifier.json`` stores them."""
    return {"hard": bands.hard, "soft": bands.soft, "contradicts": bands.contradicts,
            "hard_by_relation": {str(r): b for r, b in bands.hard_by_relation.items()}}


def bands_from_json(data: dict[str, Any]) -> LinkBands:
    """The bands stored by :func:`bands_to_json` (a missing per-relation table is empty)."""
    try:
        by_relation = {Relation(name): float(band)
                       for name, band in data.get("hard_by_relation", {}).items()}
        return LinkBands(hard=float(data["hard"]), soft=float(data["soft"]),
                         contradicts=float(data["contradicts"]), hard_by_relation=by_relation)
    except (KeyError, ValueError, TypeError, InputError) as exc:
        raise ConfigError(f"verifier.json: bad bands ({exc})") from exc


@lru_cache(maxsize=1)
def shipped_model() -> Verifier:
    """The verifier shipped in the package (``fr_graph/classify/verifier.json``)."""
    raw = resources.files("fr_graph.classify").joinpath("verifier.json").read_text("utf-8")
    return verifier_from_json(json.loads(raw))


@dataclass(frozen=True, slots=True)
class PairInput:
    """One pair for the verifier: both texts and their e5 passage vectors."""

    older: str
    newer: str
    older_vector: FloatArray
    newer_vector: FloatArray

    @property
    def cosine(self) -> float:
        return float(np.dot(self.older_vector, self.newer_vector))


class LinkVerifier(Protocol):
    """What the linker asks: relation probabilities for pairs, and the bands to read them."""

    @property
    def bands(self) -> LinkBands: ...

    async def assess(self, pairs: Sequence[PairInput]) -> FloatArray:
        """One row of :data:`~fr_graph.core.linking.RELATIONS` probabilities per pair."""
        ...


#: The reader of pairs the shipped offline model judged (see :class:`Reading`).
OFFLINE_READER: Final = "offline"


@dataclass(frozen=True, slots=True)
class Reading:
    """A verifier's verdicts with, per pair, the reader that gave them (``offline``,
    ``cross-encoder``, ``llm``, ...): a verifier that combines readers says which one
    scored each link, and every link records it (``reader`` on ``FR_SUPERSEDES``)."""

    probabilities: FloatArray
    readers: tuple[str, ...]


@runtime_checkable
class ReadingVerifier(LinkVerifier, Protocol):
    """A :class:`LinkVerifier` that also says which reader judged each pair."""

    async def read(self, pairs: Sequence[PairInput]) -> Reading: ...


async def read_pairs(verifier: LinkVerifier, pairs: Sequence[PairInput]) -> Reading:
    """``verifier``'s verdicts on ``pairs``; a verifier that does not name its readers
    (only :meth:`~LinkVerifier.assess`) is named by its class."""
    if isinstance(verifier, ReadingVerifier):
        return await verifier.read(pairs)
    probabilities = await verifier.assess(pairs)
    return Reading(probabilities, (type(verifier).__name__,) * len(pairs))


class OfflineVerifier:
    """Relation probabilities for pairs of facts, offline and deterministic."""

    def __init__(self, model: Verifier | None = None) -> None:
        self.model = model or shipped_model()

    @property
    def bands(self) -> LinkBands:
        return self.model.bands

    def probabilities(self, pairs: Sequence[PairInput]) -> FloatArray:
        """One row of :data:`~fr_graph.core.linking.RELATIONS` probabilities per pair."""
        if not pairs:
            return np.zeros((0, len(RELATIONS)))
        features = feature_matrix([(p.older, p.newer, p.cosine) for p in pairs])
        return self.model.probabilities(features, np.vstack([p.older_vector for p in pairs]),
                                        np.vstack([p.newer_vector for p in pairs]))

    async def assess(self, pairs: Sequence[PairInput]) -> FloatArray:
        """:meth:`probabilities` behind the :class:`LinkVerifier` protocol."""
        return self.probabilities(pairs)

    async def read(self, pairs: Sequence[PairInput]) -> Reading:
        """:meth:`probabilities`, every pair read by the offline model."""
        return Reading(self.probabilities(pairs), (OFFLINE_READER,) * len(pairs))

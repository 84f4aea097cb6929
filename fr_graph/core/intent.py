"""Query intent and routing: which lifecycle states a query may see, and which categories.

Every query gets one :class:`Intent`, and each intent fixes a state mask ``M_q`` (App. A.1,
A.9): current-state questions see only active facts; change questions ("used to", "before
switching", "what did I change from") also see superseded and expired ones; retraction
questions ("what plans did I cancel") see retracted ones; and so on. The exact map is a
policy choice (A.1 says so); ours is :data:`INTENT_SPECS`.

The category prior ``rho(c|q)`` (Eq. 1) comes from a keyword lexicon: matched categories share
most of the mass, the rest is spread uniformly so no category is ever ruled out by routing.
Everything here is offline rules; no embedding prototypes (no measured gain to justify them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from functools import lru_cache
from typing import Final, NamedTuple

import numpy as np

from fr_graph.core.codes import (
    CATEGORY_INDEX,
    N_CATEGORIES,
    N_STATES,
    STATE_CODE,
    STATE_MASK_REASON,
    STATES,
)
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.ontology import Category
from fr_graph.errors import InputError


class Intent(StrEnum):
    """What a query asks about the lifecycle of the facts it matches."""

    CURRENT = "current"
    """What is true now ("where do I live?"). Only active facts."""

    HISTORICAL = "historical"
    """What used to be true, what changed ("what did I change from?")."""

    RETRACTION = "retraction"
    """What was called off or taken back ("what plans did I cancel?")."""

    UPCOMING = "upcoming"
    """Future events and deadlines ("what's coming up next week?")."""

    PAST = "past"
    """Events that already happened ("what did I do last weekend?")."""

    BROAD = "broad"
    """Aggregation over many current facts ("all my hobbies")."""


class EventDirection(StrEnum):
    """Which side of ``now`` an event-anchored fact must lie on to be eligible."""

    ANY = "any"
    FUTURE = "future"
    PAST = "past"


@dataclass(frozen=True, slots=True)
class IntentSpec:
    """The lifecycle consequences of one intent.

    Attributes:
        allowed: states the mask ``M_q`` admits; every other state is masked out.
        state_weight: an ordering preference among admitted states. ``M_q`` is binary, but a
            change question must rank the superseded value above the current one (A.7.3),
            so admitted states carry a weight that multiplies the score.
        backward_looking: bypass the date-aware expiry and the post-event collapse of the
            validity kernel (App. K: "backward-looking expiry bypass").
        event_direction: anchored facts on the wrong side of ``now`` are masked out.
    """

    allowed: frozenset[LifecycleState]
    state_weight: Mapping[LifecycleState, float]
    backward_looking: bool
    event_direction: EventDirection


_S = LifecycleState

INTENT_SPECS: Final[Mapping[Intent, IntentSpec]] = {
    Intent.CURRENT: IntentSpec(frozenset({_S.ACTIVE}), {}, False, EventDirection.ANY),
    Intent.BROAD: IntentSpec(frozenset({_S.ACTIVE}), {}, False, EventDirection.ANY),
    Intent.UPCOMING: IntentSpec(frozenset({_S.ACTIVE}), {}, False, EventDirection.FUTURE),
    Intent.HISTORICAL: IntentSpec(
        frozenset({_S.ACTIVE, _S.SUPERSEDED, _S.EXPIRED, _S.ARCHIVED}),
        {_S.ACTIVE: 0.6},  # the current value is context; the old value is the answer
        True, EventDirection.ANY),
    Intent.PAST: IntentSpec(
        frozenset({_S.ACTIVE, _S.SUPERSEDED, _S.EXPIRED, _S.ARCHIVED}),
        {_S.ACTIVE: 0.8},
        True, EventDirection.PAST),
    Intent.RETRACTION: IntentSpec(
        frozenset({_S.ACTIVE, _S.RETRACTED}),
        {_S.ACTIVE: 0.6},  # the cancellation statement itself is context
        True, EventDirection.ANY),
}


def _state_vectors(spec: IntentSpec) -> tuple[np.ndarray, np.ndarray]:
    mask = np.zeros(N_STATES, dtype=bool)
    weight = np.zeros(N_STATES)
    for state in spec.allowed:
        mask[STATE_CODE[state]] = True
        weight[STATE_CODE[state]] = spec.state_weight.get(state, 1.0)
    mask.setflags(write=False)
    weight.setflags(write=False)
    return mask, weight


_EXPIRED: Final = STATE_CODE[LifecycleState.EXPIRED]
_STATE_VECTORS: Final = {intent: _state_vectors(spec) for intent, spec in INTENT_SPECS.items()}
_UNIFORM_RHO: Final = np.full(N_CATEGORIES, 1.0 / N_CATEGORIES)
_UNIFORM_RHO.setflags(write=False)

ROUTING_SHARE: Final[float] = 0.6
"""Share of ``rho`` given to the predicted categories; the rest stays uniform."""


@dataclass(frozen=True, slots=True, eq=False)
class QueryAnalysis:
    """Everything the reranker needs to know about a query.

    Attributes:
        text: the query as given.
        intent: the lifecycle intent.
        state_mask: ``M_q`` as a bool vector indexed by state code.
        state_weight: ordering weight per state code (0 where masked).
        rho: the category prior ``rho(c|q)``, shape ``(11,)``, sums to 1.
        numeric: the query asks for a number or amount (App. H, AV8).
        backward_looking: see :attr:`IntentSpec.backward_looking`.
        aggregate: the query wants many facts ("all", "list", "every").
        event_direction: see :attr:`IntentSpec.event_direction`.
        predicted_categories: categories for category-forced retrieval, best first.
        event_window: ``(start, end)`` epoch seconds a relative date in the query names
            ("next week"), or None. Informational: the pipeline may filter with it.
        matched: the rule names that fired, for explanations.
    """

    text: str
    intent: Intent
    state_mask: np.ndarray
    state_weight: np.ndarray
    rho: np.ndarray
    numeric: bool = False
    backward_looking: bool = False
    aggregate: bool = False
    event_direction: EventDirection = EventDirection.ANY
    predicted_categories: tuple[Category, ...] = ()
    event_window: tuple[float, float] | None = None
    matched: tuple[str, ...] = ()
    rho_is_uniform: bool = field(init=False)
    state_weight_is_flat: bool = field(init=False)
    state_reason: np.ndarray = field(init=False)
    hides_expired: bool = field(init=False)
    _routing_cache: dict[float, np.ndarray] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.state_mask.shape != (N_STATES,) or self.state_weight.shape != (N_STATES,):
            raise InputError(f"state_mask and state_weight need shape ({N_STATES},)")
        if self.rho.shape != (N_CATEGORIES,) or abs(float(self.rho.sum()) - 1.0) > 1e-9:
            raise InputError(f"rho needs shape ({N_CATEGORIES},) and must sum to 1")
        if not bool(np.all(self.rho > 0)):
            raise InputError("rho must be positive: routing may favor, never exclude")
        object.__setattr__(self, "rho_is_uniform", bool(np.ptp(self.rho) < 1e-12))
        admitted = self.state_weight[self.state_mask]
        object.__setattr__(self, "state_weight_is_flat", bool(np.all(admitted == 1.0)))
        # Per state code: 0 when M_q admits it, else the mask reason the reranker reports.
        reasons = np.array([STATE_MASK_REASON[s] for s in STATES], dtype=np.int8)
        reason = np.where(self.state_mask, np.int8(0), reasons).astype(np.int8)
        reason.setflags(write=False)
        object.__setattr__(self, "state_reason", reason)
        object.__setattr__(self, "hides_expired", not bool(self.state_mask[_EXPIRED]))
        object.__setattr__(self, "_routing_cache", {})

    def routing_factors(self, strength: float) -> np.ndarray:
        """Per category, the routing factor ``(11 * rho_c) ** strength`` (1 when uniform).

        A soft-membership fact gets the membership-weighted mean of its categories' factors,
        the same mixture rule as ``alpha`` and the floors.
        """
        factors = self._routing_cache.get(strength)
        if factors is None:
            factors = (N_CATEGORIES * self.rho) ** strength
            factors.setflags(write=False)
            self._routing_cache[strength] = factors
        return factors

    def replaced(self, *, text: str, numeric: bool, aggregate: bool,
                 event_window: tuple[float, float] | None,
                 matched: tuple[str, ...]) -> QueryAnalysis:
        """A copy with the fields changed that nothing derived depends on (the intent, the
        state vectors and ``rho`` stay), so nothing is re-validated or re-derived."""
        copy = object.__new__(QueryAnalysis)
        put = object.__setattr__
        for name in _ANALYSIS_SLOTS:
            put(copy, name, getattr(self, name))
        put(copy, "text", text)
        put(copy, "numeric", numeric)
        put(copy, "aggregate", aggregate)
        put(copy, "event_window", event_window)
        put(copy, "matched", matched)
        return copy

    @property
    def allowed_states(self) -> frozenset[LifecycleState]:
        """The states ``M_q`` admits."""
        return frozenset(s for s, code in STATE_CODE.items() if self.state_mask[code])

    @classmethod
    def for_intent(
        cls,
        intent: Intent,
        *,
        text: str = "",
        categories: Iterable[Category] = (),
        numeric: bool = False,
        aggregate: bool | None = None,
        event_window: tuple[float, float] | None = None,
        matched: Sequence[str] = (),
    ) -> QueryAnalysis:
        """Build the analysis of a query whose intent (and categories) are already known.

        Args:
            intent: the lifecycle intent.
            text: the query text, for display.
            categories: predicted categories, best first; they share :data:`ROUTING_SHARE`.
            numeric: the query asks for a number.
            aggregate: defaults to ``intent is Intent.BROAD``.
            event_window: see the attribute.
            matched: rule names, for explanations.
        """
        spec = INTENT_SPECS[intent]
        mask, weight = _STATE_VECTORS[intent]
        predicted = tuple(dict.fromkeys(categories))
        return cls(
            text=text,
            intent=intent,
            state_mask=mask,
            state_weight=weight,
            rho=category_prior(predicted),
            numeric=numeric,
            backward_looking=spec.backward_looking,
            aggregate=intent is Intent.BROAD if aggregate is None else aggregate,
            event_direction=spec.event_direction,
            predicted_categories=predicted,
            event_window=event_window,
            matched=tuple(matched),
        )


_ANALYSIS_SLOTS: Final[tuple[str, ...]] = QueryAnalysis.__slots__


@lru_cache(maxsize=256)
def _template(intent: Intent, predicted: tuple[Category, ...]) -> QueryAnalysis:
    """The validated analysis of an intent and its predicted categories; queries differ
    from it only in fields nothing is derived from (see :meth:`QueryAnalysis.replaced`)."""
    return QueryAnalysis.for_intent(intent, categories=predicted)


def category_prior(predicted: Sequence[Category]) -> np.ndarray:
    """``rho(c|q)``: uniform, plus :data:`ROUTING_SHARE` split over ``predicted``.

    Earlier predictions weigh more (harmonic ranks), so the first category leads.
    """
    if not predicted:
        return _UNIFORM_RHO
    rho = np.full(N_CATEGORIES, (1.0 - ROUTING_SHARE) / N_CATEGORIES)
    ranks = 1.0 / np.arange(1, len(predicted) + 1)
    ranks *= ROUTING_SHARE / ranks.sum()
    for category, share in zip(predicted, ranks, strict=True):
        rho[CATEGORY_INDEX[category]] += share
    rho.setflags(write=False)
    return rho


# -- the rules ----------------------------------------------------------------------------

def _rx(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.IGNORECASE)


# Intent rules, checked in this order; the first family that matches wins.
_RETRACTION = _rx(
    r"cancel(?:l?ed|ling|s)?", r"call(?:ed)? off", r"scrap(?:ped)?", r"retract(?:ed)?",
    r"take back", r"took back", r"back(?:ed)? out", r"abandon(?:ed)?", r"decided against",
    r"changed my mind", r"no longer (?:going|planning|doing)", r"dropped (?:the |my )?plans?",
    r"gave up on", r"plans? (?:is|are|was|were) (?:dead|off)", r"un-?did", r"withdr[ae]w",
)
_HISTORICAL = _rx(
    r"used to", r"did (?:\w+ ){1,3}use to",
    r"before (?:switching|i switched|changing|i changed|moving|i moved)",
    r"change[ds]? from", r"switch(?:ed)? from", r"what did i (?:change|switch)",
    r"previous(?:ly)?", r"former(?:ly)?", r"originally", r"at first", r"no longer",
    r"old (?:job|address|apartment|place|number|phone|car|name)",
    r"prior to", r"earlier (?:i|my)", r"was (?:my|i) .{0,30}before", r"before that",
    r"how (?:has|have|did) .{0,40}chang", r"history of", r"over time",
    # "Before Lisbon, where was home?", "where did I work before Ericsson?"
    r"^\W*(?:\w+\W+){0,2}before (?!(?:my|the|i|we|you|it|this|next|tomorrow)\b)\w+",
    r"(?:did|was|were|had) (?:i|we|my) .{0,40}\bbefore\b",
    r"before (?:i|we) (?:left|joined|moved|switched|started|quit|changed)",
    r"(?:i|we) (?:was|were) .{0,30}\bbefore\b",
    r"(?:leave|left) (?:to (?:go|join|move|work)|for)",
    # "before I moved", "my old flat", "previous landlord", "past deadlines", "when did I
    # stop climbing": the answer is a superseded or expired fact.
    r"before (?:i|we)\b", r"(?:my|our|the|his|her|their) old (?!age\b)\w+",
    r"past (?!(?:week|weekend|month|year|few|couple|day|days|hour)\b)\w+", r"expired",
    r"when did (?:i|we) (?:stop|quit|leave|give up|end|drop|cancel)\w*",
    r"(?:stopped|quit|gave up) \w+ing",
)
_UPCOMING = _rx(
    r"upcoming", r"coming up", r"next (?:week|month|year|weekend|time|few days)",
    r"tomorrow", r"tonight", r"later today", r"this (?:coming )?(?:weekend|evening)",
    r"soon", r"scheduled", r"due(?! to)", r"deadlines?", r"will i", r"am i (?:going|supposed)",
    r"do i have to", r"need to (?:do|finish|submit|pay)", r"plans? for", r"future",
    r"remind me (?:to|about)", r"in (?:a|two|three|\d+) (?:days?|weeks?|months?)",
)
_PAST = _rx(
    r"last (?:week|month|year|weekend|time|night|summer|winter|spring|fall)", r"yesterday",
    r"ago", r"did i (?:go|attend|have|do|see|visit|meet|finish|buy|pay)",
    r"already (?:happened|passed|done|over)", r"(?:has|have) passed", r"went to",
    r"what happened", r"in the past", r"back (?:when|then)", r"missed",
)
_BROAD = _rx(
    r"all (?:of )?(?:my|the|his|her|their)", r"everything", r"every (?:one|single)", r"list",
    r"what are (?:all )?(?:my|the)", r"summar(?:y|ize|ise)", r"overview",
    r"how many different", r"tell me about (?:me|myself)",
)
_CURRENT = _rx(r"current(?:ly)?", r"now", r"these days", r"still", r"at the moment", r"today")

_NUMERIC = re.compile(
    r"\bhow (?:much|many|long|old|far|often|tall|big|heavy)\b|\bwhat(?:'s| is| was)? the "
    r"(?:price|cost|amount|number|total|figure|rate|size)\b|\b(?:price|cost|amount|salary|rent|"
    r"budget|income|fee|percent(?:age)?|number of|count|quantity|weight|score)\b|[$€£%]|\d",
    re.IGNORECASE,
)

_LEXICON: Final[Mapping[Category, re.Pattern[str]]] = {
    Category.IDENTITY: _rx(
        r"name", r"age", r"old am i", r"born", r"birthday", r"nationality", r"citizen\w*",
        r"job", r"work(?:s|ed)? (?:at|as|for)", r"profession", r"occupation", r"career",
        r"employer", r"employed", r"company", r"workplace", r"(?:do|did) (?:i|we) work",
        r"religio\w+", r"pronouns?", r"who am i", r"identity", r"hometown", r"grew up",
        r"live[sd]?", r"living", r"city", r"country", r"degree", r"graduated", r"myself",
    ),
    Category.RELATIONAL: _rx(
        r"wife", r"husband", r"partner", r"girlfriend", r"boyfriend", r"dating", r"married",
        r"friends?", r"mom", r"mother", r"dad", r"father", r"parents?", r"sisters?",
        r"brothers?", r"sons?", r"daughters?", r"kids?", r"children", r"family",
        r"colleagues?", r"boss", r"cousins?", r"aunt", r"uncle", r"grand\w+", r"relationship",
        r"broke up", r"divorce\w*", r"pets?", r"dog", r"cat", r"neighbou?rs?", r"fianc\w+",
    ),
    Category.INTELLECTUAL: _rx(
        r"interest(?:s|ed)?", r"learn(?:ing|t|ed)?", r"stud(?:y|ying|ied)", r"reading",
        r"books?", r"topics?", r"curious", r"research", r"philosoph\w+", r"history",
        r"languages?", r"courses?", r"podcasts?", r"science", r"math\w*",
    ),
    Category.HEALTH: _rx(
        r"health", r"doctor", r"diagnos\w+", r"allerg\w+", r"medications?", r"medicine",
        r"symptoms?", r"sick", r"ill(?:ness)?", r"flu", r"cold", r"diabet\w+", r"pain",
        r"injur\w+", r"therap\w+", r"sleep", r"mental", r"anxiety", r"depress\w+", r"adhd",
        r"blood pressure", r"surgery", r"hospital", r"dentist", r"condition", r"pregnan\w+",
        r"weight", r"knee", r"back pain", r"migraines?", r"asthma",
    ),
    Category.PROJECTS: _rx(
        r"projects?", r"working on", r"build(?:ing)?", r"thesis", r"startup", r"side project",
        r"app", r"writing (?:a|my)", r"novel", r"renovat\w+", r"launch\w*", r"goals?",
        r"dissertation", r"business", r"prototype", r"portfolio",
    ),
    Category.HOBBIES: _rx(
        r"hobb(?:y|ies)", r"fishing", r"fish", r"hik(?:e|ing)", r"climb(?:ing)?",
        r"guitar", r"piano", r"paint(?:ing)?", r"photograph\w*", r"gam(?:e|es|ing)",
        r"chess", r"running", r"marathon", r"cycl(?:e|ing)", r"garden(?:ing)?", r"knit\w*",
        r"sports?", r"yoga", r"free time", r"bass", r"surf(?:ing)?", r"ski(?:ing)?",
        r"camping", r"pottery", r"collect(?:ing|ion)", r"play(?:ing)? (?:the )?\w+",
    ),
    Category.PREFERENCES: _rx(
        r"prefer(?:s|red|ence|ences)?", r"favou?rite", r"like[sd]?", r"love[sd]?",
        r"hate[sd]?", r"dislike[sd]?", r"enjoy(?:s|ed)?", r"usually", r"habits?",
        r"routine", r"food", r"drinks?", r"coffee", r"tea", r"restaurants?", r"cuisine",
        r"vegetarian", r"vegan", r"style", r"colou?r", r"music", r"eat(?:ing)?", r"diet",
    ),
    Category.FINANCIAL: _rx(
        r"money", r"rent", r"salary", r"income", r"pa(?:y|id|ying)", r"costs?", r"price",
        r"budget", r"savings?", r"loan", r"mortgage", r"debt", r"dollars?", r"euros?",
        r"pounds?", r"invest\w*", r"stocks?", r"car", r"own(?:s|ed)?", r"bought",
        r"purchase\w*", r"bank", r"spend\w*", r"spent", r"afford", r"insurance", r"house",
    ),
    Category.OBLIGATIONS: _rx(
        r"deadlines?", r"due(?! to)", r"appointments?", r"must", r"have to", r"need to", r"owe",
        r"bills?", r"submit\w*", r"exams?", r"interviews?", r"renew\w*", r"tax(?:es)?",
        r"rsvp", r"promised?", r"commitments?", r"obligations?", r"errands?", r"tasks?",
        r"to-?do", r"remind\w*", r"meeting",
    ),
    Category.LOGISTICAL: _rx(
        r"flights?", r"trips?", r"travel\w*", r"hotel", r"reservations?", r"book(?:ed|ing)",
        r"schedul\w+", r"today", r"tomorrow", r"tonight", r"address", r"commute",
        r"pick(?:ing)? up", r"pickup", r"trains?", r"bus", r"airport", r"when is",
        r"what time", r"where is", r"plans?", r"visit(?:ing)?", r"vacation", r"holiday",
        r"moving", r"delivery", r"parking",
    ),
}

_FALLBACK_BY_INTENT: Final[Mapping[Intent, tuple[Category, ...]]] = {
    Intent.UPCOMING: (Category.OBLIGATIONS, Category.LOGISTICAL),
    Intent.PAST: (Category.LOGISTICAL, Category.OBLIGATIONS),
}

MAX_PREDICTED: Final[int] = 3

_WINDOW = re.compile(
    r"\b(today|tonight|tomorrow|yesterday|(?:this|next|last) (?:week|weekend|month|year))\b",
    re.IGNORECASE,
)


class _Rules(NamedTuple):
    """Every pattern the analysis runs, in the order it runs them."""

    intents: tuple[tuple[Intent, re.Pattern[str]], ...]
    current: re.Pattern[str]
    lexicon: tuple[tuple[int, Category, re.Pattern[str]], ...]
    broad: re.Pattern[str]
    numeric: re.Pattern[str]
    window: re.Pattern[str]

    def cased(self) -> _Rules:
        """The same rules, case-sensitive, for lowercased ASCII text: on ASCII, a caseless
        pattern matches exactly where its case-sensitive twin matches the lowercased text
        (every literal here is lowercase), at about a third of the cost."""
        def twin(pattern: re.Pattern[str]) -> re.Pattern[str]:
            return re.compile(pattern.pattern, pattern.flags & ~re.IGNORECASE)

        return _Rules(tuple((i, twin(p)) for i, p in self.intents), twin(self.current),
                      tuple((n, c, twin(p)) for n, c, p in self.lexicon), twin(self.broad),
                      twin(self.numeric), twin(self.window))


_CASELESS: Final = _Rules(
    intents=((Intent.RETRACTION, _RETRACTION), (Intent.HISTORICAL, _HISTORICAL),
             (Intent.UPCOMING, _UPCOMING), (Intent.PAST, _PAST), (Intent.BROAD, _BROAD)),
    current=_CURRENT,
    lexicon=tuple((CATEGORY_INDEX[c], c, p) for c, p in _LEXICON.items()),
    broad=_BROAD, numeric=_NUMERIC, window=_WINDOW,
)
_LOWERCASE: Final = _CASELESS.cased()


def _rules_for(text: str) -> tuple[str, _Rules]:
    """The text to match and the rules to match it with (see :meth:`_Rules.cased`)."""
    return (text.lower(), _LOWERCASE) if text.isascii() else (text, _CASELESS)


def _intent_of(text: str, rules: _Rules) -> tuple[Intent, list[str], bool | None]:
    """The intent, its rule names, and whether the broad rule matched (None: not run)."""
    for intent, pattern in rules.intents:
        hit = pattern.search(text)
        if hit:
            return intent, [f"{intent.value}:{hit.group(0).lower()}"], (
                True if intent is Intent.BROAD else None)
    current = rules.current.search(text)
    return Intent.CURRENT, [f"current:{current.group(0).lower()}"] if current else [], False


def _predicted(text: str, rules: _Rules) -> tuple[Category, ...]:
    counts = [(len(pattern.findall(text)), index, category)
              for index, category, pattern in rules.lexicon]
    ranked = sorted((c for c in counts if c[0] > 0), key=lambda c: (-c[0], c[1]))
    return tuple(category for _, _, category in ranked[:MAX_PREDICTED])


def predict_categories(text: str) -> tuple[Category, ...]:
    """Categories whose lexicon matches ``text``, most matches first (ties: Table 1 order)."""
    return _predicted(*_rules_for(text))


@lru_cache(maxsize=4096)
def _read(text: str) -> tuple[QueryAnalysis, str | None]:
    """Everything about a query that does not depend on ``now``, in one pass of the rules:
    its analysis without an event window, and the relative-date phrase it names (None
    when none; the window is that phrase resolved against ``now``)."""
    normalized = " ".join(text.replace("’", "'").split())
    subject, rules = _rules_for(normalized)
    intent, matched, broad = _intent_of(subject, rules)
    predicted = _predicted(subject, rules) or _FALLBACK_BY_INTENT.get(intent, ())
    if broad is None:
        broad = bool(rules.broad.search(subject))
    window = rules.window.search(subject)
    analysis = _template(intent, predicted).replaced(
        text=text, numeric=bool(rules.numeric.search(subject)),
        aggregate=intent is Intent.BROAD or broad, event_window=None, matched=tuple(matched))
    return analysis, window.group(1).lower() if window else None


def analyze_query(text: str, now: datetime) -> QueryAnalysis:
    """Classify a query's intent and build its state mask and category prior.

    The rules run once per query text (cached); only the relative-date window, when the
    query names one, is resolved against ``now`` per call.

    Args:
        text: the user's query.
        now: the current time (timezone-aware); resolves relative dates ("next week").

    Returns:
        The analysis; ``intent`` defaults to :attr:`Intent.CURRENT` when no rule fires.

    Raises:
        InputError: ``now`` is naive.
    """
    if now.tzinfo is None or now.utcoffset() is None:
        raise InputError("analyze_query needs a timezone-aware `now`")
    analysis, phrase = _read(text)
    if phrase is None:
        return analysis
    return analysis.replaced(text=analysis.text, numeric=analysis.numeric,
                             aggregate=analysis.aggregate,
                             event_window=_window_of(phrase, now), matched=analysis.matched)


# -- relative dates -----------------------------------------------------------------------

def _month_start(moment: datetime, shift: int) -> datetime:
    index = moment.year * 12 + moment.month - 1 + shift
    return moment.replace(year=index // 12, month=index % 12 + 1, day=1)


def event_window(text: str, now: datetime) -> tuple[float, float] | None:
    """The ``[start, end)`` epoch-second window of the first relative date in ``text``.

    Recognizes today, tonight, tomorrow, yesterday, and this/next/last week, weekend, month
    and year, in ``now``'s timezone (weeks start on Monday). None when there is none.
    """
    hit = _WINDOW.search(text)
    return None if hit is None else _window_of(hit.group(1).lower(), now)


def _window_of(phrase: str, now: datetime) -> tuple[float, float]:
    """The window of one lowercased relative-date phrase (see :func:`event_window`)."""
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    one_day = timedelta(days=1)
    if phrase in ("today", "tonight"):
        start, end = day, day + one_day
    elif phrase == "tomorrow":
        start, end = day + one_day, day + 2 * one_day
    elif phrase == "yesterday":
        start, end = day - one_day, day
    else:
        which, unit = phrase.split()
        shift = {"this": 0, "next": 1, "last": -1}[which]
        if unit == "week":
            start = day - timedelta(days=day.weekday()) + timedelta(weeks=shift)
            end = start + timedelta(weeks=1)
        elif unit == "weekend":
            saturday = day - timedelta(days=day.weekday()) + timedelta(days=5, weeks=shift)
            start, end = saturday, saturday + 2 * one_day
        elif unit == "month":
            start, end = _month_start(day, shift), _month_start(day, shift + 1)
        else:
            start = day.replace(year=day.year + shift, month=1, day=1)
            end = start.replace(year=start.year + 1)
    return start.timestamp(), end.timestamp()

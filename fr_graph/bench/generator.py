"""The LifecycleBench-style persona generator: seeded, deterministic, offline.

``generate(seed, size)`` builds a :class:`~fr_graph.bench.dataset.Suite`. Each persona is a
temporal state machine over ~18 simulated months and 30+ sessions (``full``): storylines for
the nine attack vectors of the paper's Table 12, buried under small talk, world knowledge
about the same cities, companies and hobbies, unrelated episodes and facts about other people.

Gold semantics (what the runner scores against):

* **Question times.** Every question is asked after the persona's last session, so the slot
  state a store builds from *all* facts equals the gold state at the question's time; only
  date-driven expiry (which depends on "now") differs between questions. Each question has its
  own ``query_time``, 1-75 days after the last session (AV2 questions are placed around the
  events they ask about).
* **Slot transitions** (gold confidence is certain, as in ``GoldFact.to_record(gold=True)``):
  a later *assertion* in the same slot supersedes the earlier fact, whatever the category; a
  *tentative* statement changes nothing (soft supersession: both stay active); a *retraction*
  retracts the earlier facts of its slot and of the slots under it (a plan's details); a
  *completion* ("gave up pottery") supersedes them. States only move up
  ``active < superseded < retracted``. Accumulate categories (hobbies, languages, allergies,
  pets) keep every member because each member has its own slot (``user|hobby:chess``); the
  only same-slot assertions in accumulate categories are the intended changes of AV4/AV6
  (employer, city, partner, a sister's city, the manager).
* **Expiry.** A fact of a guarded category (logistical, obligations, health) with an event time
  expires 14 days after the event (App. K) if it is still active then; facts carrying an
  amount or count are exempt (App. H, numeric rescue), so a dated car-repair bill stays active.
* **Per attack vector** (support / stale at ``query_time``):
  AV1 the latest preference / every earlier value of the slot. AV2 asked *before* an event:
  the upcoming event fact / earlier, expired events of the same kind; asked *after* it (past
  the 14-day buffer): the next upcoming event of that kind / the expired one and older ones.
  AV3 an identity fact stated in the first sessions / none. AV4 current questions: the latest
  version / all older versions; historical questions ("where did I work before X?",
  ``historical=True``): the version before the latest, which is superseded. AV5 every active
  member of the set, ``min_support`` 2-3 / members that were dropped. AV6 the implicitly
  newer statement / the contradicted one. AV7 the retraction statement / the plan and its
  details. AV8 the fact with the number (the latest version) / older versions. AV9 both the
  standing value and the tentative one (``min_support`` 2) / none.
* **Splits.** Phrase frames, question templates and their families live in
  :mod:`fr_graph.bench.phrases`; the last ~30% of each kind's families are held out. A
  storyline draws its split first (per attack vector, 3 of every 10 storylines held out) and
  then phrases all its facts and questions from that split's families; noise facts draw
  families from both splits.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Final

import numpy as np

from fr_graph.bench import phrases as ph
from fr_graph.bench.dataset import AttackVector, GoldFact, Persona, Question, Size, Split, Suite
from fr_graph.core.lifecycle import LifecycleState, Marker
from fr_graph.core.ontology import Category
from fr_graph.core.supersession import in_scope
from fr_graph.pipeline.records import MAX_TEXT_CHARS

AV = AttackVector

GUARDED: Final = frozenset({Category.LOGISTICAL, Category.OBLIGATIONS, Category.HEALTH})
EXPIRY_BUFFER: Final = timedelta(days=14)
START: Final = datetime(2024, 1, 8, 9, 0, tzinfo=UTC)
_CONTROL: Final = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_RANK: Final = {LifecycleState.ACTIVE: 0, LifecycleState.SUPERSEDED: 1, LifecycleState.RETRACTED: 2}
WEEKDAYS: Final = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS: Final = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
NUMBER_WORDS: Final = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
)
CURRENCIES: Final = (("$", "dollars"), ("€", "euros"), ("£", "pounds"))


@dataclass(frozen=True, slots=True)
class SizeSpec:
    """How big a suite is: personas, sessions, time span and noise per persona."""

    personas: int
    sessions: tuple[int, int]
    span_days: tuple[int, int]
    noise: tuple[int, int]
    extra: float
    """Chance of a second storyline for the vectors that usually get one."""
    lean: bool = False
    """One storyline per attack vector (the CI smoke suite)."""


SIZES: Final[dict[Size, SizeSpec]] = {
    "full": SizeSpec(
        personas=40, sessions=(33, 36), span_days=(525, 550), noise=(205, 235), extra=0.4
    ),
    "quick": SizeSpec(
        personas=3, sessions=(8, 8), span_days=(150, 170), noise=(30, 34), extra=0.0, lean=True
    ),
}


@dataclass(slots=True)
class _Draft:
    """A fact under construction (ids are assigned once all facts are in time order)."""

    text: str
    observed_at: datetime
    session: int
    category: Category
    slot_key: str | None
    marker: Marker
    family: str
    split: Split
    event_time: datetime | None = None
    noise: bool = False
    numeric: bool = False
    id: str = ""
    states: tuple[tuple[datetime, LifecycleState], ...] = ()


@dataclass(slots=True)
class _QDraft:
    vector: AttackVector
    text: str
    query_time: datetime
    support: list[_Draft]
    stale: list[_Draft]
    family: str
    split: Split
    min_support: int = 1
    historical: bool = False


@dataclass(slots=True)
class _SplitDeck:
    """Per attack vector, storylines 1, 4 and 7 of every ten are held out (never all dev);
    in a fresh wording every storyline is."""

    counts: dict[AttackVector, int] = field(default_factory=lambda: defaultdict(int))
    fresh: bool = False

    def draw(self, vector: AttackVector) -> Split:
        if self.fresh:
            return "heldout"
        position = self.counts[vector] % 10
        self.counts[vector] += 1
        return "heldout" if position in (1, 4, 7) else "dev"


def _families(count: int, split: Split) -> list[int]:
    return [i for i in range(count) if ph.family_split(i, count) == split]


def _ordinal(day: int) -> str:
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _low(text: str) -> str:
    return text if text.startswith("I ") or text.startswith("I'") else text[:1].lower() + text[1:]


class _Persona:
    """Builds one persona: sessions, storylines, noise, gold states, questions."""

    def __init__(self, pid: str, rng: random.Random, spec: SizeSpec, deck: _SplitDeck,
                 wording: ph.Wording | None = None) -> None:
        self.pid, self.rng, self.spec, self.deck = pid, rng, spec, deck
        self.wording = wording
        span = rng.randint(*spec.span_days)
        count = rng.randint(*spec.sessions)
        start = START + timedelta(days=rng.randint(0, 120))
        days = sorted(rng.sample(range(1, span), count - 2))
        offsets = [0, *days, span]
        self.sessions = [start + timedelta(days=d, hours=rng.randint(0, 12)) for d in offsets]
        self.minutes = [0] * count
        self.facts: list[_Draft] = []
        self.questions: list[_QDraft] = []
        self.texts: set[str] = set()
        self.currency = rng.choice(CURRENCIES)
        self.cities = list(c[0] for c in ph.CITIES)
        rng.shuffle(self.cities)
        self.names = [n for n in ph.OTHER_NAMES]
        rng.shuffle(self.names)
        self.used_companies: list[str] = []
        self.used_values: list[tuple[ph.Topic, str]] = []
        self.used_languages: list[str] = []
        self.used_hobbies: list[ph.Member] = []

    # ------------------------------------------------------------------ helpers

    @property
    def n(self) -> int:
        return len(self.sessions)

    @property
    def end(self) -> datetime:
        return self.sessions[-1] + timedelta(hours=20)  # after the last session's facts

    def city(self) -> str:
        return self.cities.pop()

    def name(self) -> str:
        return self.names.pop()

    def session_in(self, lo: float, hi: float, after: int = -1) -> int:
        low = max(int(lo * (self.n - 1)), after + 1)
        high = max(int(hi * (self.n - 1)), low)
        return min(self.rng.randint(low, high), self.n - 1)

    def stamp(self, session: int) -> datetime:
        self.minutes[session] += self.rng.randint(1, 5)
        return self.sessions[session] + timedelta(
            minutes=self.minutes[session], seconds=self.rng.randint(0, 59)
        )

    def _pick(self, standard: Sequence[str], fresh: Sequence[str] | None, label: str,
              split: Split) -> tuple[str, str]:
        """One template and its family label: any of the fresh wording's (which has no
        train/test families), else one of ``split``'s families of ``standard``."""
        if fresh is not None:
            assert self.wording is not None
            index = self.rng.randrange(len(fresh))
            return fresh[index], f"{self.wording.name}:{label}.{index}"
        index = self.rng.choice(_families(len(standard), split))
        return standard[index], f"{label}.{index}"

    def frame(self, kind: str, split: Split) -> tuple[str, str]:
        fresh = self.wording.frames[kind] if self.wording is not None else None
        return self._pick(ph.FRAMES[kind], fresh, kind, split)

    def pick_question(self, templates: Sequence[str], kind: str, split: Split,
                      key: str | None = None) -> tuple[str, str]:
        """A question template; ``key`` names it in a fresh wording (default ``kind``)."""
        if self.wording is not None:
            fresh = self.wording.questions[key or kind]
            return self._pick(templates, fresh, f"q.{key or kind}", split)
        return self._pick(templates, None, f"q.{kind}", split)

    def clause(self, topic: ph.Topic | ph.NumericTopic | ph.VersionTopic) -> str:
        """One of the topic's state clauses (the fresh wording's, where it has some)."""
        fresh = self.wording.clauses.get(topic.name) if self.wording is not None else None
        return self.rng.choice(fresh or topic.clauses)

    def voice(self, text: str, *, typo_rate: float = 0.07) -> str:
        """Make a clean sentence sound like a user: hedges, casing, tails, typos."""
        rng = self.rng
        if rng.random() < 0.18:
            text = rng.choice(ph.HEDGES) + _low(text)
        if rng.random() < 0.12:
            text = text.rstrip(".!") + rng.choice(ph.TAILS)
        text = _low(text) if rng.random() < 0.3 else _cap(text)
        if rng.random() < typo_rate:
            text = self.typo(text)
        return text

    def typo(self, text: str) -> str:
        words = text.split(" ")
        candidates = [i for i, w in enumerate(words) if len(w) >= 5 and w.isalpha()]
        if not candidates:
            return text
        i = self.rng.choice(candidates)
        word = words[i]
        j = self.rng.randint(1, len(word) - 3)
        words[i] = word[:j] + word[j + 1] + word[j] + word[j + 2 :]
        return " ".join(words)

    def add(
        self,
        session: int,
        text: str,
        category: Category,
        slot: str | None,
        family: str,
        split: Split,
        *,
        marker: Marker = Marker.ASSERTION,
        event_time: datetime | None = None,
        noise: bool = False,
        numeric: bool = False,
        observed: datetime | None = None,
    ) -> _Draft:
        self.texts.add(text.lower())
        draft = _Draft(
            text=text,
            observed_at=observed or self.stamp(session),
            session=session,
            category=category,
            slot_key=slot,
            marker=marker,
            family=family,
            split=split,
            event_time=event_time,
            noise=noise,
            numeric=numeric,
        )
        self.facts.append(draft)
        return draft

    def ask(
        self,
        vector: AttackVector,
        text: str,
        family: str,
        split: Split,
        support: list[_Draft],
        stale: list[_Draft],
        *,
        when: datetime | None = None,
        min_support: int = 1,
        historical: bool = False,
    ) -> None:
        query_time = when or self.end + timedelta(
            days=self.rng.randint(1, 75), hours=self.rng.randint(0, 10)
        )
        self.questions.append(
            _QDraft(
                vector,
                self.voice(text, typo_rate=0.04),
                query_time,
                support,
                stale,
                family,
                split,
                min_support,
                historical,
            )
        )

    # ------------------------------------------------------------ date phrases

    def when_future(
        self, observed: datetime, days: int, *, timed: bool = True
    ) -> tuple[str, datetime]:
        """A date adverbial ``days`` ahead of ``observed`` and the absolute time it means."""
        rng = self.rng
        day = (observed + timedelta(days=days)).date()
        wd = WEEKDAYS[day.weekday()]
        options = [
            f"on {MONTHS[day.month - 1]} {_ordinal(day.day)}",
            f"on the {_ordinal(day.day)} of {MONTHS[day.month - 1]}",
        ]
        if days == 1:
            options += ["tomorrow"] * 3
        if days == 2:
            options += ["the day after tomorrow"] * 2
        if 2 <= days <= 6:
            options += [f"on {wd}"] * 2
            if day.weekday() > observed.weekday():
                options.append(f"this {wd}")
            else:
                options.append(f"next {wd}")
        if days == 7:
            options.append("a week from today")
        if days == 14:
            options += ["in two weeks", "two weeks from today"]
        if 3 <= days <= 30:
            words = NUMBER_WORDS[days] if days <= 12 else str(days)
            options.append(f"in {words} days")
        if days < 28 and (day.month == observed.month or day.day <= observed.day):
            options.append(f"on the {_ordinal(day.day)}")
        phrase = rng.choice(options)
        hour, minute = 12, 0
        if timed and rng.random() < 0.7:
            hour, minute = (
                rng.choice((6, 7, 8, 9, 10, 11, 13, 14, 15, 16, 17, 18, 19)),
                rng.choice((0, 0, 30, 15)),
            )
            twelve = hour % 12 or 12
            suffix = "am" if hour < 12 else "pm"
            clock = rng.choice(
                (
                    f"{twelve}{suffix}" if minute == 0 else f"{twelve}:{minute:02d}{suffix}",
                    f"{hour:02d}:{minute:02d}",
                )
            )
            phrase = f"{phrase} at {clock}"
        return phrase, datetime(day.year, day.month, day.day, hour, minute, tzinfo=UTC)

    def when_past(self, observed: datetime) -> tuple[str, datetime]:
        rng = self.rng
        days = rng.choice((0, 1, 1, 2, 3, 5, 9))
        day = (observed - timedelta(days=days)).date()
        if days == 0:
            phrase = rng.choice(("today", "this morning"))
        elif days == 1:
            phrase = "yesterday"
        else:
            phrase = rng.choice(
                (
                    f"on {MONTHS[day.month - 1]} {_ordinal(day.day)}",
                    f"{NUMBER_WORDS[days]} days ago",
                )
            )
        return phrase, datetime(day.year, day.month, day.day, 12, 0, tzinfo=UTC)

    def money(self, amount: int) -> str:
        symbol, word = self.currency
        options = [f"{symbol}{amount:,}", f"{amount:,} {word}"]
        if amount >= 10_000 and amount % 100 == 0:
            options.append(f"{symbol}{amount / 1000:g}k")
        if symbol == "$" and amount < 5_000:
            options.append(f"{amount} bucks")
        return self.rng.choice(options)

    def amount(self, topic: ph.NumericTopic) -> tuple[int, str]:
        rng = self.rng
        if topic.unit == "money":
            step = 500 if topic.high > 20_000 else (25 if topic.high > 1000 else 5)
            value = rng.randrange(topic.low, topic.high, step)
            return value, self.money(value)
        if topic.unit == "count":
            value = rng.randint(topic.low, topic.high)
            return value, rng.choice(
                (str(value), NUMBER_WORDS[value] if value <= 12 else str(value))
            )
        if topic.unit == "minutes":
            value = rng.randint(topic.low, topic.high)
            return value, rng.choice(
                (f"{value // 60}:{value % 60:02d}", f"{value // 60} hour {value % 60} minutes")
            )
        systolic, diastolic = rng.randint(topic.low, topic.high), rng.randint(70, 95)
        return systolic, rng.choice((f"{systolic}/{diastolic}", f"{systolic} over {diastolic}"))

    # -------------------------------------------------------------- storylines

    def topic_value(self, topic: ph.Topic, avoid: Sequence[str] = ()) -> str:
        return self.rng.choice([v for v in topic.values if v not in avoid])

    def state_text(
        self, topic: ph.Topic, kind: str, split: Split, value: str, **extra: str
    ) -> tuple[str, str]:
        clause = self.clause(topic).format(v=value)
        frame, family = self.frame(kind, split)
        text = frame.format(c=clause, c_=_low(clause), noun=topic.noun, new=value, **extra)
        return self.voice(text), family

    def av1_preference(self, topic: ph.Topic) -> None:
        split = self.deck.draw(AV.SUPERSEDED_PREFERENCE)
        slot = f"user|{topic.attribute}"
        versions = 3 if self.rng.random() < 0.25 else 2
        values: list[str] = []
        for _ in range(versions):
            values.append(self.topic_value(topic, values))
        session = self.session_in(0.0, 0.45)
        text, family = self.state_text(topic, "assert", split, values[0])
        chain = [self.add(session, text, topic.category, slot, family, split)]
        for version in range(1, versions):
            session = self.session_in(
                0.5 if version == 1 else 0.75, 0.7 if version == 1 else 0.95, after=session
            )
            new_clause = self.clause(topic).format(v=values[version])
            frame, family = self.frame("change", split)
            text = frame.format(
                noun=topic.noun,
                old=values[version - 1],
                new=values[version],
                c_new=new_clause,
                c_new_=_low(new_clause),
            )
            chain.append(self.add(session, self.voice(text), topic.category, slot, family, split))
        self.used_values += [(topic, v) for v in values]
        question, qfamily = self.pick_question(topic.questions, topic.name, split)
        self.ask(AV.SUPERSEDED_PREFERENCE, question, qfamily, split, chain[-1:], chain[:-1])

    def av9_soft(self, topic: ph.Topic) -> None:
        split = self.deck.draw(AV.SOFT_SUPERSESSION)
        slot = f"user|{topic.attribute}"
        base = self.topic_value(topic)
        other = self.topic_value(topic, (base,))
        session = self.session_in(0.0, 0.5)
        text, family = self.state_text(topic, "assert", split, base)
        standing = self.add(session, text, topic.category, slot, family, split)
        frame, family = self.frame("tentative", split)
        text = self.voice(frame.format(noun=topic.noun, new=other))
        later = self.add(
            self.session_in(0.55, 1.0, after=session),
            text,
            topic.category,
            slot,
            family,
            split,
            marker=Marker.TENTATIVE,
        )
        self.used_values += [(topic, base), (topic, other)]
        question, qfamily = self.pick_question(topic.questions, topic.name, split)
        self.ask(
            AV.SOFT_SUPERSESSION, question, qfamily, split, [standing, later], [], min_support=2
        )

    def av6_contradiction(self, topic: ph.Topic) -> None:
        split = self.deck.draw(AV.CROSS_SESSION_CONTRADICTION)
        slot = f"user|{topic.attribute}"
        old = self.topic_value(topic)
        new = self.topic_value(topic, (old,))
        session = self.session_in(0.0, 0.4)
        text, family = self.state_text(topic, "assert", split, old)
        first = self.add(session, text, topic.category, slot, family, split)
        clause = self.clause(topic).format(v=new)
        frame, family = self.frame("implicit", split)
        text = self.voice(frame.format(c_new=clause, c_new_=_low(clause)))
        second = self.add(
            self.session_in(0.5, 1.0, after=session + 3), text, topic.category, slot, family, split
        )
        self.used_values += [(topic, old), (topic, new)]
        question, qfamily = self.pick_question(topic.questions, topic.name, split)
        self.ask(AV.CROSS_SESSION_CONTRADICTION, question, qfamily, split, [second], [first])

    def version_values(self, topic: ph.VersionTopic, count: int) -> list[str]:
        if topic.name == "employer":
            names = [c[0] for c in ph.COMPANIES if c[0] not in self.used_companies]
            values = self.rng.sample(names, count)
            self.used_companies += values
            return values
        if topic.name == "city":
            return [self.city() for _ in range(count)]
        return [
            self.name() if self.rng.random() < 0.3 else self.rng.choice([p for p in ph.PARTNERS])
            for _ in range(count)
        ]

    def av4_versions(self, topic: ph.VersionTopic) -> None:
        split = self.deck.draw(AV.MULTI_VERSION)
        slot = f"user|{topic.attribute}"
        count = self.rng.choice((3, 3, 4))
        values: list[str] = []
        while len(values) < count:  # partners may repeat a name; a chain never does
            values = list(dict.fromkeys(self.version_values(topic, count)))
        session = self.session_in(0.0, 0.15)
        clause = self.clause(topic).format(v=values[0])
        frame, family = self.frame("assert", split)
        text = self.voice(frame.format(c=clause, c_=_low(clause)))
        chain = [self.add(session, text, topic.category, slot, family, split)]
        bounds = (
            [(0.2, 0.45), (0.5, 0.75), (0.8, 1.0)] if count == 4 else [(0.25, 0.55), (0.65, 1.0)]
        )
        for version, (lo, hi) in enumerate(bounds, start=1):
            session = self.session_in(lo, hi, after=session + 1)
            change = self.rng.choice(topic.changes).format(
                old=values[version - 1], new=values[version]
            )
            frame, family = self.frame("version", split)
            text = self.voice(frame.format(change=change, change_=_low(change)))
            chain.append(self.add(session, text, topic.category, slot, family, split))
        question, qfamily = self.pick_question(topic.current, f"{topic.name}_now", split)
        self.ask(AV.MULTI_VERSION, question, qfamily, split, chain[-1:], chain[:-1])
        if self.rng.random() < 0.5:
            question, qfamily = self.pick_question(topic.before, f"{topic.name}_before", split)
            self.ask(
                AV.MULTI_VERSION,
                question.format(latest=values[-1]),
                qfamily,
                split,
                chain[-2:-1],
                [],
                historical=True,
            )

    def av7_retraction(self, plan: ph.Plan) -> None:
        split = self.deck.draw(AV.SELECTIVE_FORGETTING)
        slot = f"user|plan:{plan.key}"
        city = self.city()
        do, np_ = plan.do.format(city=city), plan.np
        session = self.session_in(0.1, 0.55)
        frame, family = self.frame("plan", split)
        stated = [
            self.add(
                session, self.voice(frame.format(do=do)), Category.PROJECTS, slot, family, split
            )
        ]
        for index, detail in enumerate(plan.details[: self.rng.randint(0, 2)]):
            session = self.session_in(0.1, 0.7, after=session)
            frame, family = self.frame("plan_detail", split)
            stated.append(
                self.add(
                    session,
                    self.voice(frame.format(np=np_, detail=detail)),
                    Category.PROJECTS,
                    f"{slot}|detail{index + 1}",
                    family,
                    split,
                )
            )
        frame, family = self.frame("retract", split)
        why = self.rng.choice(
            (
                plan.why,
                plan.why,
                "just not the right time",
                "money's too tight right now",
                "too much going on",
            )
        )
        text = self.voice(frame.format(np=np_, why=why))
        retraction = self.add(
            self.session_in(0.6, 1.0, after=session + 1),
            text,
            Category.PROJECTS,
            slot,
            family,
            split,
            marker=Marker.RETRACTION,
        )
        question, qfamily = self.pick_question(ph.PLAN_QUESTIONS, "plan", split)
        self.ask(
            AV.SELECTIVE_FORGETTING,
            question.format(do=do, np=np_),
            qfamily,
            split,
            [retraction],
            stated,
        )

    def event_fact(
        self,
        kind: ph.EventKind,
        session: int,
        split: Split,
        *,
        days: int | None = None,
        until: datetime | None = None,
    ) -> tuple[_Draft, str]:
        """A dated event of ``kind`` stated in ``session``; ``until`` fixes the event date."""
        observed = self.stamp(session)
        city = self.city()
        if until is not None:
            days = max(1, (until.date() - observed.date()).days)
        phrase, when = self.when_future(observed, days or self.rng.randint(1, 30))
        what = self.rng.choice(kind.what).format(city=city)
        frame, family = self.frame("event", split)
        text = frame.format(what=what, What=_cap(what), when=phrase, When=_cap(phrase))
        slot = (
            f"user|{kind.key}:{city.lower().replace(' ', '_')}"
            if kind.instance
            else f"user|{ph.SHARED_EVENT_SLOTS[kind.key]}"
        )
        return self.add(
            session,
            self.voice(text),
            kind.category,
            slot,
            family,
            split,
            event_time=when,
            observed=observed,
        ), city

    def past_events(self, kind: ph.EventKind, split: Split) -> list[_Draft]:
        out: list[_Draft] = []
        session = 0
        for _ in range(self.rng.randint(1, 2)):
            session = self.session_in(0.1, 0.7, after=session)
            room = (self.end - self.sessions[session]).days - 16  # expired before questions
            out.append(
                self.event_fact(
                    kind, session, split, days=self.rng.randint(1, max(1, min(30, room)))
                )[0]
            )
        return out

    def av2_instances(self, kind: ph.EventKind) -> None:
        """Past trips (expired), then two upcoming ones: one question before, one after."""
        split = self.deck.draw(AV.EXPIRED_LOGISTICS)
        past = self.past_events(kind, split)
        first_at = self.end + timedelta(days=self.rng.randint(4, 20))
        second_at = first_at + timedelta(days=self.rng.randint(32, 60))
        last = self.n - 1
        first, _ = self.event_fact(kind, self.rng.randint(last - 2, last), split, until=first_at)
        second, _ = self.event_fact(kind, self.rng.randint(last - 2, last), split, until=second_at)
        assert first.event_time is not None and second.event_time is not None
        question, qfamily = self.pick_question(
            kind.questions, "event", split, f"event_{kind.key}")
        before = self.end + (first.event_time - self.end) * self.rng.uniform(0.2, 0.8)
        self.ask(
            AV.EXPIRED_LOGISTICS,
            question.format(noun=kind.noun),
            qfamily,
            split,
            [first],
            past,
            when=before,
        )
        lo = first.event_time + EXPIRY_BUFFER + timedelta(days=1)
        after = lo + (second.event_time - timedelta(days=1) - lo) * self.rng.uniform(0.1, 0.9)
        question, qfamily = self.pick_question(
            kind.questions, "event", split, f"event_{kind.key}")
        self.ask(
            AV.EXPIRED_LOGISTICS,
            question.format(noun=kind.noun),
            qfamily,
            split,
            [second],
            [first, *past],
            when=after,
        )

    def av2_shared(self, kind: ph.EventKind) -> None:
        """Appointments sharing one slot: the upcoming one is support, the past ones stale."""
        split = self.deck.draw(AV.EXPIRED_LOGISTICS)
        past = self.past_events(kind, split)
        upcoming_at = self.end + timedelta(days=self.rng.randint(3, 25))
        last = self.n - 1
        upcoming, _ = self.event_fact(
            kind, self.rng.randint(last - 2, last), split, until=upcoming_at
        )
        assert upcoming.event_time is not None
        question, qfamily = self.pick_question(
            kind.questions, "event", split, f"event_{kind.key}")
        when = self.end + (upcoming.event_time - self.end) * self.rng.uniform(0.2, 0.8)
        self.ask(
            AV.EXPIRED_LOGISTICS,
            question.format(noun=kind.noun),
            qfamily,
            split,
            [upcoming],
            past,
            when=when,
        )

    def av3_identity(self, topic: ph.Topic) -> None:
        split = self.deck.draw(AV.BURIED_IDENTITY)
        value = self.topic_value(topic)
        text, family = self.state_text(topic, "assert", split, value)
        fact = self.add(
            self.session_in(0.0, 0.15),
            text,
            topic.category,
            f"user|{topic.attribute}",
            family,
            split,
        )
        self.used_values.append((topic, value))
        question, qfamily = self.pick_question(topic.questions, topic.name, split)
        self.ask(AV.BURIED_IDENTITY, question, qfamily, split, [fact], [])

    def members(self, kind: str, count: int) -> list[tuple[str, str, str]]:
        """``(slot instance, statement clause, drop phrase)`` for ``count`` set members."""
        rng = self.rng
        if kind == "hobbies":
            chosen = rng.sample([h for h in ph.HOBBIES if h not in self.used_hobbies], count)
            self.used_hobbies += chosen
            return [(h.key, rng.choice(h.clauses), h.gerund) for h in chosen]
        clauses = ph.MEMBER_CLAUSES[kind]
        if kind == "languages":
            langs = rng.sample(ph.LANGUAGES, count)
            self.used_languages += langs
            return [(lang.lower(), rng.choice(clauses).format(L=lang), lang) for lang in langs]
        if kind == "allergies":
            return [
                (a.replace(" ", "_"), rng.choice(clauses).format(A=a), a)
                for a in rng.sample(ph.ALLERGENS, count)
            ]
        pets = rng.sample(ph.PET_NAMES, count)
        return [
            (p.lower(), rng.choice(clauses).format(N=p, S=rng.choice(ph.PET_SPECIES)), p)
            for p in pets
        ]

    def av5_aggregate(self, kind: str) -> None:
        split = self.deck.draw(AV.BROAD_AGGREGATION)
        category = ph.AGGREGATE_CATEGORY[kind]
        count = self.rng.randint(3, 5)
        dropped = 1 if kind == "hobbies" and self.rng.random() < 0.6 else 0
        active: list[_Draft] = []
        stale: list[_Draft] = []
        for index, (key, clause, label) in enumerate(self.members(kind, count + dropped)):
            slot = f"user|{ph.AGGREGATE_ATTRIBUTE[kind]}:{key}"
            frame, family = self.frame("member", split)
            session = self.session_in(0.0, 0.6)
            fact = self.add(
                session,
                self.voice(frame.format(c=clause, c_=_low(clause))),
                category,
                slot,
                family,
                split,
            )
            if index < dropped:
                frame, family = self.frame("drop", split)
                self.add(
                    self.session_in(0.65, 1.0, after=session),
                    self.voice(frame.format(x=label)),
                    category,
                    slot,
                    family,
                    split,
                    marker=Marker.COMPLETION,
                )
                stale.append(fact)
            else:
                active.append(fact)
        question, qfamily = self.pick_question(ph.AGGREGATE_QUESTIONS[kind], kind, split)
        self.ask(
            AV.BROAD_AGGREGATION,
            question,
            qfamily,
            split,
            active,
            stale,
            min_support=2 if len(active) <= 3 else 3,
        )

    def av8_numeric(self, topic: ph.NumericTopic) -> None:
        split = self.deck.draw(AV.NUMERIC_PRESERVATION)
        slot = f"user|{topic.attribute}"
        versions = 2 if topic.versions and self.rng.random() < 0.6 else 1
        chain: list[_Draft] = []
        session = -1
        for version in range(versions):
            session = self.session_in(
                0.05 if version == 0 else 0.55, 0.5 if version == 0 else 1.0, after=session
            )
            observed = self.stamp(session)
            _, amount = self.amount(topic)
            when_phrase, event_time = self.when_past(observed) if topic.dated else ("", None)
            clause = self.clause(topic).format(amount=amount, when=when_phrase)
            frame, family = self.frame("number", split)
            chain.append(
                self.add(
                    session,
                    self.voice(frame.format(c=clause, c_=_low(clause))),
                    topic.category,
                    slot,
                    family,
                    split,
                    event_time=event_time,
                    numeric=True,
                    observed=observed,
                )
            )
        question, qfamily = self.pick_question(topic.questions, topic.name, split)
        self.ask(AV.NUMERIC_PRESERVATION, question, qfamily, split, chain[-1:], chain[:-1])

    # ------------------------------------------------------------------- noise

    def world_pool(self) -> list[str]:
        pool: list[str] = []
        for name, country, feature in ph.CITIES:
            pool += [f"{name} is a city in {country}", f"{name} is known for {feature}"]
        for company, hq, industry in ph.COMPANIES:
            if hq and company[0].isupper():
                pool.append(f"{company} is headquartered in {hq}")
            if industry and company[0].isupper():
                article = "an" if industry[0] in "aeiou" else "a"
                pool.append(f"{company} is {article} {industry} company")
        for language in ph.LANGUAGES:
            pool.append(self.rng.choice(ph.LANGUAGE_FACTS).format(L=language))
        pool += list(ph.HOBBY_WORLD)
        for topic, value in self.used_values:
            pool += [w.format(v=value) for w in topic.world]
        return pool

    def noise(self, count: int) -> None:
        rng = self.rng
        world = self.world_pool()
        rng.shuffle(world)
        kinds = ("talk", "world", "world", "episode", "episode", "world", "talk", "people")
        empty = sorted(set(range(self.n)) - {f.session for f in self.facts})  # 1 fact/session
        added = attempts = 0
        while added < count and attempts < count * 20:
            attempts += 1
            kind = rng.choice(kinds)
            session = empty[-1] if empty else rng.randrange(self.n)
            category: Category = Category.OTHER
            slot: str | None = None
            if kind == "talk":
                index = rng.randrange(len(ph.SMALL_TALK))
                text, family = ph.SMALL_TALK[index], f"talk.{index % 8}"
            elif kind == "world" and world:
                index = rng.randrange(6)
                text, family = world.pop(), f"world.{index}"
            elif kind == "people" and len(self.names) > 4:
                index = rng.randrange(len(ph.THIRD_PARTY))
                name = self.name()
                company = rng.choice(ph.COMPANIES)[0]
                text = ph.THIRD_PARTY[index].format(
                    name=name,
                    company=company,
                    city=rng.choice(ph.CITIES)[0],
                    job=rng.choice(ph.JOBS),
                    language=rng.choice(ph.LANGUAGES),
                    hobby=rng.choice(ph.HOBBIES).gerund,
                    allergen=rng.choice(ph.ALLERGENS),
                )
                family = f"people.{index % 8}"
                category, slot = Category.RELATIONAL, f"user|friend:{name.lower()}"
            else:
                index = rng.randrange(len(ph.EPISODES))
                text = ph.EPISODES[index].format(
                    movie=rng.choice(ph.MOVIES),
                    dish=rng.choice(ph.DISHES),
                    wiki=rng.choice(ph.WIKI),
                )
                family = f"episode.{index % 8}"
            split = ph.family_split(int(family.rsplit(".", 1)[1]), 8 if kind != "world" else 6)
            text = self.voice(text)
            if text.lower() not in self.texts:
                self.add(session, text, category, slot, family, split, noise=True)
                added += 1
                if empty and empty[-1] == session:
                    empty.pop()

    # ---------------------------------------------------------------- assembly

    def storylines(self) -> None:
        rng, extra = self.rng, self.spec.extra
        prefs = list(ph.PREFERENCE_TOPICS)
        rng.shuffle(prefs)
        quick = self.spec.lean
        for topic in prefs[: 1 if quick else 2]:
            self.av1_preference(topic)
        soft = prefs[2:4] if rng.random() < extra else prefs[2:3]
        for topic in soft:
            self.av9_soft(topic)
        for topic in rng.sample(ph.CONTRADICTION_TOPICS, 2 if rng.random() < extra else 1):
            self.av6_contradiction(topic)
        for vtopic in rng.sample(ph.VERSION_TOPICS, 2 if rng.random() < extra * 0.5 else 1):
            self.av4_versions(vtopic)
        for plan in rng.sample(ph.PLANS, 2 if rng.random() < extra else 1):
            self.av7_retraction(plan)
        instance_kinds = [k for k in ph.EVENT_KINDS if k.instance]
        shared_kinds = [k for k in ph.EVENT_KINDS if not k.instance]
        self.av2_instances(rng.choice(instance_kinds))
        if not quick and rng.random() < 0.5:
            self.av2_shared(rng.choice(shared_kinds))
        for itopic in rng.sample(ph.IDENTITY_TOPICS, 1 if quick else 2):
            self.av3_identity(itopic)
        for kind in rng.sample(sorted(ph.AGGREGATE_QUESTIONS), 2 if rng.random() < extra else 1):
            self.av5_aggregate(kind)
        for ntopic in rng.sample(ph.NUMERIC_TOPICS, 1 if quick else 2):
            self.av8_numeric(ntopic)

    def build(self) -> Persona:
        self.storylines()
        self.noise(self.rng.randint(*self.spec.noise))
        self.facts.sort(key=lambda f: f.observed_at)
        for index, fact in enumerate(self.facts, start=1):
            fact.id = f"{self.pid}-{index:04d}"
        gold_states(self.facts)
        facts = tuple(
            GoldFact(
                id=f.id,
                text=f.text,
                observed_at=f.observed_at,
                session=f.session,
                category=f.category,
                slot_key=f.slot_key,
                marker=f.marker,
                states=f.states,
                family=f.family,
                split=f.split,
                event_time=f.event_time,
                noise=f.noise,
            )
            for f in self.facts
        )
        questions = tuple(
            Question(
                id=f"{self.pid}-q{index:02d}",
                persona=self.pid,
                attack_vector=q.vector,
                text=q.text,
                query_time=q.query_time.replace(microsecond=0),
                support_ids=tuple(f.id for f in q.support),
                stale_ids=tuple(f.id for f in q.stale),
                family=q.family,
                split=q.split,
                min_support=q.min_support,
                historical=q.historical,
            )
            for index, q in enumerate(sorted(self.questions, key=lambda q: q.query_time), start=1)
        )
        return Persona(id=self.pid, facts=facts, questions=questions, sessions=self.n)


def _acts_on(later: _Draft, earlier: _Draft) -> LifecycleState | None:
    """What ``later`` does to ``earlier`` (gold confidence is certain)."""
    if later.slot_key is None or earlier.slot_key is None:
        return None
    if later.marker in (Marker.RETRACTION, Marker.COMPLETION):
        if earlier.marker is later.marker or not in_scope(earlier.slot_key, later.slot_key):
            return None
        return (
            LifecycleState.RETRACTED
            if later.marker is Marker.RETRACTION
            else LifecycleState.SUPERSEDED
        )
    if later.marker is Marker.ASSERTION and later.slot_key == earlier.slot_key:
        return LifecycleState.SUPERSEDED
    return None  # a tentative statement: soft supersession keeps both active


def gold_states(facts: Sequence[_Draft]) -> None:
    """Fill each draft's gold state history (``facts`` in time order)."""
    by_root: dict[str, list[_Draft]] = defaultdict(list)
    for fact in facts:
        if fact.slot_key:
            by_root[fact.slot_key.split("|")[1].split(":")[0]].append(fact)
    for fact in facts:
        changes: list[tuple[datetime, LifecycleState]] = []
        if fact.slot_key:
            root = fact.slot_key.split("|")[1].split(":")[0]
            for later in by_root[root]:
                if later.observed_at > fact.observed_at:
                    outcome = _acts_on(later, fact)
                    if outcome is not None:
                        changes.append((later.observed_at, outcome))
        expiry = (
            fact.event_time + EXPIRY_BUFFER
            if fact.event_time and fact.category in GUARDED and not fact.numeric
            else None
        )
        states = [(fact.observed_at, LifecycleState.ACTIVE)]
        current = LifecycleState.ACTIVE
        for when, outcome in sorted(changes):
            if expiry is not None and current is LifecycleState.ACTIVE and expiry <= when:
                break
            if _RANK[outcome] > _RANK[current]:
                current = outcome
                states.append((when, outcome))
        if expiry is not None and current is LifecycleState.ACTIVE:
            states.append((expiry, LifecycleState.EXPIRED))
        fact.states = tuple(states)


def generate(seed: int, size: Size, wording: ph.Wording | None = None) -> Suite:
    """A deterministic suite: same ``seed``, ``size`` and ``wording``, same suite, byte for
    byte. With a fresh ``wording`` every storyline's frames, questions and (where given)
    state clauses come from it."""
    spec = SIZES[size]
    streams = np.random.SeedSequence(seed).spawn(spec.personas)
    deck = _SplitDeck(fresh=wording is not None)
    personas = tuple(
        _Persona(
            f"p{index:02d}", random.Random(int(stream.generate_state(1)[0])), spec, deck,
            wording,
        ).build()
        for index, stream in enumerate(streams)
    )
    return Suite(seed=seed, size=size, personas=personas,
                 wording=wording.name if wording is not None else None)


def validate(suite: Suite) -> list[str]:
    """Every broken gold invariant of ``suite``, one line each (empty when consistent)."""
    problems: list[str] = []
    families: dict[str, str] = {}
    for persona in suite.personas:
        facts = {f.id: f for f in persona.facts}
        if len(facts) != len(persona.facts):
            problems.append(f"{persona.id}: duplicate fact ids")
        last_seen = max(f.observed_at for f in persona.facts)
        for fact in persona.facts:
            if (
                not fact.text.strip()
                or len(fact.text) > MAX_TEXT_CHARS
                or _CONTROL.search(fact.text)
            ):
                problems.append(f"{fact.id}: text is not a valid fact record")
            if fact.states[0] != (fact.observed_at, LifecycleState.ACTIVE):
                problems.append(f"{fact.id}: history does not start active at observed_at")
            if families.setdefault(fact.family, fact.split) != fact.split:
                problems.append(f"{fact.id}: family {fact.family} is in both splits")
        for q in persona.questions:
            where = f"{q.id} ({q.attack_vector.value})"
            if families.setdefault(q.family, q.split) != q.split:
                problems.append(f"{where}: family {q.family} is in both splits")
            if q.query_time <= last_seen:
                problems.append(f"{where}: asked before the persona's last fact")
            missing = [i for i in (*q.support_ids, *q.stale_ids) if i not in facts]
            if missing:
                problems.append(f"{where}: unknown fact ids {missing}")
                continue
            if set(q.support_ids) & set(q.stale_ids):
                problems.append(f"{where}: a fact is both support and stale")
            if not 1 <= q.min_support <= len(q.support_ids):
                problems.append(
                    f"{where}: min_support {q.min_support} of {len(q.support_ids)} support facts"
                )
            wanted = LifecycleState.SUPERSEDED if q.historical else LifecycleState.ACTIVE
            for fid in q.support_ids:
                if facts[fid].state_at(q.query_time) is not wanted:
                    problems.append(
                        f"{where}: support {fid} is "
                        f"{facts[fid].state_at(q.query_time).value}, not {wanted}"
                    )
            for fid in q.stale_ids:
                if facts[fid].state_at(q.query_time) is LifecycleState.ACTIVE:
                    problems.append(f"{where}: stale {fid} is still active")
    return problems

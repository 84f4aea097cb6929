"""Vocabulary and paraphrase families of the LifecycleBench generator.

A *family* is one sentence frame of one template kind ("the change statement", "the
retraction", "the upcoming-event question", ...). Every kind has at least six families;
the last ~30% of each kind's families are held out (:func:`family_split`), so a classifier
or a ranker tuned on the dev split never saw the held-out frames. Topic clauses, values,
hedges, typos and date expressions vary on top of the frame, so no single surface shape
identifies a kind.

Placeholders: ``{c}`` a state clause ("I'm vegetarian"), ``{c_}`` the same clause
lower-cased at the start, ``{old}`` / ``{new}`` slot values, ``{noun}`` the topic's noun,
``{what}`` / ``{When}`` events and date adverbials, ``{do}`` / ``{np}`` a plan, ``{why}`` a
reason, ``{x}`` an aggregate member phrase, ``{amount}`` a formatted number.

The words themselves live in ``data/phrases.toml`` (TOML rather than JSON: the frames carry
comments that say what each kind is for, and the package already ships its default policy
as TOML). :func:`load_tables` reads it once, checks every value against the types declared
here and builds the tuples and dataclasses; the module constants below are its tables, so
the generator keeps importing ``FRAMES``, ``PREFERENCE_TOPICS``, ... as before.
"""

from __future__ import annotations

import string
import tomllib
import typing
from dataclasses import MISSING, dataclass, fields, is_dataclass
from enum import Enum
from functools import cache
from importlib import resources
from typing import Any, Final, Literal

from fr_graph.core.ontology import Category
from fr_graph.errors import ConfigError

Split = Literal["dev", "heldout"]

HELDOUT_SHARE: Final = 0.3

#: The data file, inside this package (shipped in the wheel as package data).
DATA_FILE: Final = ("data", "phrases.toml")


def family_split(index: int, count: int) -> Split:
    """The split of family ``index`` of a kind with ``count`` families (last ~30% held out)."""
    heldout = max(1, round(count * HELDOUT_SHARE))
    return "heldout" if index >= count - heldout else "dev"


# ---------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class Topic:
    """A slot with interchangeable values: clauses state a value, questions ask for it."""

    name: str
    category: Category
    attribute: str
    noun: str
    values: tuple[str, ...]
    clauses: tuple[str, ...]
    questions: tuple[str, ...]
    world: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class VersionTopic:
    """A fact that changes several times (AV4): value chains with explicit change wording."""

    name: str
    category: Category
    attribute: str
    clauses: tuple[str, ...]
    changes: tuple[str, ...]
    current: tuple[str, ...]
    before: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Plan:
    """A plan that can be retracted (AV7)."""

    key: str
    do: str
    np: str
    why: str
    details: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Member:
    """One member of an aggregate set (a hobby, a language, a pet, an allergy)."""

    key: str
    clauses: tuple[str, ...]
    gerund: str = ""


@dataclass(frozen=True, slots=True)
class EventKind:
    """A kind of dated event (AV2). ``instance`` kinds get one slot per instance."""

    key: str
    category: Category
    noun: str
    what: tuple[str, ...]
    instance: bool
    questions: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NumericTopic:
    """A fact whose value is a specific number (AV8).

    ``unit`` is how the amount is drawn: ``money``, ``count`` or ``raw``. ``dated`` topics
    describe a past, dated expense of a guarded category (numbers exempt them from expiry).
    """

    name: str
    category: Category
    attribute: str
    low: int
    high: int
    unit: str
    clauses: tuple[str, ...]
    questions: tuple[str, ...]
    versions: bool = False
    dated: bool = False


City = tuple[str, str, str]  # name, country, what it is known for
Company = tuple[str, str, str]  # name, headquarters, industry ("" where a generic one has none)


@dataclass(frozen=True, slots=True)
class PhraseTables:
    """Every table of the data file, one field per top-level key.

    A ``{ ref = ... }`` in the file may only name a table declared *above* the field that
    uses it, because tables are converted in this order.
    """

    hedges: tuple[str, ...]
    tails: tuple[str, ...]
    small_talk: tuple[str, ...]
    episodes: tuple[str, ...]
    movies: tuple[str, ...]
    dishes: tuple[str, ...]
    wiki: tuple[str, ...]
    third_party: tuple[str, ...]
    other_names: tuple[str, ...]
    hobby_world: tuple[str, ...]
    cities: tuple[City, ...]
    companies: tuple[Company, ...]
    languages: tuple[str, ...]
    language_facts: tuple[str, ...]
    allergens: tuple[str, ...]
    partners: tuple[str, ...]
    pet_names: tuple[str, ...]
    pet_species: tuple[str, ...]
    jobs: tuple[str, ...]
    plan_questions: tuple[str, ...]
    event_questions: tuple[str, ...]
    frames: dict[str, tuple[str, ...]]
    member_clauses: dict[str, tuple[str, ...]]
    aggregate_questions: dict[str, tuple[str, ...]]
    aggregate_category: dict[str, Category]
    aggregate_attribute: dict[str, str]
    shared_event_slots: dict[str, str]
    preference_topics: tuple[Topic, ...]
    contradiction_topics: tuple[Topic, ...]
    identity_topics: tuple[Topic, ...]
    version_topics: tuple[VersionTopic, ...]
    plans: tuple[Plan, ...]
    hobbies: tuple[Member, ...]
    event_kinds: tuple[EventKind, ...]
    numeric_topics: tuple[NumericTopic, ...]


# ----------------------------------------------------------------------------- loader


class _Malformed(Exception):
    """A value of the data file does not fit its declared type; ``where`` is its key path."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}")


def _keys_text(keys: typing.Iterable[str]) -> str:
    return ", ".join(sorted(keys))


def _record(raw: object, cls: type[Any], where: str, done: dict[str, Any]) -> Any:
    """A dataclass instance from a TOML table whose keys are the dataclass's fields."""
    if not isinstance(raw, dict):
        raise _Malformed(where, f"expected a table, got {type(raw).__name__}")
    hints = typing.get_type_hints(cls)
    known = {f.name for f in fields(cls)}
    if unknown := set(raw) - known:
        raise _Malformed(where, f"unknown key(s) {_keys_text(unknown)} "
                                f"(expected: {_keys_text(known)})")
    values: dict[str, Any] = {}
    for f in fields(cls):
        if f.name in raw:
            values[f.name] = _convert(raw[f.name], hints[f.name], f"{where}.{f.name}", done)
        elif f.default is MISSING:
            raise _Malformed(where, f"missing key '{f.name}'")
    return cls(**values)


def _reference(raw: dict[str, Any], where: str, done: dict[str, Any]) -> list[Any]:
    """``{ ref = "cities", column = 0, first = 30 }``: (a column of) an earlier table."""
    if unknown := set(raw) - {"ref", "column", "first"}:
        raise _Malformed(where, f"unknown key(s) {_keys_text(unknown)} in a reference "
                                "(expected: column, first, ref)")
    name = raw.get("ref")
    if not isinstance(name, str) or not isinstance(done.get(name), tuple):
        raise _Malformed(where, f"ref {name!r} does not name a list defined above it")
    rows: tuple[Any, ...] = done[name]
    first, column = raw.get("first", len(rows)), raw.get("column")
    if type(first) is not int or (column is not None and type(column) is not int):
        raise _Malformed(where, "a reference's column and first must be integers")
    rows = rows[:first]
    if column is None:
        return list(rows)
    # Rows must be tuples: indexing a string row would quietly pick one of its letters.
    if not all(isinstance(row, tuple) and 0 <= column < len(row) for row in rows):
        raise _Malformed(where, f"{name} has no column {column}")
    return [row[column] for row in rows]


def _convert(raw: object, hint: Any, where: str, done: dict[str, Any]) -> Any:
    """``raw`` (as ``tomllib`` parsed it) as a value of type ``hint``, checked all the way down.

    Lists become tuples, tables become dicts or dataclasses, enum values their members.
    """
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple:
        if isinstance(raw, dict):
            raw = _reference(raw, where, done)
        # A tuple only comes from a reference to a table that is already converted.
        if not isinstance(raw, list | tuple):
            raise _Malformed(where, f"expected a list, got {type(raw).__name__}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(item, args[0], f"{where}[{i}]", done)
                         for i, item in enumerate(raw))
        if len(raw) != len(args):
            raise _Malformed(where, f"expected {len(args)} items, got {len(raw)}")
        return tuple(_convert(item, arg, f"{where}[{i}]", done)
                     for i, (item, arg) in enumerate(zip(raw, args, strict=True)))
    if origin is dict:
        if not isinstance(raw, dict):
            raise _Malformed(where, f"expected a table, got {type(raw).__name__}")
        return {key: _convert(item, args[1], f"{where}.{key}", done) for key, item in raw.items()}
    if isinstance(hint, type) and is_dataclass(hint):
        return _record(raw, hint, where, done)
    if isinstance(hint, type) and issubclass(hint, Enum):
        try:
            return hint(raw)
        except ValueError:
            allowed = ", ".join(str(member.value) for member in hint)
            raise _Malformed(where, f"{raw!r} is not a {hint.__name__} "
                                    f"(one of: {allowed})") from None
    # bool is an int subclass: `low = true` must not pass as 1.
    if hint in (str, int, bool) and type(raw) is hint:
        return raw
    expected = hint.__name__ if isinstance(hint, type) else str(hint)
    raise _Malformed(where, f"expected {expected}, got {type(raw).__name__} {raw!r}")


def parse_tables(text: str, source: str) -> PhraseTables:
    """The tables of a phrases file's ``text``; ``source`` names the file in errors.

    Raises:
        ConfigError: one line, ``<source>: <key path>: <problem>``, for invalid TOML, a
            missing or unknown table, or a value that does not fit its declared type.
    """
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML ({exc})") from None
    done: dict[str, Any] = {}
    try:
        expected = {f.name for f in fields(PhraseTables)}
        if unknown := set(document) - expected:
            raise _Malformed(_keys_text(unknown), "unknown table (phrases.PhraseTables "
                                                  "declares every table)")
        hints = typing.get_type_hints(PhraseTables)
        for f in fields(PhraseTables):
            if f.name not in document:
                raise _Malformed(f.name, "missing table")
            # Converted in declaration order, so a reference sees the tables above it.
            done[f.name] = _convert(document[f.name], hints[f.name], f.name, done)
    except _Malformed as exc:
        raise ConfigError(f"{source}: {exc}") from None
    return PhraseTables(**done)


@cache
def load_tables() -> PhraseTables:
    """The packaged phrase tables, read and checked once per process."""
    resource = resources.files(__package__).joinpath(*DATA_FILE)
    return parse_tables(resource.read_text(encoding="utf-8"), str(resource))


# ------------------------------------------------------------------- module constants
# The generator and the tests read these names; they are the loaded tables, typed as such.

_TABLES: Final = load_tables()

FRAMES: Final = _TABLES.frames
HEDGES: Final = _TABLES.hedges
TAILS: Final = _TABLES.tails
SMALL_TALK: Final = _TABLES.small_talk
EPISODES: Final = _TABLES.episodes
MOVIES: Final = _TABLES.movies
DISHES: Final = _TABLES.dishes
WIKI: Final = _TABLES.wiki
THIRD_PARTY: Final = _TABLES.third_party
OTHER_NAMES: Final = _TABLES.other_names

CITIES: Final = _TABLES.cities
COMPANIES: Final = _TABLES.companies
LANGUAGES: Final = _TABLES.languages
LANGUAGE_FACTS: Final = _TABLES.language_facts
ALLERGENS: Final = _TABLES.allergens
PARTNERS: Final = _TABLES.partners
PERSON_NAMES: Final = PARTNERS
PET_NAMES: Final = _TABLES.pet_names
PET_SPECIES: Final = _TABLES.pet_species
JOBS: Final = _TABLES.jobs

PREFERENCE_TOPICS: Final = _TABLES.preference_topics
CONTRADICTION_TOPICS: Final = _TABLES.contradiction_topics
VERSION_TOPICS: Final = _TABLES.version_topics
IDENTITY_TOPICS: Final = _TABLES.identity_topics

PLANS: Final = _TABLES.plans
PLAN_QUESTIONS: Final = _TABLES.plan_questions

HOBBIES: Final = _TABLES.hobbies
HOBBY_WORLD: Final = _TABLES.hobby_world
MEMBER_CLAUSES: Final = _TABLES.member_clauses
AGGREGATE_QUESTIONS: Final = _TABLES.aggregate_questions
AGGREGATE_CATEGORY: Final = _TABLES.aggregate_category
AGGREGATE_ATTRIBUTE: Final = _TABLES.aggregate_attribute

#: Slot attributes of the event kinds that share one slot (a new booking replaces the old).
SHARED_EVENT_SLOTS: Final = _TABLES.shared_event_slots
EVENT_QUESTIONS: Final = _TABLES.event_questions
EVENT_KINDS: Final = _TABLES.event_kinds

NUMERIC_TOPICS: Final = _TABLES.numeric_topics


# ------------------------------------------------------------------- fresh wordings
# A held-out split written after a freeze: new frames, question wordings and state clauses,
# by writers who saw two examples per key and nothing of the rules. A suite generated with
# one draws every storyline's text from it (noise and values stay the shared tables').

#: Wording name -> its data file in this package.
WORDINGS: Final = {"heldout-2026-12": ("data", "heldout_2026_12.toml")}


@dataclass(frozen=True, slots=True)
class Wording:
    """Fresh text for every storyline: ``frames`` per kind (every kind of :data:`FRAMES`),
    ``questions`` per question key (:func:`question_keys`), ``clauses`` per topic name
    (optional per topic; a topic without fresh clauses keeps its own)."""

    name: str
    frames: dict[str, tuple[str, ...]]
    questions: dict[str, tuple[str, ...]]
    clauses: dict[str, tuple[str, ...]]


def question_keys(tables: PhraseTables) -> dict[str, tuple[str, ...]]:
    """Every question key the generator asks with, and its standard templates."""
    keys: dict[str, tuple[str, ...]] = {}
    for topic in (*tables.preference_topics, *tables.contradiction_topics,
                  *tables.identity_topics):
        keys[topic.name] = topic.questions
    for version in tables.version_topics:
        keys[f"{version.name}_now"] = version.current
        keys[f"{version.name}_before"] = version.before
    for numeric in tables.numeric_topics:
        keys[numeric.name] = numeric.questions
    keys["plan"] = tables.plan_questions
    keys.update(tables.aggregate_questions)
    for kind in tables.event_kinds:
        keys[f"event_{kind.key}"] = kind.questions
    return keys


def clause_keys(tables: PhraseTables) -> dict[str, tuple[str, ...]]:
    """Topics whose state clauses a wording may replace, and their standard clauses."""
    topics: tuple[Topic, ...] = (*tables.preference_topics, *tables.contradiction_topics,
                                 *tables.identity_topics)
    keys = {t.name: t.clauses for t in topics}
    keys.update((t.name, t.clauses) for t in tables.numeric_topics)
    return keys


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _plain_fields(template: str) -> None:
    """Every field of ``template`` is a plain ``{name}``: no positional ``{}``, no index or
    attribute, no conversion or format spec (``str.format`` would fail on them later).

    Raises:
        ValueError: naming the first field that is not plain.
    """
    for _, name, spec, conversion in string.Formatter().parse(template):
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            raise ValueError(f"{{{name}{'!' + conversion if conversion else ''}"
                             f"{':' + spec if spec else ''}}} is not a plain {{name}}")


def _roots(names: set[str]) -> set[str]:
    """Placeholder names without their casing variants: ``{What}``/``{what}``, ``{c_}``/``{c}``."""
    return {name.lower().rstrip("_") for name in names}


def _fresh_lists(document: dict[str, Any], table: str, standard: dict[str, tuple[str, ...]],
                 *, complete: bool) -> dict[str, tuple[str, ...]]:
    """``document[table]``: lists of templates whose placeholders are among the standard
    ones of the same key and include those every standard template of the key uses."""
    raw = document.get(table)
    if not isinstance(raw, dict):
        raise _Malformed(table, "missing table")
    if unknown := set(raw) - set(standard):
        raise _Malformed(f"{table}.{sorted(unknown)[0]}", "unknown key")
    if complete and (missing := set(standard) - set(raw)):
        raise _Malformed(f"{table}.{sorted(missing)[0]}", "missing key")
    out: dict[str, tuple[str, ...]] = {}
    for key, templates in raw.items():
        where = f"{table}.{key}"
        if not (isinstance(templates, list) and templates
                and all(isinstance(t, str) and t.strip() for t in templates)):
            raise _Malformed(where, "expected a non-empty list of strings")
        allowed = set().union(*(_placeholders(t) for t in standard[key]))
        common = set.intersection(*(_roots(_placeholders(t)) for t in standard[key]))
        for template in templates:
            try:
                _plain_fields(template)
                used = _placeholders(template)
            except ValueError as exc:
                raise _Malformed(where, f"{template!r}: {exc}") from None
            if extra := used - allowed:
                raise _Malformed(where, f"{template!r} uses {{{sorted(extra)[0]}}}")
            if missing_names := common - _roots(used):
                raise _Malformed(where, f"{template!r} lacks {{{sorted(missing_names)[0]}}}")
            if allowed and not used:
                raise _Malformed(where, f"{template!r} uses no placeholder")
        out[key] = tuple(templates)
    return out


def parse_wording(name: str, text: str, source: str,
                  tables: PhraseTables | None = None) -> Wording:
    """A fresh wording from a TOML ``text`` with tables ``frames``, ``questions`` and
    ``clauses``, checked against the standard ``tables`` (default: the packaged ones).

    Raises:
        ConfigError: one line, ``<source>: <key path>: <problem>``.
    """
    base = tables or load_tables()
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML ({exc})") from None
    try:
        if unknown := set(document) - {"frames", "questions", "clauses"}:
            raise _Malformed(_keys_text(unknown), "unknown table")
        frames = _fresh_lists(document, "frames", base.frames, complete=True)
        questions = _fresh_lists(document, "questions", question_keys(base), complete=True)
        clauses = _fresh_lists(document, "clauses", clause_keys(base), complete=False)
    except _Malformed as exc:
        raise ConfigError(f"{source}: {exc}") from None
    return Wording(name=name, frames=frames, questions=questions, clauses=clauses)


@cache
def load_wording(name: str) -> Wording:
    """A packaged fresh wording by name (:data:`WORDINGS`).

    Raises:
        ConfigError: an unknown name, or a file that does not check.
    """
    if name not in WORDINGS:
        raise ConfigError(f"wording {name!r}: use one of {', '.join(WORDINGS)}")
    resource = resources.files(__package__).joinpath(*WORDINGS[name])
    return parse_wording(name, resource.read_text(encoding="utf-8"), str(resource))

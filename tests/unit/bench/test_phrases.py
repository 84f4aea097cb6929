"""The generator's phrase tables: the packaged data file, its loader, and the output it pins.

The tables used to be Python literals; they now live in ``fr_graph/bench/data/phrases.toml``.
These tests check the file's shape independently of the loader's own checks, that a broken
file fails in one line naming the file and the key, and that the generator still produces,
byte for byte, the suite it produced before the move.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
import typing
from dataclasses import MISSING, fields, is_dataclass
from enum import Enum
from importlib import resources
from typing import Any

import pytest

from fr_graph.bench import phrases as ph
from fr_graph.bench.generator import generate
from fr_graph.errors import ConfigError

SOURCE = "phrases-under-test.toml"

#: SHA-256 of ``generate(0, "quick")`` as serialized by :func:`_suite_digest`, computed from
#: the Python literals before they moved to the data file. Editing the data file on purpose
#: changes it: recompute it then, and say so in the change.
QUICK_SEED_0_SHA256 = "cae7038188f6d2dfb791975e4747da818f5210b9051573ca26ccd2983b8c13a2"

RECORD_TABLES: dict[str, type[Any]] = {
    f.name: typing.get_args(hint)[0]
    for f in fields(ph.PhraseTables)
    if is_dataclass(typing.get_args(hint := typing.get_type_hints(ph.PhraseTables)[f.name])[0])
}


def _packaged_text() -> str:
    return resources.files("fr_graph.bench").joinpath(*ph.DATA_FILE).read_text("utf-8")


def _conforms(value: object, hint: Any) -> bool:
    """Whether ``value`` has type ``hint`` all the way down (tuples, never lists)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_conforms(item, args[0]) for item in value)
        return len(value) == len(args) and all(map(_conforms, value, args))
    if origin is dict:
        return isinstance(value, dict) and all(
            _conforms(k, args[0]) and _conforms(v, args[1]) for k, v in value.items())
    if is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        return type(value) is hint and all(
            _conforms(getattr(value, f.name), hints[f.name]) for f in fields(hint))
    return type(value) is hint


def _suite_digest(seed: int, size: typing.Literal["quick", "full"]) -> str:
    suite = generate(seed, size)
    doc = {"seed": suite.seed, "size": suite.size, "personas": [
        {"id": p.id, "sessions": p.sessions,
         "facts": [f.to_json() for f in p.facts],
         "questions": [q.to_json() for q in p.questions]} for p in suite.personas]}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def test_generator_output_is_unchanged_by_the_move_to_a_data_file() -> None:
    assert _suite_digest(0, "quick") == QUICK_SEED_0_SHA256


def test_tables_are_read_once_and_have_their_declared_types() -> None:
    tables = ph.load_tables()
    assert ph.load_tables() is tables
    hints = typing.get_type_hints(ph.PhraseTables)
    for f in fields(ph.PhraseTables):
        assert _conforms(getattr(tables, f.name), hints[f.name]), f.name
        # The module constant the generator imports is the loaded table itself.
        assert getattr(ph, f.name.upper()) is getattr(tables, f.name), f.name
    assert ph.PERSON_NAMES is ph.PARTNERS
    assert all(type(t.category) is ph.Category for t in ph.PREFERENCE_TOPICS)


def test_data_file_has_every_table_and_every_required_key() -> None:
    document = tomllib.loads(_packaged_text())
    assert list(document) == [f.name for f in fields(ph.PhraseTables)]
    for table, cls in RECORD_TABLES.items():
        required = {f.name for f in fields(cls) if f.default is MISSING}
        known = {f.name for f in fields(cls)}
        for index, record in enumerate(document[table]):
            assert required <= set(record) <= known, f"{table}[{index}]"


def test_every_table_family_and_record_field_is_non_empty() -> None:
    tables = ph.load_tables()
    for f in fields(ph.PhraseTables):
        value = getattr(tables, f.name)
        assert value, f"{f.name} is empty"
        if isinstance(value, dict):
            assert all(value.values()), f"{f.name} has an empty entry"
    for frames in ph.FRAMES.values():
        assert all(frame.strip() for frame in frames)
    for table, cls in RECORD_TABLES.items():
        records = getattr(tables, table)
        identity = "name" if "name" in {f.name for f in fields(cls)} else "key"
        assert len({getattr(r, identity) for r in records}) == len(records), f"{table}: dup"
        for record in records:
            for f in fields(record):
                # Only a defaulted field (a topic's `world`, a member's `gerund`) may be empty.
                if f.default is MISSING and not isinstance(getattr(record, f.name), bool):
                    assert getattr(record, f.name) != (), f"{table} {record}: {f.name}"


def test_tables_the_generator_indexes_by_key_agree() -> None:
    assert set(ph.SHARED_EVENT_SLOTS) == {k.key for k in ph.EVENT_KINDS if not k.instance}
    aggregates = set(ph.AGGREGATE_QUESTIONS)
    assert aggregates == set(ph.AGGREGATE_CATEGORY) == set(ph.AGGREGATE_ATTRIBUTE)
    assert set(ph.MEMBER_CLAUSES) == aggregates - {"hobbies"}  # hobbies are ph.HOBBIES
    assert all(t.low < t.high for t in ph.NUMERIC_TOPICS)
    hometown = next(t for t in ph.IDENTITY_TOPICS if t.name == "hometown")
    assert hometown.values == tuple(c[0] for c in ph.CITIES)  # a `ref`, resolved


def _edit(old: str, new: str) -> str:
    text = _packaged_text()
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(("text", "message"), [
    (_edit('attribute = "diet"\n', ""),
     "preference_topics[0]: missing key 'attribute'"),
    (_edit('category = "preferences"', 'category = "prefs"'),
     "preference_topics[0].category: 'prefs' is not a Category (one of: "),
    (_edit('"oh btw ",', "7,"), "hedges[0]: expected str, got int 7"),
    (_edit('["Lisbon", "Portugal", ', '["Lisbon", '), "cities[0]: expected 3 items, got 2"),
    (_edit("versions = true", "versions = 1"), "numeric_topics[0].versions: expected bool"),
    (_edit('key = "climbing"', 'key = "climbing"\ngerunds = "x"'),
     "hobbies[0]: unknown key(s) gerunds (expected: clauses, gerund, key)"),
    (_edit('{ ref = "jobs" }', '{ ref = "job" }'),
     "identity_topics[1].values: ref 'job' does not name a list defined above it"),
    ("extra = []\n" + _packaged_text(), "extra: unknown table"),
    (_edit("\n[frames]\n", "\n[frames\n"), "not valid TOML"),
])
def test_a_malformed_file_fails_in_one_line_naming_the_file_and_the_key(
        text: str, message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        ph.parse_tables(text, SOURCE)
    assert str(raised.value).startswith(f"{SOURCE}: ")
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_missing_table_is_named() -> None:
    without_tails = re.sub(r"^tails = \[\n(.*\n)*?\]\n", "", _packaged_text(), count=1,
                           flags=re.MULTILINE)
    with pytest.raises(ConfigError, match=r"^phrases-under-test\.toml: tails: missing table$"):
        ph.parse_tables(without_tails, SOURCE)


def test_enum_values_round_trip_as_their_strings() -> None:
    document = tomllib.loads(_packaged_text())
    assert [t["category"] for t in document["preference_topics"]] == [
        t.category.value for t in ph.PREFERENCE_TOPICS]
    assert all(isinstance(c, Enum) for c in ph.AGGREGATE_CATEGORY.values())

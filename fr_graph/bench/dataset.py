"""The benchmark's data model: personas, their facts with gold metadata, and questions.

The generator (``generator.py``) produces a :class:`Suite`; the runner imports each persona's
facts into a fresh group (with gold metadata, or with the metadata stripped so the rules
classifier infers it) and asks every question at its own query time.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from fr_graph.core.lifecycle import LifecycleState, Marker
from fr_graph.core.ontology import Category

Split = Literal["dev", "heldout"]
Size = Literal["quick", "full"]


class AttackVector(StrEnum):
    """The nine attack vectors of the paper's Table 12."""

    SUPERSEDED_PREFERENCE = "AV1"
    EXPIRED_LOGISTICS = "AV2"
    BURIED_IDENTITY = "AV3"
    MULTI_VERSION = "AV4"
    BROAD_AGGREGATION = "AV5"
    CROSS_SESSION_CONTRADICTION = "AV6"
    SELECTIVE_FORGETTING = "AV7"
    NUMERIC_PRESERVATION = "AV8"
    SOFT_SUPERSESSION = "AV9"


def _iso(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _parse(value: str) -> datetime:
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class GoldFact:
    """One stored item of a persona with its gold lifecycle metadata.

    ``states`` is the fact's gold state over time: ``(since, state)`` pairs in time order,
    the first one at ``observed_at``. ``noise`` marks small talk, world knowledge and
    unrelated details that no question is about. ``family`` is the paraphrase family the
    text was drawn from (dev and held-out splits use disjoint families).
    """

    id: str
    text: str
    observed_at: datetime
    session: int
    category: Category
    slot_key: str | None
    marker: Marker
    states: tuple[tuple[datetime, LifecycleState], ...]
    family: str
    split: Split
    event_time: datetime | None = None
    categories: dict[Category, float] | None = None
    noise: bool = False

    def state_at(self, when: datetime) -> LifecycleState:
        """The gold state at ``when`` (``active`` before the first recorded change)."""
        index = bisect_right([since for since, _ in self.states], when) - 1
        return self.states[max(index, 0)][1]

    def to_record(self, group_id: str, *, gold: bool) -> dict[str, Any]:
        """A ``fact`` import record; with ``gold`` the metadata rides along (confidence 1.0),
        else only the text, so the rules classifier infers everything."""
        record: dict[str, Any] = {"type": "fact", "group_id": group_id, "id": self.id,
                                  "fact": self.text, "observed_at": _iso(self.observed_at)}
        if gold:
            record["category"] = self.category.value
            if self.categories:
                record["categories"] = {c.value: w for c, w in self.categories.items()}
            # Explicit nulls: gold "no slot" / "no event time" must not be inferred.
            record["slot_key"] = self.slot_key
            record["event_time"] = _iso(self.event_time) if self.event_time else None
            record["marker"] = self.marker.value
            # Gold annotation is certain: the policy, not extraction doubt, decides.
            record["confidence"] = 1.0
        return record

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "text": self.text, "observed_at": _iso(self.observed_at),
            "session": self.session, "category": self.category.value,
            "slot_key": self.slot_key, "marker": self.marker.value,
            "states": [[_iso(t), s.value] for t, s in self.states],
            "family": self.family, "split": self.split,
            "event_time": _iso(self.event_time) if self.event_time else None,
            "categories": ({c.value: w for c, w in self.categories.items()}
                           if self.categories else None),
            "noise": self.noise,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GoldFact:
        return cls(
            id=data["id"], text=data["text"], observed_at=_parse(data["observed_at"]),
            session=data["session"], category=Category(data["category"]),
            slot_key=data["slot_key"], marker=Marker(data["marker"]),
            states=tuple((_parse(t), LifecycleState(s)) for t, s in data["states"]),
            family=data["family"], split=data["split"],
            event_time=_parse(data["event_time"]) if data["event_time"] else None,
            categories=({Category(c): w for c, w in data["categories"].items()}
                        if data["categories"] else None),
            noise=data["noise"],
        )


@dataclass(frozen=True, slots=True)
class Question:
    """One benchmark question, asked at ``query_time``.

    Pass@10 needs at least ``min_support`` of ``support_ids`` in the top 10; any of
    ``stale_ids`` in the top 5 counts as stale. ``historical`` questions ask what used to be
    true ("where did I work before X?"), so their support may be superseded facts.
    """

    id: str
    persona: str
    attack_vector: AttackVector
    text: str
    query_time: datetime
    support_ids: tuple[str, ...]
    stale_ids: tuple[str, ...]
    family: str
    split: Split
    min_support: int = 1
    historical: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "persona": self.persona, "attack_vector": self.attack_vector.value,
                "text": self.text, "query_time": _iso(self.query_time),
                "support_ids": list(self.support_ids), "stale_ids": list(self.stale_ids),
                "family": self.family, "split": self.split, "min_support": self.min_support,
                "historical": self.historical}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Question:
        return cls(id=data["id"], persona=data["persona"],
                   attack_vector=AttackVector(data["attack_vector"]), text=data["text"],
                   query_time=_parse(data["query_time"]),
                   support_ids=tuple(data["support_ids"]), stale_ids=tuple(data["stale_ids"]),
                   family=data["family"], split=data["split"], min_support=data["min_support"],
                   historical=data.get("historical", False))


@dataclass(frozen=True, slots=True)
class Persona:
    id: str
    facts: tuple[GoldFact, ...]
    questions: tuple[Question, ...]
    sessions: int


@dataclass(frozen=True, slots=True)
class Suite:
    """Everything one benchmark run needs; deterministic given ``seed`` and ``size``."""

    seed: int
    size: Size
    personas: tuple[Persona, ...] = field(default_factory=tuple)
    #: The fresh wording its storylines were written in (``None``: the standard tables).
    wording: str | None = None

    @property
    def questions(self) -> list[Question]:
        return [q for p in self.personas for q in p.questions]

    def write(self, path: Path) -> None:
        """One JSON document (facts and questions per persona), for inspection and reuse."""
        doc = {"seed": self.seed, "size": self.size, "wording": self.wording, "personas": [
            {"id": p.id, "sessions": p.sessions,
             "facts": [f.to_json() for f in p.facts],
             "questions": [q.to_json() for q in p.questions]} for p in self.personas]}
        path.write_text(json.dumps(doc, indent=1))

    @classmethod
    def read(cls, path: Path) -> Suite:
        doc = json.loads(path.read_text())
        return cls(seed=doc["seed"], size=doc["size"], wording=doc.get("wording"), personas=tuple(
            Persona(id=p["id"], sessions=p["sessions"],
                    facts=tuple(GoldFact.from_json(f) for f in p["facts"]),
                    questions=tuple(Question.from_json(q) for q in p["questions"]))
            for p in doc["personas"]))

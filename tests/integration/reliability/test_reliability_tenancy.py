"""Seeded random multi-group histories on each real backend.

Tenancy: no search, context, explain or user query of one group ever returns another
group's fact (the groups share slot keys and near-identical texts, the worst case).
Retraction guarantee: under current-intent queries no retracted, superseded or expired
fact ever appears (ground truth from how the history was built, not from the store).
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fr_graph.api import FrGraph
from fr_graph.core.codes import STATE_CODE
from fr_graph.core.intent import analyze_query
from fr_graph.core.lifecycle import LifecycleState as S
from fr_graph.errors import NotFoundError
from fr_graph.overlay import stable_uuid
from tests.integration.helpers import write_jsonl

SEED = 6006
NOW = datetime(2025, 9, 1, 12, 0, tzinfo=UTC)
GROUPS = 3
TOPICS = {  # slot -> (category, how a value is stated, what a retraction calls off)
    "user|coffee_order": ("preferences", "User's usual coffee order is {v}", "coffee order"),
    "user|employer": ("identity", "User works as an engineer at {v}", "job"),
    "user|home_city": ("identity", "User lives in {v}", "move"),
    "user|gym": ("health", "User trains at the {v} gym", "gym membership"),
    "user|project:app": ("projects", "User is building a budgeting app called {v}",
                         "budgeting app"),
}
VALUES = ["Cortado", "Flat White", "Acme", "Globex", "Lisbon", "Porto", "Ironworks",
          "Peak", "Ledger", "Pennywise", "Mocha", "Initech", "Madrid", "Summit", "Tally"]
TRIPS = ["Rome", "Oslo", "Kyoto", "Lima", "Cairo"]
QUERIES = ["What is my usual coffee order right now?", "Where do I work now?",
           "Which city do I live in currently?", "Which gym do I train at these days?",
           "What app am I building at the moment?", "What trips do I have coming up?",
           "What are my current plans?"]


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def history(group: str, rng: random.Random) -> tuple[list[dict[str, Any]], set[str]]:
    """Records of one group and the ids of those current intent must never show."""
    records: list[dict[str, Any]] = []
    revoked: set[str] = set()
    for slot, (category, template, topic) in TOPICS.items():
        times = sorted(rng.sample(range(1, 400), rng.randint(1, 4)))
        ids = []
        for n, day in enumerate(times):
            rid = f"{slot.split('|')[1]}-{n}"
            retract = n > 0 and n == len(times) - 1 and rng.random() < 0.35
            text = (f"User called off the {topic} plan [{group}]" if retract
                    else template.format(v=rng.choice(VALUES)) + f" [{group}]")
            records.append({
                "type": "fact", "group_id": group, "id": rid, "fact": text,
                "observed_at": stamp(NOW - timedelta(days=400 - day)), "category": category,
                "slot_key": slot, "confidence": 0.95,
                "marker": "retraction" if retract else "assertion"})
            ids.append(rid)
        revoked.update(ids[:-1])  # every earlier statement was replaced or called off
    for n, city in enumerate(TRIPS):
        days = rng.choice([-60, -30, -20, 10, 25, 40])  # past beyond the buffer: expired
        rid = f"trip-{n}"
        records.append({
            "type": "fact", "group_id": group, "id": rid,
            "fact": f"User has a flight to {city} booked [{group}]",
            "observed_at": stamp(NOW - timedelta(days=90)), "category": "logistical",
            "slot_key": f"user|trip:{city.lower()}", "confidence": 0.95,
            "event_time": stamp(NOW + timedelta(days=days))})
        if days < -14:
            revoked.add(rid)
    return records, revoked


async def test_random_groups_never_leak_and_never_show_revoked_facts(
        fr: FrGraph, tmp_path: Path) -> None:
    rng = random.Random(SEED)
    # No digits or number words: the group id is part of every fact text, and a number
    # there would exempt the fact from date expiry (App. H numeric rescue).
    run = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(8))
    groups = [f"grp-{run}-{chr(ord('a') + i)}" for i in range(GROUPS)]
    revoked: dict[str, set[str]] = {}
    owned: dict[str, set[str]] = {}
    for group in groups:
        records, revoked_ids = history(group, rng)
        rng.shuffle(records)  # arrival order is not time order
        report = await fr.import_file(write_jsonl(tmp_path / f"{group}.jsonl", records))
        assert report.imported == len(records) and not report.rejected
        owned[group] = {stable_uuid(group, "fact", r["id"]) for r in records}
        revoked[group] = {stable_uuid(group, "fact", rid) for rid in revoked_ids}
    assert all(revoked.values())  # the history really has revoked facts

    for query in QUERIES:  # current intent: only active facts, expired ones hidden
        analysis = analyze_query(query, NOW)
        assert analysis.hides_expired, query
        assert np.flatnonzero(analysis.state_mask).tolist() == [STATE_CODE[S.ACTIVE]], query
    checked = 0
    for group in groups:
        others = [g for g in groups if g != group]
        for query in QUERIES:
            hits = await fr.search(query, group, now=NOW, limit=25)
            found = {h.uuid for h in hits}
            assert found <= owned[group], (group, query)
            assert not found & revoked[group], (query, [h.fact for h in hits
                                                        if h.uuid in revoked[group]])
            assert all(f"[{group}]" in h.fact for h in hits)
            checked += len(hits)
            context = await fr.context(query, group, now=NOW, limit=25)
            assert not any(f"[{other}]" in context for other in others), query
        for other in others:
            foreign = sorted(owned[other])[0]
            with pytest.raises(NotFoundError):
                await fr.explain(foreign, QUERIES[0], group_id=group, now=NOW)
        mine = sorted(owned[group])[0]
        assert (await fr.explain(mine, QUERIES[0], now=NOW)).group_id == group
        for name in fr.user_queries():
            params = {"slot_key": "user|coffee_order"} if name == "slot_history" else {}
            for row in await fr.query(name, group, **params):
                text = " ".join(str(v) for v in row.values())
                assert not any(f"[{other}]" in text or other in text for other in others), name
                if "uuid" in row and row["uuid"] is not None:
                    assert row["uuid"] in owned[group], name
    assert checked > 0

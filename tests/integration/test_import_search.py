"""Import and search on each real backend (Neo4j 5.26 and embedded FalkorDB)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from fr_graph.api import BatchQuery, FrGraph
from fr_graph.config import Settings
from fr_graph.core.rerank import ABLATIONS
from fr_graph.errors import ImportValidationError, InputError
from fr_graph.overlay import stable_uuid
from fr_graph.pipeline.search import rank, rank_each, retrieve
from tests.integration.helpers import group_file, write_jsonl

pytestmark = pytest.mark.integration


async def test_import_then_search_returns_the_fact_with_lifecycle_fields(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    report = await fr.import_file(group_file(tmp_path, "facts_small.jsonl", group_id))
    assert (report.imported, report.already_present, report.rejected) == (6, 0, [])

    hits = await fr.search("How much rent do I pay?", group_id,
                           now=datetime(2025, 6, 1, tzinfo=UTC))
    top = hits[0]
    assert top.source_id == "f-3"
    assert top.fact == "User pays $950 a month in rent"
    assert top.category == "financial"
    assert top.categories == pytest.approx({"financial": 0.8, "logistical": 0.2})
    assert top.slot_key == "user|rent"
    assert top.state == "active"
    assert top.observed_at == datetime(2025, 1, 20, 19, tzinfo=UTC)
    assert top.valid_at is not None
    assert set(top.terms) >= {"semantic"}
    assert top.uuid == stable_uuid(group_id, "fact", "f-3")
    assert all(h.score <= top.score for h in hits)

    dentist = await fr.search("dentist appointment", group_id,
                             now=datetime(2025, 4, 20, tzinfo=UTC))
    assert dentist[0].source_id == "f-4"
    assert dentist[0].event_time == datetime(2025, 4, 29, 15, tzinfo=UTC)


async def test_import_is_idempotent(fr: FrGraph, group_id: str, tmp_path: Path) -> None:
    path = group_file(tmp_path, "facts_small.jsonl", group_id)
    await fr.import_file(path)
    again = await fr.import_file(path)
    assert (again.imported, again.already_present) == (0, 6)
    [stats] = await fr.stats(group_id)
    assert stats.facts == 6
    assert stats.by_state == {"active": 6}


async def test_bad_lines_are_reported_and_the_rest_imported(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    good = {"type": "fact", "group_id": group_id, "id": "ok", "fact": "User likes tea",
            "observed_at": "2025-01-01T00:00:00Z"}
    path = write_jsonl(tmp_path / "mixed.jsonl", [
        good,
        {**good, "id": "bad-date", "observed_at": "2025-02-30T00:00:00Z"},
        {**good, "id": "bad-cat", "category": "astrology"},
    ])
    with path.open("a") as handle:
        handle.write("{not json\n")
    report = await fr.import_file(path)
    assert report.imported == 1
    assert [line for line, _ in report.rejected] == [2, 3, 4]
    assert "observed_at" in report.rejected[0][1]
    assert "category" in report.rejected[1][1]
    assert "invalid JSON" in report.rejected[2][1]


async def test_strict_import_writes_nothing(fr: FrGraph, group_id: str, tmp_path: Path) -> None:
    path = group_file(tmp_path, "facts_small.jsonl", group_id)
    with path.open("a") as handle:
        handle.write(f'{{"type":"fact","group_id":"{group_id}","id":"x"}}\n')
    with pytest.raises(ImportValidationError, match="line 7"):
        await fr.import_file(path, strict=True)
    [stats] = await fr.stats(group_id)
    assert stats.facts == 0


async def test_messages_are_turned_into_facts_offline(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    path = write_jsonl(tmp_path / "msgs.jsonl", [
        {"type": "message", "group_id": group_id, "role": "user", "id": "m1",
         "content": "I just adopted a cat named Miso. How are you today?",
         "observed_at": "2025-05-01T10:00:00Z", "episode": "session-1"},
        {"type": "message", "group_id": group_id, "role": "assistant", "id": "m2",
         "content": "I love cats! I'm an assistant.", "observed_at": "2025-05-01T10:00:05Z"},
    ])
    report = await fr.import_file(path)
    assert report.messages == 2
    assert report.facts_from_messages >= 1
    assert report.imported == report.facts_from_messages
    hits = await fr.search("what is my cat called", group_id)
    assert "Miso" in hits[0].fact
    assert hits[0].source_id is not None and hits[0].source_id.startswith("m1#")


async def test_batch_search_answers_each_query(fr: FrGraph, group_id: str,
                                               tmp_path: Path) -> None:
    await fr.import_file(group_file(tmp_path, "facts_small.jsonl", group_id))
    out = await fr.search_batch([
        BatchQuery("q1", group_id, "chess"),
        BatchQuery("q2", group_id, "where does my sister live",
                   datetime(2025, 6, 1, tzinfo=UTC)),
    ], limit=3)
    assert [qid for qid, _ in out] == ["q1", "q2"]
    assert out[0][1][0].source_id == "f-6"
    assert out[1][1][0].source_id == "f-5"
    assert all(len(hits) <= 3 for _, hits in out)


async def test_groups_never_see_each_other(fr: FrGraph, tmp_path: Path) -> None:
    a, b = "iso-a-" + tmp_path.name[-8:], "iso-b-" + tmp_path.name[-8:]
    await fr.import_file(group_file(tmp_path, "facts_small.jsonl", a))
    hits = await fr.search("rent", b)
    assert hits == []


async def test_bad_arguments_raise_input_errors(fr: FrGraph) -> None:
    with pytest.raises(InputError, match="group_id"):
        await fr.search("x", "bad group!")
    with pytest.raises(InputError, match="QUERY"):
        await fr.search("   ", "g")


async def test_facts_survive_closing_and_reopening_the_store(
    settings: Settings, group_id: str, tmp_path: Path
) -> None:
    async with FrGraph(settings) as fr:
        await fr.import_file(group_file(tmp_path, "facts_small.jsonl", group_id))
    async with FrGraph(settings) as fr:
        hits = await fr.search("where does my sister live", group_id)
        assert hits[0].source_id == "f-5"
        assert hits[0].category == "relational"
        again = await fr.import_file(group_file(tmp_path, "facts_small.jsonl", group_id))
        assert again.imported == 0


async def test_graphitis_own_search_gets_the_query_vector_fr_graph_uses(
    fr: FrGraph, group_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--policy off` is Graphiti's hybrid search at its best: the e5 *query* vector, not
    the passage vector Graphiti's embedder would make of the query."""
    await fr.import_file(group_file(tmp_path, "facts_small.jsonl", group_id))
    graphiti = fr.graphiti(group_id)
    search = graphiti.search_
    seen: dict[str, object] = {}

    async def recording(*args: object, **kwargs: object) -> object:
        seen.update(kwargs)
        return await search(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(graphiti, "search_", recording)
    hits = await fr.search("chess", group_id, policy="off")
    assert hits and hits[0].source_id == "f-6"
    assert seen["query_vector"] == pytest.approx(fr.embedder.embed_query("chess").tolist())
    assert seen["query_vector"] != pytest.approx(fr.embedder.embed_passages(["chess"])[0].tolist())


async def test_unrouted_retrieval_and_ranking_under_several_configs(
    fr: FrGraph, group_id: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the benchmark's arms use: retrieval without routing asks for no category-forced
    candidates, and one candidate set ranked under several configurations ranks as under
    each alone."""
    await fr.import_file(group_file(tmp_path, "facts_small.jsonl", group_id))
    now = datetime(2025, 6, 1, tzinfo=UTC)
    query = "how much is my rent"
    run = fr.store.run
    asked: list[str] = []

    async def recording(name: str, *args: object, **kwargs: object) -> object:
        asked.append(name)
        return await run(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(fr.store, "run", recording)
    analysis, routed = await retrieve(fr.store, fr.embedder, group_id, query, now)
    assert analysis.predicted_categories and "forced_candidates" in asked
    asked.clear()
    _, unrouted = await retrieve(fr.store, fr.embedder, group_id, query, now, routed=False)
    assert "forced_candidates" not in asked and not unrouted.forced.any()
    assert {r["uuid"] for r in unrouted.rows} <= {r["uuid"] for r in routed.rows}

    policy = fr.policy.for_group(group_id)
    configs = {name: ABLATIONS[name] for name in ("full", "untyped", "no_numeric_rescue")}
    together = rank_each(routed, analysis, policy, now, configs)
    for name, config in configs.items():
        alone = rank(routed, analysis, policy, now, config)
        assert together[name].order.tolist() == alone.order.tolist()
        assert together[name].scores.tolist() == alone.scores.tolist()


async def test_category_forced_candidates_are_the_newest_of_the_categories(
    fr: FrGraph, group_id: str, tmp_path: Path
) -> None:
    """``forced_candidates`` returns the ``limit`` most recent facts among the asked
    categories, newest first (on Neo4j read in index order, one seek per category)."""
    facts = ["Allergic to penicillin", "Pays 1400 a month in rent",
             "Plays chess on Sundays", "My sister lives in Porto",
             "Dentist appointment on the 3rd", "Paid off the car loan"]
    start = datetime(2025, 1, 1, tzinfo=UTC)
    records: list[dict[str, object]] = [
        {"type": "fact", "group_id": group_id, "id": f"c-{i}", "fact": f"{text} ({i})",
         "observed_at": (start + timedelta(days=i)).isoformat()}
        for i, text in enumerate(facts * 5)]
    await fr.import_file(write_jsonl(tmp_path / "forced.jsonl", records))
    rows = await fr.store.run(
        "fetch_facts", group_id, group_id=group_id,
        edge_uuids=[stable_uuid(group_id, "fact", str(r["id"])) for r in records],
        embedding=fr.embedder.embed_query("facts").tolist())
    by_category: dict[str, list[tuple[str, str]]] = {}
    for row in rows:
        overlay = row["overlay"]
        by_category.setdefault(overlay["category"], []).append(
            (overlay["observed_at"], row["uuid"]))
    asked = sorted(by_category, key=lambda c: -len(by_category[c]))[:2]
    assert len(asked) == 2 and all(len(by_category[c]) >= 5 for c in asked)
    for limit in (3, 7, 100):
        expected = sorted((seen for c in asked for seen in by_category[c]), reverse=True)
        found = await fr.store.run("forced_candidates", group_id, group_id=group_id,
                                   categories=asked, limit=limit)
        assert [r["uuid"] for r in found] == [u for _, u in expected[:limit]]

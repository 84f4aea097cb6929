"""The lifecycle-graph checker on hand-built graphs: each invariant's violation is found with
the right uuids, graphs the pipeline writes on purpose pass, and the report is stable."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from fr_graph.core.invariants import (
    COMPRESSES,
    REQUESTED,
    SUPERSEDES,
    IntegrityReport,
    LifecycleFact,
    LifecycleLink,
    LinkEnd,
    NodeRole,
    ViolationKind,
    check_lifecycle,
)

G = "g"
OBSERVED = "2025-01-01T00:00:00Z"


def fact(uuid: str, state: str = "active", slot: str | None = None, *,
         marker: str = "assertion", ambiguous: bool = False, has_edge: bool = True,
         observed_at: str | None = OBSERVED, drift: dict[str, Any] | None = None
         ) -> LifecycleFact:
    """A fact whose mirror equals its overlay, except the fields given in ``drift``."""
    canonical = {"state": state, "slot_key": slot, "marker": marker, "ambiguous": ambiguous,
                 "observed_at": observed_at, "revision": 3}
    return LifecycleFact(uuid, state, slot, marker, ambiguous, observed_at, has_edge,
                         canonical, {**canonical, **(drift or {})} if has_edge else {})


def end(uuid: str | None, role: NodeRole = NodeRole.FACT, group: str | None = G) -> LinkEnd:
    return LinkEnd(uuid, role, group)


def link(newer: str, older: str, kind: str | None = "supersede", *,
         relation: str = SUPERSEDES, source: LinkEnd | None = None,
         target: LinkEnd | None = None) -> LifecycleLink:
    return LifecycleLink(relation, kind, source or end(newer), target or end(older))


def check(facts: list[LifecycleFact], links: list[LifecycleLink] | None = None,
          strays: tuple[str, ...] = ()) -> IntegrityReport:
    return check_lifecycle(G, facts, links or [], strays)


def found(report: IntegrityReport) -> list[tuple[ViolationKind, tuple[str, ...]]]:
    return [(v.kind, v.uuids) for v in report.violations]


def a_clean_group() -> tuple[list[LifecycleFact], list[LifecycleLink]]:
    """Every shape the pipeline writes on purpose: a superseded chain, a soft contest, two
    retraction statements of one plan, a reverted supersession, a forget request, a
    compression summary, and a fact with no slot."""
    facts = [
        fact("diet-1", "superseded", "user|diet"), fact("diet-2", "superseded", "user|diet"),
        fact("diet-3", "active", "user|diet"),
        fact("city-1", "active", "user|city", ambiguous=True),
        fact("city-2", "active", "user|city", marker="tentative", ambiguous=True),
        fact("trip", "retracted", "user|trip"),
        fact("off-1", "active", "user|trip", marker="retraction"),
        fact("off-2", "active", "user|trip", marker="retraction"),
        fact("job-1", "active", "user|job"), fact("job-2", "active", "user|job"),
        fact("secret", "retracted"),
        fact("run-1", "archived"), fact("summary", "active"),
        fact("chess", "active"),
    ]
    request = end("req-1", NodeRole.REQUEST)
    links = [
        link("diet-2", "diet-1"), link("diet-3", "diet-2"), link("diet-3", "diet-1"),
        link("city-2", "city-1", "soft"),
        link("off-1", "trip", "retract"),
        link("job-2", "job-1", "reverted"),
        link("", "secret", "retract", source=request),
        link("", "secret", None, relation=REQUESTED, source=request),
        link("summary", "run-1", None, relation=COMPRESSES),
    ]
    return facts, links


def test_a_clean_group_passes_and_says_ok() -> None:
    facts, links = a_clean_group()
    report = check(facts, links)
    assert report.ok and report.violations == ()
    assert report.render() == [f"ok: {len(facts)} facts, {len(links)} links, no violations"]
    assert report.to_json() == {"group_id": G, "facts": len(facts), "links": len(links),
                                "ok": True, "violations": []}


def test_an_empty_group_passes() -> None:
    assert check([]).render() == ["ok: 0 facts, 0 links, no violations"]


def test_a_supersession_cycle_is_named_from_its_smallest_uuid() -> None:
    facts = [fact(u, "superseded", "user|x") for u in ("b", "c", "d")] + [fact("a", "active")]
    report = check(facts, [link("b", "c"), link("c", "d"), link("d", "b"), link("a", "b")])
    assert found(report) == [(ViolationKind.SUPERSESSION_CYCLE, ("b", "c", "d"))]
    assert "(b -> c -> d -> b)" in report.violations[0].message
    assert report.render()[0].startswith("supersession_cycle: FR_SUPERSEDES links form")


def test_a_fact_superseding_itself_and_a_compression_loop_are_cycles() -> None:
    facts = [fact("a", "superseded"), fact("s", "active"), fact("t", "archived")]
    links = [link("a", "a"), link("s", "t", None, relation=COMPRESSES),
             link("t", "s", None, relation=COMPRESSES)]
    assert found(check(facts, links)) == [(ViolationKind.SUPERSESSION_CYCLE, ("a",)),
                                          (ViolationKind.SUPERSESSION_CYCLE, ("s", "t"))]


def test_two_unreconciled_active_facts_of_one_slot_are_several_heads() -> None:
    facts = [fact("rent-1", slot="user|rent"), fact("rent-2", slot="user|rent"),
             fact("rent-3", "superseded", "user|rent"), fact("gym", slot="user|gym")]
    report = check(facts, [link("rent-2", "rent-3")])
    assert found(report) == [(ViolationKind.SEVERAL_ACTIVE_HEADS, ("rent-1", "rent-2"))]
    assert "slot 'user|rent' has 2 active facts" in report.violations[0].message


def test_one_flagged_fact_does_not_excuse_an_unflagged_rival() -> None:
    facts = [fact("a", slot="k", ambiguous=True), fact("b", slot="k"),
             fact("c", slot="k", ambiguous=True)]
    assert found(check(facts)) == [(ViolationKind.SEVERAL_ACTIVE_HEADS, ("a", "b", "c"))]


def test_a_retraction_statement_beside_a_live_assertion_is_several_heads() -> None:
    facts = [fact("plan", slot="user|trip"), fact("off", slot="user|trip", marker="retraction")]
    assert found(check(facts)) == [(ViolationKind.SEVERAL_ACTIVE_HEADS, ("off", "plan"))]


def test_slot_heads_leave_out_facts_outside_slot_decisions() -> None:
    facts = [fact("a", slot="k"), fact("b", slot="k", observed_at=None),
             fact("c", slot="k", has_edge=False), fact("d", "expired", "k")]
    assert ViolationKind.SEVERAL_ACTIVE_HEADS not in {v.kind for v in check(facts).violations}


def test_an_active_fact_a_live_link_ended_is_superseded_but_active() -> None:
    facts = [fact("old", slot="k"), fact("new", slot="k", ambiguous=True),
             fact("kept", "active"), fact("forgotten", "active")]
    links = [link("new", "old", "supersede"), link("new", "kept", "soft"),
             link("", "forgotten", "retract", source=end("req", NodeRole.REQUEST))]
    report = check(facts, links)
    assert found(report) == [
        (ViolationKind.SEVERAL_ACTIVE_HEADS, ("new", "old")),
        (ViolationKind.SUPERSEDED_BUT_ACTIVE, ("forgotten", "req")),
        (ViolationKind.SUPERSEDED_BUT_ACTIVE, ("old", "new")),
    ]
    assert "a forget request ended it (retract link)" in report.violations[1].message


def test_links_to_missing_facts_name_both_ends() -> None:
    facts = [fact("new", "active"), fact("gone", "superseded", has_edge=False)]
    links = [
        link("new", "gone"),                                           # overlay, edge deleted
        link("new", "elsewhere", target=end("elsewhere", group="other")),  # another group
        link("new", "entity-1", target=end("entity-1", NodeRole.OTHER)),  # no lifecycle node
        link("new", "ghost"),                                          # no overlay read at all
        link("", "new", "retract", source=end("req", NodeRole.REQUEST, "other")),
        link("new", "req", target=end("req-2", NodeRole.REQUEST)),     # a request as a target
    ]
    report = check(facts, links)
    missing = [v for v in report.violations if v.kind is ViolationKind.LINK_TO_MISSING_FACT]
    assert [v.uuids for v in missing] == [
        ("new", "elsewhere"), ("new", "entity-1"), ("new", "ghost"), ("new", "gone"),
        ("new", "req-2"), ("req", "new")]
    by_target = {v.uuids[1]: v.message for v in missing}
    assert by_target["gone"].endswith("its target is a fact whose RELATES_TO edge is gone")
    assert by_target["elsewhere"].endswith("its target is a fact of group 'other'")
    assert by_target["entity-1"].endswith("its target is not a lifecycle node (neither "
                                          "FrFact nor FrRequest)")
    assert by_target["req-2"].endswith("its target is a request, not a fact")
    assert by_target["new"].endswith("its source is a request of group 'other'")
    assert (ViolationKind.OVERLAY_WITHOUT_EDGE, ("gone",)) in found(report)


def test_a_link_missing_both_ends_is_one_violation() -> None:
    report = check([], [link("x", "y")])
    assert found(report) == [(ViolationKind.LINK_TO_MISSING_FACT, ("x", "y"))]
    assert " and its target " in report.violations[0].message


def test_mirror_drift_and_strays_are_reported() -> None:
    facts = [fact("a", "superseded", drift={"state": "active", "revision": 2}),
             fact("b", "active", drift=dict.fromkeys("cdefg", 1)), fact("c", "active")]
    report = check(facts, strays=("zz", "zz"))
    assert found(report) == [(ViolationKind.MIRROR_OUT_OF_SYNC, ("a",)),
                             (ViolationKind.MIRROR_OUT_OF_SYNC, ("b",)),
                             (ViolationKind.MIRROR_WITHOUT_OVERLAY, ("zz",))]
    assert report.violations[0].message == (
        "the edge's fr_revision, fr_state differ from the FrFact (fr-graph sync repairs it)")
    assert report.violations[1].message == (
        "the edge's fr_c, fr_d, fr_e, fr_f and 1 more differ from the FrFact (fr-graph sync "
        "does not see it: fr_revision and fr_state agree)")


def test_unknown_states_are_reported() -> None:
    report = check([fact("a", "zombie"), replace(fact("b"), state=None)])
    assert found(report) == [(ViolationKind.UNKNOWN_STATE, ("a",)),
                             (ViolationKind.UNKNOWN_STATE, ("b",))]


def test_the_report_does_not_depend_on_the_order_rows_arrive_in() -> None:
    facts, links = a_clean_group()
    facts += [fact("x", slot="user|diet"), fact("y", "superseded"), fact("z", "superseded")]
    links += [link("y", "z"), link("z", "y"), link("x", "ghost"), link("x", "diet-3")]
    expected = check(facts, links)
    assert len(expected.violations) == 4
    shuffler = random.Random(7)
    for _ in range(5):
        shuffler.shuffle(facts)
        shuffler.shuffle(links)
        assert check(facts, links) == expected


def test_violations_render_and_serialize_with_their_uuids() -> None:
    report = check([fact("a", slot="k"), fact("b", slot="k")])
    [line] = report.render()
    assert line.startswith("several_active_heads: slot 'k' has 2 active facts")
    assert line.endswith("[a, b]")
    assert report.to_json()["violations"] == [{
        "kind": "several_active_heads", "uuids": ["a", "b"],
        "message": report.violations[0].message}]
    assert not report.ok

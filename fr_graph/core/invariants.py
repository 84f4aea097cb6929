"""The invariants of a group's lifecycle graph, checked on plain data (``fr-graph check``).

The lifecycle graph is a group's ``FrFact`` overlays and the links fr-graph writes between
them (``cypher/README.md``): ``FR_SUPERSEDES`` from the newer fact to the older one (kinds
``supersede, soft, retract, complete, contradict, reverted``), or from an ``FrRequest`` the
user made (``fr-graph forget``); ``FR_COMPRESSES`` from a retention summary to each original;
``FR_REQUESTED`` from a request to its fact. What every write keeps true, and
:func:`check_lifecycle` verifies:

- **acyclic** (``supersession_cycle``): links point from a later fact to an earlier one, so
  ``FR_SUPERSEDES`` and ``FR_COMPRESSES`` never close a cycle.
- **one active head per slot** (``several_active_heads``): when a fact enters a slot, every
  active fact already there is superseded (or retracted, completed) by it, or both are kept
  and flagged ambiguous (a soft or contradicting link). So two active facts of one slot may
  stand together only when both are flagged ambiguous, both are retraction (or both
  completion) statements, which never act on each other, or the user reverted the link
  between them (``fr-graph restore``). Facts with no ``observed_at`` take no part in slot
  decisions and are left out.
- **ended facts are not active** (``superseded_but_active``): a live ``supersede``,
  ``retract`` or ``complete`` link (``reverted`` is not live) moved its older fact out of
  ``active``.
- **links join live facts** (``link_to_missing_fact``): each end of a link is a fact of the
  group whose Graphiti edge exists; a request (only ever a source) belongs to the group.
- **every overlay has its fact** (``overlay_without_edge``): ``purge`` deletes a fact's
  ``RELATES_TO`` and its ``FrFact`` together.
- **mirrors in sync** (``mirror_out_of_sync``, ``mirror_without_overlay``): the ``fr_*``
  properties of each fact's ``RELATES_TO`` equal its ``FrFact``'s fields (``fr-graph sync``
  repairs a drifted one), and no edge carries a mirror without an ``FrFact``.
- **known states** (``unknown_state``): a state is one of :class:`LifecycleState`.

Pure and deterministic: the same graph gives the same violations in the same order. The
graph algorithms are networkx's (strongly connected components and ``find_cycle`` for
cycles, connected components for the facts of a slot that clash).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import combinations
from typing import Any, Final

import networkx as nx

from fr_graph.core.lifecycle import LifecycleState, Marker
from fr_graph.core.supersession import TransitionKind

#: The relationship types fr-graph writes between lifecycle nodes.
SUPERSEDES: Final = "FR_SUPERSEDES"
COMPRESSES: Final = "FR_COMPRESSES"
REQUESTED: Final = "FR_REQUESTED"
#: Link kinds that end the older fact; ``soft`` and ``contradict`` only contest it and
#: ``reverted`` was undone by the user.
ENDING_KINDS: Final = frozenset({TransitionKind.SUPERSEDE.value, TransitionKind.RETRACT.value,
                                 TransitionKind.COMPLETE.value})
#: Statements that never act on another statement of the same marker in their slot.
_SELF_SPARING_MARKERS: Final = frozenset({Marker.RETRACTION.value, Marker.COMPLETION.value})
_STATES: Final = frozenset(s.value for s in LifecycleState)
#: The mirrored fields whose drift ``repair_drift`` (``fr-graph sync``) looks for.
_SYNC_DETECTS: Final = frozenset({"revision", "state"})
#: How many drifted field names one message lists before "and N more".
_FIELDS_SHOWN: Final = 4


class ViolationKind(StrEnum):
    """What invariant a violation breaks (declaration order is report order)."""

    SUPERSESSION_CYCLE = "supersession_cycle"
    SEVERAL_ACTIVE_HEADS = "several_active_heads"
    SUPERSEDED_BUT_ACTIVE = "superseded_but_active"
    LINK_TO_MISSING_FACT = "link_to_missing_fact"
    OVERLAY_WITHOUT_EDGE = "overlay_without_edge"
    MIRROR_OUT_OF_SYNC = "mirror_out_of_sync"
    MIRROR_WITHOUT_OVERLAY = "mirror_without_overlay"
    UNKNOWN_STATE = "unknown_state"


_KIND_ORDER: Final = {kind: n for n, kind in enumerate(ViolationKind)}


class NodeRole(StrEnum):
    """What a link's end is: a fact overlay, a user's request, or anything else."""

    FACT = "fact"
    REQUEST = "request"
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class LinkEnd:
    """One end of a link as stored: its uuid (a fact's edge uuid), role and group."""

    uuid: str | None
    role: NodeRole
    group_id: str | None

    def name(self) -> str:
        return self.uuid or f"<{self.role.value} node without a uuid>"


@dataclass(frozen=True, slots=True)
class LifecycleLink:
    """One relationship between lifecycle nodes: ``relation`` is its type, ``kind`` the
    ``FR_SUPERSEDES`` kind (None for the other types)."""

    relation: str
    kind: str | None
    source: LinkEnd
    target: LinkEnd


@dataclass(frozen=True, slots=True)
class LifecycleFact:
    """One ``FrFact`` overlay as stored.

    Attributes:
        uuid: its edge uuid.
        state: the stored state (checked against :class:`LifecycleState`).
        slot_key, marker, ambiguous, observed_at: its slot-relevant fields.
        has_edge: whether its Graphiti ``RELATES_TO`` exists.
        canonical: the ``FrFact``'s fields by name.
        mirrored: the edge's ``fr_*`` fields by overlay field name (``fr_state`` as
            ``state``); every key is compared with ``canonical``. Empty without an edge.
    """

    uuid: str
    state: str | None
    slot_key: str | None = None
    marker: str | None = None
    ambiguous: bool = False
    observed_at: str | None = None
    has_edge: bool = True
    canonical: Mapping[str, Any] = field(default_factory=dict)
    mirrored: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken invariant: its kind, the uuids involved (in a stable order) and a line."""

    kind: ViolationKind
    uuids: tuple[str, ...]
    message: str

    def render(self) -> str:
        return f"{self.kind.value}: {self.message} [{', '.join(self.uuids)}]"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "uuids": list(self.uuids), "message": self.message}


@dataclass(frozen=True, slots=True)
class IntegrityReport:
    """What :func:`check_lifecycle` found in one group.

    Example:
        >>> report = check_lifecycle("g", facts, links)                # doctest: +SKIP
        >>> print("\\n".join(report.render()))
        ok: 12 facts, 5 links, no violations
    """

    group_id: str
    facts: int
    links: int
    violations: tuple[Violation, ...]

    @property
    def ok(self) -> bool:
        return not self.violations

    def render(self) -> list[str]:
        """``ok: N facts, M links, no violations``, or one line per violation."""
        if self.ok:
            return [f"ok: {self.facts} facts, {self.links} links, no violations"]
        return [v.render() for v in self.violations]

    def to_json(self) -> dict[str, Any]:
        return {"group_id": self.group_id, "facts": self.facts, "links": self.links,
                "ok": self.ok, "violations": [v.to_json() for v in self.violations]}


def check_lifecycle(group_id: str, facts: Sequence[LifecycleFact],
                    links: Sequence[LifecycleLink], stray_mirrors: Sequence[str] = ()
                    ) -> IntegrityReport:
    """Verify every invariant of the module doc on one group's lifecycle graph.

    Args:
        group_id: the group the facts and links were read from.
        facts: the group's ``FrFact`` overlays (a uuid given twice counts once).
        links: every link with an end among the group's lifecycle nodes.
        stray_mirrors: uuids of the group's edges that carry an ``fr_*`` mirror but have no
            ``FrFact``.
    """
    by_uuid = {fact.uuid: fact for fact in facts}
    live = {uuid: fact for uuid, fact in by_uuid.items() if fact.has_edge}
    ordered = [by_uuid[uuid] for uuid in sorted(by_uuid)]
    found = [
        *_cycles(links),
        *_several_active_heads(ordered, live, links),
        *_superseded_but_active(live, links, group_id),
        *_missing_ends(links, live, group_id),
        *(Violation(ViolationKind.OVERLAY_WITHOUT_EDGE, (fact.uuid,),
                    "the fact's overlay has no RELATES_TO edge (deleted outside fr-graph?)")
          for fact in ordered if not fact.has_edge),
        *_mirror_drift(ordered),
        *(Violation(ViolationKind.MIRROR_WITHOUT_OVERLAY, (uuid,),
                    "the edge carries fr_* lifecycle properties but has no FrFact overlay")
          for uuid in sorted(set(stray_mirrors))),
        *(Violation(ViolationKind.UNKNOWN_STATE, (fact.uuid,),
                    f"state {fact.state!r} is not a lifecycle state")
          for fact in ordered if fact.state not in _STATES),
    ]
    found.sort(key=lambda v: (_KIND_ORDER[v.kind], v.uuids, v.message))
    return IntegrityReport(group_id, len(by_uuid), len(links), tuple(found))


def _fact_edges(links: Sequence[LifecycleLink], relation: str) -> list[tuple[str, str]]:
    """``(source, target)`` uuids of the ``relation`` links between two facts, sorted (so
    networkx visits nodes in the same order on every run)."""
    return sorted({(link.source.uuid, link.target.uuid) for link in links
                   if link.relation == relation and link.source.role is NodeRole.FACT
                   and link.target.role is NodeRole.FACT
                   and link.source.uuid is not None and link.target.uuid is not None})


def _cycles(links: Sequence[LifecycleLink]) -> Iterator[Violation]:
    """One violation per strongly connected component that holds a cycle, naming the
    facts of one cycle in it, starting from its smallest uuid."""
    for relation in (SUPERSEDES, COMPRESSES):
        graph: nx.DiGraph[str] = nx.DiGraph()
        graph.add_edges_from(_fact_edges(links, relation))
        for component in nx.strongly_connected_components(graph):
            start = min(component)
            if len(component) == 1 and not graph.has_edge(start, start):
                continue
            cycle = [edge[0] for edge in nx.find_cycle(graph.subgraph(component), start)]
            first = cycle.index(min(cycle))
            cycle = cycle[first:] + cycle[:first]
            path = " -> ".join([*cycle, cycle[0]])
            yield Violation(ViolationKind.SUPERSESSION_CYCLE, tuple(cycle),
                            f"{relation} links form a cycle ({path}); each must point from "
                            f"a later fact to an earlier one")


def _several_active_heads(facts: Sequence[LifecycleFact], live: Mapping[str, LifecycleFact],
                          links: Sequence[LifecycleLink]) -> Iterator[Violation]:
    reverted = {frozenset(edge) for edge in _fact_edges(
        [link for link in links if link.kind == TransitionKind.REVERTED.value], SUPERSEDES)}
    slots: defaultdict[str, list[LifecycleFact]] = defaultdict(list)
    for fact in facts:
        if (fact.uuid in live and fact.state == LifecycleState.ACTIVE.value and fact.slot_key
                and fact.observed_at is not None):
            slots[fact.slot_key].append(fact)
    for slot_key in sorted(slots):
        clashes: nx.Graph[str] = nx.Graph()
        clashes.add_edges_from(
            (a.uuid, b.uuid) for a, b in combinations(slots[slot_key], 2)
            if not _may_stand_together(a, b, reverted))
        for group in sorted(sorted(c) for c in nx.connected_components(clashes)):
            yield Violation(
                ViolationKind.SEVERAL_ACTIVE_HEADS, tuple(group),
                f"slot {slot_key!r} has {len(group)} active facts that no link reconciles "
                f"(the later one supersedes the earlier, or both are flagged ambiguous)")


def _may_stand_together(a: LifecycleFact, b: LifecycleFact,
                        reverted: set[frozenset[str]]) -> bool:
    """Whether two active facts of one slot are both active by design (module doc)."""
    return ((a.ambiguous and b.ambiguous)
            or (a.marker == b.marker and a.marker in _SELF_SPARING_MARKERS)
            or frozenset((a.uuid, b.uuid)) in reverted)


def _superseded_but_active(live: Mapping[str, LifecycleFact], links: Sequence[LifecycleLink],
                           group_id: str) -> Iterator[Violation]:
    for link in links:
        target, source = link.target, link.source
        if link.relation != SUPERSEDES or link.kind not in ENDING_KINDS:
            continue
        ended = live.get(target.uuid) if target.role is NodeRole.FACT and target.uuid else None
        acting = (source.uuid in live if source.role is NodeRole.FACT
                  else source.role is NodeRole.REQUEST and source.group_id == group_id)
        if ended is None or not acting or ended.state != LifecycleState.ACTIVE.value:
            continue
        by = "a forget request" if source.role is NodeRole.REQUEST else "the newer fact"
        yield Violation(ViolationKind.SUPERSEDED_BUT_ACTIVE, (ended.uuid, source.name()),
                        f"the fact is active, yet {by} ended it ({link.kind} link)")


def _missing_ends(links: Sequence[LifecycleLink], live: Mapping[str, LifecycleFact],
                  group_id: str) -> Iterator[Violation]:
    for link in links:
        problems = [f"its {side} {problem}" for end, side in
                    ((link.source, "source"), (link.target, "target"))
                    if (problem := _end_problem(end, side, link.relation, live, group_id))]
        if problems:
            kind = f" ({link.kind})" if link.kind else ""
            yield Violation(
                ViolationKind.LINK_TO_MISSING_FACT, (link.source.name(), link.target.name()),
                f"{link.relation}{kind} {link.source.name()} -> {link.target.name()}: "
                + " and ".join(problems))


def _end_problem(end: LinkEnd, side: str, relation: str, live: Mapping[str, LifecycleFact],
                 group_id: str) -> str | None:
    """Why ``end`` is not a live lifecycle node of the group (None when it is)."""
    requests_allowed = side == "source" and relation in (SUPERSEDES, REQUESTED)
    if end.role is NodeRole.REQUEST and requests_allowed:
        return None if end.group_id == group_id else f"is a request of group {end.group_id!r}"
    if end.role is NodeRole.REQUEST:
        return "is a request, not a fact"
    if end.role is NodeRole.OTHER:
        return "is not a lifecycle node (neither FrFact nor FrRequest)"
    if end.uuid in live:
        return None
    if end.group_id != group_id:
        return f"is a fact of group {end.group_id!r}"
    return "is a fact whose RELATES_TO edge is gone"


def _mirror_drift(facts: Sequence[LifecycleFact]) -> Iterator[Violation]:
    for fact in facts:
        if not fact.has_edge:
            continue
        drifted = [name for name in sorted(fact.mirrored)
                   if fact.mirrored[name] != fact.canonical.get(name)]
        if not drifted:
            continue
        shown = ", ".join(f"fr_{name}" for name in drifted[:_FIELDS_SHOWN])
        more = f" and {len(drifted) - _FIELDS_SHOWN} more" if len(drifted) > _FIELDS_SHOWN else ""
        # `fr-graph sync` (repair_drift) finds a drifted mirror by its revision and state,
        # which is how Graphiti's re-save leaves it; an edit that kept both escapes it.
        repair = ("fr-graph sync repairs it" if _SYNC_DETECTS & set(drifted)
                  else "fr-graph sync does not see it: fr_revision and fr_state agree")
        yield Violation(ViolationKind.MIRROR_OUT_OF_SYNC, (fact.uuid,),
                        f"the edge's {shown}{more} differ from the FrFact ({repair})")

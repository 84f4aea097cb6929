"""Memory as people and prompts read it: ``fr-graph show`` (facts by category and state,
what one message produced) and the LLM context block (App. B.4 of the seed paper).

Shaping only: :class:`fr_graph.api.FrGraph` fetches the rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from fr_graph.core.context import ContextFact, format_context
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.ontology import Category
from fr_graph.overlay import from_iso, to_iso

if TYPE_CHECKING:
    # Type-only: the search pipeline imports this module to build its context block.
    from fr_graph.pipeline.search import ScoredFact

UNANNOTATED: Final[str] = "unannotated"
"""The category and state shown for facts that have no overlay yet (plain Graphiti facts)."""

_CATEGORY_ORDER: Final[dict[str, int]] = {c.value: i for i, c in enumerate(Category)}
_STATE_ORDER: Final[dict[str, int]] = {s.value: i for i, s in enumerate(LifecycleState)}


@dataclass(slots=True)
class MemoryItem:
    """One fact as ``fr-graph show`` lists it."""

    uuid: str
    fact: str
    category: str
    state: str
    categories: dict[str, float]
    slot_key: str | None
    observed_at: str | None
    event_time: str | None
    valid_to: str | None
    source_id: str | None
    #: ``[start, end)`` of the sentence it came from in its message's episode, if any.
    source_span: list[int] | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class PastedRegion:
    """Pasted material offline extraction set aside: ``[start, end)`` of the episode text."""

    kind: str
    start: int
    end: int

    @classmethod
    def parse(cls, pointer: str) -> PastedRegion:
        """From the stored ``"kind:start:end"``."""
        kind, start, end = pointer.rsplit(":", 2)
        return cls(kind, int(start), int(end))


@dataclass(slots=True)
class MessageTrace:
    """What one message produced (``fr-graph show --message``): its episode, if one keeps
    its text, its facts in order of their sentence, and the pasted regions set aside."""

    group_id: str
    message_id: str
    episode_uuid: str
    episode_text: str | None
    facts: list[MemoryItem]
    pasted: list[PastedRegion] = field(default_factory=list)

    def sentence(self, item: MemoryItem) -> str | None:
        """The episode text a fact came from, when both are known."""
        if self.episode_text is None or not item.source_span:
            return None
        start, end = item.source_span
        return self.episode_text[start:end]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["facts"] = [dict(item.to_json(), sentence=self.sentence(item))
                         for item in self.facts]
        return data


def memory_items(rows: Iterable[Mapping[str, Any]]) -> list[MemoryItem]:
    """Rows of ``memory_listing`` in display order: category (ontology order), state
    (lifecycle order), then newest first."""
    items: list[MemoryItem] = []
    for row in rows:
        names = row.get("categories") or []
        weights = row.get("category_weights") or []
        created = row.get("created_at")
        observed = row.get("observed_at") or (to_iso(created) if isinstance(created, datetime)
                                             else None)
        items.append(MemoryItem(
            uuid=row["uuid"], fact=row.get("fact") or "",
            category=row.get("category") or UNANNOTATED, state=row.get("state") or UNANNOTATED,
            categories={str(n): float(w) for n, w in zip(names, weights, strict=False)},
            slot_key=row.get("slot_key"), observed_at=observed,
            event_time=row.get("event_time"), valid_to=row.get("valid_to"),
            source_id=row.get("source_id"), source_span=row.get("source_span"),
        ))
    items.sort(key=lambda m: m.observed_at or "", reverse=True)
    items.sort(key=lambda m: (_CATEGORY_ORDER.get(m.category, len(_CATEGORY_ORDER)),
                              _STATE_ORDER.get(m.state, len(_STATE_ORDER))))
    return items


def group_memory(items: Iterable[MemoryItem]) -> dict[str, dict[str, list[MemoryItem]]]:
    """``{category: {state: [items]}}``, keeping the order of ``items``."""
    out: dict[str, dict[str, list[MemoryItem]]] = {}
    for item in items:
        out.setdefault(item.category, {}).setdefault(item.state, []).append(item)
    return out



def context_fact(row: Mapping[str, Any]) -> ContextFact:
    """A ``fetch_facts`` row as a :class:`ContextFact` (no overlay: an active ``other``)."""
    overlay = row.get("overlay") or {}
    return ContextFact(
        text=row.get("fact") or "",
        category=Category(overlay.get("category") or Category.OTHER.value),
        state=LifecycleState(overlay.get("state") or LifecycleState.ACTIVE.value),
        event_time=from_iso(overlay.get("event_time")),
        ambiguous=bool(overlay.get("ambiguous", False)),
        instruction_like=bool(overlay.get("instruction_like", False)),
        emotional_loading=float(overlay.get("emotional_loading") or 0.0),
    )


def context_from_hits(hits: Sequence[ScoredFact], *, now: datetime | None = None) -> str:
    """Format search results as a category-grouped prompt block (App. B.4).

    For results you already hold; :meth:`FrGraph.context` also labels ambiguous and
    emotionally loaded facts, which search results do not carry.
    """
    facts = [ContextFact(text=h.fact, category=Category(h.category or Category.OTHER.value),
                         state=LifecycleState(h.state or LifecycleState.ACTIVE.value),
                         event_time=h.event_time)
             for h in hits]
    return format_context(facts, now=now)

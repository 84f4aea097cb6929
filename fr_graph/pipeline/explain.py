"""Why a fact ranks where it does for a query (``fr-graph explain``): the ranking terms,
the mask, and every lifecycle link acting on the fact.

:func:`explain_fact` runs the search's own steps (:func:`~fr_graph.pipeline.search.retrieve`,
then :func:`~fr_graph.pipeline.search.rank`), so the fact scores exactly as search scores it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final

import numpy as np

from fr_graph.clients import LocalEmbedder
from fr_graph.core.codes import MaskReason
from fr_graph.core.explain import explain as explain_row
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.rerank import Ranked, RerankConfig
from fr_graph.core.validity import GUARD_MAJORITY, guard_weight
from fr_graph.errors import NotFoundError
from fr_graph.overlay import from_iso, to_iso
from fr_graph.pipeline.memory_view import UNANNOTATED
from fr_graph.pipeline.search import (
    FORCED_TOP,
    FULLTEXT_TOP,
    VECTOR_TOP,
    Candidates,
    rank,
    retrieve,
)
from fr_graph.pipeline.user_queries import plain_value
from fr_graph.stores.base import GraphStore


@dataclass(slots=True)
class _WithTarget(Candidates):
    """Candidates plus rows appended for explanation only.

    The appended rows are normalized against the retrieved candidates' cosine range (and
    clipped to ``[0, 1]``), so every retrieved row scores exactly as it does in search.
    """

    retrieved: int = 0

    @property
    def semantic(self) -> np.ndarray:
        n = self.retrieved
        if n == 0:
            return np.ones_like(self.cosine)
        head = Candidates(self.rows[:n], self.cosine[:n], self.fulltext[:n],
                          self.forced[:n]).semantic
        low, high = float(self.cosine[:n].min()), float(self.cosine[:n].max())
        tail = self.cosine[n:]
        if high - low < 1e-9:
            scaled = (tail >= high).astype(np.float64)
        else:
            scaled = np.clip((tail - low) / (high - low), 0.0, 1.0)
        return np.concatenate([head, scaled])


def with_target(candidates: Candidates, row: dict[str, Any]) -> Candidates:
    """``candidates`` with one more row (a fact retrieval did not find) at the end."""
    cosine = float(row["semantic"]) if row.get("semantic") is not None else 0.0
    return _WithTarget(
        [*candidates.rows, row],
        np.append(candidates.cosine, np.clip(cosine, -1.0, 1.0)),
        np.append(candidates.fulltext, 0.0),
        np.append(candidates.forced, False).astype(bool),
        retrieved=len(candidates.rows),
    )


@dataclass(slots=True)
class FactLink:
    """An ``FR_SUPERSEDES`` edge touching the explained fact (edges point newer -> older).

    ``direction`` is ``superseded_by`` (the other fact is newer) or ``supersedes``.
    """

    direction: str
    uuid: str
    fact: str | None
    state: str | None
    confidence: float | None
    at: str | None
    reason: str | None
    kind: str | None

    def describe(self) -> str:
        details = [f"at {self.at}" if self.at else "",
                   f"kind {self.kind}" if self.kind else "",
                   f"confidence {self.confidence:.2f}" if self.confidence is not None else "",
                   f"reason: {self.reason}" if self.reason else ""]
        extra = ", ".join(d for d in details if d)
        text = f'"{_one_line(self.fact)}"' if self.fact else "(fact text not found)"
        state = f" [{self.state}]" if self.state else ""
        return f"{self.uuid} {text}{state}" + (f" ({extra})" if extra else "")


@dataclass(slots=True)
class SlotMate:
    """A later candidate in the explained fact's slot (it drives Omega / latest-slot-wins)."""

    uuid: str
    fact: str
    observed_at: str | None
    confidence: float
    masked: str | None


@dataclass(slots=True)
class Explanation:
    """Why one fact ranks where it does for one query (``fr-graph explain``).

    Attributes:
        retrieval: ``retrieved`` (vector or fulltext hit), ``category-forced``, or
            ``not retrieved`` (scored only for this explanation, as if it had been).
        candidates: how many rows were ranked (the target included).
        admitted: how many of them survived the masks.
        rank: 1-based rank among the admitted rows, or None when masked.
        score: the final score, or None when masked.
        mask_reason: why it was masked, or None.
        terms: every named score term for this row (``cosine`` is the raw cosine).
        why: the term-by-term lines of :func:`fr_graph.core.explain.explain`.
        notes: lifecycle notes: expiry, supersession, retrieval, cut-off.
        links: ``FR_SUPERSEDES`` edges from and to this fact.
        later_in_slot: later candidates in the same slot.
    """

    uuid: str
    group_id: str
    fact: str
    query: str
    now: str
    policy: str
    intent: str
    arm: str
    category: str | None
    categories: dict[str, float]
    state: str | None
    slot_key: str | None
    observed_at: str | None
    event_time: str | None
    valid_to: str | None
    source_id: str | None
    #: ``[start, end)`` of its sentence in the message episode it came from, if any.
    source_span: list[int] | None
    retrieval: str
    candidates: int
    admitted: int
    rank: int | None
    limit: int
    score: float | None
    mask_reason: str | None
    terms: dict[str, float | None]
    why: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    links: list[FactLink] = field(default_factory=list)
    later_in_slot: list[SlotMate] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        """``ranked``, ``ranked below the limit`` or ``masked``."""
        if self.rank is None:
            return "masked"
        return "ranked" if self.rank <= self.limit else "ranked below the limit"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = plain_value(asdict(self))
        data["verdict"] = self.verdict
        return data

    def render(self) -> list[str]:
        """The explanation as text lines for a terminal."""
        cats = ", ".join(f"{c} {w:.2f}" for c, w in self.categories.items()) or "-"
        lines = [
            f'fact {self.uuid}: "{_one_line(self.fact)}"',
            f"  group {self.group_id}; category {self.category or UNANNOTATED} ({cats}); "
            f"state {self.state or UNANNOTATED}; slot {self.slot_key or '-'}",
            f"  observed {self.observed_at or '-'}; event {self.event_time or '-'}; "
            f"valid to {self.valid_to or '-'}; source {self.source_id or '-'}"
            + (f" [{self.source_span[0]}:{self.source_span[1]}]" if self.source_span else ""),
            f'query "{_one_line(self.query)}" at {self.now}: {self.intent} intent, '
            f"{self.arm} arm (policy {self.policy})",
        ]
        if self.rank is None:
            lines.append(f"verdict: masked: {self.mask_reason}")
        else:
            place = (f"within the top {self.limit} search returns" if self.rank <= self.limit
                     else f"below the top {self.limit} search returns")
            lines.append(f"verdict: rank {self.rank} of {self.admitted} admitted "
                         f"({self.candidates} candidates), {place}")
        lines.append("why:")
        lines.extend(f"  {line}" for line in self.why)
        if self.notes:
            lines.append("lifecycle:")
            lines.extend(f"  - {note}" for note in self.notes)
        return lines


def _one_line(text: str | None, limit: int = 200) -> str:
    line = " ".join((text or "").split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _weights(overlay: Mapping[str, Any]) -> dict[Category, float]:
    names = overlay.get("categories") or [overlay.get("category") or Category.OTHER.value]
    values = overlay.get("category_weights") or [1.0]
    return {Category(n): float(w) for n, w in zip(names, values, strict=False)}


def _days(seconds: float) -> str:
    return f"{abs(seconds) / 86400.0:.1f} days"


async def explain_fact(store: GraphStore, embedder: LocalEmbedder, policy: PolicyTable,
                       uuid: str, query: str, group_id: str, *, now: datetime,
                       policy_name: str, limit: int, config: RerankConfig) -> Explanation:
    """Why fact ``uuid`` of ``group_id`` ranks where it does for ``query`` (or is masked).

    The fact is scored with the candidates search retrieves; when retrieval did not find
    it, it is added to them (see :func:`with_target`).

    Raises:
        NotFoundError: no fact with that uuid in ``group_id``.
    """
    analysis, candidates = await retrieve(store, embedder, group_id, query, now)
    row = next((i for i, r in enumerate(candidates.rows) if r["uuid"] == uuid), None)
    if row is None:
        fetched = await store.run("fetch_facts", group_id, group_id=group_id,
                                  edge_uuids=[uuid],
                                  embedding=embedder.embed_query(query).tolist())
        if not fetched:
            raise NotFoundError(f"fact {uuid}: not found in group {group_id!r}")
        candidates = with_target(candidates, fetched[0])
        row = len(candidates.rows) - 1
    group_policy = policy.for_group(group_id)
    ranked = rank(candidates, analysis, group_policy, now, config)
    links = [FactLink(**r) for r in await store.run("fact_links", group_id, uuid=uuid)]
    return build_explanation(
        uuid=uuid, group_id=group_id, query=query, now=now, policy_name=policy_name,
        policy=group_policy, candidates=candidates, ranked=ranked, row=row, links=links,
        limit=limit)


def build_explanation(*, uuid: str, group_id: str, query: str, now: datetime, policy_name: str,
                      policy: PolicyTable, candidates: Candidates, ranked: Ranked, row: int,
                      links: Sequence[FactLink], limit: int) -> Explanation:
    """Assemble an :class:`Explanation` for ``row`` of a ranked batch.

    Args:
        candidates: the rows that were ranked (the target included).
        ranked: the reranker's result over them.
        row: the target's row index.
        links: the target's ``FR_SUPERSEDES`` edges (``fact_links``).
        policy: the group-resolved policy table (for the expiry buffer).
        limit: the search limit the rank is compared with.
    """
    rows = candidates.rows
    target = rows[row]
    overlay = target.get("overlay") or {}
    code = MaskReason(int(ranked.mask_code[row]))
    masked = code is not MaskReason.NONE
    rank = None if masked else int(np.flatnonzero(ranked.order == row)[0]) + 1
    terms: dict[str, float | None] = {"cosine": float(candidates.cosine[row])}
    for name, values in ranked.terms.items():
        value = float(values[row])
        terms[name] = value if math.isfinite(value) else None
    retrieved_rows = getattr(candidates, "retrieved", len(rows))
    if row >= retrieved_rows:
        retrieval = "not retrieved"
    elif bool(candidates.forced[row]):
        retrieval = "category-forced"
    else:
        retrieval = "retrieved"
    why = [line.removeprefix(f"row {row}: ") for line in explain_row(ranked, row)]
    names = overlay.get("categories") or []
    weights = overlay.get("category_weights") or []

    mates: list[SlotMate] = []
    slot, seen = overlay.get("slot_key"), overlay.get("observed_at")
    if slot is not None:
        for i, other in enumerate(rows):
            other_overlay = other.get("overlay") or {}
            later = (other_overlay.get("observed_at") or "") > (seen or "")
            if i != row and other_overlay.get("slot_key") == slot and later:
                reason = MaskReason(int(ranked.mask_code[i]))
                mates.append(SlotMate(
                    uuid=other["uuid"], fact=other.get("fact") or "",
                    observed_at=other_overlay.get("observed_at"),
                    confidence=float(other_overlay.get("confidence", 0.5)),
                    masked=reason.label if reason is not MaskReason.NONE else None))

    notes = _lifecycle_notes(overlay, code, terms, links, mates, now, policy)
    if retrieval == "not retrieved":
        notes.insert(0, f"not retrieved for this query: it is outside the top {VECTOR_TOP} "
                        f"vector, top {FULLTEXT_TOP} fulltext and {FORCED_TOP} category-forced "
                        "candidates; scored here as if it had been")
    if rank is not None and rank > limit:
        notes.append(f"rank {rank} is below the search limit of {limit}")
    return Explanation(
        uuid=uuid, group_id=group_id, fact=target.get("fact") or "", query=query,
        now=to_iso(now) or "", policy=policy_name, intent=ranked.intent.value,
        arm=ranked.arm.value, category=overlay.get("category"),
        categories={str(n): float(w) for n, w in zip(names, weights, strict=False)},
        state=overlay.get("state"), slot_key=slot, observed_at=seen,
        event_time=overlay.get("event_time"), valid_to=overlay.get("valid_to"),
        source_id=overlay.get("source_id"), source_span=overlay.get("source_span"),
        retrieval=retrieval, candidates=len(rows),
        admitted=int(ranked.order.shape[0]), rank=rank, limit=limit,
        score=None if masked else float(ranked.scores[row]),
        mask_reason=code.label if masked else None, terms=terms, why=why, notes=notes,
        links=list(links), later_in_slot=mates,
    )


_LINK_VERBS: Final[dict[str, str]] = {
    "supersede": "superseded by",
    "retract": "retracted by",
    "complete": "completed by",
    "soft": "contested by (soft supersession: both kept, marked ambiguous)",
    "contradict": "contradicted by (both kept, marked ambiguous)",
    "reverted": "was linked by (reverted by the user, no effect)",
}
#: Link kinds that leave the older fact's state as it is.
_NON_HARD: Final = frozenset({"soft", "contradict", "reverted"})
_OLDER_VERBS: Final[dict[str, str]] = {"soft": "contests", "contradict": "contradicts",
                                       "reverted": "was linked to (reverted)"}


def _lifecycle_notes(overlay: Mapping[str, Any], code: MaskReason,
                     terms: Mapping[str, float | None], links: Sequence[FactLink],
                     mates: Sequence[SlotMate], now: datetime, policy: PolicyTable
                     ) -> list[str]:
    notes: list[str] = []
    state = overlay.get("state")
    newer = [link for link in links if link.direction == "superseded_by"]
    older = [link for link in links if link.direction == "supersedes"]
    hard = [link for link in newer if link.kind not in _NON_HARD]
    if not overlay:
        notes.append("no lifecycle overlay (a plain Graphiti fact): ranked as an active "
                     "'other' fact")
    if state == LifecycleState.SUPERSEDED and not hard:
        notes.append("state superseded; no FR_SUPERSEDES edge records which fact replaced it")
    if state == LifecycleState.RETRACTED and not hard:
        notes.append("state retracted; no FR_SUPERSEDES edge records the retracting statement")
    if overlay.get("ambiguous"):
        notes.append("marked ambiguous: a later, less confident statement contests it")
    if contested := float(overlay.get("contested") or 0.0):
        notes.append(f"contested by a later fact (verifier {contested:.2f}): ranked lower "
                     "through omega, never hidden (restore undoes it)")
    fallback = "retracted by" if state == LifecycleState.RETRACTED else "superseded by"
    notes.extend(f"{_LINK_VERBS.get(link.kind or '', fallback)} {link.describe()}"
                 for link in newer)
    notes.extend(f"{_OLDER_VERBS.get(link.kind or '', 'supersedes')} {link.describe()}"
                 for link in older)
    event = from_iso(overlay.get("event_time"))
    valid_to = from_iso(overlay.get("valid_to"))
    if state == LifecycleState.EXPIRED:
        if valid_to is not None:
            notes.append(f"state expired: its validity ended {valid_to:%Y-%m-%d %H:%M}Z")
        elif event is not None:
            notes.append(f"state expired: its event was {event:%Y-%m-%d %H:%M}Z")
        else:
            notes.append("state expired")
    buffer_days = policy.expiry_buffer_days
    if code is MaskReason.DATE_EXPIRED and event is not None:
        notes.append(f"expired by date: the event ({event:%Y-%m-%d %H:%M}Z) was "
                     f"{_days((now - event).total_seconds())} before now, beyond the "
                     f"{buffer_days:g}-day expiry buffer of its category")
    elif event is not None and state == LifecycleState.ACTIVE and event < now \
            and guard_weight(_weights(overlay), policy) >= GUARD_MAJORITY:
        expires = event + timedelta(days=buffer_days)
        if overlay.get("has_number"):
            notes.append("the event has passed, but facts carrying a number or date are "
                         "exempt from date expiry (numeric rescue)")
        elif expires > now:
            notes.append(f"the event has passed; it expires by date on "
                         f"{expires:%Y-%m-%d %H:%M}Z (event + {buffer_days:g} days)")
        elif code is MaskReason.NONE:
            notes.append("the event is past the expiry buffer, but this query looks back "
                         "(questions about the past bypass date expiry)")
    if code is MaskReason.VALID_TO_PASSED and valid_to is not None:
        notes.append(f"validity interval closed at {valid_to:%Y-%m-%d %H:%M}Z "
                     f"({_days((now - valid_to).total_seconds())} ago)")
    if code in (MaskReason.PAST_EVENT, MaskReason.FUTURE_EVENT) and event is not None:
        side = "before" if event < now else "after"
        notes.append(f"the event is {_days((now - event).total_seconds())} {side} now")
    live = [m for m in mates if m.masked is None]
    if code is MaskReason.SLOT_SHADOWED:
        notes.extend(f'shadowed by a later fact in slot {overlay.get("slot_key")}: '
                     f'{m.uuid} "{_one_line(m.fact)}" (observed {m.observed_at})' for m in live)
    omega = terms.get("omega")
    if omega is not None and omega < 1.0:
        notes.append(f"soft supersession: Omega {omega:.3f} from {len(live)} later fact(s) "
                     f"in slot {overlay.get('slot_key')}")
        notes.extend(f'later in the slot: {m.uuid} "{_one_line(m.fact)}" (observed '
                     f"{m.observed_at}, confidence {m.confidence:.2f})" for m in live)
    return notes

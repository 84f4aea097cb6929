"""Inspection: why a fact ranks where it does, memory by category and state, LLM context,
and the user queries of ``cypher/queries/``.

Everything here is shaping and validation around rows the store returned and rankings the
core computed; :class:`fr_graph.api.FrGraph` does the I/O (``explain``, ``show``, ``context``,
``query``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any, Final

import numpy as np

from fr_graph import cypher
from fr_graph.core.codes import MaskReason
from fr_graph.core.context import ContextFact, format_context
from fr_graph.core.explain import explain as explain_row
from fr_graph.core.lifecycle import LifecycleState
from fr_graph.core.ontology import Category
from fr_graph.core.policy import PolicyTable
from fr_graph.core.rerank import Ranked
from fr_graph.core.validity import GUARD_MAJORITY, guard_weight
from fr_graph.errors import InputError, QueryNotFoundError
from fr_graph.overlay import from_iso, to_iso
from fr_graph.pipeline.search import FORCED_TOP, FULLTEXT_TOP, VECTOR_TOP, Candidates, ScoredFact

# -- user queries (cypher/queries/) -----------------------------------------------------------

USER_QUERY_FOLDER: Final[str] = "queries"

PARAM_TYPES: Final[tuple[str, ...]] = ("string", "strings", "integer", "number", "boolean",
                                        "time")
"""Types a user query may declare for a parameter. ``strings`` is a list (comma-separated on
the command line); ``time`` is an ISO-8601 string, see :func:`resolve_time`."""

_PARAM = re.compile(r"\$(?P<name>[a-z_][a-z0-9_]*)\s*\((?P<type>[a-z]+)"
                    r"(?:,\s*default\s+(?P<default>[^)]*))?\)\s*:?\s*(?P<doc>.*)$")
_OFFSET = re.compile(r"^(?P<base>[a-z_][a-z0-9_]*)?\s*(?P<sign>[+-])\s*"
                     r"(?P<amount>\d+(?:\.\d+)?)\s*(?P<unit>[wdhm])$")
_UNITS: Final[dict[str, str]] = {"w": "weeks", "d": "days", "h": "hours", "m": "minutes"}


@dataclass(frozen=True, slots=True)
class QueryParam:
    """One ``$parameter`` a user query declares in its header.

    Attributes:
        name: the Cypher parameter name, without ``$``.
        type: one of :data:`PARAM_TYPES`.
        default: the default as written in the header (``null``, ``now+7d``, ...), or None
            when the parameter is required.
        doc: what it means.
    """

    name: str
    type: str
    default: str | None
    doc: str

    @property
    def required(self) -> bool:
        return self.default is None


@dataclass(frozen=True, slots=True)
class UserQuery:
    """A query of ``cypher/queries/``: its name, what it does, its parameters and columns."""

    name: str
    summary: str
    params: tuple[QueryParam, ...]
    returns: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "summary": self.summary, "returns": self.returns,
                "params": [asdict(p) for p in self.params]}


def _parse_header(name: str, text: str) -> UserQuery:
    summary: list[str] = []
    params: list[QueryParam] = []
    returns: list[str] = []
    section = "summary"
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("Params:"):
            section, line = "params", line.removeprefix("Params:").strip()
        elif line.startswith("Returns:"):
            section, line = "returns", line.removeprefix("Returns:").strip()
        if not line:
            continue
        if section == "summary":
            summary.append(line.removeprefix(f"{name} —").strip())
        elif section == "returns":
            returns.append(line)
        elif (match := _PARAM.match(line)) is not None:
            kind = match["type"]
            if kind not in PARAM_TYPES:
                raise QueryNotFoundError(f"query {name!r}: parameter ${match['name']} has "
                                         f"unknown type {kind!r}")
            default = match["default"].strip() if match["default"] is not None else None
            params.append(QueryParam(match["name"], kind, default, match["doc"].strip()))
        elif params:  # a continuation of the previous parameter's description
            last = params[-1]
            params[-1] = QueryParam(last.name, last.type, last.default, f"{last.doc} {line}")
    return UserQuery(name, " ".join(summary), tuple(params), " ".join(returns))


@cache
def user_queries() -> dict[str, UserQuery]:
    """Every query of ``cypher/queries/`` by name: the allow-list of :meth:`FrGraph.query`."""
    root = cypher.cypher_root() / USER_QUERY_FOLDER
    names = sorted({path.stem for path in root.rglob("*.cypher")})
    out: dict[str, UserQuery] = {}
    for name in names:
        dialect: cypher.Dialect = "falkordb" if (root / "falkordb" / f"{name}.cypher"
                                                 ).is_file() else "neo4j"
        out[name] = _parse_header(name, cypher.header(name, dialect, folder=USER_QUERY_FOLDER))
    return out


def user_query(name: str) -> UserQuery:
    """The user query ``name``.

    Raises:
        QueryNotFoundError: no such query (the message lists the ones there are).
    """
    found = user_queries().get(name)
    if found is None:
        raise QueryNotFoundError(f"no user query named {name!r}; available: "
                                 f"{', '.join(user_queries())}")
    return found


def resolve_time(value: object, bound: Mapping[str, object], clock: datetime,
                 *, what: str) -> str:
    """A ``time`` parameter as a fixed-width ISO string (``2025-09-15T12:00:00Z``).

    Accepts a datetime, an ISO-8601 date or date-time (naive means UTC), ``now``, or an
    offset ``[base]±N(w|d|h|m)``: ``+7d``, ``now-14d``, ``until-14d``. The base is an
    earlier time parameter of the same query; without one (or ``now``) it is the query's
    ``$now`` when it has one, else the clock.
    """
    if isinstance(value, datetime):
        return to_iso(value) or ""
    if not isinstance(value, str):
        raise InputError(f"{what}: expected an ISO-8601 time, got {value!r}")
    text = value.strip()
    base_now = bound.get("now")
    reference = from_iso(base_now) if isinstance(base_now, str) else clock
    if text == "now":
        return to_iso(reference) or ""
    match = _OFFSET.match(text)
    if match is not None:
        base_name = match["base"] or "now"
        if base_name != "now":
            base_value = bound.get(base_name)
            if not isinstance(base_value, str):
                raise InputError(f"{what}: {base_name!r} is not an earlier time parameter")
            reference = from_iso(base_value)
        amount = float(match["amount"]) * (1 if match["sign"] == "+" else -1)
        delta = timedelta(**{_UNITS[match["unit"]]: amount})
        assert reference is not None
        return to_iso(reference + delta) or ""
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"{what}: {value!r} is not an ISO-8601 time, 'now' or an offset "
                         "like +7d") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return to_iso(parsed) or ""


def _coerce(query: UserQuery, param: QueryParam, value: object,
            bound: Mapping[str, object], clock: datetime) -> object:
    what = f"query {query.name}: ${param.name}"
    if value is None or (isinstance(value, str) and value == "null"):
        return None
    kind = param.type
    if kind == "time":
        return resolve_time(value, bound, clock, what=what)
    if kind == "strings":
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            return list(value)
        raise InputError(f"{what}: expected a list of strings, got {value!r}")
    if kind == "integer":
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and re.fullmatch(r"[+-]?\d+", value.strip()):
            return int(value)
        raise InputError(f"{what}: expected an integer, got {value!r}")
    if kind == "number":
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        try:
            number = float(value) if isinstance(value, str) else math.nan
        except ValueError:
            number = math.nan
        if not math.isfinite(number):
            raise InputError(f"{what}: expected a number, got {value!r}")
        return number
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise InputError(f"{what}: expected true or false, got {value!r}")
    if not isinstance(value, str):
        raise InputError(f"{what}: expected a string, got {value!r}")
    return value


def bind_params(query: UserQuery, given: Mapping[str, object], clock: datetime
                ) -> dict[str, object]:
    """Validate and type the parameters of one run of ``query`` (``$group_id`` excluded).

    Args:
        query: the query.
        given: parameter values by name (strings from the command line are converted).
        clock: the current time, for ``now`` and offsets when the query has no ``$now``.

    Returns:
        Every declared parameter but ``group_id``, defaults filled in, in declaration order.

    Raises:
        InputError: an unknown, missing or ill-typed parameter.
    """
    declared = {p.name: p for p in query.params if p.name != "group_id"}
    if "group_id" in given:
        raise InputError(f"query {query.name}: the group is given separately (--group), "
                         "not as a parameter")
    unknown = sorted(set(given) - set(declared))
    if unknown:
        takes = ", ".join(declared) or "no parameters"
        raise InputError(f"query {query.name}: unknown parameter(s) {', '.join(unknown)}; "
                         f"it takes {takes}")
    bound: dict[str, object] = {}
    for name, param in declared.items():
        if name in given:
            value = given[name]
        elif param.default is not None:
            value = param.default
        else:
            raise InputError(f"query {query.name}: parameter {name} is required "
                             f"({param.type}: {param.doc})")
        bound[name] = _coerce(query, param, value, bound, clock)
    return bound


def plain_value(value: Any) -> Any:
    """A store value as plain JSON (datetimes as ISO strings, NaN/inf as None)."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list | tuple):
        return [plain_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain_value(v) for k, v in value.items()}
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


# -- memory listing (fr-graph show) ----------------------------------------------------------

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


# -- context (App. B.4) ----------------------------------------------------------------------


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


# -- explain ---------------------------------------------------------------------------------


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
                         "exempt from date expiry (App. H numeric rescue)")
        elif expires > now:
            notes.append(f"the event has passed; it expires by date on "
                         f"{expires:%Y-%m-%d %H:%M}Z (event + {buffer_days:g} days)")
        elif code is MaskReason.NONE:
            notes.append("the event is past the expiry buffer, but this query looks back "
                         "(backward-looking intents bypass date expiry, App. K)")
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


# -- policy (fr-graph policy show) -----------------------------------------------------------


@dataclass(slots=True)
class PolicyView:
    """The policy in force for one group (or the deployment), and where it came from.

    Attributes:
        table: the resolved table (group overrides applied).
        source: the policy file, or ``defaults`` (the paper's values).
        group_id: the group whose overrides were applied, or None.
        overrides: the group's overrides as dotted keys (``categories.hobbies.alpha``).
        groups: every group the policy file overrides.
    """

    table: PolicyTable
    source: str
    group_id: str | None
    overrides: dict[str, Any]
    groups: list[str]

    def render(self) -> list[str]:
        head = [f"policy: {self.source}"]
        if self.group_id is not None:
            if self.overrides:
                applied = ", ".join(f"{k} = {v}" for k, v in self.overrides.items())
                head.append(f"group {self.group_id}: overrides applied: {applied}")
            else:
                head.append(f"group {self.group_id}: no overrides (the table below applies "
                            "to it as is)")
        lines = self.table.render()
        if self.group_id is None and self.groups:
            lines = [ln for ln in lines if not ln.startswith("group overrides:")]
            lines.append(f"group overrides: {', '.join(self.groups)} (see --group)")
        return [*head, "", *lines]

    def to_json(self) -> dict[str, Any]:
        table = self.table.model_dump(mode="json", exclude={"groups"})
        return {"source": self.source, "group_id": self.group_id,
                "overrides": self.overrides, "groups": self.groups, "policy": table}


def flatten_overrides(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A nested override mapping as ``{"categories.hobbies.alpha": 0.3, ...}``."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten_overrides(value, f"{name}."))
        else:
            out[name] = value
    return out


def policy_view(policy: PolicyTable, source: str, group_id: str | None) -> PolicyView:
    """:class:`PolicyView` of ``policy`` for ``group_id`` (None: the deployment table)."""
    override = policy.groups.get(group_id) if group_id is not None else None
    overrides = (flatten_overrides(override.model_dump(exclude_unset=True, mode="json"))
                 if override is not None else {})
    return PolicyView(policy.for_group(group_id), source, group_id, overrides,
                      sorted(policy.groups))

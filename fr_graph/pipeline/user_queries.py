"""The ready-made Cypher queries of ``cypher/queries/`` (``fr-graph query``): their headers
parsed into parameter specs, user-given values checked and bound, result values made plain.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any, Final

from fr_graph import cypher
from fr_graph.errors import InputError, QueryNotFoundError
from fr_graph.overlay import from_iso, to_iso

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

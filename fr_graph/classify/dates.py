"""Event-time resolution: find a day-precise date expression and resolve it against ``observed_at``.

Only *day-precise* expressions produce an event time ("tomorrow 6am", "next Thursday",
"June 12", "the 14th", "11/20", "in two weeks", "yesterday"). Vague spans ("next month",
"this summer", "in 2019") and recurring ones ("every Tuesday", "on fridays") do not: an
anchor that is not a day would make event-time expiry fire on the wrong day.

``dateparser`` is slow (milliseconds per call), so it only runs after a precompiled regex has
found a candidate expression, the trivial words (today / tomorrow / yesterday) are resolved
arithmetically, and every ``dateparser`` call is memoized.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta, tzinfo
from functools import lru_cache

from fr_graph.classify.lexicon import MONTH, WEEKDAY

_NUM_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "a couple of": 2, "a few": 3, "couple of": 2, "couple": 2,
}
_N = r"(?:a couple of|couple of|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten" \
     r"|eleven|twelve|\d{1,3})"

#: Cheap gate: does the text contain anything that could be a day-precise date?
DATE_GATE = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday|last night|this (?:morning|afternoon|evening)"
    r"|" + WEEKDAY + r"|" + MONTH + r"\.?\s+\d|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?" + MONTH
    + r"|\d{1,2}(?:st|nd|rd|th)\b|\d{1,2}/\d{1,2}\b"
    r"|\d{4}-\d{2}-\d{2}|days?\b|weeks?\b)",
)

DATE_EXPR = re.compile(
    r"(?P<dat>\b(?:the\s+)?day after tomorrow\b)"
    r"|(?P<tom>\btomorrow\b)"
    r"|(?P<tod>\b(?:today|tonight|this (?:morning|afternoon|evening))\b)"
    r"|(?P<yes>\b(?:yesterday|last night)\b)"
    r"|(?P<iso>\b\d{4}-\d{2}-\d{2}\b)"
    r"|(?P<md>\b" + MONTH + r"\.?\s+(?P<md_day>\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+\d{4}\b)?)"
    r"|(?P<dm>\b(?:the\s+)?(?P<dm_day>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + MONTH
    + r"\b(?:,?\s+\d{4}\b)?)"
    r"|(?P<wd>\b(?:(?P<wd_mod>next|this coming|coming|this|last|past)\s+)?(?P<wd_day>"
    + WEEKDAY + r")\b(?!s\b|'s\b|\s+(?:mornings|nights|evenings|afternoons)\b))"
    r"|(?P<ord>\bthe\s+(?P<ord_day>\d{1,2})(?:st|nd|rd|th)\b)"
    r"|(?P<num>(?<![\d/])\b(?P<num_m>\d{1,2})/(?P<num_d>\d{1,2})(?:/(?P<num_y>\d{2,4}))?\b(?![/\d]))"
    r"|(?P<rel>\bin\s+(?P<rel_n>" + _N + r")\s+(?P<rel_u>days?|weeks?)\b)"
    r"|(?P<ago>\b(?P<ago_n>" + _N + r")\s+(?P<ago_u>days?|weeks?)\s+ago\b)",
)
_RECURRING = re.compile(r"\b(?:every|each|every other|most|on alternate)\s+$")
_PAST_MOD = re.compile(r"\b(?:since|from|last|past|ago)\s+$")
_PAST_CUE = re.compile(
    r"\b(?:went|was|were|had|did|saw|caught|came|visited|played|scored|spent|watched|met"
    r"|took|happened|ran|started|ended|broke|tore|lost|won|got back|fell|flew|drove"
    r"|ate|bought|sold|left|arrived|landed|since)\b",
)
_FUTURE_CUE = re.compile(
    r"\b(?:will|'ll|going to|gonna|need to|needs to|have to|has to|must|due|appointment"
    r"|starts|start|leaves|leaving|departs|arriving|until|till|by|next|coming|postponed"
    r"|moved|rescheduled|plan|planning|supposed|promised|upcoming|scheduled|is on|'s on"
    r"|is at|is in|is|are)\b",
)


def _aware(observed_at: datetime) -> datetime:
    return observed_at if observed_at.tzinfo is not None else observed_at.replace(tzinfo=UTC)


def _day(base: datetime, days: int) -> datetime:
    return base + timedelta(days=days)


def _count(word: str) -> int:
    word = word.strip()
    if word.isdigit():
        return int(word)
    return _NUM_WORDS.get(word, 1)


@lru_cache(maxsize=4096)
def _dateparser(expr: str, base_iso: str, prefer: str) -> datetime | None:
    """Memoized ``dateparser.parse`` of one expression against one base time."""
    import dateparser  # deferred: importing dateparser costs ~0.3 s

    base = datetime.fromisoformat(base_iso)
    tz = base.tzinfo
    naive_base = base.replace(tzinfo=None)
    try:
        parsed = dateparser.parse(
            expr,
            languages=["en"],
            settings={
                "PREFER_DATES_FROM": prefer,
                "RELATIVE_BASE": naive_base,
                "RETURN_AS_TIMEZONE_AWARE": False,
                "PREFER_DAY_OF_MONTH": "first",
                "REQUIRE_PARTS": [],
            },
        )
    except Exception:  # dateparser raises assorted errors on odd input; treat as no date
        return None
    if parsed is None:
        return None
    return parsed.replace(tzinfo=tz)


def _shift_month(value: datetime, months: int) -> datetime:
    month0 = value.month - 1 + months
    year = value.year + month0 // 12
    month = month0 % 12 + 1
    day = min(value.day, calendar.monthrange(year, month)[1])
    return value.replace(year=year, month=month, day=day)


def _direction(text: str, start: int, modifier: str | None) -> str:
    """``'past'`` or ``'future'`` for the expression starting at ``start``."""
    if modifier in ("last", "past") or _PAST_MOD.search(text[max(0, start - 12):start]):
        return "past"
    if modifier in ("next", "coming", "this coming"):
        return "future"
    if _PAST_CUE.search(text) and not _FUTURE_CUE.search(text):
        return "past"
    return "future"


def resolve_event_time(text: str, observed_at: datetime) -> datetime | None:
    """The first day-precise date in ``text`` (normalized, lower case), or ``None``.

    The result carries ``observed_at``'s timezone (UTC when ``observed_at`` is naive).
    """
    if not DATE_GATE.search(text):
        return None
    base = _aware(observed_at)
    tz: tzinfo | None = base.tzinfo
    for match in DATE_EXPR.finditer(text):
        kind = match.lastgroup
        start = match.start()
        if _RECURRING.search(text[max(0, start - 16):start]):
            continue
        result = _resolve(match, kind, text, base)
        if result is not None:
            return result.astimezone(tz) if result.tzinfo is not None else result.replace(tzinfo=tz)
    return None


def _resolve(match: re.Match[str], kind: str | None, text: str, base: datetime) -> datetime | None:
    start = match.start()
    if kind == "dat":
        return _day(base, 2)
    if kind == "tom":
        return _day(base, 1)
    if kind == "tod":
        return base
    if kind == "yes":
        return _day(base, -1)
    if kind == "rel":
        n = _count(match.group("rel_n"))
        unit = 7 if match.group("rel_u").startswith("week") else 1
        return _day(base, n * unit) if n * unit <= 3660 else None
    if kind == "ago":
        n = _count(match.group("ago_n"))
        unit = 7 if match.group("ago_u").startswith("week") else 1
        return _day(base, -n * unit) if n * unit <= 3660 else None
    if kind == "iso":
        try:
            return datetime.fromisoformat(match.group("iso")).replace(tzinfo=base.tzinfo)
        except ValueError:
            return None
    if kind in ("md", "dm"):
        day = int(match.group("md_day") or match.group("dm_day"))
        if not 1 <= day <= 31:
            return None
        prefer = _direction(text, start, None)
        return _dateparser(match.group(0).replace("the ", ""), base.isoformat(), prefer)
    if kind == "num":
        month, day = int(match.group("num_m")), int(match.group("num_d"))
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return None
        prefer = _direction(text, start, None)
        return _dateparser(match.group(0), base.isoformat(), prefer)
    if kind == "ord":
        day = int(match.group("ord_day"))
        if not 1 <= day <= 31:
            return None
        prefer = _direction(text, start, None)
        step = 1 if prefer == "future" else -1
        candidate = base.replace(day=1)
        for _ in range(3):  # the next (or last) month that has this day
            if day <= calendar.monthrange(candidate.year, candidate.month)[1]:
                found = candidate.replace(day=day)
                if (prefer == "future" and found.date() >= base.date()) or (
                        prefer == "past" and found.date() <= base.date()):
                    return found
            candidate = _shift_month(candidate, step)
        return None
    if kind == "wd":
        modifier = match.group("wd_mod")
        prefer = _direction(text, start, modifier)
        weekday = match.group("wd_day")
        expr = f"last {weekday}" if prefer == "past" else weekday
        parsed = _dateparser(expr, base.isoformat(), prefer)
        if parsed is None:
            return None
        if prefer == "future" and parsed.date() <= base.date():
            parsed = _day(parsed, 7)
        elif prefer == "past" and parsed.date() >= base.date():
            parsed = _day(parsed, -7)
        return parsed
    return None

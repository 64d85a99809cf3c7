"""English times inside a month or year, and a few counted days, that the main rules read as the whole period or
not at all: early / mid / late April (next month, 2025), the first / last week of May, the weekend after next,
two Fridays ago, and day-first dotted dates (15.03.2026).

Parts follow the Chinese thirds of docs/time-conventions.md, so 四月中旬 and mid-April are the same days: early
1..10, mid 11..20, late 21..end of a month; a year's thirds are January–April, May–August, September–December.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

from memscribe.lang.timeparse_en import (
    MONTHS,
    NUM_RE,
    WEEKDAYS,
    Ctx,
    Span,
    days_range,
    mkdate,
    month_last,
    num_value,
    pick_year,
    shift,
    ym_shift,
)

__all__ = ["EN_PART_RULES", "en_part_spans"]

_F = re.I | re.A
_MONTH = "|".join(MONTHS)
_R_PART = re.compile(
    rf"\b(?P<p>early|mid|late)[-\s]+(?:(?P<mon>{_MONTH})\b(?:\s+(?P<y>(?:19|20)\d{{2}})\b)?"
    r"|(?P<k>this|next|last)\s+(?P<u>month|year)\b|(?P<yy>(?:19|20)\d{2})\b)",
    _F,
)
_R_WEEK_OF = re.compile(
    rf"\b(?:the\s+)?(?P<n>first|second|third|fourth|last)\s+week\s+of\s+"
    rf"(?:(?P<mon>{_MONTH})\b(?:\s+(?P<y>(?:19|20)\d{{2}})\b)?|(?P<k>this|next|last|the)\s+month\b)",
    _F,
)
_R_WEEKEND_AFTER_NEXT = re.compile(r"\bthe\s+weekend\s+after\s+next\b", _F)
_R_WEEKDAYS_AGO = re.compile(rf"\b(?P<n>{NUM_RE})\s+(?P<wd>{'|'.join(WEEKDAYS)})s\s+ago\b", _F)
# day first when written with dots (15.03.2026, 5.3.26 is left alone: too like a version number)
_R_DOTTED = re.compile(r"(?<![\w.])(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4})(?![\d.]\d)", _F)

_THIRDS_MONTH = {"early": (1, 10), "mid": (11, 20)}
_THIRDS_YEAR = {"early": (1, 4), "mid": (5, 8), "late": (9, 12)}
_K = {"this": 0, "the": 0, "next": 1, "last": -1}
_NTH = {"first": 0, "second": 1, "third": 2, "fourth": 3}


def _month_of(c: Ctx, m: re.Match[str]) -> tuple[int, int] | None:
    if m["mon"]:
        mo = MONTHS.index(m["mon"].lower()) + 1
        if m["y"]:
            return int(m["y"]), mo
        last = pick_year(c, m.start(), lambda yy: month_last(yy, mo))
        return None if last is None else (last.year, mo)
    return ym_shift(c.base.year, c.base.month, _K[m["k"].lower()])


def _h_part(c: Ctx, m: re.Match[str]) -> Span | None:
    p = m["p"].lower()
    if m["mon"] and not m["mon"][0].isupper() and m["mon"].lower() in ("may", "march", "august"):
        return None  # "late may", "early march" are words
    year = int(m["yy"]) if m["yy"] else None
    if year is None and m["u"] and m["u"].lower() == "year":
        year = c.base.year + _K[m["k"].lower()]
    if year is not None:
        if not 1 <= year <= 9999:
            return None  # "early next year" said in 9999
        m0, m1 = _THIRDS_YEAR[p]
        end = month_last(year, m1)
        return c.span(
            m.start(), m.end(), days_range(date(year, m0, 1), end, c.tz), "month", not m["yy"], prio=3
        )
    ym = _month_of(c, m)
    end = month_last(*ym) if ym else None
    if ym is None or end is None:
        return None
    d0, d1 = _THIRDS_MONTH.get(p, (21, end.day))
    rng = days_range(date(ym[0], ym[1], d0), date(ym[0], ym[1], d1), c.tz)
    return c.span(m.start(), m.end(), rng, "day", not m["y"], prio=3)


def _h_week_of(c: Ctx, m: re.Match[str]) -> Span | None:
    ym = _month_of(c, m)
    end = month_last(*ym) if ym else None
    if ym is None or end is None:
        return None
    n = m["n"].lower()
    d0 = end.day - 6 if n == "last" else 1 + 7 * _NTH[n]
    rng = days_range(date(ym[0], ym[1], d0), date(ym[0], ym[1], min(d0 + 6, end.day)), c.tz)
    return c.span(m.start(), m.end(), rng, "day", not m["y"], prio=3)


def _h_weekend_after_next(c: Ctx, m: re.Match[str]) -> Span | None:
    return c.span(m.start(), m.end(), c.weekend(2), "day")  # "next weekend" is c.weekend(1)


def _h_weekdays_ago(c: Ctx, m: re.Match[str]) -> Span | None:
    """two Fridays ago: the Friday before last (last Friday is one Friday ago)."""
    wd, n = WEEKDAYS.index(m["wd"].lower()), num_value(m["n"])
    last = shift(c.base, -((c.base.weekday() - wd - 1) % 7 + 1))
    return c.day(m.start(), m.end(), shift(last, -7 * (n - 1)))


def _h_dotted(c: Ctx, m: re.Match[str]) -> Span | None:
    d = mkdate(int(m["y"]), int(m["m"]), int(m["d"]))
    return c.day(m.start(), m.end(), d, relative=False)


EN_PART_RULES: tuple[tuple[re.Pattern[str], Callable[[Ctx, re.Match[str]], Span | None]], ...] = (
    (_R_PART, _h_part),
    (_R_WEEK_OF, _h_week_of),
    (_R_WEEKEND_AFTER_NEXT, _h_weekend_after_next),
    (_R_WEEKDAYS_AGO, _h_weekdays_ago),
    (_R_DOTTED, _h_dotted),
)


def en_part_spans(c: Ctx) -> list[Span]:
    """Candidate spans of these rules (timeparse.py adds them to the main rules' before overlaps are resolved)."""
    out = []
    for rx, fn in EN_PART_RULES:
        for m in rx.finditer(c.text):
            sp = fn(c, m)
            if sp is not None:
                out.append(sp)
    return out

"""Recurring times (每周四 / every Thursday / weekdays at 9 / 每月1号) as RFC 5545 RRULE strings (internal module).

A recurrence is a standing rule, not an event: its span is the *first occurrence whose end is at or after the
message time* (so 每周一 said on a Monday morning is today), the rule string goes into ``Span.rec``; the rule is
built here and checked with dateutil's ``rrulestr`` (an invalid rule is never returned). Parts of the day (每周五晚上)
are absorbed into the mention but not into the rule; a clock (每天早上八点) gives BYHOUR/BYMINUTE.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from memscribe.lang.timeparse_en import Ctx, Span, wall

__all__ = [
    "EN_REC",
    "ZH_REC",
    "build_rule",
    "en_recurrence",
    "first_occurrence",
    "standing",
    "timed_span",
    "zh_recurrence",
]

_BYDAY = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")


def build_rule(
    freq: str,
    *,
    interval: int = 1,
    bymonth: int | None = None,
    bymonthday: int | None = None,
    byday: tuple[int, ...] = (),
    byhour: int | None = None,
    byminute: int | None = None,
    nth: int | None = None,
) -> str | None:
    """'FREQ=WEEKLY;BYDAY=TH' (parts in a fixed order; ``nth`` the day's place in the month: 'BYDAY=2WE', the last
    'BYDAY=-1FR'); None when dateutil rejects the rule."""
    from dateutil.rrule import rrulestr

    parts = [f"FREQ={freq}"]
    if interval != 1:
        parts.append(f"INTERVAL={interval}")
    if bymonth is not None:
        parts.append(f"BYMONTH={bymonth}")
    if bymonthday is not None:
        parts.append(f"BYMONTHDAY={bymonthday}")
    if byday:
        place = str(nth) if nth else ""
        parts.append("BYDAY=" + ",".join(place + _BYDAY[i] for i in sorted(set(byday))))
    if byhour is not None:
        parts.append(f"BYHOUR={byhour}")
        parts.append(f"BYMINUTE={byminute or 0}")
    rule = ";".join(parts)
    try:
        rrulestr(rule, dtstart=datetime(2000, 1, 1))
    except (ValueError, TypeError):
        return None
    return rule


def first_occurrence(rule: str, at: datetime, timed: bool) -> tuple[datetime, datetime] | None:
    """(start, inclusive end) of the first occurrence whose end is at or after ``at``. Occurrences are computed on
    ``at``'s wall clock in its tzinfo (a ZoneInfo keeps 09:00 at 09:00 across a DST change)."""
    from dateutil.rrule import rrulestr

    start = wall(at.date(), at.tzinfo)  # type: ignore[arg-type]
    rr = rrulestr(rule, dtstart=start.replace(tzinfo=None))
    weekend = "BYDAY=SA,SU" in rule and not timed
    for naive in rr.xafter(start.replace(tzinfo=None) - timedelta(days=1), count=800, inc=True):
        t0 = naive.replace(tzinfo=at.tzinfo)
        if weekend and t0.weekday() == 6:
            t0 -= timedelta(days=1)  # Sunday of a weekend already under way: the block starts on Saturday
        if timed:
            t1 = t0.replace(second=59) if t0.minute else t0.replace(minute=59, second=59)
        else:
            t1 = wall((t0 + timedelta(days=1 if weekend else 0)).date(), at.tzinfo, 23, 59, 59)  # type: ignore[arg-type]
        if t1 >= at:
            return t0, t1
    return None


def _span(c: Ctx, a: int, b: int, rule: str | None, timed: bool) -> Span | None:
    if rule is None:
        return None
    occ = first_occurrence(rule, c.at, timed)
    if occ is None:
        return None
    t0, t1 = occ
    gran = ("minute" if t0.minute else "hour") if timed else "day"
    return Span(a, b, t0, t1, gran, True, rec=rule)


def _hour(h: int, pod: str | None, pm_words: frozenset[str]) -> int:
    if pod in pm_words and h < 12:
        return h + 12
    if pod is None and 1 <= h <= 7:
        return h + 12  # the clock convention: 1..7 without a part of day is afternoon
    return h


# ---------------------------------------------------------------- Chinese
_ZN = r"[0-9]{1,2}|[零〇一二两三四五六七八九十]{1,3}"
_ZWD = r"[一二三四五六日天1-7]"
ZH_REC = re.compile(
    r"(?:(?P<every>每(?:个|一)?(?:(?P<iv>两|隔一|隔)个?)?)(?:周|星期|礼拜)(?:的?(?:周|星期|礼拜))?"
    rf"(?P<days>{_ZWD}(?:[、,，和及与]?(?:周|星期|礼拜)?{_ZWD})*)?(?P<we>末)?"
    r"|(?P<daily>每(?:一)?天|每日|每个?晚上|每个?早上)"
    rf"|每个?月的?(?:第(?P<zn>[一二三四1-4])个|(?P<zlast>最后一个))(?:周|星期|礼拜)(?P<zwd>{_ZWD})"
    rf"|每个?月的?(?:(?P<md>{_ZN})[号日]|(?P<me>底|末))"
    rf"|每年的?(?P<ym>{_ZN})月(?P<yd>{_ZN})[日号]"
    r"|(?P<wk>工作日|周一到周五|周一至周五))"
    r"(?:的?(?P<pod>凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里))?"
    rf"(?:(?P<h>{_ZN})[点时](?:(?P<half>半)|(?P<mi>[0-9]{{1,2}}|[一二三四五]?十[一二三四五六七八九]?)分?)?)?"
)
_ZPM = frozenset({"下午", "傍晚", "晚上", "夜里"})


def _zwd(ch: str) -> int:
    return 6 if ch in "日天" else (int(ch) - 1 if ch.isascii() else "一二三四五六".index(ch))


def zh_recurrence(c: Ctx, m: re.Match[str]) -> Span | None:
    from memscribe.lang.timeparse_zh import zh_int

    hour = minute = None
    if m["h"]:
        h = zh_int(m["h"])
        if h is None or h > 23:
            return None
        pod = m["pod"] or ("晚上" if m["daily"] and "晚" in m["daily"] else None)
        if m["daily"] and "早" in m["daily"]:
            pod = pod or "早上"
        hour = _hour(h, pod, _ZPM)
        minute = 30 if m["half"] else (zh_int(m["mi"]) if m["mi"] else 0)
        if hour > 23 or minute is None or minute > 59:
            return None
    timed = hour is not None
    kw = {"byhour": hour, "byminute": minute}
    if m["every"] is not None:
        iv = 2 if m["iv"] else 1
        if m["we"]:
            rule = build_rule("WEEKLY", interval=iv, byday=(5, 6))
            timed = False
        elif m["days"]:
            days = tuple(_zwd(ch) for ch in re.findall(_ZWD, m["days"]))
            rule = build_rule("WEEKLY", interval=iv, byday=days, **kw)  # type: ignore[arg-type]
        else:
            return None  # 每周 alone: no day to anchor
    elif m["daily"]:
        rule = build_rule("DAILY", **kw)  # type: ignore[arg-type]
    elif m["zwd"]:
        # 每月第二个周三, 每个月最后一个周五: the day's place in the month
        nth = -1 if m["zlast"] else zh_int(m["zn"])
        rule = build_rule("MONTHLY", byday=(_zwd(m["zwd"]),), nth=nth, **kw)  # type: ignore[arg-type]
    elif m["md"] or m["me"]:
        d = -1 if m["me"] else zh_int(m["md"])
        if d is None or not (d == -1 or 1 <= d <= 31):
            return None
        rule = build_rule("MONTHLY", bymonthday=d, **kw)  # type: ignore[arg-type]
    elif m["ym"]:
        mo, d = zh_int(m["ym"]), zh_int(m["yd"])
        if mo is None or d is None:
            return None
        rule = build_rule("YEARLY", bymonth=mo, bymonthday=d, **kw)  # type: ignore[arg-type]
    else:
        rule = build_rule("WEEKLY", byday=(0, 1, 2, 3, 4), **kw)  # type: ignore[arg-type]
    return _span(c, m.start(), m.end(), rule, timed)


# ---------------------------------------------------------------- English
_WDN = (
    r"mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:rs?(?:day)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?"
)
_WDP = r"mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays"
_MON = r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
_NTH = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "last": -1}
EN_REC = re.compile(
    # "the first Wednesday of every month", "the last Friday of each month": the day's place in the month ("the
    # last Sunday of the month" is this month's)
    rf"\b(?:(?:the\s+)?(?P<nth>first|1st|second|2nd|third|3rd|fourth|4th|last)\s+(?P<nwd>{_WDN})s?\s+of\s+"
    r"(?:every|each)\s+month\b"
    rf"|(?:every|each)\s+(?P<other>other\s+)?(?P<days>(?:{_WDN})(?:\s*(?:,|and|&)\s*(?:{_WDN}))*)\b"
    rf"|(?:on\s+)?(?P<pl>(?:{_WDP})(?:\s*(?:,|and|&)\s*(?:{_WDP}))*)\b"
    # "on Tuesday and Thursday evenings", "Saturday mornings": a part of the day in the plural repeats
    rf"|(?:on\s+)?(?P<dpl>(?:{_WDN})(?:\s*(?:,|and|&)\s*(?:{_WDN}))*)\s+(?P<ppod>morning|afternoon|evening|night)s\b"
    r"|(?P<wkd>(?:every|each)\s+weekday|(?:on\s+)?weekdays)\b"
    r"|(?P<we>(?:every|each)\s+weekends?|(?:on\s+)?weekends)\b"
    r"|(?P<daily>every\s+day|each\s+day|daily|every\s+(?:morning|evening|night|afternoon))\b"
    r"|every\s+month\s+on\s+the\s+(?P<md>\d{1,2})(?:st|nd|rd|th)\b"
    r"|on\s+the\s+(?P<md2>\d{1,2})(?:st|nd|rd|th)\s+of\s+(?:every|each)\s+month\b"
    rf"|every\s+year\s+on\s+(?P<mon>{_MON})\.?\s+(?P<yd>\d{{1,2}})(?:st|nd|rd|th)?\b)"
    r"(?:\s+(?P<pod>morning|afternoon|evening|night))?"
    r"(?:\s*(?:at|@)\s*(?P<h>\d{1,2})(?:[:.](?P<mi>[0-5]\d))?(?:\s*(?P<ap>[ap])(?:\.m\b\.?|m\b))?)?",
    re.I,
)
_EPM = frozenset({"afternoon", "evening", "night"})
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _ewd(w: str) -> int:
    return ("mon", "tue", "wed", "thu", "fri", "sat", "sun").index(w.lower()[:3])


def en_recurrence(c: Ctx, m: re.Match[str]) -> Span | None:
    hour = minute = None
    if m["h"]:
        h, mi = int(m["h"]), int(m["mi"] or 0)
        pod = (
            m["pod"]
            or m["ppod"]
            or (m["daily"].split()[-1] if m["daily"] and m["daily"].lower().startswith("every ") else None)
        )
        pod = pod.lower() if pod else None
        if m["ap"]:
            if not 1 <= h <= 12:
                return None
            hour = h % 12 + (12 if m["ap"].lower() == "p" else 0)
        else:
            hour = _hour(h, pod, _EPM)
        minute = mi
        if hour > 23:
            return None
    end = m.end() if m["h"] else m.end("pod") if m["pod"] else m.end()
    if m["days"] and re.fullmatch(r"(?i)sat|sun|wed|mon|fri", m["days"]) and m["days"].islower():
        return None  # "every sat" is rare; "each wed" looks like a typo
    if (
        m["daily"]
        and m["daily"].lower() == "daily"
        and not m["h"]
        and re.match(r"\s+[a-z]", c.text[m.end() :], re.I)
    ):
        return None  # "a daily newspaper": an adjective
    if (m["we"] or m["pl"]) and re.match(r"\s+(?:ago|before|earlier|later)\b", c.text[m.end() :], re.I):
        return None  # "two weekends ago" counts weekends, it names no rule
    kw = {"byhour": hour, "byminute": minute}
    timed = hour is not None
    if m["nwd"]:
        rule = build_rule("MONTHLY", byday=(_ewd(m["nwd"]),), nth=_NTH[m["nth"].lower()], **kw)  # type: ignore[arg-type]
    elif m["days"] or m["pl"] or m["dpl"]:
        said = m["days"] or m["pl"] or m["dpl"]
        names = re.findall(_WDP if m["pl"] else _WDN, said, re.I)
        rule = build_rule(
            "WEEKLY", interval=2 if m["other"] else 1, byday=tuple(_ewd(w) for w in names), **kw
        )  # type: ignore[arg-type]
    elif m["wkd"]:
        rule = build_rule("WEEKLY", byday=(0, 1, 2, 3, 4), **kw)  # type: ignore[arg-type]
    elif m["we"]:
        rule, timed = build_rule("WEEKLY", byday=(5, 6)), False
    elif m["daily"]:
        rule = build_rule("DAILY", **kw)  # type: ignore[arg-type]
    elif m["md"] or m["md2"]:
        rule = build_rule("MONTHLY", bymonthday=int(m["md"] or m["md2"]), **kw)  # type: ignore[arg-type]
    else:
        rule = build_rule(
            "YEARLY",
            bymonth=_MONTHS.index(m["mon"].lower()[:3]) + 1,
            bymonthday=int(m["yd"]),
            **kw,  # type: ignore[arg-type]
        )
    return _span(c, m.start(), end, rule, timed)


# ---------------------------------------------------------------- standing rules said with a bare day
_STANDING_ZH = re.compile(
    r"一般|通常|总是|经常|常[来去在]|平时|向来|习惯|别|不要|不用|不[上去做工见接开看回处加碰]|都[会要去在]|喜欢|从不"
)
_TENSE_ZH = re.compile(r"了|过(?!节)|打算|准备|将要|这个?周|下个?周")
_STANDING_EN = re.compile(r"\b(?:usually|always|normally|typically|generally|never)\b", re.I)


def timed_span(c: Ctx, sp: Span, rule: str | None) -> Span | None:
    """``sp``'s place in the text with the timed rule ``rule`` (checked with dateutil) and its first occurrence."""
    from dateutil.rrule import rrulestr

    if rule is None:
        return None
    try:
        rrulestr(rule, dtstart=datetime(2000, 1, 1))
    except (ValueError, TypeError):
        return None
    return _span(c, sp.start, sp.end, rule, True)


def standing(c: Ctx, sp: Span) -> Span | None:
    """A bare weekday / 周末 in a standing sentence (周末别打扰我, 我周末不上班, I usually ... on Friday) is a rule; a
    clock said with it (周五下午三点以后我不上班) is the rule's BYHOUR, a part of the day alone (周五晚上) is not."""
    lo, hi = c.sentence(sp.start)
    s = c.text[lo:hi]
    cjk = re.search(r"[\u4e00-\u9fff]", c.text[sp.start : sp.end]) is not None
    if cjk:
        if not _STANDING_ZH.search(s) or _TENSE_ZH.search(s):
            return None
    elif not _STANDING_EN.search(s):
        return None
    clock = sp.gran in ("hour", "minute") and sp.t1 - sp.t0 < timedelta(hours=1)
    if clock:
        rule = build_rule("WEEKLY", byday=sp.wd, byhour=sp.t0.hour, byminute=sp.t0.minute)
        return _span(c, sp.start, sp.end, rule, True) if rule else None
    rule = build_rule("WEEKLY", byday=sp.wd)
    return _span(c, sp.start, sp.end, rule, False) if rule else None

"""Resolve time expressions (Chinese and English) to absolute, timezone-aware times, with grain and recurrence.

``resolve_times(text, at)`` finds time expressions and resolves them against ``at`` (naive -> UTC); every datetime
it returns is in ``at``'s tzinfo and uses ``at``'s wall clock (the process TZ never matters; a ZoneInfo ``at`` keeps
wall-clock arithmetic DST-correct, elapsed hours are counted in UTC).

* Chinese: own rules in :mod:`memscribe.lang.timeparse_zh` (Simplified, Traditional and common Cantonese forms,
  Chinese and Arabic numerals, lunar dates and festivals); no jionlp on this path.
* English: :mod:`memscribe.lang.timeparse_en`; holidays in :mod:`memscribe.lang.timeparse_holidays`; recurrences
  (RFC 5545 RRULE strings) in :mod:`memscribe.lang.timeparse_rec`.
* A clock next to a date joins it ("tomorrow at 2pm", "明早八点" -> one mention); a clock elsewhere takes the date of
  the nearest earlier single-day mention ("7月10号的机票，早上八点的航班"), else ``at``'s date. Two mentions joined
  by 到 / 至 / to / through / - become one range (6月3日到5日, from 3 to 5 August is its own rule).
* The conventions (bare weekdays, parts of day, two-digit years, next week on a Sunday ...) are product decisions,
  written down in ``docs/time-conventions.md`` and tested in ``tests/unit/test_time_conventions.py``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Literal

from memscribe.lang.timeparse_anchor import anchored
from memscribe.lang.timeparse_en import (
    AM_WORDS,
    PM_WORDS,
    Ctx,
    Granularity,
    Span,
    add,
    en_spans,
    mkdate,
    shift,
    wall,
)
from memscribe.lang.timeparse_en_parts import en_part_spans
from memscribe.lang.timeparse_rec import standing
from memscribe.lang.timeparse_zh import normalize, zh_spans
from memscribe.lang.timeparse_zh_month import month_parts

__all__ = [
    "Granularity",
    "TimeMention",
    "is_return",
    "iso",
    "primary_time",
    "resolve_times",
    "rewrite_with_absolute",
]


@dataclass(frozen=True, slots=True)
class TimeMention:
    text: str  # the expression as written
    start: int  # char offsets into the input: text == input[start:end]
    end: int
    time_start: datetime  # tz-aware, in the tz of `at`; for a recurrence its first occurrence
    time_end: datetime  # inclusive end of the period (a day -> 23:59:59; a clock range -> its end clock)
    granularity: Granularity
    relative: bool  # resolved relative to `at` (明天, next Monday, last week); False for explicit dates
    recurrence: str | None = None  # RFC 5545 RRULE ("FREQ=WEEKLY;BYDAY=TH") of a standing rule

    @property
    def grain(self) -> Granularity:
        return self.granularity


_GRAN_RANK = {"minute": 0, "hour": 1, "day": 2, "week": 3, "month": 4, "quarter": 5, "year": 6}
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]")


# ---------------------------------------------------------------- combining candidates
_GAP = re.compile(r"[\s,，]*(?:的|T|on|,)?\s*", re.I)


def _dedupe(spans: list[Span]) -> list[Span]:
    """Keep the longest of overlapping candidates (ties: higher prio), in text order."""
    kept: list[Span] = []
    for s in sorted(spans, key=lambda s: (s.start - s.end, -s.prio, s.start)):
        if all(s.end <= k.start or s.start >= k.end for k in kept):
            kept.append(s)
    return sorted(kept, key=lambda s: (s.start, s.end))


def _place(tod: Span, on: Span, start: int, end: int, pod: str | None) -> Span | None:
    """The time of day of ``tod`` on the date of ``on`` (the next day for midnight)."""
    d = shift(on.t0.date(), tod.dayoff)
    if d is None:
        return None
    t0 = wall(d, tod.t0.tzinfo, tod.t0.hour, tod.t0.minute, tod.t0.second)  # type: ignore[arg-type]
    t1 = add(t0, tod.t1 - tod.t0)
    if t1 is None:
        return None
    # a bare weekday keeps its flag: "周五下午三点以后我不上班" may still turn out to be a standing rule
    return Span(
        start,
        end,
        t0,
        t1,
        tod.gran,
        on.relative,
        known=tod.known,
        pod=pod,
        rec=on.rec,
        bare=on.bare,
        wd=on.wd,
    )


def _datey(s: Span) -> bool:
    """A single day (or a part of one) that a clock can attach to."""
    return (
        not s.tod
        and s.rec is None
        and s.t0.date() == s.t1.date()
        and (s.gran == "day" or (s.gran == "hour" and s.pod is not None))
    )


def _attach(c: Ctx, spans: list[Span]) -> list[Span]:
    joined: list[Span] = []
    i = 0
    while i < len(spans):
        s = spans[i]
        if i + 1 < len(spans) and _GAP.fullmatch(c.text, s.end, spans[i + 1].start):
            n = spans[i + 1]
            pair = (s, n) if _datey(s) and n.tod else (n, s) if s.tod and _datey(n) else None
            if pair is not None and not (pair[0].gran == "hour" and pair[1].weak == 1):
                merged = _place(pair[1], pair[0], s.start, n.end, pair[1].pod or pair[0].pod)
                if merged is not None:
                    joined.append(merged)
                    i += 2
                    continue
        joined.append(s)
        i += 1
    out: list[Span] = []
    for s in joined:
        if s.tod:
            prev = next((p for p in reversed(out) if p.t0.date() == p.t1.date() and p.rec is None), None)
            if (prev is None or c.sentence(prev.start) != c.sentence(s.start)) and rule_clock(c, s, joined):
                out.append(replace(s, ruled=True))  # "I never take calls after 10pm": a rule's clock
                continue
            if prev is None and (s.weak or c.habitual(s.start)):
                continue  # "at 5" / 下午 alone, "I usually wake up at 7am"
            if prev is not None:
                if s.weak == 2:
                    continue
                s = _place(s, prev, s.start, s.end, s.pod)  # type: ignore[assignment]
                if s is None:
                    continue
        out.append(s)
    return out


_ZH_TO = re.compile(r"\s*(?:到|至|-|~|～|—|－)\s*")
_EN_TO = re.compile(r"\s*(?:-|–|—|to|through|thru|until|till)\s*", re.I)
_EN_FROM = re.compile(r"\b(?:from|between)\s+$", re.I)
_EN_AND = re.compile(r"\s+and\s+", re.I)


def _fit_end(c: Ctx, x: Span, y: Span) -> Span | None:
    """The second end of a range, read in the first one's context: 5日 in 6月3日到5日 is June's, 四点 in
    下午两点到四点 is pm, 周三 in 周五到周三 is the following week's, 12月31号 in 明年1月1号到12月31号 is 明年's."""
    if y.part == "md" and x.gran == "day":
        d = mkdate(x.t0.year, y.t0.month, y.t0.day)
        if d is not None and d < x.t0.date():
            d = mkdate(x.t0.year + 1, y.t0.month, y.t0.day)
        return None if d is None else replace(y, t0=wall(d, c.tz), t1=wall(d, c.tz, 23, 59, 59))
    if y.part == "dom" and x.gran == "day":
        d = mkdate(x.t0.year, x.t0.month, y.t0.day)
        return None if d is None else replace(y, t0=wall(d, c.tz), t1=wall(d, c.tz, 23, 59, 59))
    if y.part == "mon" and x.gran == "month":
        d0, d1 = mkdate(x.t0.year, y.t0.month, 1), mkdate(x.t0.year, y.t1.month, y.t1.day)
        return (
            None if d0 is None or d1 is None else replace(y, t0=wall(d0, c.tz), t1=wall(d1, c.tz, 23, 59, 59))
        )
    if y.tod and x.gran in ("hour", "minute"):
        t0 = wall(x.t0.date(), c.tz, y.t0.hour, y.t0.minute)
        if t0 <= x.t0 and not y.known and (t12 := add(t0, timedelta(hours=12))) is not None and t12 > x.t0:
            t0 = t12
        if t0 <= x.t0 and (t24 := add(t0, timedelta(days=1))) is not None:
            t0 = t24  # 晚上11点到凌晨1点: the end is the next day's
        return replace(y, t0=t0, t1=t0, tod=False)
    if y.gran == x.gran == "day" and y.t0 < x.t0 and y.bare:
        t0, t1 = add(y.t0, timedelta(days=7)), add(y.t1, timedelta(days=7))
        return None if t0 is None or t1 is None else replace(y, t0=t0, t1=t1)
    return y


def _ranges(c: Ctx, spans: list[Span]) -> list[Span]:
    """X 到 Y / from X to Y / between X and Y -> one span from X's start to Y's end."""
    out: list[Span] = []
    i = 0
    while i < len(spans):
        x = spans[i]
        if i + 1 < len(spans) and (x.rec is None or x.gran in ("hour", "minute")):
            y = spans[i + 1]
            gap = c.text[x.end : y.start]
            zh = _ZH_TO.fullmatch(gap) is not None and (_CJK.search(c.text[x.start : y.end]) is not None)
            en = _EN_TO.fullmatch(gap) is not None and (
                _EN_FROM.search(c.text, max(0, x.start - 8), x.start) is not None
                or gap.strip() in ("-", "–", "through", "thru")
            )
            en = en or (
                _EN_AND.fullmatch(gap) is not None and _EN_FROM.search(c.text, max(0, x.start - 8), x.start)
            )
            if (zh or en) and y.rec is None and not (x.tod and not y.tod):
                y2 = _fit_end(c, x, y)
                if y2 is not None and y2.t1 >= x.t0 and (x.gran == y2.gran or y.tod or y.part):
                    start = x.start
                    if en and (f := _EN_FROM.search(c.text, max(0, x.start - 8), x.start)):
                        start = f.start()
                    out.append(
                        replace(x, start=start, end=y.end, t1=y2.t1 if not y.tod else y2.t0, tod=x.tod)
                    )
                    i += 2
                    continue
        out.append(x)
        i += 1
    return out


_WD_AFTER_DATE = re.compile(r"\s*[（(]?\s*")
_WD_BEFORE_DATE = re.compile(r"\s*[,，、]?\s*")
_WD_CLOSE = re.compile(r"\s*[）)]")


def _one_weekday_and_a_date(wd: Span, d: Span) -> bool:
    """A bare single weekday and a written (not relative) single day: a weekday said with its date."""
    return (
        wd.bare
        and len(wd.wd) == 1
        and wd.gran == "day"
        and d.gran == "day"
        and d.t0.date() == d.t1.date()
        and not d.relative
    )


def _absorb_weekdays(c: Ctx, spans: list[Span]) -> list[Span]:
    """A weekday said with its date (10月17日（周四）, 12月8号周日, 周四，11月14日, Tue, Oct 13 is the date rule's)
    belongs to the date: it must not become a day of its own that a following clock attaches to. The date
    decides; the weekday is not checked against it."""
    out: list[Span] = []
    for s in spans:
        p = out[-1] if out else None
        if (
            p is not None
            and _one_weekday_and_a_date(p, s)
            and _WD_BEFORE_DATE.fullmatch(c.text, p.end, s.start)
        ):
            out[-1] = replace(s, start=p.start)
            continue
        if (
            p is not None
            and _one_weekday_and_a_date(s, p)
            and _WD_AFTER_DATE.fullmatch(c.text, p.end, s.start)
        ):
            close = _WD_CLOSE.match(c.text, s.end)
            out[-1] = replace(p, end=close.end() if close else s.end)
            continue
        out.append(s)
    return out


# a clock said in a standing rule, not of one day: a habit word (平时 / usually / never ...) or a negated or forbidden
# act (我晚上十点以后不接电话, 晚上十点后不要给我发消息, I don't answer email after 6 pm, no calls before 10am)
# habit words beyond Ctx.habitual's (timeparse_en.HABIT): a standing "never" and its kin
_RULE_HABIT_MORE = re.compile(r"向来|习惯|从不|从来不|天天|\b(?:never|nightly|daily)\b", re.I)
_RULE_NEG_ZH = re.compile(r"别|不要|不许|不准|勿|不[接看回开上吃喝去做见处用打发理加碰在想让]")
_RULE_TENSE_ZH = re.compile(r"了|过(?!节)|打算|准备|将要|这个?周|下个?周|今|明|昨|后天|前天")
_RULE_NEG_EN = re.compile(
    r"\b(?:don['’]?t|do not|doesn['’]?t|does not)\b"
    r"|\bno\s+(?:calls?|meetings?|messages?|texts?|e-?mails?|work|bookings?|visitors?|noise|contact|screens?)\b",
    re.I,
)


def _one_clock(s: Span) -> bool:
    """A clock (十点, 10pm, from 12 to 1), not a part of the day alone (晚上, morning: hours long)."""
    return s.gran in ("hour", "minute") and (s.t1 - s.t0 < timedelta(hours=1) or s.t1.second == 0)


def _host(c: Ctx, k: Span, spans: Sequence[Span]) -> Span | None:
    """The recurrence without a clock said in the same sentence as clock ``k`` ("before 10am on Mondays")."""
    sent = c.sentence(k.start)
    return next(
        (r for r in spans if r.rec and "BYHOUR" not in r.rec and c.sentence(r.start) == sent and r is not k),
        None,
    )


def rule_clock(c: Ctx, s: Span, spans: Sequence[Span]) -> bool:
    """Is the dateless clock ``s`` part of a standing rule? It is when its sentence holds a recurrence without a
    clock (before 9 on weekdays), a habit word, or — for a clock said in full, not a bare "at 5" — a negated or
    forbidden act, with no tense or day word that makes it one occasion."""
    if not _one_clock(s):
        return False
    if _host(c, s, spans) is not None:
        return True
    lo, hi = c.sentence(s.start)
    sent = c.text[lo:hi]
    if _CJK.search(c.text[s.start : s.end]):
        if c.habitual(s.start) or _RULE_HABIT_MORE.search(sent):
            return True
        return not s.weak and bool(_RULE_NEG_ZH.search(sent)) and not _RULE_TENSE_ZH.search(sent)
    if c.tense(s.start) != 0:
        return False  # "I never went to bed before 2am", "I won't be home before 7pm"
    habit = c.habitual(s.start) or bool(_RULE_HABIT_MORE.search(sent))
    return habit or (not s.weak and bool(_RULE_NEG_EN.search(sent)))


def _clock_rules(c: Ctx, spans: list[Span]) -> list[Span]:
    """Each rule's clock becomes BYHOUR/BYMINUTE: of the recurrence said beside it (the recurrence's mention then
    carries the timed rule and the clock's own mention goes), else of a daily rule at its place."""
    from memscribe.lang.timeparse_rec import build_rule, timed_span

    out = list(spans)
    for k in [s for s in spans if s.ruled]:
        host = _host(c, k, out)
        i = out.index(k)
        base = host.rec if host is not None else build_rule("DAILY")
        rule = f"{base};BYHOUR={k.t0.hour};BYMINUTE={k.t0.minute}" if base else None
        sp = timed_span(c, host or k, rule)
        if sp is None:
            out[i] = replace(k, ruled=False)
        elif host is not None:
            out[out.index(host)] = sp
            del out[i]
        else:
            out[i] = sp
    return out


def _standing(c: Ctx, spans: list[Span]) -> list[Span]:
    out = []
    for s in spans:
        if s.bare and s.wd and s.rec is None:
            r = standing(c, s)
            if r is not None:
                s = r
        out.append(s)
    return out


_PM_CONTEXT = re.compile(
    r"\b(?:night|evening|tonight|dinner|supper|drinks|party)\b|晚饭|晚餐|夜宵|晚会", re.I
)
_AM_CONTEXT = re.compile(r"\b(?:morning|breakfast|a\.?m)\b|早饭|早餐|早上|上午", re.I)


def _finish(c: Ctx, spans: list[Span]) -> list[Span]:
    """Clocks without am/pm: 'at 5' / 三点 -> 17:00 / 15:00, '8 tonight' -> 20:00; a clock in a sentence about the
    evening ("game night ... at 8", 晚饭八点) is pm."""
    out = []
    for s in spans:
        if s.gran in ("hour", "minute") and not s.known and s.rec is None:
            h = s.t0.hour
            lo, hi = c.sentence(s.start)
            ctx_pm = (
                s.pod is None
                and h < 12
                and _PM_CONTEXT.search(c.text, lo, hi)
                and not _AM_CONTEXT.search(c.text, lo, hi)
            )
            if (s.pod in PM_WORDS and h < 12) or ctx_pm or (s.pod not in AM_WORDS and 1 <= h <= 7):
                t0, t1 = add(s.t0, timedelta(hours=12)), add(s.t1, timedelta(hours=12))
                if t0 is None or t1 is None:
                    continue
                s = replace(s, t0=t0, t1=t1)
        out.append(s)
    return out


# ---------------------------------------------------------------- public API
def resolve_times(text: str, at: datetime, lang: Literal["zh", "en"] | None = None) -> list[TimeMention]:
    """All time expressions in ``text`` resolved against ``at`` — see :func:`_resolve_times`. Cached: the
    filter and the encoder both ask about the same message."""
    if lang not in (None, "zh", "en"):
        raise ValueError(f"unsupported lang: {lang!r}")
    return list(_resolve_cached(text, at, lang))


@lru_cache(maxsize=512)
def _resolve_cached(text: str, at: datetime, lang: Literal["zh", "en"] | None) -> tuple[TimeMention, ...]:
    return tuple(_resolve_times(text, at, lang))


def _resolve_times(text: str, at: datetime, lang: Literal["zh", "en"] | None = None) -> list[TimeMention]:
    """All time expressions in ``text`` resolved against ``at`` (tz-aware; naive is treated as UTC).

    ``lang`` None detects: any CJK character -> Chinese rules plus English rules (which only match ASCII words);
    "zh" forces both, "en" English only. Results are sorted by position and never overlap.
    """
    if lang not in (None, "zh", "en"):
        raise ValueError(f"unsupported lang: {lang!r}")
    if at.tzinfo is None or at.utcoffset() is None:
        at = at.replace(tzinfo=UTC)
    c = Ctx(text, at)
    spans: list[Span] = []
    if lang == "zh" or (lang is None and _CJK.search(text)):
        spans += zh_spans(c) + month_parts(c, normalize(text))
    spans += en_spans(c) + en_part_spans(c)
    return [
        TimeMention(text[s.start : s.end], s.start, s.end, s.t0, s.t1, s.gran, s.relative, s.rec)
        for s in _clock_rules(
            c,
            _standing(
                c, _finish(c, _attach(c, _ranges(c, anchored(c, _absorb_weekdays(c, _dedupe(spans))))))
            ),
        )
        if s.t0 <= s.t1
    ]


# "..., back monday night" / "周五回来" / "returning on the 9th": the day a trip ends, not the day it is about
_RETURN_BEFORE = re.compile(r"(?i)\b(?:back|return(?:ing)?|fly(?:ing)? back|home)\s+(?:on\s+|by\s+)?$")
_RETURN_AFTER = re.compile(r"^\s*(?:回来|回家|回程|返回|返程|回)")


def is_return(text: str, m: TimeMention) -> bool:
    """The mention is the day a trip ends ("周五回来", "back monday night"), not what the sentence is about."""
    return bool(
        _RETURN_BEFORE.search(text[max(0, m.start - 24) : m.start]) or _RETURN_AFTER.match(text[m.end :])
    )


def primary_time(mentions: Sequence[TimeMention], text: str | None = None) -> TimeMention | None:
    """The mention a memory is 'about': the finest granularity, then the earliest in the text. Given the text, a
    trip's return ("back monday night", "周五回来") is passed over while another mention is left."""
    pool = list(mentions)
    if text is not None and len(pool) > 1:
        pool = [m for m in pool if not is_return(text, m)] or pool
    return min(pool, key=lambda m: (_GRAN_RANK[m.granularity], m.start), default=None)


def iso(dt: datetime, granularity: Granularity) -> str:
    """'2026-06-17' (day/week), '2026-06' (month/quarter: its first month), '2026' (year), '2026-06-16T15:00'."""
    d = f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}"
    if granularity in ("hour", "minute"):
        return f"{d}T{dt.hour:02d}:{dt.minute:02d}"
    return d[:7] if granularity in ("month", "quarter") else d[:4] if granularity == "year" else d


def _single(m: TimeMention) -> bool:
    a, b, g = m.time_start, m.time_end, m.granularity
    if g in ("minute", "hour"):
        return b - a < (timedelta(minutes=1) if g == "minute" else timedelta(hours=1))
    if g == "day":
        return a.date() == b.date()
    if g == "month":
        return (a.year, a.month) == (b.year, b.month)
    return g == "year" and a.year == b.year  # a week is always rendered as a range


_ZH_POD = re.compile(r"凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜间|半夜|[早晚晨夜]")
_ZH_POD_FULL = {"早": "早上", "晨": "早上", "晚": "晚上", "夜": "夜里"}
_EN_POD = re.compile(r"morning|afternoon|evening|night", re.I)
_PREP_END = re.compile(
    r"\b(?:on|since|until|till|by|before|after|from|to|of|for|in|at|during|through|around)\s+$", re.I
)
_PREP_START = re.compile(r"(?:on|over|during|for|at|in|by|around|@)\s", re.I)


_ZH_SEASON = re.compile(r"([春夏秋冬])[天季]")
_EN_SEASON = re.compile(r"\b(spring|summer|fall|autumn|winter)\b", re.I)


def _render_zh(m: TimeMention) -> str:
    g, a, b = m.granularity, m.time_start, m.time_end
    if (season := _ZH_SEASON.search(m.text)) is not None and g == "month":  # 去年夏天 -> 2025年夏天
        return f"{a.year}年{season.group(1)}天"
    if _single(m):
        # a bare "2025" in a Chinese sentence reads as a number: 去年 -> 2025年
        return iso(a, g) + ("年" if g == "year" else "")
    pod = _ZH_POD.search(m.text)
    if g == "hour" and pod and a.date() == b.date():  # 明天下午 -> 2026-06-09下午
        return iso(a, "day") + _ZH_POD_FULL.get(pod.group(), pod.group())
    g = "day" if g == "week" else g
    if g in ("hour", "minute") and a.date() == b.date():  # 10点到12点 -> 2026-06-08T10:00至12:00
        return f"{iso(a, g)}至{b.hour:02d}:{b.minute:02d}"
    return f"{iso(a, g)}至{iso(b, g)}"


def _render_en(text: str, m: TimeMention) -> str:
    g, a, b = m.granularity, m.time_start, m.time_end
    pod = _EN_POD.search(m.text)
    season = _EN_SEASON.search(m.text) if g == "month" else None
    if season is not None:  # last summer -> in the summer of 2022 (the season word is what people ask about)
        body, prep = f"the {season.group(1).lower()} of {a.year}", "in"
    elif _single(m):
        body = f"{iso(a, 'day')} {a.hour:02d}:{a.minute:02d}" if g in ("hour", "minute") else iso(a, g)
        prep = "on" if g in ("day", "hour", "minute") else "in"
    elif g == "hour" and pod and a.date() == b.date():
        body, prep = f"the {pod.group().lower()} of {iso(a, 'day')}", "on"
    elif g == "week":
        body, prep = f"the week of {iso(a, 'day')}", "in"
    elif (
        g in ("hour", "minute") and a.date() == b.date()
    ):  # 6-7 am on Wednesday -> on 2026-03-11 06:00 to 07:00
        body, prep = f"{iso(a, 'day')} {a.hour:02d}:{a.minute:02d} to {b.hour:02d}:{b.minute:02d}", "on"
    else:
        body, prep = f"{iso(a, g)} to {iso(b, g)}", "from"
    if _PREP_START.match(m.text) or not _PREP_END.search(text, max(0, m.start - 16), m.start):
        body = f"{prep} {body}"
    before = text[: m.start].rstrip()
    if m.text[:1].isupper() and (not before or before[-1] in ".!?\n"):
        body = body[0].upper() + body[1:]
    return body


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _calendar_date(m: TimeMention) -> bool:
    """An explicit date of a day or days written in words ("November 7th to 9th", "2025年2月17日", "1月21日"):
    the canonical sentence writes it in ISO like a resolved relative one (the year a bare "7 November" left
    implicit is then said, and one form serves every language). A clock stays as written ("at 4:40 pm"), and
    so do months and years ("in May", "2023")."""
    return m.granularity in ("day", "week") and not _ISO_DAY.search(m.text)


# what a mention that names only a time of day is made of ("2 to 4 pm", "between 6 and 7 am", "at 9:30", 下午三点,
# 10点到12点): with any other word left (tomorrow, tonight, Wednesday, 明天, 今晚, a date) it names a day too
_CLOCK_PARTS_EN = re.compile(
    r"\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?|\b(?:at|from|between|and|to|until|till|around|about|by|before|after|"
    r"noon|midnight|o'?clock|half past|quarter (?:past|to)|in the|morning|afternoon|evening)\b|[-–~]",
    re.IGNORECASE,
)
_CLOCK_PARTS_ZH = re.compile(
    r"凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|[零一二两三四五六七八九十\d]+(?:[点點:：]|分)|[点點]钟|半|一刻|三刻"
    r"|到|至|左右|以前|以后|之前|之后|[-–~]"
)


def _clock_only(m: TimeMention) -> bool:
    """The mention names a time of day and no day ("2 to 4 pm", 下午三点): the canonical sentence keeps it as
    said. The day it was resolved to (today, by the conventions) is the structured time's, not something the
    speaker said — a standing window ("from now on deliveries 2 to 4 pm") written as today's date would read as
    one delivery, and the words people ask with ("2-4 pm") would be gone."""
    if m.granularity not in ("hour", "minute"):
        return False
    parts = _CLOCK_PARTS_ZH if _CJK.search(m.text) else _CLOCK_PARTS_EN
    return not parts.sub("", m.text).strip(" ,.，。")


def rewrite_with_absolute(text: str, mentions: Sequence[TimeMention]) -> str:
    """Replace each relative mention, and each explicit calendar date written in words, by its absolute ISO
    form; everything else stays byte-identical.

    zh: '我下周三要去上海出差' -> '我2026-06-17要去上海出差' (ranges as 'A至B', 明天下午 -> '2026-06-09下午'; a time of day
    alone stays as said: 下午三点, 2 to 4 pm);
    en: '... with Dana tomorrow at 2pm.' -> '... with Dana on 2026-05-07 14:00.' ('in the week of ...', 'in 2025',
    'from A to B'; no extra 'on' after a preposition such as 'since').
    """
    out, pos = [], 0
    for m in sorted(mentions, key=lambda m: (m.start, m.end)):
        # a recurrence stays as written (每周四 / every Thursday): the rule is the fact, not its first date
        if m.recurrence or m.start < pos or text[m.start : m.end] != m.text:
            continue
        if (not m.relative and not _calendar_date(m)) or _clock_only(m):
            continue
        said = _render_zh(m) if _CJK.search(m.text) else _render_en(text, m)
        if m.start and text[m.start - 1].isdigit() and said[:1].isdigit():
            said = " " + said  # "押金4500下个月15号" must not read "押金45002026-07-15"
        out += [text[pos : m.start], said]
        pos = m.end
    out.append(text[pos:])
    return "".join(out)

"""Resolve relative time expressions (Chinese and English) to absolute, timezone-aware times.

``resolve_times(text, at)`` finds time expressions and resolves them against ``at`` (naive -> UTC); every datetime
it returns is in ``at``'s tzinfo and uses ``at``'s wall clock (the process TZ never matters).

* Chinese: jionlp's time extractor (given ``at``'s wall-clock fields as its time base) plus small rules for its gaps
  (上个月/下个月, 明早/昨晚, N天前/N个月后, bare 周X, 周末, ...); noise such as bare numbers is filtered out.
* English: precompiled regexes + calendar arithmetic in :mod:`memscribe.lang.timeparse_en` (conventions there:
  "next Monday" = Monday of next Mon..Sun week, "last week" = previous Mon..Sun, bare weekdays follow tense).
* A clock next to a date joins it ("tomorrow at 2pm", "明早八点" -> one mention); a clock elsewhere takes the date of
  the nearest earlier single-day mention ("7月10号的机票，早上八点的航班"), else ``at``'s date.
"""

from __future__ import annotations

import contextlib
import io
import logging
import re
import threading
import types
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, time, timedelta
from functools import lru_cache
from typing import Any, Literal

from memscribe.lang.timeparse_en import (
    AM_WORDS,
    PM_WORDS,
    Ctx,
    Granularity,
    Span,
    add,
    days_range,
    en_spans,
    mkdate,
    month_range,
    shift,
    unit_range,
    wall,
    year_range,
    ym_shift,
)

__all__ = ["Granularity", "TimeMention", "iso", "primary_time", "resolve_times", "rewrite_with_absolute"]

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TimeMention:
    text: str  # the expression as written
    start: int  # char offsets into the input: text == input[start:end]
    end: int
    time_start: datetime  # tz-aware, in the tz of `at`
    time_end: datetime  # inclusive end of the period (a day -> 23:59:59)
    granularity: Granularity
    relative: bool  # resolved relative to `at` (明天, next Monday, last week); False for explicit dates


_GRAN_RANK = {"minute": 0, "hour": 1, "day": 2, "week": 3, "month": 4, "year": 5}
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]")

# ---------------------------------------------------------------- jionlp access (lazy, serialised: it is stateful)
_JIO_LOCK = threading.Lock()
_jio: Any = None


def _jionlp() -> Any:
    global _jio
    if _jio is None:
        with contextlib.redirect_stdout(io.StringIO()):  # jionlp and jiojio print banners on import
            import jionlp
            from jionlp.gadget import time_parser
        # jionlp logs a full traceback on the *root* logger for each unparsable candidate: route it to debug here.
        time_parser.logging = types.SimpleNamespace(error=_log.debug, warning=_log.debug, info=_log.debug)
        _jio = jionlp
    return _jio


def _time_base(at: datetime) -> dict[str, int]:
    """jionlp reads a unix timestamp in the process TZ; a dict of at's wall-clock fields is TZ-independent."""
    return {
        "year": at.year,
        "month": at.month,
        "day": at.day,
        "hour": at.hour,
        "minute": at.minute,
        "second": at.second,
    }


def _jio_parse(s: str, base: dict[str, int]) -> Any:
    with _JIO_LOCK:
        try:
            res = _jionlp().parse_time(s, time_base=base)
        except ValueError:  # jionlp's "cannot parse this string"
            return None
    return res.get("time") if res.get("type") in ("time_point", "time_span") else None


# ---------------------------------------------------------------- Chinese
_ZH_N = r"[0-9]{1,3}|[零〇一二两三四五六七八九十]{1,3}"
_ZH_RULE = re.compile(
    r"(?P<dd>(?<![之以此提然最日年月])大?[前后]天|[昨今明][天日])"
    r"|(?P<pd>[昨今明])(?P<pw>早上?|晚上?|晨|夜)"
    r"|(?P<mp>上上|下下|上|下|这|本|当)个?月"
    r"|(?<![之以此然最])(?P<yp>[去今明前后])年"
    r"|(?:(?P<wp>上上|下下|上|下|这|本)个?|(?<![零〇一二两三四五六七八九十几每个0-9]))(?:周|星期|礼拜)"
    r"(?P<wx>[一二三四五六日天1-7末])?"
    rf"|(?P<n>{_ZH_N})(?:(?P<nd>[天日])|个?(?P<nw>周|星期|礼拜)|个(?P<nm>月)|(?P<ny>年))(?P<dir>之?前|之?后|以前|以后)"
)
_K = {"上上": -2, "下下": 2, "上": -1, "下": 1, "这": 0, "本": 0, "当": 0}
_DD = {"大前天": -3, "前天": -2, "后天": 2, "大后天": 3, "昨": -1, "今": 0, "明": 1}
_ZH_DIGIT = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"〇": 0, "两": 2}
_ZH_TIMEWORD = re.compile(r"[年月日号天周晚早午夜点时分秒旦节宵]|星期|礼拜|凌晨|[0-9]:[0-9]")
_ZH_NOISE = re.compile(r"现在|目前|此刻|此时|当前|第.*|[春夏秋冬][天季]?")
_ZH_DATEWORD = re.compile(r"[年月日号天周昨今明节旦宵夕]|星期|礼拜|[0-9][-/.][0-9]")
_ZH_CLOCK = re.compile(r"[点时分]|[0-9]:[0-9]")
_ZH_POD = re.compile(r"凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜间|半夜|[早晚晨夜]")
_ZH_REL = re.compile(
    r"[今明昨去刚]|[前后大][天年]|[天周月年][之以]?[前后]|[上下这本当]个?(?:周|月|星期|礼拜)|^(?:周|星期|礼拜)"
)
_JIO_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})")


def _zh_int(s: str) -> int | None:
    if s.isascii():
        return int(s)
    if "十" not in s:
        return _ZH_DIGIT.get(s) if len(s) == 1 else None
    tens, _, ones = s.partition("十")
    t = _ZH_DIGIT.get(tens) if tens else 1
    o = _ZH_DIGIT.get(ones) if ones else 0
    return None if t is None or o is None or len(tens) > 1 or len(ones) > 1 else t * 10 + o


def _zh_rules(c: Ctx) -> list[Span]:
    out: list[Span] = []
    week_mon = None  # the week named by the last 上周X/下周X: a later bare 周X stays in that week
    for m in _ZH_RULE.finditer(c.text):
        a, b = m.span()
        sp: Span | None
        if m["dd"]:
            sp = c.day(a, b, shift(c.base, _DD.get(m["dd"], _DD.get(m["dd"][0], 0))))
        elif m["pd"]:
            sp = c.day(a, b, shift(c.base, _DD[m["pd"]]), m["pw"])
        elif m["mp"]:
            sp = c.span(a, b, month_range(ym_shift(c.base.year, c.base.month, _K[m["mp"]]), c.tz), "month")
        elif m["yp"]:
            k = {"去": -1, "今": 0, "明": 1, "前": -2, "后": 2}[m["yp"]]
            sp = c.span(a, b, year_range(c.base.year + k, c.tz), "year")
        elif m["n"]:
            n = _zh_int(m["n"])
            if not n:
                continue
            unit = "day" if m["nd"] else "week" if m["nw"] else "month" if m["nm"] else "year"
            rng, gran = unit_range(c.base, unit, -n if "前" in m["dir"] else n, c.tz)
            sp = c.span(a, b, rng, gran)
        else:
            wp, wx = m["wp"], m["wx"]
            if wx is None:
                if wp is None:
                    continue  # 周围, 做礼拜 ...
                mon = shift(c.base, -c.base.weekday() + 7 * _K[wp])
                sp = c.span(a, b, days_range(mon, shift(mon, 6), c.tz), "week")
            elif wx == "末":
                k = _K[wp] if wp else ((0 if c.base.weekday() == 6 else -1) if c.tense(a) < 0 else 0)
                sp = c.span(a, b, c.weekend(k), "day")
            else:
                idx = 6 if wx in "日天" else (int(wx) - 1 if wx.isascii() else "一二三四五六".index(wx))
                if wp:
                    week_mon = shift(c.base, -c.base.weekday() + 7 * _K[wp])
                    d = shift(week_mon, idx)
                else:
                    d = shift(week_mon, idx) if week_mon is not None else c.weekday(idx, a)
                sp = c.day(a, b, d)
        if sp is not None:
            out.append(replace(sp, prio=2))
    return out


def _jio_dt(s: object, c: Ctx) -> datetime | None:
    m = _JIO_TIME.fullmatch(s) if isinstance(s, str) else None  # also rejects "inf" / "-inf" open ends
    if m is None:
        return None
    y, mo, d, h, mi, se = map(int, m.groups())
    day = mkdate(y, mo, d)
    return wall(day, c.tz, h, mi, se) if day is not None and h < 24 and mi < 60 and se < 60 else None


def _gran(t0: datetime, t1: datetime) -> Granularity:
    if t1 - t0 < timedelta(minutes=1):
        return "minute"
    if t0.time() != time(0) or t1.time() != time(23, 59, 59):
        return "hour" if t1 - t0 < timedelta(days=1) else "day"  # 10点到12点 / 2020年以来
    d0, d1 = t0.date(), t1.date()
    nxt = shift(d1, 1)
    if d0.day == 1 and (nxt is None or nxt.day == 1):
        return "year" if d0.month == 1 and d1.month == 12 else "month"
    return "week" if (d1 - d0).days == 6 and d0.weekday() == 0 else "day"


def _jio_span(c: Ctx, a: int, b: int, times: Any) -> Span | None:
    s = c.text[a:b]
    if not s or _ZH_NOISE.fullmatch(s) or not _ZH_TIMEWORD.search(s) or not isinstance(times, list | tuple):
        return None
    if len(times) != 2 or (t0 := _jio_dt(times[0], c)) is None or (t1 := _jio_dt(times[1], c)) is None:
        return None
    if t1 < t0 and t0 - t1 < timedelta(days=1):
        t1 = add(t1, timedelta(days=1))  # 晚上11点到凌晨1点
    if t1 is None or t1 < t0:
        return None
    gran = _gran(t0, t1)
    if (
        gran == "minute" and t0.minute == 0 and s.endswith(":00")
    ):  # "15:00" is an hour, as in the English rules
        gran, t1 = "hour", t0.replace(minute=59, second=59)
    tod = gran in ("hour", "minute") and not _ZH_DATEWORD.search(s)
    pod = _ZH_POD.search(s)
    known = pod is not None or re.search(r"[0-9]:[0-9]", s) is not None or t0.hour == 0 or t0.hour >= 13
    weak = 1 if tod and not _ZH_CLOCK.search(s) else 0  # a bare 下午/晚上 needs a date to mean anything
    rel = tod or _ZH_REL.search(s) is not None
    return Span(a, b, t0, t1, gran, rel, tod=tod, known=known, pod=pod and pod.group(), weak=weak)


def _zh_spans(c: Ctx, rules: list[Span]) -> list[Span]:
    base = _time_base(c.at)
    jio = _jionlp()
    with _JIO_LOCK:
        items = jio.ner.extract_time(c.text, time_base=base, with_parsing=True)
    out = []
    for it in items:
        a, b = it["offset"]
        if it["type"] not in ("time_point", "time_span") or c.text[a:b] != it["text"]:
            continue
        times = it["detail"]["time"]
        # jionlp reads "明早八点" as "明" + "早八点": keep only the part after our rule's span
        for r in rules:
            if r.start < a < r.end < b:
                a, times = r.end, _jio_parse(c.text[r.end : b], base)
        if b - a > 1 and c.text[b - 1] == "起":  # "8点起床": jionlp reads "8点起" as "from 8 until now"
            b, times = b - 1, _jio_parse(c.text[a : b - 1], base)
        if a > 0 and c.text[a] in "前后" and c.text[a - 1] in "之以此然最日年月":
            continue  # "之前天气" is not 前天
        sp = _jio_span(c, a, b, times)
        if sp is not None:
            out.append(sp)
    return out


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
    """The time of day of ``tod`` on the date of ``on``."""
    t0 = wall(on.t0.date(), tod.t0.tzinfo, tod.t0.hour, tod.t0.minute, tod.t0.second)  # type: ignore[arg-type]
    t1 = add(t0, tod.t1 - tod.t0)
    return None if t1 is None else Span(start, end, t0, t1, tod.gran, on.relative, known=tod.known, pod=pod)


def _datey(s: Span) -> bool:
    """A single day (or a part of one) that a clock can attach to."""
    return (
        not s.tod
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
            prev = next((p for p in reversed(out) if p.t0.date() == p.t1.date()), None)
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


def _finish(spans: list[Span]) -> list[Span]:
    """Clocks without am/pm: 'at 5' / 三点 -> 17:00 / 15:00, '8 tonight' -> 20:00."""
    out = []
    for s in spans:
        if s.gran in ("hour", "minute") and not s.known:
            h = s.t0.hour
            if (s.pod in PM_WORDS and h < 12) or (s.pod not in AM_WORDS and 1 <= h <= 7):
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
        rules = _zh_rules(c)
        spans += rules + _zh_spans(c, rules)
    spans += en_spans(c)
    return [
        TimeMention(text[s.start : s.end], s.start, s.end, s.t0, s.t1, s.gran, s.relative)
        for s in _finish(_attach(c, _dedupe(spans)))
    ]


def primary_time(mentions: Sequence[TimeMention]) -> TimeMention | None:
    """The mention a memory is 'about': the finest granularity, then the earliest in the text."""
    return min(mentions, key=lambda m: (_GRAN_RANK[m.granularity], m.start), default=None)


def iso(dt: datetime, granularity: Granularity) -> str:
    """'2026-06-17' (day/week), '2026-06' (month), '2026' (year), '2026-06-16T15:00' (hour/minute)."""
    d = f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}"
    if granularity in ("hour", "minute"):
        return f"{d}T{dt.hour:02d}:{dt.minute:02d}"
    return d[:7] if granularity == "month" else d[:4] if granularity == "year" else d


def _single(m: TimeMention) -> bool:
    a, b, g = m.time_start, m.time_end, m.granularity
    if g in ("minute", "hour"):
        return b - a < (timedelta(minutes=1) if g == "minute" else timedelta(hours=1))
    if g == "day":
        return a.date() == b.date()
    if g == "month":
        return (a.year, a.month) == (b.year, b.month)
    return g == "year" and a.year == b.year  # a week is always rendered as a range


_ZH_POD_FULL = {"早": "早上", "晨": "早上", "晚": "晚上", "夜": "夜里"}
_EN_POD = re.compile(r"morning|afternoon|evening|night", re.I)
_PREP_END = re.compile(
    r"\b(?:on|since|until|till|by|before|after|from|to|of|for|in|at|during|through|around)\s+$", re.I
)
_PREP_START = re.compile(r"(?:on|over|during|for|at|in|by|around|@)\s", re.I)


def _render_zh(m: TimeMention) -> str:
    g, a, b = m.granularity, m.time_start, m.time_end
    if _single(m):
        # a bare "2025" in a Chinese sentence reads as a number: 去年 -> 2025年
        return iso(a, g) + ("年" if g == "year" else "")
    pod = _ZH_POD.search(m.text)
    if g == "hour" and pod and a.date() == b.date():  # 明天下午 -> 2026-06-09下午
        return iso(a, "day") + _ZH_POD_FULL.get(pod.group(), pod.group())
    g = "day" if g == "week" else g
    return f"{iso(a, g)}至{iso(b, g)}"


def _render_en(text: str, m: TimeMention) -> str:
    g, a, b = m.granularity, m.time_start, m.time_end
    pod = _EN_POD.search(m.text)
    if _single(m):
        body = f"{iso(a, 'day')} {a.hour:02d}:{a.minute:02d}" if g in ("hour", "minute") else iso(a, g)
        prep = "on" if g in ("day", "hour", "minute") else "in"
    elif g == "hour" and pod and a.date() == b.date():
        body, prep = f"the {pod.group().lower()} of {iso(a, 'day')}", "on"
    elif g == "week":
        body, prep = f"the week of {iso(a, 'day')}", "in"
    else:
        body, prep = f"{iso(a, g)} to {iso(b, g)}", "from"
    if _PREP_START.match(m.text) or not _PREP_END.search(text, max(0, m.start - 16), m.start):
        body = f"{prep} {body}"
    before = text[: m.start].rstrip()
    if m.text[:1].isupper() and (not before or before[-1] in ".!?\n"):
        body = body[0].upper() + body[1:]
    return body


def rewrite_with_absolute(text: str, mentions: Sequence[TimeMention]) -> str:
    """Replace each RELATIVE mention by its absolute form; everything else stays byte-identical.

    zh: '我下周三要去上海出差' -> '我2026-06-17要去上海出差' (ranges as 'A至B', 明天下午 -> '2026-06-09下午');
    en: '... with Dana tomorrow at 2pm.' -> '... with Dana on 2026-05-07 14:00.' ('in the week of ...', 'in 2025',
    'from A to B'; no extra 'on' after a preposition such as 'since').
    """
    out, pos = [], 0
    for m in sorted(mentions, key=lambda m: (m.start, m.end)):
        if not m.relative or m.start < pos or text[m.start : m.end] != m.text:
            continue
        out += [text[pos : m.start], _render_zh(m) if _CJK.search(m.text) else _render_en(text, m)]
        pos = m.end
    out.append(text[pos:])
    return "".join(out)

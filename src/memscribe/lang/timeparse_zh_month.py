"""Chinese days inside a month named relatively or by number: 下个月中旬, 这个月下旬, 上个月月中, 下个月第一个周一,
这个月最后一个周五, 五月的最后一个周五, 本月最后一天, 下个月第一天.

The date rule already reads 十二月中旬 and 5月初 (a month by number with its part); this one adds the parts of a
month said relatively, which came out as the whole month, and the nth weekday or the first / last day of a
month, which came out as the month or not at all. Parts are the conventions' thirds: 上旬 1..10, 中旬 / 月中
11..20, 下旬 21..end (docs/time-conventions.md).
"""

from __future__ import annotations

import re
from datetime import date

from memscribe.lang.timeparse_en import Ctx, Span, days_range, mkdate, month_last, pick_year, shift, ym_shift
from memscribe.lang.timeparse_zh import zh_int

__all__ = ["ZH_WEEKDAY_INDEX", "month_parts"]

_REL_MONTH = r"(?P<k>这个|本|下下个?|上上个?|下个?|上个?)月"
_NUM_MONTH = r"(?P<mon>十[一二]?|[一二三四五六七八九]|1[0-2]|0?[1-9])月份?"
_PART = re.compile(rf"{_REL_MONTH}的?(?P<p>上旬|中旬|下旬|月中|中)(?!午|间|心|文|国)")
_NTH = re.compile(
    rf"(?:{_REL_MONTH}|{_NUM_MONTH})的?(?:(?P<nth>第[一二三四五1-5]个|最后一个)(?:周|星期|礼拜)(?P<d>[一二三四五六日天])"
    r"|(?P<edge>第一天|最后一天))"
)
_K = {
    "这个": 0,
    "本": 0,
    "下": 1,
    "下个": 1,
    "上": -1,
    "上个": -1,
    "下下": 2,
    "下下个": 2,
    "上上": -2,
    "上上个": -2,
}
# 周一..周日 (星期天 too): the weekday's index, Monday 0; timeparse_anchor reads it as well
ZH_WEEKDAY_INDEX = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}


def _ym(c: Ctx, m: re.Match[str]) -> tuple[int, int] | None:
    if m["k"] is not None:
        return ym_shift(c.base.year, c.base.month, _K[m["k"]])
    mo = zh_int(m["mon"])
    if mo is None or not 1 <= mo <= 12:
        return None
    last = pick_year(c, m.start(), lambda yy: month_last(yy, mo))
    return None if last is None else (last.year, mo)


def _nth_weekday(y: int, mo: int, wd: int, nth: int | None) -> date | None:
    """The nth (None: the last) given weekday of a month."""
    if nth is None:
        end = month_last(y, mo)
        return None if end is None else shift(end, -((end.weekday() - wd) % 7))
    first = mkdate(y, mo, 1)
    d = shift(first, (wd - first.weekday()) % 7 + 7 * (nth - 1)) if first else None
    return d if d is not None and d.month == mo else None


def month_parts(c: Ctx, t: str) -> list[Span]:
    out: list[Span] = []
    for m in _PART.finditer(t):
        ym = _ym(c, m)
        end = month_last(*ym) if ym else None
        if ym is None or end is None:
            continue
        d0, d1 = {"上旬": (1, 10), "中旬": (11, 20), "月中": (11, 20), "中": (11, 20)}.get(
            m["p"], (21, end.day)
        )
        rng = days_range(date(ym[0], ym[1], d0), date(ym[0], ym[1], d1), c.tz)
        sp = c.span(m.start(), m.end(), rng, "day", prio=3)
        if sp is not None:
            out.append(sp)
    for m in _NTH.finditer(t):
        ym = _ym(c, m)
        if ym is None:
            continue
        if m["edge"]:
            d = mkdate(ym[0], ym[1], 1) if m["edge"] == "第一天" else month_last(*ym)
        else:
            nth = None if m["nth"] == "最后一个" else zh_int(m["nth"][1])
            d = _nth_weekday(ym[0], ym[1], ZH_WEEKDAY_INDEX[m["d"]], nth)
        sp = c.day(m.start(), m.end(), d, relative=True)
        if sp is not None:
            out.append(sp)
    return out

"""Holidays and lunar dates for the time rules (internal module).

Dates come from maintained calendars, never from a table of years: the ``holidays`` package (CN, including the
lunar-date holidays 春节 / 端午 / 中秋 and the solar term 清明; US federal holidays), ``lunardate`` for the other
lunar festivals (元宵, 七夕, 重阳, 腊八, 除夕 when the CN calendar has no entry), dateutil's ``easter``; fixed-date
and weekday-rule days (Halloween, Mother's Day ...) by their rule. The year: the one said (2025年中秋, Christmas
2027, 去年春节, last Christmas); otherwise the next occurrence on or after the message's day, or, in a past-tense
sentence, the latest on or before it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta
from functools import lru_cache

from memscribe.lang.timeparse_en import Ctx, Span, days_range

__all__ = ["EN_HOLIDAY", "ZH_HOLIDAY", "holiday_date", "holiday_span", "lunar_date", "lunar_span"]


# ---------------------------------------------------------------- calendars
@lru_cache(maxsize=64)
def _country(code: str, year: int) -> dict[date, str]:
    import holidays  # imported on first use: it loads every country's module lazily anyway

    lang = "zh_CN" if code == "CN" else None
    try:
        cal = holidays.country_holidays(code, years=year, language=lang)
    except NotImplementedError:  # a year outside the calendar's range
        return {}
    return dict(cal.items())


def _named(code: str, year: int, *names: str) -> date | None:
    days = sorted(d for d, n in _country(code, year).items() if any(n == x for x in names))
    return days[0] if days else None


def lunar_date(year: int, month: int, day: int) -> date | None:
    """The solar date of lunar ``month``/``day`` of lunar year ``year``; day 0 = the lunar year's last day."""
    from lunardate import LunarDate

    try:
        if day == 0:
            return LunarDate(year + 1, 1, 1).to_solar_date() - timedelta(days=1)
        return LunarDate(year, month, day).to_solar_date()
    except ValueError:  # outside lunardate's 1900..2099 table, or a 30th in a 29-day month
        return None


def _nth_weekday(year: int, month: int, weekday: int, n: int) -> date:
    first = date(year, month, 1)
    d = first + timedelta(days=(weekday - first.weekday()) % 7)
    return d + timedelta(days=7 * (n - 1))


def _easter(year: int) -> date:
    from dateutil.easter import easter

    return easter(year)


_Rule = Callable[[int], "date | None"]
_RULES: dict[str, _Rule] = {
    # Chinese calendar (CN public holidays first; lunardate for the rest)
    "春节": lambda y: _named("CN", y, "春节") or lunar_date(y, 1, 1),
    "除夕": lambda y: _named("CN", y, "农历除夕") or lunar_date(y - 1, 12, 0),
    "元宵": lambda y: lunar_date(y, 1, 15),
    "清明": lambda y: _named("CN", y, "清明节"),
    "端午": lambda y: _named("CN", y, "端午节") or lunar_date(y, 5, 5),
    "七夕": lambda y: lunar_date(y, 7, 7),
    "中秋": lambda y: _named("CN", y, "中秋节") or lunar_date(y, 8, 15),
    "重阳": lambda y: lunar_date(y, 9, 9),
    "腊八": lambda y: lunar_date(y - 1, 12, 8),  # the 腊八 that falls in solar year y
    "国庆": lambda y: date(y, 10, 1),
    "元旦": lambda y: date(y, 1, 1),
    "劳动节": lambda y: date(y, 5, 1),
    "儿童节": lambda y: date(y, 6, 1),
    "妇女节": lambda y: date(y, 3, 8),
    "教师节": lambda y: date(y, 9, 10),
    "植树节": lambda y: date(y, 3, 12),
    "青年节": lambda y: date(y, 5, 4),
    "建党节": lambda y: date(y, 7, 1),
    "建军节": lambda y: date(y, 8, 1),
    "护士节": lambda y: date(y, 5, 12),
    "光棍节": lambda y: date(y, 11, 11),
    "中元节": lambda y: lunar_date(y, 7, 15),
    "小年": lambda y: lunar_date(y - 1, 12, 23),  # the northern 小年 that falls in solar year y
    "april fools": lambda y: date(y, 4, 1),
    "earth day": lambda y: date(y, 4, 22),
    "groundhog day": lambda y: date(y, 2, 2),
    "cinco de mayo": lambda y: date(y, 5, 5),
    "flag day": lambda y: date(y, 6, 14),
    "tax day": lambda y: date(y, 4, 15),
    "canada day": lambda y: date(y, 7, 1),
    "remembrance day": lambda y: date(y, 11, 11),
    "kwanzaa": lambda y: date(y, 12, 26),
    "ash wednesday": lambda y: _easter(y) - timedelta(days=46),
    "mardi gras": lambda y: _easter(y) - timedelta(days=47),
    "palm sunday": lambda y: _easter(y) - timedelta(days=7),
    "pentecost": lambda y: _easter(y) + timedelta(days=49),
    "cyber monday": lambda y: (t + timedelta(days=4)) if (t := _named("US", y, "Thanksgiving Day")) else None,
    "election day": lambda y: _nth_weekday(y, 11, 0, 1) + timedelta(days=1),
    # shared / Western
    "christmas": lambda y: date(y, 12, 25),
    "christmas eve": lambda y: date(y, 12, 24),
    "new year's eve": lambda y: date(y, 12, 31),
    "new year's day": lambda y: date(y, 1, 1),
    "valentine": lambda y: date(y, 2, 14),
    "halloween": lambda y: date(y, 10, 31),
    "st patrick": lambda y: date(y, 3, 17),
    "boxing day": lambda y: date(y, 12, 26),
    "easter": _easter,
    "easter monday": lambda y: _easter(y) + timedelta(days=1),
    "good friday": lambda y: _easter(y) - timedelta(days=2),
    "mother's day": lambda y: _nth_weekday(y, 5, 6, 2),
    "father's day": lambda y: _nth_weekday(y, 6, 6, 3),
    # US federal (the holidays package)
    "thanksgiving": lambda y: _named("US", y, "Thanksgiving Day", "Thanksgiving"),
    "black friday": lambda y: (t + timedelta(days=1)) if (t := _named("US", y, "Thanksgiving Day")) else None,
    "memorial day": lambda y: _named("US", y, "Memorial Day"),
    "labor day": lambda y: _named("US", y, "Labor Day"),
    "independence day": lambda y: date(y, 7, 4),
    "mlk day": lambda y: _named("US", y, "Martin Luther King Jr. Day"),
    "presidents day": lambda y: _named("US", y, "Washington's Birthday"),
    "juneteenth": lambda y: date(y, 6, 19),
    "columbus day": lambda y: _named("US", y, "Columbus Day"),
    "veterans day": lambda y: date(y, 11, 11),
}
# a holiday week (国庆假期, 五一小长假, 春节假期), not a day: (first day from the holiday, days)
_HOLIDAY_WEEK = {"国庆": (0, 7), "劳动节": (0, 5), "春节": (-1, 7)}


def _weekend_of(d: date) -> tuple[date, date]:
    """The long weekend a holiday makes ("Thanksgiving weekend", "Labor Day weekend"): Thursday or Friday to
    the Sunday after, Saturday to the Monday holiday, the Saturday and Sunday of a weekend holiday; a holiday
    mid-week is its own day."""
    wd = d.weekday()
    if wd in (3, 4):
        return d, d + timedelta(days=6 - wd)
    if wd == 0:
        return d - timedelta(days=2), d
    if wd == 5:
        return d, d + timedelta(days=1)
    if wd == 6:
        return d - timedelta(days=1), d
    return d, d


def holiday_date(key: str, year: int) -> date | None:
    rule = _RULES.get(key)
    if rule is None or not 1900 <= year <= 2099:
        return None
    return rule(year)


# ---------------------------------------------------------------- names
_ZH_NAMES = {
    "春节": "春节", "农历新年": "春节", "大年初一": "春节", "除夕": "除夕", "元宵节": "元宵", "元宵": "元宵",
    "清明节": "清明", "清明": "清明", "端午节": "端午", "端午": "端午", "七夕节": "七夕", "七夕": "七夕",
    "中秋节": "中秋", "中秋": "中秋", "重阳节": "重阳", "重阳": "重阳", "腊八节": "腊八", "腊八": "腊八",
    "国庆节": "国庆", "国庆": "国庆", "元旦": "元旦", "劳动节": "劳动节", "五一": "劳动节", "儿童节": "儿童节",
    "六一": "儿童节", "妇女节": "妇女节", "三八节": "妇女节", "教师节": "教师节", "圣诞节": "christmas",
    "圣诞": "christmas", "平安夜": "christmas eve", "情人节": "valentine", "万圣节": "halloween",
    "感恩节": "thanksgiving", "母亲节": "mother's day", "父亲节": "father's day", "复活节": "easter",
    "植树节": "植树节", "青年节": "青年节", "五四青年节": "青年节", "建党节": "建党节", "建军节": "建军节",
    "护士节": "护士节", "光棍节": "光棍节", "双十一": "光棍节", "中元节": "中元节", "小年": "小年", "愚人节": "april fools",
    "黑色星期五": "black friday", "春節": "春节", "复活节星期一": "easter monday", "耶诞节": "christmas",
    "十一": "国庆",
}  # fmt: skip
ZH_HOLIDAY = re.compile(
    r"(?<!每)(?:(?P<yp>去年|今年|明年|前年|后年)|(?P<y>[0-9]{4})年)?的?"
    rf"(?P<name>{'|'.join(sorted(_ZH_NAMES, key=len, reverse=True))}|十一(?=小?长假|假期|黄金周))"
    r"(?P<week>小?长假|假期|黄金周)?"
    r"(?![月饼粽子阅兵联欢晚会礼盒快乐轻])"
)
_EN_NAMES = {
    "thanksgiving day": "thanksgiving", "thanksgiving": "thanksgiving", "memorial day": "memorial day",
    "easter sunday": "easter", "easter monday": "easter monday", "easter": "easter", "good friday": "good friday",
    "christmas eve": "christmas eve", "christmas day": "christmas", "christmas": "christmas", "xmas": "christmas",
    "new year's eve": "new year's eve", "new years eve": "new year's eve", "new year's day": "new year's day",
    "new years day": "new year's day", "new year": "new year's day", "independence day": "independence day",
    "fourth of july": "independence day", "4th of july": "independence day", "labor day": "labor day",
    "labour day": "labor day", "mlk day": "mlk day", "martin luther king day": "mlk day",
    "martin luther king jr. day": "mlk day", "presidents' day": "presidents day", "presidents day": "presidents day",
    "president's day": "presidents day", "halloween": "halloween", "valentine's day": "valentine",
    "valentines day": "valentine", "valentine's": "valentine", "mother's day": "mother's day",
    "mothers day": "mother's day", "father's day": "father's day", "fathers day": "father's day",
    "black friday": "black friday", "veterans day": "veterans day", "veterans' day": "veterans day",
    "columbus day": "columbus day", "st. patrick's day": "st patrick", "st patrick's day": "st patrick",
    "saint patrick's day": "st patrick", "boxing day": "boxing day", "juneteenth": "juneteenth",
    "chinese new year": "春节", "lunar new year": "春节", "spring festival": "春节",
    "mid-autumn festival": "中秋", "mid autumn festival": "中秋", "moon festival": "中秋",
    "dragon boat festival": "端午", "lantern festival": "元宵", "qingming festival": "清明",
    "april fools' day": "april fools", "april fools day": "april fools", "april fool's day": "april fools",
    "earth day": "earth day", "groundhog day": "groundhog day", "cinco de mayo": "cinco de mayo", "flag day": "flag day",
    "tax day": "tax day", "canada day": "canada day", "remembrance day": "remembrance day", "kwanzaa": "kwanzaa",
    "ash wednesday": "ash wednesday", "mardi gras": "mardi gras", "palm sunday": "palm sunday", "pentecost": "pentecost",
    "cyber monday": "cyber monday", "election day": "election day", "new year's": "new year's day",
    "mlk jr. day": "mlk day", "washington's birthday": "presidents day", "christmas morning": "christmas",
}  # fmt: skip
EN_HOLIDAY = re.compile(
    r"(?<![\w'])(?:(?P<q>last|next|this)\s+)?(?:the\s+)?"
    rf"(?P<name>{'|'.join(re.escape(n).replace(chr(39), '[’' + chr(39) + ']') for n in sorted(_EN_NAMES, key=len, reverse=True))})"
    r"(?![\w'])(?P<wknd>(?:\s+long)?\s+weekend)?(?:,?\s+(?P<y>(?:19|20)\d{2})\b)?",
    re.I,
)


# how far ahead a festival said in the past tense may be: what is got ready for it (mooncakes handed out, tickets
# bought, the bonus paid) is said in the past tense in the weeks before
PAST_TENSE_AHEAD = timedelta(days=21)


def _pick(c: Ctx, pos: int, key: str, q: str | None) -> date | None:
    y0, today = c.base.year, c.base
    cands = [d for d in (holiday_date(key, y) for y in (y0 - 1, y0, y0 + 1)) if d is not None]
    if not cands:
        return None
    if q == "last" or (q is None and c.tense(pos) < 0):
        # a festival a few weeks ahead stays in a past-tense sentence: "中秋公司发了月饼" is this year's 中秋
        ahead = today + PAST_TENSE_AHEAD
        past = [d for d in cands if d <= ahead] if q is None else [d for d in cands if d < today]
        return max(past) if past else None
    if q == "this":
        same = [d for d in cands if d.year == y0]
        return same[0] if same else None
    future = [d for d in cands if d >= today] if q != "next" else [d for d in cands if d > today]
    return min(future) if future else None


def holiday_span(c: Ctx, m: re.Match[str], lang: str) -> Span | None:
    name = m["name"].lower().replace("’", "'") if lang == "en" else m["name"]
    key = (_EN_NAMES if lang == "en" else _ZH_NAMES)[name]
    y = None
    if m["y"]:
        y = int(m["y"])
    elif lang == "zh" and m["yp"]:
        y = c.base.year + {"去年": -1, "今年": 0, "明年": 1, "前年": -2, "后年": 2}[m["yp"]]
    if y is not None:
        d = holiday_date(key, y)
    else:
        d = _pick(c, m.start(), key, m["q"].lower() if lang == "en" and m["q"] else None)
    if d is None:
        return None
    if lang == "zh" and m["week"] and key in _HOLIDAY_WEEK:
        first, n = _HOLIDAY_WEEK[key]
        a, b = d + timedelta(days=first), d + timedelta(days=first + n - 1)
    elif lang == "en" and m["wknd"]:
        a, b = _weekend_of(d)
    else:
        a = b = d
    rng = days_range(a, b, c.tz)
    return c.span(m.start(), m.end(), rng, "day", y is None)


def lunar_span(c: Ctx, a: int, b: int, month: int, day: int) -> Span | None:
    """正月十五 / 农历八月十五 / 大年初一 / 年三十 (day 0: the lunar year's last day): the next occurrence."""
    today = c.base
    cands = []
    for ly in (today.year - 1, today.year, today.year + 1):
        d = lunar_date(ly, month, day)
        if d is not None:
            cands.append(d)
    if not cands:
        return None
    if c.tense(a) < 0:
        past = [d for d in cands if d <= today + PAST_TENSE_AHEAD]
        d = max(past) if past else None
    else:
        future = [d for d in cands if d >= today]
        d = min(future) if future else None
    return None if d is None else c.day(a, b, d)

"""A plan moved by an amount instead of to a date: "Sarah's baby shower got pushed back a week", "the flight is
delayed by two hours", "we moved the standup up 30 minutes", "聚餐提前一天了", "牙医说要推迟两天", "会议往后推半小时".
The words name no day, so the time parser finds nothing; the new time is the moved plan's time plus the amount,
which only the merge (that knows the plan) can compute. And a new day said with "same time" / 时间不变: the new
day, at the old plan's time of day.

Ruled, like the rest of time extraction: a verb of moving (or 提前 / 推迟 …), a direction, an amount and a unit
that ends the clause. The amount must close the clause ("提前一天了", "pushed back a week, …"): "提前三天提醒我",
"提前一天到北京" and "remind me a day early" move nothing.
"""

from __future__ import annotations

import re
from datetime import timedelta

from memscribe.lang.timeparse_zh import zh_int

__all__ = ["SAME_TIME", "shift_of"]

_EN_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty-five": 45,
    "couple of": 2,
    "a couple of": 2,
    "a couple": 2,
}
_EN_UNIT = {
    "min": timedelta(minutes=1),
    "minute": timedelta(minutes=1),
    "hr": timedelta(hours=1),
    "hour": timedelta(hours=1),
    "day": timedelta(days=1),
    "week": timedelta(weeks=1),
}
_ZH_UNIT = {
    "分钟": timedelta(minutes=1),
    "小时": timedelta(hours=1),
    "钟头": timedelta(hours=1),
    "天": timedelta(days=1),
    "日": timedelta(days=1),
    "周": timedelta(weeks=1),
    "星期": timedelta(weeks=1),
    "礼拜": timedelta(weeks=1),
}

_EN_AMOUNT = r"(?P<n>\d{1,3}|a couple of|a couple|couple of|forty-five|[a-z]+)"
_EN_MOVED = (
    r"(?P<verb>push(?:ed|ing)?|mov(?:ed|ing|e)|bump(?:ed|ing)?|delay(?:ed|ing)?|postpon(?:ed|ing|e)|put off"
    r"|shift(?:ed|ing)?|slid|slipp(?:ed|ing)|slip|brought|bring(?:ing)?|pull(?:ed|ing)?|reschedul(?:ed|ing))"
)
_EN_DIRECTION = r"(?P<dir>back|out|forward|up|ahead|later|earlier)"
_EN_DIRECTION_NOT = r"(?!(?:back|out|forward|up|ahead|later|earlier)\b)"
# "pushed back a week", "delayed by two hours", "moved the standup up 30 minutes", "brought forward by half an hour",
# "postponed a couple of days", "bumped it back a day"
_EN_SHIFT = re.compile(
    rf"\b{_EN_MOVED}(?:\s+(?!(?:to|for|in|at|on|by)\b){_EN_DIRECTION_NOT}[\w'’-]+){{0,4}}?(?:\s+{_EN_DIRECTION})?\s+(?:by\s+)?"
    rf"(?:(?P<half>half an hour|half a day)|{_EN_AMOUNT}\s+(?P<unit>min(?:ute)?|hr|hour|day|week)s?)"
    rf"(?:\s+(?P<dir2>later|earlier|back))?(?=\s*(?:[,.;!?)]|$|\s+(?:to|so|because|since|and|but|due)\b))",
    re.IGNORECASE,
)
_ZH_AMOUNT = r"(?P<n>[0-9]{1,3}|[一二两三四五六七八九十]{1,3})"
# 推迟两天 · 提前一天了 · 往后推半小时 · 延后一个星期 · 晚一个小时 · 早了二十分钟: the clause ends with the amount
_ZH_SHIFT = re.compile(
    r"(?P<verb>推迟|延后|延迟|延期|顺延|推后|后延|往后推|往后挪|往后延|向后推|推晚|改晚|晚|提前|提早|往前挪|往前推|往前提|向前挪|改早|早)"
    rf"了?(?:(?P<half>半个?小时|半天)|{_ZH_AMOUNT}个?(?P<unit>分钟|小时|钟头|天|日|周|星期|礼拜))"
    r"(?=[了啦吧呢哦噢啊呀，,。.;；!！?？~～\s]|$)"
)
_ZH_EARLIER = frozenset({"提前", "提早", "往前挪", "往前推", "往前提", "向前挪", "改早", "早"})
_EN_EARLIER = frozenset({"up", "forward", "ahead", "earlier"})

# a new day at the old plan's time of day: "The vet bumped Miso's checkup to March 24, same time", "改到周五，时间不变"
SAME_TIME = re.compile(
    r"\bsame time\b|\bsame hour\b|\bsame slot\b|时间不变|时间照旧|同一时间|同样的时间|还是那个点|还是老时间|老时间|时间还是一样",
    re.IGNORECASE,
)


def _en_amount(s: str) -> int | None:
    s = s.lower()
    return int(s) if s.isdigit() else _EN_WORDS.get(s)


def shift_of(text: str) -> timedelta | None:
    """The signed amount a plan was moved by (later positive, earlier negative), or None when the text moves
    nothing by an amount. The first such phrase wins."""
    m = _ZH_SHIFT.search(text)
    if m is not None:
        if m.group("half"):
            size = timedelta(minutes=30) if "小时" in m.group("half") else timedelta(hours=12)
        else:
            n = zh_int(m.group("n"))
            if not n:
                return None
            size = n * _ZH_UNIT[m.group("unit")]
        return -size if m.group("verb") in _ZH_EARLIER else size
    m = _EN_SHIFT.search(text)
    if m is None:
        return None
    if m.group("half"):
        size = timedelta(minutes=30) if "hour" in m.group("half").lower() else timedelta(hours=12)
    else:
        n = _en_amount(m.group("n"))
        if not n:
            return None
        size = n * _EN_UNIT[m.group("unit").lower()]
    direction = (m.group("dir") or m.group("dir2") or "").lower()
    earlier = direction in _EN_EARLIER or m.group("verb").lower().startswith(("brought", "bring"))
    return -size if earlier else size

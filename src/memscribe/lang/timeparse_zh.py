"""Chinese time rules for :mod:`memscribe.lang.timeparse` (internal module; no jionlp, no I/O).

The text is first mapped to a same-length Simplified/Mandarin form (:func:`normalize`: Traditional characters,
Cantonese words such as 聽日 / 琴日 / 下晝 / 朝早 / 呢個, Beijing 明儿, full-width digits), so every span found on it
has the same offsets in the original text. Rules produce :class:`~memscribe.lang.timeparse_en.Span` candidates;
overlaps, clock attachment and ranges are resolved by the shared combiner in ``timeparse``. Conventions are in
``docs/time-conventions.md``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

from memscribe.lang.timeparse_en import (
    Ctx,
    Span,
    days_range,
    mkdate,
    month_last,
    month_range,
    pick_year,
    quarter_range,
    season_range,
    shift,
    two_digit_year,
    unit_range,
    wall,
    year_range,
    ym_shift,
)
from memscribe.lang.timeparse_holidays import ZH_HOLIDAY, holiday_span, lunar_span
from memscribe.lang.timeparse_rec import ZH_REC, zh_recurrence

__all__ = ["normalize", "zh_int", "zh_spans"]

# ---------------------------------------------------------------- normalisation (length-preserving)
_CHARS = str.maketrans(
    "個禮後時點鐘號週農曆節聖誕慶陽兒婦師親萬勞動兩頭這間臘閏從過來會別開晝幾現於與給們當準約離還閒",
    "个礼后时点钟号周农历节圣诞庆阳儿妇师亲万劳动两头这间腊闰从过来会别开昼几现于与给们当准约离还闲",
)
_FULLWIDTH = str.maketrans("０１２３４５６７８９：．／－～", "0123456789:./-~")
_WORDS = {  # Cantonese / colloquial -> Mandarin, same length
    "听日": "明天", "琴日": "昨天", "寻日": "昨天", "尋日": "昨天", "听朝": "明早", "今朝": "今早", "琴晚": "昨晚",
    "听晚": "明晚", "下昼": "下午", "上昼": "上午", "晏昼": "中午", "朝早": "早上", "呢个": "这个", "今个": "这个",
    "明儿": "明天", "今儿": "今天", "昨儿": "昨天", "钟头": "小时", "夜晚": "晚上", "大后日": "大后天", "大前日": "大前天",
    "后日": "后天", "前日": "前天",
}  # fmt: skip
_WORD_RX = re.compile("|".join(sorted(map(re.escape, _WORDS), key=len, reverse=True)))


def normalize(text: str) -> str:
    """Same-length Simplified/Mandarin form of ``text`` (offsets are preserved)."""
    s = text.translate(_FULLWIDTH).translate(_CHARS).replace("聽", "听").replace("尋", "寻")
    out = _WORD_RX.sub(lambda m: _WORDS[m.group()], s)
    assert len(out) == len(text)
    return out


# ---------------------------------------------------------------- numerals
_DIG = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"〇": 0, "两": 2, "俩": 2}
N = r"[0-9]{1,3}|[零〇一二两三四五六七八九十]{1,3}"


def zh_int(s: str) -> int | None:
    """0..99 in Arabic or Chinese numerals (十, 二十, 三十一, 零五); None when it is not a number."""
    if s.isascii():
        return int(s) if s.isdigit() else None
    if "十" not in s:
        if len(s) == 2 and s[0] in "零〇" and s[1] in _DIG:
            return _DIG[s[1]]
        return _DIG.get(s) if len(s) == 1 else None
    tens, _, ones = s.partition("十")
    t = _DIG.get(tens) if tens else 1
    o = _DIG.get(ones) if ones else 0
    return None if t is None or o is None or len(tens) > 1 or len(ones) > 1 else t * 10 + o


def _year(s: str, base_year: int) -> int | None:
    """'2025', '二〇二五', '25' / '98' (two digits: the pivot of :func:`two_digit_year`)."""
    if not s.isascii():
        if len(s) not in (2, 4) or any(c not in _DIG for c in s):
            return None
        s = "".join(str(_DIG[c]) for c in s)
    if len(s) == 2:
        return two_digit_year(int(s), base_year)
    return int(s) if len(s) == 4 else None


# ---------------------------------------------------------------- rules
_POD = r"凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|夜间|半夜|今早|今晚|明早|明晚|昨晚|早|晚|夜"
_NOT_AFTER = r"(?<![之以此提然最日年月目当从这那同及准按随临暂有小多几])"
_DAYW = r"(?P<dd>(?<![之以此提然最年月差])大?[前后]天(?!才|赋|努力|的努力|培养)|[昨今明][天日]|今天)"
_MONTH_ZH = r"[0-9]{1,2}|十[一二]?|[一二三四五六七八九]"
_DAY_ZH = r"[0-9]{1,2}|[一二]?十[一二三四五六七八九]?|三十一?|[一二三四五六七八九]"
_REL = re.compile(
    _DAYW + r"|(?P<pd>[昨今明])(?P<pw>早上?|晚上?|晨|夜)"
    rf"|(?P<mp>上上|下下|上|下|这|本|当)个?月(?:(?P<mpd>{_DAY_ZH})[号日]|(?![底末初中份饼亮光]))"
    r"|(?<![之以此然最多几每百千万])(?P<yp>大前|大后|[去今明前后])年(?![底末初中级纪轻])"
    # 一下 is a verb particle ("约一下周五", "看一下周报"), not 下周 "next week"
    r"|(?:(?<!一)(?P<wp>上上|下下|上|下|这|本)个?|(?<![零〇一二两三四五六七八九十几每个0-9]))(?:周|星期|礼拜)"
    r"(?P<wx>[一二三四五六日天1-7末](?!末)|(?!末))"
)
_K = {"上上": -2, "下下": 2, "上": -1, "下": 1, "这": 0, "本": 0, "当": 0}
_DD = {"大前天": -3, "前天": -2, "后天": 2, "大后天": 3, "昨": -1, "今": 0, "明": 1}
_YP = {"去": -1, "今": 0, "明": 1, "前": -2, "后": 2, "大前": -3, "大后": 3}

_OFFSET = re.compile(
    rf"(?P<n>{N}|半)(?P<half1>个半)?个?(?P<u>天|日|周|星期|礼拜|月|年|小时|分钟|分)(?P<half2>半)?"
    r"(?P<dir>之前|之后|以前|以后|前|后)"
)
# the time since a finished act: "拔完牙三天了" (the tooth came out three days ago), "做完手术一周了", "吃过药两个小时了"
_ELAPSED = re.compile(
    rf"(?<=[完过])[^0-9，。！？、,.!?\s]{{0,4}}?(?P<n>{N}|半)(?P<half1>个半)?个?"
    r"(?P<u>天|周|星期|礼拜|月|年|小时|分钟)(?P<half2>半)?(?P<dir>了)"
)
_PREFIX = re.compile(
    rf"(?P<d>(?<![之以此提然最日年月目当从几])前|(?<![之以此然最日年月几落])后|过去|未来|接下来|最近)的?(?P<n>{N})个?"
    r"(?P<u>天|日|周|星期|礼拜|月|年)(?!前|后|以|之|级|纪)"
)
_DATE = re.compile(
    rf"(?:(?P<y>[0-9]{{4}}|[0-9]{{2}}|[零〇一二三四五六七八九]{{4}}|[零〇一二三四五六七八九]{{2}})年|(?P<yr>去年|今年|明年|前年|后年)的?)?"
    rf"(?P<m>{_MONTH_ZH})月份?(?:(?P<d>{_DAY_ZH})[日号]|(?P<mpart>上旬|中旬|下旬|初|中|底|末))?(?![河亮光饼色薪嫂牙])"
    rf"|(?<![0-9])(?P<y2>[0-9]{{4}}|[0-9]{{2}}|[零〇一二三四五六七八九]{{4}})年(?![级代纪轻终度货份会薪])"
    # (a seat, a room, a desk or a parking space numbered 12 is no 12th: 座位12号, 房间8号, 车位3号)
    rf"|(?<![月0-9第几零〇一二两三四五六七八九十])(?<!座位)(?<!房间)(?<!车位)(?<!床位)(?<!工位)(?<!编号)(?<!门牌)"
    rf"(?<![座桌排])(?P<d2>{_DAY_ZH})[号日](?![线楼栋层门房室位车床机台路院站码电子本常])"
)
_LUNAR = re.compile(
    r"(?P<pre>农历|阴历)?(?P<m>正|腊|冬|十[一二]?|[一二三四五六七八九])月(?P<d>初[一二三四五六七八九十]|廿[一二三四五六七八九]?|[一二]?十[一二三四五六七八九]?|三十)"
    r"|大年(?P<ny>初[一二三四五六七八九十]|三十)|(?<!大)年三十"
)
_CLOCK = re.compile(
    rf"(?P<pod>{_POD})?(?P<h>[0-9]{{1,2}}|[零〇一二两三四五六七八九十]{{1,3}})(?:点钟?|时)"
    rf"(?:(?P<half>半)|(?P<q>[一三])刻|(?P<mi>[0-9]{{1,2}}|零?[一二三四五六七八九]|[一二三四五]?十[一二三四五六七八九]?)分?)?"
    r"(?!点|儿|水|之间|一线|都|也|[0-9])"
    rf"|(?P<pod2>{_POD})?(?P<hh>[0-2]?[0-9]):(?P<mm>[0-5][0-9])"
    rf"|(?P<podonly>凌晨|清晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|半夜)"
)
_PERIOD_EDGE = re.compile(r"(?P<p>这个|本|下个?|上个?|今年|明年|去年|当)?(?P<u>月|季度|季|年)(?P<e>底|末|初)")
_QUARTER = re.compile(
    r"(?P<p>这个|本|下下个?|下个?|上个?)季度|第(?P<n>[一二三四1-4])季度|(?<![A-Za-z])Q(?P<q>[1-4])(?![0-9])"
)

_SEASON = re.compile(r"(?P<p>去年|今年|明年|前年|后年)的?(?P<s>[春夏秋冬])(?:天|季)")
_SEASON_KEY = {"春": "spring", "夏": "summer", "秋": "autumn", "冬": "winter"}
_POD_RANGE = {  # part of day -> (start hour, end hour exclusive)
    "凌晨": (0, 6), "清晨": (5, 8), "早上": (6, 12), "早晨": (6, 12), "上午": (6, 12), "早": (6, 12), "今早": (6, 12),
    "明早": (6, 12), "中午": (12, 14), "下午": (12, 18), "傍晚": (17, 19), "晚上": (18, 24), "夜里": (18, 24),
    "夜间": (18, 24), "晚": (18, 24), "夜": (18, 24), "今晚": (18, 24), "明晚": (18, 24), "昨晚": (18, 24),
    "半夜": (0, 6),
}  # fmt: skip
_PM = frozenset({"下午", "傍晚", "晚上", "夜里", "夜间", "晚", "夜", "今晚", "明晚", "昨晚"})
_AM = frozenset({"凌晨", "清晨", "早上", "早晨", "上午", "早", "今早", "明早", "半夜"})
_POD_DAY = {"今早": 0, "今晚": 0, "明早": 1, "明晚": 1, "昨晚": -1}


def _mark(sp: Span | None, prio: int = 2) -> Span | None:
    return None if sp is None else replace(sp, prio=prio)


def _rel(c: Ctx, t: str) -> list[Span]:
    out: list[Span] = []
    week_mon = None  # the week named by the last 上周X/下周X: a later bare 周X stays in that week
    for m in _REL.finditer(t):
        a, b = m.span()
        sp: Span | None
        if m["dd"]:
            sp = c.day(a, b, shift(c.base, _DD.get(m["dd"], _DD.get(m["dd"][0], 0))))
        elif m["pd"]:
            sp = c.day(a, b, shift(c.base, _DD[m["pd"]]), {"早": "早上", "晚": "晚上"}.get(m["pw"], m["pw"]))
        elif m["mp"]:
            ym = ym_shift(c.base.year, c.base.month, _K[m["mp"]])
            if m["mpd"]:  # 下个月5号
                d = zh_int(m["mpd"])
                sp = c.day(a, b, mkdate(ym[0], ym[1], d) if ym and d else None)
            else:
                sp = c.span(a, b, month_range(ym, c.tz), "month")
        elif m["yp"]:
            sp = c.span(a, b, year_range(c.base.year + _YP[m["yp"]], c.tz), "year")
        else:
            wp, wx = m["wp"], m["wx"]
            if not wx:
                if wp is None:
                    continue  # 周围, 做礼拜 ...
                mon = shift(c.base, -c.base.weekday() + 7 * _K[wp])
                sp = c.span(a, b, days_range(mon, shift(mon, 6), c.tz), "week")
            elif wx == "末":
                k = _K[wp] if wp else ((0 if c.base.weekday() == 6 else -1) if c.tense(a) < 0 else 0)
                sp = c.span(a, b, c.weekend(k), "day", bare=wp is None, wd=(5, 6))
            else:
                idx = 6 if wx in "日天" else (int(wx) - 1 if wx.isascii() else "一二三四五六".index(wx))
                if wp:
                    week_mon = shift(c.base, -c.base.weekday() + 7 * _K[wp])
                    d = shift(week_mon, idx)
                else:
                    d = shift(week_mon, idx) if week_mon is not None else c.weekday(idx, a)
                sp = c.day(a, b, d)
                if sp is not None and wp is None:
                    sp = replace(sp, bare=True, wd=(idx,))
        if sp is not None:
            out.append(sp)
    return out


def _offsets(c: Ctx, t: str) -> list[Span]:
    out = []
    for m in [*_OFFSET.finditer(t), *_ELAPSED.finditer(t)]:
        raw, u = m["n"], m["u"]
        half = 0.5 if (m["half1"] or m["half2"]) else 0.0
        n = 0.5 if raw == "半" else zh_int(raw)
        if n is None or (n == 0 and not half):
            continue
        n = n + half
        sign = -1 if ("前" in m["dir"] or m.re is _ELAPSED) else 1
        # the time since an act is the number and its unit, not the act's object (拔完牙三天了: 三天了)
        a, b = (m.start("n"), m.end()) if m.re is _ELAPSED else m.span()
        if u in ("小时", "分钟", "分"):
            minutes = round(n * 60) if u == "小时" else round(n)
            out.append(c.instant(a, b, sign * minutes))
            continue
        unit = {
            "天": "day",
            "日": "day",
            "周": "week",
            "星期": "week",
            "礼拜": "week",
            "月": "month",
            "年": "year",
        }[u]
        if n != int(n):  # 半个月 = 15 days, 一个半月 = 45 days, 半年 = 6 months
            if unit not in ("week", "month", "year"):
                continue
            unit, n = ("month", n * 12) if unit == "year" else ("day", n * (7 if unit == "week" else 30))
        rng, gran = unit_range(c.base, unit, sign * int(n), c.tz)
        sp = c.span(a, b, rng, gran)
        if sp is not None:
            out.append(sp)
    return out


def _prefixes(c: Ctx, t: str) -> list[Span]:
    """前三天 / 后两个月 / 过去五年 / 未来三天: the N whole units before (after) the current one, as a range."""
    out = []
    for m in _PREFIX.finditer(t):
        n = zh_int(m["n"])
        if not n or n > 60:
            continue
        back = m["d"] in ("前", "过去", "最近")
        unit = {
            "天": "day",
            "日": "day",
            "周": "week",
            "星期": "week",
            "礼拜": "week",
            "月": "month",
            "年": "year",
        }[m["u"]]
        first, last = (-n, -1) if back else (1, n)
        r0, g = unit_range(c.base, unit, first, c.tz)
        r1, _ = unit_range(c.base, unit, last, c.tz)
        if r0 is None or r1 is None:
            continue
        out.append(Span(m.start(), m.end(), r0[0], r1[1], g, True, prio=3))
    return out


def _dates(c: Ctx, t: str) -> list[Span]:
    out = []
    for m in _DATE.finditer(t):
        a, b = m.span()
        if m["y2"]:
            y = _year(m["y2"], c.base.year)
            if y is not None:
                out.append(c.span(a, b, year_range(y, c.tz), "year", False))
            continue
        if m["d2"]:
            d = zh_int(m["d2"])
            if not d or d > 31:
                continue
            if t[a:b].endswith("日") and not m["d2"].isascii() and len(m["d2"]) == 1:
                continue  # 一日三餐, 三日 (a duration)
            day = pick_year_month(c, a, d)
            sp = c.day(a, b, day, relative=False)
            if sp is not None:
                out.append(replace(sp, part="dom"))
            continue
        mo = zh_int(m["m"])
        if mo is None or not 1 <= mo <= 12:
            continue
        y = _year(m["y"], c.base.year) if m["y"] else None
        if m["yr"]:  # 去年3月 / 明年1月5号
            y = c.base.year + {"去年": -1, "今年": 0, "明年": 1, "前年": -2, "后年": 2}[m["yr"]]
        if m["d"]:
            d = zh_int(m["d"])
            if d is None:
                continue
            day = mkdate(y, mo, d) if y else pick_year(c, a, lambda yy, mo=mo, d=d: mkdate(yy, mo, d))
            sp = c.day(a, b, day, relative=False)
            if sp is not None and y is None:
                sp = replace(sp, part="md")
        elif m["mpart"]:  # 12月中旬 / 十月中 / 3月底 / 5月初
            if y is None:
                last = pick_year(c, a, lambda yy, mo=mo: month_last(yy, mo))
                y = last.year if last else None
            end = month_last(y, mo) if y else None
            if end is None:
                continue
            p = m["mpart"]
            d0, d1 = {
                "上旬": (1, 10),
                "中旬": (11, 20),
                "中": (11, 20),
                "下旬": (21, end.day),
                "初": (1, 1),
            }.get(p, (end.day, end.day))
            sp = c.span(a, b, days_range(date(y, mo, d0), date(y, mo, d1), c.tz), "day", False, prio=2)
        else:
            if y is None:
                first = pick_year(c, a, lambda yy, mo=mo: month_last(yy, mo))
                y = first.year if first else None
            sp = c.span(a, b, month_range((y, mo), c.tz) if y else None, "month", False)
            if sp is not None and not m["y"] and not m["yr"]:
                sp = replace(sp, part="mon")
        if sp is not None:
            out.append(sp)
    return out


def pick_year_month(c: Ctx, pos: int, d: int) -> date | None:
    """A day of the month said alone (12号): this month's; a day more than 10 days past is next month's, unless
    the sentence is in the past tense."""
    this = mkdate(c.base.year, c.base.month, d)
    if this is not None and (this >= c.base or c.tense(pos) < 0 or (c.base - this).days <= 10):
        return this
    nxt = ym_shift(c.base.year, c.base.month, 1)
    return mkdate(nxt[0], nxt[1], d) if nxt else None


def _lunar(c: Ctx, t: str) -> list[Span]:
    out = []
    for m in _LUNAR.finditer(t):
        a, b = m.span()
        if m["ny"] or t[a:b] == "年三十":
            md = (
                (1, _lunar_day(m["ny"])) if m["ny"] and m["ny"] != "三十" else (12, 0)
            )  # 0: the year's last day
        else:
            mo = {"正": 1, "腊": 12, "冬": 11}.get(m["m"]) or zh_int(m["m"])
            if mo is None or (
                not m["pre"] and m["m"] not in "正腊冬" and not m["d"].startswith(("初", "廿"))
            ):
                continue  # 八月十五 needs 农历: otherwise it is the solar date rule's
            md = (mo, _lunar_day(m["d"]))
        sp = lunar_span(c, a, b, md[0], md[1])
        if sp is not None:
            out.append(_mark(sp, 3))
    return out


def _lunar_day(s: str) -> int:
    if s.startswith("初"):
        return zh_int(s[1:]) or 0
    if s.startswith("廿"):
        return 20 + (zh_int(s[1:]) or 0) if len(s) > 1 else 20
    return zh_int(s) or 0


def _clocks(c: Ctx, t: str) -> list[Span]:
    out = []
    for m in _CLOCK.finditer(t):
        a, b = m.span()
        if m["podonly"]:
            pod = m["podonly"]
            h0, h1 = _POD_RANGE[pod]
            if pod == "中午":  # noon alone is a clock time
                out.append(c.clock(a, b, 12, 0, True, pod=pod))
                continue
            t0 = wall(c.base, c.tz, h0)
            t1 = wall(c.base, c.tz, h1 - 1, 59, 59)
            out.append(Span(a, b, t0, t1, "hour", True, tod=True, pod=pod, weak=1))
            continue
        pod = m["pod"] or m["pod2"]
        if m["hh"] is not None:
            h, mi = int(m["hh"]), int(m["mm"])
            known = h == 0 or h >= 13 or m["hh"].startswith("0")
        else:
            h = zh_int(m["h"])  # type: ignore[assignment]
            if h is None:
                continue
            if m["half"]:
                mi = 30
            elif m["q"]:
                mi = 15 if m["q"] == "一" else 45
            elif m["mi"]:
                if len(m["mi"]) == 1 and not m["mi"].isascii() and t[m.end("mi") : m.end("mi") + 1] != "分":
                    continue  # 两点一线, 三点五: a lone Chinese digit after 点 is not minutes
                mi = zh_int(m["mi"])  # type: ignore[assignment]
                if mi is None:
                    continue
            else:
                mi = 0
            if h == 1 and m["h"] == "一" and not pod and not mi:
                continue  # 一点 alone is "a little"
            known = h == 0 or h >= 13
        if h > 24 or mi > 59:
            continue
        day_off = _POD_DAY.get(pod or "", 0)
        if pod in _PM and h < 12:
            h, known = h + 12, True
        elif pod in _PM and h == 12:
            h, known = 24, True  # 晚上12点 = the midnight that ends the day
        elif pod == "中午" and 1 <= h <= 2:
            h, known = h + 12, True
        elif pod in _AM or pod == "中午":
            known = True
        if h == 24:
            h, day_off = 0, day_off + 1
        sp = c.clock(a, b, h, mi, known, pod=pod, day=shift(c.base, day_off))
        if sp is not None:
            if pod in _POD_DAY:
                sp = replace(sp, tod=False)  # 明早八点 names its date
            out.append(sp)
    return out


def _edges(c: Ctx, t: str) -> list[Span]:
    """月底 / 下个月底 / 季度末 / 年底 / 明年年初: the last (first) day of the period."""
    out = []
    for m in _PERIOD_EDGE.finditer(t):
        p, u, e = m["p"] or "", m["u"], m["e"]
        if u == "季" and e == "初":
            continue
        k = {"": 0, "这个": 0, "本": 0, "当": 0, "下": 1, "下个": 1, "上": -1, "上个": -1}.get(p)
        y = c.base.year + {"今年": 0, "明年": 1, "去年": -1}.get(p, 0)
        if u == "年":
            if k not in (None, 0) and p not in ("今年", "明年", "去年"):
                continue
            d = date(y, 12, 31) if e in "底末" else date(y, 1, 1)
        elif p in ("今年", "明年", "去年"):
            continue
        elif u == "月":
            ym = ym_shift(c.base.year, c.base.month, k or 0)
            if ym is None:
                continue
            d = month_last(*ym) if e in "底末" else date(ym[0], ym[1], 1)  # type: ignore[assignment]
        else:
            rng = quarter_range(c.base, k or 0, c.tz)
            if rng is None:
                continue
            d = rng[1].date() if e in "底末" else rng[0].date()
        sp = c.day(m.start(), m.end(), d)
        if sp is not None:
            out.append(_mark(sp, 3))
    return out


def _quarters(c: Ctx, t: str) -> list[Span]:
    out = []
    for m in _QUARTER.finditer(t):
        if m["p"] is not None:
            k = {"这个": 0, "本": 0, "下": 1, "下个": 1, "下下": 2, "下下个": 2, "上": -1, "上个": -1}[m["p"]]
            rng = quarter_range(c.base, k, c.tz)
        else:
            q = m["n"] or m["q"]
            n = int(q) if q.isascii() else "一二三四".index(q) + 1
            rng = quarter_range(date(c.base.year, 3 * n - 2, 1), 0, c.tz)
        sp = c.span(m.start(), m.end(), rng, "quarter", m["p"] is not None)
        if sp is not None:
            out.append(_mark(sp, 3))
    return out


def _seasons(c: Ctx, t: str) -> list[Span]:
    """去年夏天 / 今年冬天: that year's meteorological season (month grain); a bare 夏天 is not a time."""
    out = []
    for m in _SEASON.finditer(t):
        y = c.base.year + _YP[m["p"][0]] if m["p"] != "前年" else c.base.year - 2
        if m["p"] == "后年":
            y = c.base.year + 2
        sp = c.span(m.start(), m.end(), season_range(y, _SEASON_KEY[m["s"]], c.tz), "month")
        if sp is not None:
            out.append(_mark(sp, 3))
    return out


def _holidays(c: Ctx, t: str) -> list[Span]:
    out = []
    for m in ZH_HOLIDAY.finditer(t):
        sp = holiday_span(c, m, "zh")
        if sp is not None:
            out.append(_mark(sp, 3))
    return out


def _recurrences(c: Ctx, t: str) -> list[Span]:
    out = []
    for m in ZH_REC.finditer(t):
        sp = zh_recurrence(c, m)
        if sp is not None:
            out.append(_mark(sp, 4))
    return out


def zh_spans(c: Ctx) -> list[Span]:
    """Chinese candidates on the normalised text (offsets equal the original's)."""
    t = normalize(c.text)
    spans: list[Span] = []
    for rule in (
        _rel,
        _offsets,
        _prefixes,
        _dates,
        _lunar,
        _clocks,
        _edges,
        _quarters,
        _seasons,
        _holidays,
        _recurrences,
    ):
        spans += [s for s in rule(c, t) if s is not None]
    return spans

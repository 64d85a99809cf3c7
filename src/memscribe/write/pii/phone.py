"""Phone numbers in every format and region, through ``phonenumbers`` (Google's libphonenumber).

Three passes, each stricter about evidence the less the number says about itself:
1. a number in international form ("+44 20 7946 0958", "0049 30 123456", "tel:+1-415-555-2671") is a
   phone when libphonenumber finds it possible for its country code;
2. a number in national form is checked against the regions the text points to (Chinese text: CN; any
   text: US; countries named in the text, in English or Chinese) and must be valid there, and either look
   like a phone (separators, parentheses, an 11-digit Chinese mobile) or follow a phone word;
3. after a phone word ("call me at", "电话", "fax"), a digit run valid in any region counts.
An extension ("ext. 204", "x204", "转8", "分机 12") belongs to the number. Order, tracking and invoice
numbers, dates and amounts are not phones.
"""

from __future__ import annotations

import codecs
import re
import threading
from collections.abc import Iterator
from functools import cache, lru_cache
from importlib import resources

import phonenumbers as pn
from phonenumbers import Leniency, PhoneNumberMatcher

from memscribe.write.pii.finding import PiiFinding, after, before, finding

__all__ = ["find_phone"]

PHONE_WORDS = re.compile(
    r"(?i)(?<![a-z])(?:phone|telephone|tel|call|calls|calling|cell|cellphone|mobile|whatsapp|wechat|signal"
    r"|telegram|viber|line|contact|fax|landline|hotline|text|texts|sms|dial|ring|reach|reached|reachable|number"
    r"|extension|ext)(?![a-z])|电话|電話|手机|手機|号码|號碼|联系|聯繫|打给|打给我|致电|拨打|座机|传真|分机|热线|来电|微信|短信|打我"
    r"|打(?=[ ]?[0-9+(])"
)
_PHONE_NOUNS = r"phone|cell|mobile|number|landline|whatsapp|电话|手机|号码|座机|联系方式"
_ORDER_WORDS = re.compile(
    r"(?i)(?<![a-z])(?:order|tracking|invoice|ref|reference|confirmation|booking|receipt|ticket|flight|serial"
    r"|isbn|model|part|sku|policy|case|claim|membership|id)(?![a-z])"
    r"|订单|单号|运单|快递|发票|编号|流水|卡号|账号|帐号|会员|工号|学号|身份证|航班|车次|票号|序列号"
)
_EXT = re.compile(
    r"(?i)\s*(?:,|;|\s)?\s*(?:ext\.?|extension|x|#|转|分机|转分机)\s*[:：]?\s*[0-9]{1,6}(?![0-9])"
)
_INTL = re.compile(r"(?<![0-9A-Za-z+])(?:\+|00)[1-9][0-9 ().\-/]{5,22}[0-9]")
_CANDIDATE = re.compile(r"(?<![0-9A-Za-z])\(?[0-9][0-9 ().\-/]{3,20}[0-9](?![0-9])")
_CN_MOBILE = re.compile(r"1[3-9][0-9]{9}")
_FORMATTED = re.compile(r"[ ().\-]")
# the old rule-based shapes: a number formatted like a phone of the two default regions even when the
# number plan says the range is unassigned ("(212) 370-0000" in a story is still someone's phone)
_NANP = re.compile(
    r"(?<![0-9A-Za-z+])(?:\+?1[ .-]?)?(?:\([2-9][0-9]{2}\)[ ]?[2-9][0-9]{2}[ .-]?[0-9]{4}"
    r"|[2-9][0-9]{2}([.-])[2-9][0-9]{2}\1[0-9]{4}|(?<=\+1 )[2-9][0-9]{2} [2-9][0-9]{2} [0-9]{4})(?![0-9])"
)
_CN_MOBILE_TEXT = re.compile(
    r"(?<![0-9A-Za-z+])(?:(?:\+|00)?86[ -]?)?1[3-9][0-9](?:[ -]?[0-9]{4}){2}(?![0-9])"
)
_CN_LANDLINE = re.compile(
    r"(?<![0-9A-Za-z])(?:\((?:010|02[0-9]|0[3-9][0-9]{2})\)[ -]?|(?:010|02[0-9]|0[3-9][0-9]{2})[ -])[1-9][0-9]{6,7}(?![0-9])"
)


_LOCALE_LOCK = threading.Lock()


def _locale_data() -> dict[str, dict[str, str]]:
    """libphonenumber's region display names, parsed once. The lock makes two threads' first calls (a request
    and the deferred-write worker) wait for one parse: two concurrent ``ast.parse`` of this large file trip
    a CPython 3.11.7 bug ("AST constructor recursion depth mismatch"), and it is the same work twice."""
    with _LOCALE_LOCK:
        return _parse_locale_data()


_LOCALE_REGION = re.compile(r"^\s*'([A-Z0-9]{2,3})':\s*\{(.*)\},?\s*$")
_LOCALE_NAME = re.compile(r"'([A-Za-z_]+)':(?:u\()?'((?:[^'\\]|\\.)*)'\)?")


@cache
def _parse_locale_data() -> dict[str, dict[str, str]]:
    """``geodata/locale.py``, read as text without importing ``phonenumbers.geodata`` (whose package import
    loads every prefix table: seconds, hundreds of MB). The generated file holds one region per line,
    ``'GB': {'en':'*aa', 'zh':u('\\u82f1\\u56fd'), …}``: a line scan reads it in a tenth of the time an AST
    walk took (5 s, paid by the first message with a number in it)."""
    src = resources.files("phonenumbers").joinpath("geodata", "locale.py").read_text(encoding="utf-8")
    data: dict[str, dict[str, str]] = {}
    for line in src.splitlines():
        m = _LOCALE_REGION.match(line)
        if m:
            data[m.group(1)] = {
                lang: codecs.decode(value, "unicode_escape") if "\\" in value else value
                for lang, value in _LOCALE_NAME.findall(m.group(2))
            }
    if not data:
        raise ImportError("phonenumbers' geodata/locale.py has an unknown layout")
    return data


def _region_display_name(region: str, lang: str) -> str:
    names = _locale_data().get(region, {})
    name = names.get(lang, "")
    return names.get(name[1:], "") if name.startswith("*") else name


_LEFT, _RIGHT = "(?<![A-Za-z])", "(?![A-Za-z])"  # a country's name is a word of its own


@cache
def _country_name_list() -> tuple[tuple[str, str], ...]:
    """Each region's English and Chinese display names (from libphonenumber's own data), and a few cities and
    short forms, with their region code."""
    out: list[tuple[str, str]] = []
    for region in sorted(pn.SUPPORTED_REGIONS):
        for lang in ("en", "zh"):
            name = _region_display_name(region, lang)
            if name and len(name) >= 2:
                out.append((name, region))
    extra = {"UK": "GB", "Britain": "GB", "England": "GB", "London": "GB", "USA": "US", "America": "US",
             "Canada": "CA", "Toronto": "CA", "Sydney": "AU", "Melbourne": "AU", "Tokyo": "JP", "Paris": "FR",
             "Berlin": "DE", "Munich": "DE", "Seoul": "KR", "Mumbai": "IN", "Delhi": "IN", "台湾": "TW",
             "香港": "HK", "澳门": "MO", "英国": "GB", "美国": "US", "日本": "JP", "韩国": "KR", "东京": "JP"}  # fmt: skip
    out.extend(extra.items())
    return tuple(out)


@cache
def _country_names() -> tuple[tuple[re.Pattern[str], str], ...]:
    """One pattern per name -> region code."""
    return tuple((re.compile(rf"{_LEFT}{re.escape(n)}{_RIGHT}"), r) for n, r in _country_name_list())


@cache
def _any_country_name() -> re.Pattern[str]:
    """Matches where any of ``_country_names()`` does: most texts with a number name no country, and then one
    scan replaces ~500."""
    names = "|".join(re.escape(n) for n, _ in _country_name_list())
    return re.compile(rf"{_LEFT}(?:{names}){_RIGHT}")


def _regions(text: str) -> list[str]:
    has_cjk = any("\u4e00" <= c <= "\u9fff" for c in text)
    regions = ["CN", "US"] if has_cjk else ["US", "CN"]
    if not _any_country_name().search(text):
        return regions
    for rx, region in _country_names():
        if region not in regions and rx.search(text):
            regions.append(region)
    return regions


def _with_extension(text: str, end: int) -> int:
    m = _EXT.match(text, end)
    return m.end() if m else end


def _order_context(text: str, start: int) -> bool:
    """An order / tracking / card word is closer in front of the number than any phone word."""
    ctx = before(text, start, 30)
    order = [m.end() for m in _ORDER_WORDS.finditer(ctx)]
    phone = [m.end() for m in PHONE_WORDS.finditer(ctx)]
    return bool(order) and (not phone or order[-1] > phone[-1])


def _phone_word_before(text: str, start: int) -> bool:
    """A phone word in the 40 chars before ``start`` (the number's first char included: "打023…")."""
    return bool(PHONE_WORDS.search(before(text, start, 40) + text[start : start + 1]))


@cache
def _regions_by_length() -> dict[int, tuple[str, ...]]:
    """Regions whose national numbers can have n digits (n counted with or without a trunk prefix)."""
    out: dict[int, set[str]] = {}
    for region in pn.SUPPORTED_REGIONS:
        meta = pn.PhoneMetadata.metadata_for_region(region)
        if meta is None or meta.general_desc is None:
            continue
        for n in meta.general_desc.possible_length or ():
            for k in (n, n + 1, n + 2):  # a trunk prefix ("0", "8", "06") written in front
                out.setdefault(k, set()).add(region)
    return {k: tuple(sorted(v)) for k, v in out.items()}


def _phone_word_after(text: str, end: int) -> bool:
    """ "4155552671 is my cell", "13912345678是我的手机": a phone word right after the number."""
    return bool(
        re.match(
            rf"[ ,]*(?:is|was|=|是|为)?[ ]*(?:my|our|his|her|the|我的|他的|她的)?[ ]*(?:{_PHONE_NOUNS})",
            text[end : end + 24],
            re.I,
        )
    )


@lru_cache(maxsize=4096)
def _valid_somewhere(candidate: str) -> bool:
    for region in _regions_by_length().get(_digits(candidate.split("x")[0]), ()):
        try:
            if pn.is_valid_number(pn.parse(candidate, region)):
                return True
        except pn.NumberParseException:
            continue
    return False


def _digits(s: str) -> int:
    return sum(c.isdigit() for c in s)


def find_phone(text: str) -> Iterator[PiiFinding]:
    if _digits(text) < 4:
        return
    phone_word = bool(PHONE_WORDS.search(text))
    # 1. international form, any country
    for m in _INTL.finditer(text):
        raw = m.group().rstrip(" ().-/")
        region = "CN" if raw.startswith("00") else None
        try:
            num = pn.parse(raw, region)
        except pn.NumberParseException:
            continue
        groups = re.findall(r"[0-9]+", raw)
        decimals = "." in raw and not all(len(g) >= 2 for g in groups[2:])  # "+12.5 13.7 14.2" is not a phone
        if pn.is_possible_number(num) and not decimals:
            start = m.start()
            if text[max(0, start - 4) : start].lower() == "tel:":
                start -= 4
            elif text[max(0, start - 1) : start] == "(" and ")" in raw:  # "(+86) 139…"
                start -= 1
            yield finding("phone", text, start, _with_extension(text, m.start() + len(raw)), 0.9)
    # 2. national form, in the regions the text points to
    for region in _regions(text):
        for pm in PhoneNumberMatcher(text, region, leniency=Leniency.VALID):
            raw = pm.raw_string
            if raw.startswith(("+", "00")) or _order_context(text, pm.start):
                continue
            compact = re.sub(r"[^0-9]", "", raw)
            shaped = bool(_FORMATTED.search(raw)) or (
                region == "CN" and _CN_MOBILE.fullmatch(compact) is not None
            )
            near_word = _phone_word_before(text, pm.start) or _phone_word_after(text, pm.end)
            if shaped or near_word:
                yield finding("phone", text, pm.start, _with_extension(text, pm.end), 0.85)
    for rx in (_NANP, _CN_MOBILE_TEXT, _CN_LANDLINE):
        for m in rx.finditer(text):
            if not _order_context(text, m.start()):
                yield finding("phone", text, m.start(), _with_extension(text, m.end()), 0.8)
    # 3. after a phone word, valid in any region
    if phone_word:
        # at most a dozen candidates: each may be tried against every region (a list of numbers is rare)
        for m in list(_CANDIDATE.finditer(text))[:12]:
            raw = m.group().rstrip(" ().-/")
            if raw.startswith("(") and ")" not in raw:
                raw, start = raw[1:], m.start() + 1
            else:
                start = m.start()
            near = _phone_word_before(text, start) or _phone_word_after(text, start + len(raw))
            if _digits(raw) < 6 or not near or _order_context(text, start):
                continue
            if _date_or_amount(text, start, start + len(raw), raw):
                continue
            if _valid_somewhere(raw):
                yield finding("phone", text, start, _with_extension(text, start + len(raw)), 0.75)


_DATE = re.compile(
    r"(?:19|20)[0-9]{2}[-/.](?:0?[1-9]|1[0-2])[-/.](?:0?[1-9]|[12][0-9]|3[01])|[0-9]{1,2}[:.][0-9]{2}"
)


def _date_or_amount(text: str, start: int, end: int, raw: str) -> bool:
    if _DATE.search(raw):
        return True
    prev = text[max(0, start - 1) : start]
    nxt = after(text, end, 4).lstrip()
    return prev in "$¥€£" or bool(
        re.match(r"(?i)(?:元|块|万|%|年|月|日|号|点|am|pm|美元|dollars?|usd|km|kg)", nxt)
    )

"""Sensitive-data detection for memory writes (Chinese and English).

Pure functions, no I/O. Every detector favours precision: dates, prices, order ids, flight numbers,
versions and times must not be flagged. ``PiiFinding.value`` holds the sensitive text itself, so
findings must never be logged; use :func:`mask_for_log` for anything that goes to a log.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

__all__ = [
    "PiiFinding",
    "PiiKind",
    "detect_pii",
    "is_task_necessary",
    "mask_for_log",
    "placeholder_label",
    "privacy_risk",
    "redact",
]

PiiKind = Literal["cn_id", "bank_card", "phone", "email", "ssn", "passport", "address", "medical", "secret"]


@dataclass(frozen=True, slots=True)
class PiiFinding:
    kind: PiiKind
    start: int  # char offsets into the text
    end: int
    value: str  # the matched sensitive value (never log it)
    confidence: float  # 0..1


# Tie-break on identical spans: the more specific kind wins.
_PRIORITY: dict[str, int] = {
    "secret": 9,
    "cn_id": 8,
    "ssn": 7,
    "bank_card": 6,
    "passport": 6,
    "email": 5,
    "phone": 4,
    "address": 3,
    "medical": 2,
}
_RISK: dict[str, float] = {
    "secret": 1.0,
    "cn_id": 0.95,
    "bank_card": 0.95,
    "ssn": 0.95,
    "medical": 0.9,
    "passport": 0.9,
    "phone": 0.85,
    "email": 0.85,
    "address": 0.8,
}
_LABELS: dict[str, tuple[str, str]] = {
    "cn_id": ("身份证号", "ID number"),
    "bank_card": ("银行卡号", "bank card"),
    "phone": ("手机号", "phone"),
    "email": ("邮箱", "email"),
    "ssn": ("社会安全号", "SSN"),
    "passport": ("护照号", "passport number"),
    "address": ("地址", "address"),
    "medical": ("健康信息", "medical info"),
    "secret": ("密钥", "secret"),
}

# ---------------------------------------------------------------- identity numbers / cards
_CN_ID = re.compile(r"(?<![0-9A-Za-z])[1-9][0-9]{16}[0-9Xx](?![0-9A-Za-z])")
_CN_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_CN_ID_CHECK = "10X98765432"
_LUHN2 = (0, 2, 4, 6, 8, 1, 3, 5, 7, 9)  # doubled digit, digits summed
_CN_PROVINCES = frozenset(
    "11 12 13 14 15 21 22 23 31 32 33 34 35 36 37 41 42 43 44 45 46 50 51 52 53 54 61 62 63 64 65 71 81 82 83 91".split()  # noqa: SIM905
)
_CARD = re.compile(
    r"(?<![0-9A-Za-z-])(?:[0-9]{13,19}|[0-9]{4}(?:([ -])[0-9]{4}){2,3}(?:\1[0-9]{1,3})?|[0-9]{4}([ -])[0-9]{6}\2[0-9]{4,5})(?![0-9])"
)
_CARD_NEG_CTX = re.compile(r"(?i)订单|单号|运单|快递|order|tracking|invoice|发票|ref")
_CARD_POS_CTX = re.compile(r"(?i)卡|银行|card|visa|master|amex|银联|credit|debit")
_SSN = re.compile(r"(?<![0-9A-Za-z-])([0-9]{3})-([0-9]{2})-([0-9]{4})(?![0-9-])")
_SSN_BARE = re.compile(r"(?<![0-9A-Za-z-])([0-9]{3})[ ]?([0-9]{2})[ ]?([0-9]{4})(?![0-9])")
_SSN_KW = re.compile(r"(?i)(?<![A-Za-z])ssn(?![A-Za-z])|social\s+security|社会安全号|社保号")
_PASSPORT_TOKEN = re.compile(r"(?<![0-9A-Za-z])(?:[A-Za-z]{1,2}[0-9]{6,8}|[0-9]{9})(?![0-9A-Za-z])")
_PASSPORT_KW = re.compile(r"(?i)护照|passport")

# ---------------------------------------------------------------- phones / email
_CN_MOBILE = re.compile(r"(?<![0-9A-Za-z+])(?:(?:\+|00)?86[ -]?)?1[3-9][0-9](?:[ -]?[0-9]{4}){2}(?![0-9])")
_CN_LANDLINE = re.compile(
    r"(?<![0-9A-Za-z])(?:\((?:010|02[0-9]|0[3-9][0-9]{2})\)[ -]?|(?:010|02[0-9]|0[3-9][0-9]{2})[ -])[1-9][0-9]{6,7}(?![0-9])"
)
_NANP = re.compile(
    r"(?<![0-9A-Za-z+])(?:\+?1[ .-]?)?"
    r"(?:\([2-9][0-9]{2}\)[ ]?[2-9][0-9]{2}[ .-]?[0-9]{4}|[2-9][0-9]{2}([.-])[2-9][0-9]{2}\1[0-9]{4}"
    r"|(?<=\+1 )[2-9][0-9]{2} [2-9][0-9]{2} [0-9]{4}|(?P<sp>[2-9][0-9]{2} [2-9][0-9]{2} [0-9]{4}))(?![0-9])"
)
_INTL = re.compile(
    r"(?<![0-9A-Za-z+])\+[1-9][0-9]{0,2}(?:[ .-]?\(0\)[ .-]?[0-9]{1,5})?"
    r"(?:(?:[ .-]\(?[0-9]{1,8}\)?){1,6}|[0-9]{7,13})(?![0-9])"
)
_PHONE_KW = re.compile(r"(?i)phone|tel|call|cell|mobile|whatsapp|contact|电话|手机|号码|联系")
_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24}(?![A-Za-z0-9-])"
)


# ---------------------------------------------------------------- addresses
def _cjk_class_without(stop: str) -> str:
    """A character class of CJK ideographs minus ``stop`` (function words that never start a place name)."""
    parts, lo = [], 0x4E00
    for cp in sorted({ord(c) for c in stop}):
        if cp > lo:
            parts.append(f"{chr(lo)}-{chr(cp - 1)}")
        lo = cp + 1
    parts.append(f"{chr(lo)}-\u9fff")
    return "[" + "".join(parts) + "]"


_N = _cjk_class_without("的了在到是址住寄送往于从去搬我你他她它们请把给这那个就也还要想让被对吗呢吧啊及或")
_ZH_DIGITS = "[一二三四五六七八九十]"
# a building / floor / room part: "5栋", "3单元", "B座", "12层", "201室", "一座", "三区"
_DETAIL = (
    rf"(?:[0-9A-Za-z]{{1,5}}|{_ZH_DIGITS}{{1,3}})(?:-[0-9]{{1,5}})?(?:号楼|栋|幢|座|单元|楼|层|室|号|户|区)"
)
# a bare room number right after a building or floor part ("2幢121", "10层1002"), never an amount or a date
_ROOM = r"(?:(?<=[栋幢座元层楼])[0-9]{3,5}(?![0-9]|元|块|年|月|日|号|点|分|个|人|次|%|米|平|天|岁))?"
# a named building, estate or campus after a street number ("中关村大厦", "东部软件园", "恒隆广场")
_BLDG = r"(?:小区|花园|公寓|大厦|家园|新村|苑|广场|大楼|中心|园区|园)"
_ZH_ADDR = re.compile(
    rf"(?P<admin>(?:{_N}{{2,7}}?(?:省|自治区|特别行政区))?(?:{_N}{{2,6}}?(?:市|自治州|地区|盟))?"
    rf"(?:{_N}{{1,6}}?(?:新区|区|县|旗))?(?:{_N}{{1,8}}?(?:街道|镇|乡))?)"
    rf"(?:(?P<road>{_N}{{1,10}}?(?:大街|大道|胡同|路|街|巷)(?:(?:{_ZH_DIGITS}{{1,2}}|[0-9]{{1,2}})段)?)"
    rf"(?P<num>[0-9]{{1,5}})(?:-[0-9]{{1,4}})?[号弄]"
    rf"(?P<bld>{_N}{{2,12}}?{_BLDG})?(?P<d1>(?:{_DETAIL})*){_ROOM}"
    rf"|{_N}{{2,10}}?(?:小区|花园|公寓|大厦|家园|新村|苑|广场|大楼|园区|园)(?P<d2>(?:{_DETAIL})+){_ROOM})"
)
_DATEISH_NEXT = frozenset("上下晚早中前后之那见去来回开出当午")
_EN_SUFFIX = (
    r"(?:Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Parkway|Pkwy|Place|Pl|Way"
    r"|Terrace|Ter|Circle|Cir|Highway|Hwy|Square|Sq|Loop|Trail|Crescent|Close|Mews)"
)
_EN_ADDR = re.compile(
    r"(?<![A-Za-z0-9])(?:[0-9]{1,6}[A-Z]?(?:-[0-9]{1,4})?[ ]+(?:(?:[A-Z][A-Za-z'.-]*|[0-9]{1,3}(?:st|nd|rd|th))[ ]+){1,4}?"
    rf"{_EN_SUFFIX}\.?(?![A-Za-z])(?:[ ]+(?:NW|NE|SW|SE|N|S|E|W)(?![A-Za-z]))?"
    r"|P\.?[ ]?O\.?[ ]+Box[ ]+[0-9]{1,6})"
    r"(?:,?[ ]*(?:Apt|Apartment|Suite|Ste|Unit|Fl|Floor|Rm|Room|\#)\.?[ ]*[A-Za-z0-9-]{1,6}(?![A-Za-z0-9]))?"
    r"(?:,[ ]*(?![A-Z]{2}[ ]+[0-9]{5})[A-Z][A-Za-z]+(?:[ ]+[A-Z][A-Za-z]+){0,2})?"
    r"(?:,?[ ]*[A-Z]{2}[ ]+[0-9]{5}(?:-[0-9]{4})?(?![0-9]))?"
)

# ---------------------------------------------------------------- medical
_MED_ZH = """糖尿病 1型糖尿病 2型糖尿病 高血压 抑郁症 焦虑症 双相情感障碍 躁郁症 精神分裂症 艾滋病 癌症 肺癌 肝癌 胃癌
乳腺癌 宫颈癌 结肠癌 直肠癌 食道癌 鼻咽癌 前列腺癌 甲状腺癌 白血病 淋巴瘤 肿瘤 乙肝 丙肝 乙型肝炎 丙型肝炎 肝硬化
肺结核 结核病 哮喘 癫痫 帕金森 阿尔茨海默 老年痴呆 心脏病 冠心病 心肌梗死 心梗 脑卒中 脑梗 尿毒症 肾衰竭 血液透析
化疗 放疗 胰岛素 二甲双胍 舍曲林 氟西汀 帕罗西汀 艾司西酞普兰 阿普唑仑 氯硝西泮 奥氮平 喹硫平 利培酮 碳酸锂
拉莫三嗪 甲亢 甲减 红斑狼疮 类风湿 痛风 自闭症 孤独症 多动症 强迫症 创伤后应激障碍 厌食症 暴食症 失眠症 梅毒
淋病 尖锐湿疣 不孕不育 抗抑郁药 降压药""".split()  # noqa: SIM905
_MED_EN = """diabetes, diabetic, type 1 diabetes, type 2 diabetes, hypertension, high blood pressure, depression,
clinical depression, major depressive disorder, anxiety disorder, panic disorder, bipolar, bipolar disorder,
schizophrenia, HIV, HIV-positive, cancer, breast cancer, lung cancer, leukemia, lymphoma, tumor, tumour,
chemotherapy, chemo, radiotherapy, hepatitis, hepatitis B, hepatitis C, cirrhosis, tuberculosis, asthma, epilepsy,
seizures, Parkinson, Parkinson's disease, Alzheimer, Alzheimer's disease, dementia, heart disease, heart attack, kidney failure,
dialysis, multiple sclerosis, lupus, rheumatoid arthritis, autism, ADHD, PTSD, anorexia, bulimia, eating disorder,
insomnia, herpes, syphilis, gonorrhea, chlamydia, infertility, Crohn, Crohn's disease, ulcerative colitis, celiac disease,
cystic fibrosis, hypothyroidism, hyperthyroidism, insulin, metformin, sertraline, fluoxetine, paroxetine,
escitalopram, citalopram, Prozac, Zoloft, Lexapro, Xanax, alprazolam, clonazepam, diazepam, quetiapine, olanzapine,
risperidone, lamotrigine, Adderall, Ritalin, methylphenidate, oxycodone, methadone, antidepressants, antidepressant,
warfarin, levothyroxine"""
_MED_EN_TERMS = [t.strip() for t in _MED_EN.split(",")]
_MED_EN_CS = ("AIDS", "OCD", "COPD")  # case-sensitive acronyms ("hearing aids")


def _alternation(terms: Sequence[str]) -> str:
    return "|".join(re.escape(t) for t in sorted(set(terms), key=len, reverse=True))


_MED_ZH_RE = re.compile(_alternation(_MED_ZH))
_MED_EN_RE = re.compile(r"(?i)(?<![A-Za-z0-9-])(?:" + _alternation(_MED_EN_TERMS) + r")(?![A-Za-z])")
_MED_EN_CS_RE = re.compile(r"(?<![A-Za-z])(?:" + "|".join(_MED_EN_CS) + r")(?![A-Za-z])")
_MED_NEG_BEFORE = re.compile(r"(?i)(?:great|tropical|economic)\s+$")  # "the Great Depression"

# ---------------------------------------------------------------- secrets
_PEM = re.compile(
    r"-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z ]{0,40}PRIVATE KEY-----|\Z)"
)
_SECRET_PATTERNS: tuple[tuple[re.Pattern[str], float], ...] = (
    (_PEM, 0.99),
    (re.compile(r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,200}(?<=[0-9A-Za-z])"), 0.95),
    (re.compile(r"(?<![A-Za-z0-9_])[sr]k_(?:live|test)_[A-Za-z0-9]{16,200}"), 0.95),
    (re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])"), 0.97),
    (re.compile(r"(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{30,255}"), 0.97),
    (re.compile(r"(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9_]{40,255}"), 0.97),
    (re.compile(r"(?<![A-Za-z0-9-])xox[abprs]-[A-Za-z0-9-]{10,200}"), 0.95),
    (re.compile(r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"), 0.95),
    (re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), 0.9),
)
_SECRET_KV = re.compile(
    r"(?i)(?P<kw>(?<![A-Za-z])(?:password|passwd|passcode|pwd|pin(?:[ ]?code)?|(?:api|access|secret)[ _-]?key"
    r"|client[ _-]?secret|secret|(?:access|auth|api)[ _-]?token|token)(?![A-Za-z])|密码|口令|密钥|私钥|令牌)"
    r"(?:[ ]+(?:for|of|to)[ ]+(?:the[ ]+|my[ ]+|our[ ]+)?[\w.@-]{1,30})?"
    r"(?:[ ]+(?:is|was)(?:[ ]*[:：])?[ ]+|[ ]*(?::=|[=:：])[ ]*|[ ]*(?:是|为)[ ]*)"
    r"[\"'“‘`]?(?P<val>[!-~]{4,200})"
)
_PASSWORD_KW = re.compile(r"(?i)pass|pwd|pin|密码|口令")
_SECRET_ENTROPY = re.compile(
    r"(?i)(?<![A-Za-z])(?:keys?|tokens?|secret|密钥|令牌)(?![A-Za-z])[^\n]{0,20}?(?<![A-Za-z0-9_+/=-])(?P<val>[A-Za-z0-9_+/=-]{24,256})"
)
_TRAIL = ".,;:)]}>\"'`’”"  # "!" and "?" stay: they are common password characters

# ---------------------------------------------------------------- task necessity
_DELIVERY_CUE = re.compile(
    r"(?i)收货|收件|寄|快递|送货|配送|发货|邮寄|下单|送到|包裹|外卖|ship|deliver|mail(?:ing)?\s+(?:address|to)|"
    r"send\s+(?:it|them|my|the|packages?|orders?|parcels?)|packages?|parcels?|courier"
)
_ORDER_CUE = re.compile(
    r"(?i)(?<![A-Za-z])(?:orders?|purchases?|billing\s+address)(?![A-Za-z])|订单|购物|网购"
)
_KEEP_CUE = re.compile(
    r"(?i)记住|记下|记一下|保存|存一下|以后|默认|remember|save|keep|store|note\s+down|use\s+this|from\s+now\s+on"
)
_PURPOSE_CUE = re.compile(r"(?i)用于|联系|通知|找我|打给|for\s+\w+|contact|reach|call\s+me|text\s+me|notif")
_NEG_CUE = re.compile(
    r"(?i)不要(?:记|存|保存)|别(?:记|存)|忘掉|删掉|don'?t\s+(?:remember|save|store|keep)|(?<!n't )(?<!not )forget\b|do\s+not\s+(?:remember|save|store|keep)"
)
_SENT_END = re.compile(r"[。！？!?\n]|\.\s")
_NEVER_TASK = frozenset({"secret", "cn_id", "bank_card", "ssn", "medical", "passport"})


def _cn_id_valid(s: str) -> bool:
    if s[:2] not in _CN_PROVINCES:
        return False
    try:
        date(int(s[6:10]), int(s[10:12]), int(s[12:14]))
    except ValueError:
        return False
    if not 1900 <= int(s[6:10]) <= date.today().year:
        return False
    total = sum(int(c) * w for c, w in zip(s[:17], _CN_ID_WEIGHTS, strict=True))
    return _CN_ID_CHECK[total % 11] == s[17].upper()


def _luhn(digits: str) -> bool:
    total = sum(_LUHN2[int(c)] if i % 2 else int(c) for i, c in enumerate(reversed(digits)))
    return total % 10 == 0


def _f(kind: PiiKind, text: str, start: int, end: int, conf: float) -> PiiFinding:
    return PiiFinding(kind, start, end, text[start:end], conf)


def _find_cn_id(text: str) -> Iterator[PiiFinding]:
    for m in _CN_ID.finditer(text):
        if _cn_id_valid(m.group()):
            yield _f("cn_id", text, m.start(), m.end(), 0.99)


def _find_bank_card(text: str) -> Iterator[PiiFinding]:
    for m in _CARD.finditer(text):
        digits = re.sub(r"[ -]", "", m.group())
        if not 13 <= len(digits) <= 19 or digits[0] not in "23456" or not _luhn(digits):
            continue
        if len(digits) == 18 and _cn_id_valid(digits):
            continue
        before = text[max(0, m.start() - 16) : m.start()]
        pos = bool(_CARD_POS_CTX.search(before))
        if _CARD_NEG_CTX.search(before) and not pos:
            continue
        yield _f("bank_card", text, m.start(), m.end(), 0.95 if pos else 0.85)


def _find_ssn(text: str) -> Iterator[PiiFinding]:
    def ok(a: str, g: str, s: str) -> bool:
        return a != "000" and a != "666" and a[0] != "9" and g != "00" and s != "0000"

    for m in _SSN.finditer(text):
        if ok(*m.groups()):
            yield _f("ssn", text, m.start(), m.end(), 0.95)
    if _SSN_KW.search(text):
        for m in _SSN_BARE.finditer(text):
            if ok(*m.groups()) and _SSN_KW.search(text[max(0, m.start() - 40) : m.start()]):
                yield _f("ssn", text, m.start(), m.end(), 0.85)


def _find_passport(text: str) -> Iterator[PiiFinding]:
    if not _PASSPORT_KW.search(text):
        return
    for m in _PASSPORT_TOKEN.finditer(text):
        s, e = m.span()
        if _PASSPORT_KW.search(text[max(0, s - 30) : s]) or _PASSPORT_KW.search(text[e : e + 12]):
            yield _f("passport", text, s, e, 0.85)


def _find_phone(text: str) -> Iterator[PiiFinding]:
    for m in _CN_MOBILE.finditer(text):
        yield _f("phone", text, m.start(), m.end(), 0.92)
    for m in _CN_LANDLINE.finditer(text):
        yield _f("phone", text, m.start(), m.end(), 0.85)
    for m in _NANP.finditer(text):
        if m.group("sp") and not _PHONE_KW.search(text[max(0, m.start() - 30) : m.start()]):
            continue  # "415 555 2671" with bare spaces: only next to a phone keyword
        yield _f("phone", text, m.start(), m.end(), 0.85)
    for m in _INTL.finditer(text):
        groups = re.findall(r"[0-9]+", m.group())
        n = sum(map(len, groups))
        if 8 <= n <= 15 and all(len(g) >= 2 for g in groups[2:]):  # "+12.5 13.7 14.2" is not a phone
            yield _f("phone", text, m.start(), m.end(), 0.8)


def _find_email(text: str) -> Iterator[PiiFinding]:
    if "@" in text:
        for m in _EMAIL.finditer(text):
            yield _f("email", text, m.start(), m.end(), 0.95)


def _find_address(text: str) -> Iterator[PiiFinding]:
    if any(c in text for c in "号弄栋室户楼"):
        for m in _ZH_ADDR.finditer(text):
            has_admin = bool(m.group("admin"))
            if m.group("road") is not None and not has_admin and not m.group("d1"):
                # a bare "<road><n>号": reject date look-alikes such as "逛街3号下午"
                nxt = text[m.end() : m.end() + 1]
                if len(m.group("road")) < 3 or (int(m.group("num")) <= 31 and nxt in _DATEISH_NEXT):
                    continue
            elif m.group("d2") is not None and not has_admin:
                parts = re.findall(_DETAIL, m.group("d2"))
                if len(parts) < 2 and not re.search("室|户|单元", m.group("d2")):
                    continue
            yield _f("address", text, m.start(), m.end(), 0.85 if has_admin else 0.75)
    if any(c.isdigit() for c in text):
        for m in _EN_ADDR.finditer(text):
            end = m.end() - (m.group().endswith("."))  # a sentence's full stop is not part of it
            yield _f("address", text, m.start(), end, 0.8)


def _find_medical(text: str) -> Iterator[PiiFinding]:
    for m in _MED_ZH_RE.finditer(text):
        yield _f("medical", text, m.start(), m.end(), 0.75)
    for rx in (_MED_EN_RE, _MED_EN_CS_RE):
        for m in rx.finditer(text):
            if not _MED_NEG_BEFORE.search(text[max(0, m.start() - 30) : m.start()]):
                yield _f("medical", text, m.start(), m.end(), 0.75)


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in (s.count(ch) for ch in set(s)))


def _looks_secret(kw: str, val: str) -> bool:
    if len(set(val)) < 3 or val.lower() in {"none", "null", "redacted", "required", "hidden", "missing"}:
        return False
    has_digit = any(c.isdigit() for c in val)
    has_sym = any(not c.isalnum() for c in val)
    mixed = any(c.islower() for c in val) and any(c.isupper() for c in val)
    if _PASSWORD_KW.search(kw):
        return has_digit or has_sym or mixed or len(val) >= 12
    return len(val) >= 8 and not val.isdigit() and (has_digit or has_sym or mixed)


def _find_secret(text: str) -> Iterator[PiiFinding]:
    for rx, conf in _SECRET_PATTERNS:
        for m in rx.finditer(text):
            if m.group().startswith("sk-") and not any(c.isdigit() for c in m.group()):
                continue  # "sk-learn-style-words" is not a key
            yield _f("secret", text, m.start(), m.end(), conf)
    for m in _SECRET_KV.finditer(text):
        s, e = m.span("val")
        while e > s and text[e - 1] in _TRAIL:
            e -= 1
        if e - s >= 4 and _looks_secret(m.group("kw"), text[s:e]):
            yield _f("secret", text, s, e, 0.85)
    for m in _SECRET_ENTROPY.finditer(text):
        v = m.group("val")
        digits, letters = sum(c.isdigit() for c in v), sum(c.isalpha() for c in v)
        if digits >= 2 and letters >= 6 and _entropy(v) >= 3.5:
            yield _f("secret", text, m.start("val"), m.end("val"), 0.75)


_DETECTORS: tuple[Callable[[str], Iterator[PiiFinding]], ...] = (
    _find_secret,
    _find_cn_id,
    _find_ssn,
    _find_bank_card,
    _find_passport,
    _find_email,
    _find_phone,
    _find_address,
    _find_medical,
)


def detect_pii(text: str) -> list[PiiFinding]:
    """All sensitive spans, sorted by start, non-overlapping (keep the longer/more specific on overlap)."""
    if not text:
        return []
    cands = [f for det in _DETECTORS for f in det(text) if f.end > f.start]
    cands.sort(key=lambda f: (-(f.end - f.start), -_PRIORITY[f.kind], f.start))
    chosen: list[PiiFinding] = []
    for f in cands:
        if all(f.end <= c.start or f.start >= c.end for c in chosen):
            chosen.append(f)
    chosen.sort(key=lambda f: f.start)
    return chosen


def redact(text: str, findings: Sequence[PiiFinding], placeholder: Callable[[PiiFinding], str]) -> str:
    """Replace each finding's span with placeholder(finding)."""
    out: list[str] = []
    pos = 0
    for f in sorted(findings, key=lambda f: (f.start, -f.end)):
        if f.start < pos:  # overlapping input: the previous placeholder covers the union, nothing leaks
            pos = max(pos, f.end)
            continue
        out.append(text[pos : f.start])
        out.append(placeholder(f))
        pos = f.end
    out.append(text[pos:])
    return "".join(out)


def placeholder_label(kind: PiiKind, lang: Literal["zh", "en"]) -> str:
    """Human label used in placeholders, e.g. address -> '地址' / 'address', phone -> '手机号' / 'phone'."""
    zh, en = _LABELS.get(kind, ("敏感信息", "sensitive info"))
    return zh if lang == "zh" else en


def mask_for_log(text: str) -> str:
    """``text`` with every finding replaced by ``[kind]``, so logs never carry sensitive values."""
    return redact(text, detect_pii(text), lambda f: f"[{f.kind}]")


def _clause_around(text: str, finding: PiiFinding) -> tuple[str, str]:
    before = text[max(0, finding.start - 80) : finding.start]
    cut = [m.end() for m in _SENT_END.finditer(before)]
    if cut:
        before = before[cut[-1] :]
    after = text[finding.end : finding.end + 60]
    m = _SENT_END.search(after)
    return before, after[: m.start()] if m else after


def is_task_necessary(text: str, finding: PiiFinding) -> bool:
    """True when the user explicitly wants the value kept for a task (a shipping address, a phone for
    deliveries). Secrets, ID numbers, bank cards, SSNs, passports and medical data never are."""
    if finding.kind in _NEVER_TASK:
        return False
    before, after = _clause_around(text, finding)
    ctx = before + " " + after
    if _NEG_CUE.search(ctx):
        return False
    if _DELIVERY_CUE.search(ctx):
        return True
    if finding.kind == "address":
        return bool(_ORDER_CUE.search(ctx))
    return bool(_KEEP_CUE.search(ctx) and _PURPOSE_CUE.search(ctx))


def privacy_risk(findings: Sequence[PiiFinding]) -> float:
    """0..1 risk: 0 with no findings; secrets/ids/cards/ssn/medical >= 0.9, phone/email 0.85, address 0.8."""
    if not findings:
        return 0.0
    top = max(_RISK.get(f.kind, 0.8) for f in findings)
    return round(min(1.0, top + 0.03 * (len(findings) - 1)), 4)

"""Checksummed and keyword-anchored identity numbers: resident IDs, cards, bank accounts, national IDs,
SSNs, passports and driver licences.

Checksums come from ``python-stdnum`` (Luhn, IBAN mod 97-10, each country's national-id rule). A checksum
alone is weak evidence for a short digit run (one random 9-digit number in 11 passes an 11-check), so
numbers without a distinctive shape need their name nearby ("BSN", "SIN", "驾驶证"); distinctive shapes
(an IBAN, a Codice Fiscale, "756.1234.5678.97") stand on their own.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterator
from datetime import date
from functools import cache

from stdnum import iban as std_iban
from stdnum import luhn as std_luhn

from memscribe.write.pii.finding import PiiFinding, after, before, finding

__all__ = [
    "cn_id_valid",
    "find_bank_account",
    "find_bank_card",
    "find_cn_id",
    "find_driver_license",
    "find_national_id",
    "find_passport",
    "find_ssn",
    "luhn_valid",
]

# ---------------------------------------------------------------- PRC resident identity card (GB 11643)
_CN_ID = re.compile(r"(?<![0-9A-Za-z])[1-9][0-9]{16}[0-9Xx](?![0-9A-Za-z])")
_CN_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_CN_ID_CHECK = "10X98765432"
_CN_PROVINCES = frozenset(
    "11 12 13 14 15 21 22 23 31 32 33 34 35 36 37 41 42 43 44 45 46 50 51 52 53 54 61 62 63 64 65 71 81 82 83 91".split()  # noqa: SIM905
)


def cn_id_valid(s: str) -> bool:
    if len(s) != 18 or s[:2] not in _CN_PROVINCES:
        return False
    try:
        date(int(s[6:10]), int(s[10:12]), int(s[12:14]))
    except ValueError:
        return False
    if not 1900 <= int(s[6:10]) <= date.today().year:
        return False
    total = sum(int(c) * w for c, w in zip(s[:17], _CN_ID_WEIGHTS, strict=True))
    return _CN_ID_CHECK[total % 11] == s[17].upper()


def find_cn_id(text: str) -> Iterator[PiiFinding]:
    for m in _CN_ID.finditer(text):
        if cn_id_valid(m.group()):
            yield finding("cn_id", text, m.start(), m.end(), 0.99)


# ---------------------------------------------------------------- payment cards (ISO/IEC 7812, Luhn)
def luhn_valid(digits: str) -> bool:
    return digits.isdigit() and std_luhn.is_valid(digits)


_CARD = re.compile(
    r"(?<![0-9A-Za-z-])(?:[0-9]{12,19}"
    r"|[0-9]{4}(?:([ -])[0-9]{4}){2,3}(?:\1[0-9]{1,3})?"  # 4-4-4(-4)(-3)
    r"|[0-9]{4}([ -])[0-9]{6}\2[0-9]{4,5}"  # Amex / Diners 4-6-5, 4-6-4
    r"|[0-9]{4}(?:([ -])[0-9]{3,6}(?:\3[0-9]{2,6}){1,3}))(?![0-9])"  # other groupings: 4-4-5, 4-5-5 …
)
_CARD_NEG_CTX = re.compile(
    r"(?i)订单|单号|运单|快递|order|tracking|invoice|发票|(?<![a-z])ref|confirmation|booking"
)
_CARD_POS_CTX = re.compile(
    r"(?i)卡|银行|card|visa|master|amex|american express|discover|jcb|maestro|diners|银联|unionpay|credit|debit"
)


def find_bank_card(text: str) -> Iterator[PiiFinding]:
    for m in _CARD.finditer(text):
        digits = re.sub(r"[ -]", "", m.group())
        if not 12 <= len(digits) <= 19 or not luhn_valid(digits):
            continue
        if len(digits) == 18 and cn_id_valid(digits):
            continue
        ctx = before(text, m.start(), 24)
        pos = bool(_CARD_POS_CTX.search(ctx) or _CARD_POS_CTX.search(after(text, m.end(), 12)))
        if _CARD_NEG_CTX.search(ctx) and not pos:
            continue
        # issuer ranges 2-6 are the cards people carry; 12-digit (Maestro) and other ranges only when named
        if (len(digits) < 13 or digits[0] not in "23456") and not pos:
            continue
        yield finding("bank_card", text, m.start(), m.end(), 0.95 if pos else 0.85)


# ---------------------------------------------------------------- bank accounts: IBAN, named account numbers
_IBAN = re.compile(r"(?<![0-9A-Za-z])[A-Za-z]{2}[0-9]{2}(?:[ -]?[0-9A-Za-z]){10,32}")
_ACCOUNT_KW = re.compile(
    r"(?i)(?<![a-z])(?:(?:bank\s+)?account(?:\s+(?:number|no\.?|num|#))?|acct\.?(?:\s*(?:no\.?|#))?|a/c"
    r"|routing(?:\s+number)?|aba|sort\s+code|bsb|iban|bic|swift|clabe|transit\s+number)(?![a-z])"
    r"|银行账号|银行账户|账号|帐号|账户|帐户|户号|开户行|卡号|汇款|转账|收款"
)
_ACCOUNT_VALUE = re.compile(r"(?<![0-9A-Za-z])[0-9](?:[ -]?[0-9]){5,33}(?![0-9A-Za-z])")
_ACCOUNT_NEG = re.compile(r"(?i)order|tracking|invoice|订单|单号|运单|快递|发票")


def _iban_prefix(raw: str) -> str | None:
    """The longest leading part of ``raw`` (kept with its spaces) that is a valid IBAN."""
    chars = [i for i, c in enumerate(raw) if c.isalnum()]
    for k in range(len(chars), 14, -1):
        cut = raw[: chars[k - 1] + 1]
        if std_iban.is_valid(cut.upper()):
            return cut
    return None


def find_bank_account(text: str) -> Iterator[PiiFinding]:
    for m in _IBAN.finditer(text):
        cut = _iban_prefix(m.group())
        if cut:
            yield finding("bank_account", text, m.start(), m.start() + len(cut), 0.97)
    if not _ACCOUNT_KW.search(text):
        return
    for m in _ACCOUNT_VALUE.finditer(text):
        ctx = before(text, m.start(), 30)
        kw = list(_ACCOUNT_KW.finditer(ctx))
        if not kw or (_ACCOUNT_NEG.search(ctx) and _ACCOUNT_NEG.search(ctx).start() > kw[-1].start()):  # type: ignore[union-attr]
            continue
        digits = re.sub(r"[ -]", "", m.group())
        if _looks_like_date_or_amount(text, m.start(), m.end(), digits):
            continue
        yield finding("bank_account", text, m.start(), m.end(), 0.85)


def _looks_like_date_or_amount(text: str, start: int, end: int, digits: str) -> bool:
    nxt = text[end : end + 2]
    prev = text[max(0, start - 1) : start]
    if re.match(r"\s*(?:元|块|万|年|月|日|号|%|美元|dollars?|usd|rmb|eur|gbp)", nxt, re.I) or prev in "$¥€£":
        return True
    return bool(re.fullmatch(r"(?:19|20)[0-9]{2}(?:0[1-9]|1[0-2])(?:[0-2][0-9]|3[01])", digits))


# ---------------------------------------------------------------- US SSN / ITIN
_SSN = re.compile(r"(?<![0-9A-Za-z-])([0-9]{3})-([0-9]{2})-([0-9]{4})(?![0-9-])")
_SSN_BARE = re.compile(r"(?<![0-9A-Za-z-])([0-9]{3})[ ]?([0-9]{2})[ ]?([0-9]{4})(?![0-9])")
_SSN_KW = re.compile(
    r"(?i)(?<![A-Za-z])(?:ssn|itin|tin)(?![A-Za-z])|social\s+security|taxpayer|社会安全号|社保号"
)


def _ssn_ok(a: str, g: str, s: str) -> bool:
    if a[0] == "9":  # an ITIN: 9XX-(50-65|70-88|90-92|94-99)-XXXX
        gi = int(g)
        return 50 <= gi <= 65 or 70 <= gi <= 88 or 90 <= gi <= 92 or 94 <= gi <= 99
    return a != "000" and a != "666" and g != "00" and s != "0000"


def find_ssn(text: str) -> Iterator[PiiFinding]:
    for m in _SSN.finditer(text):
        if _ssn_ok(*m.groups()) and (m.group(1)[0] != "9" or _SSN_KW.search(before(text, m.start(), 40))):
            yield finding("ssn", text, m.start(), m.end(), 0.95)
    if _SSN_KW.search(text):
        for m in _SSN_BARE.finditer(text):
            if _ssn_ok(*m.groups()) and _SSN_KW.search(before(text, m.start(), 40)):
                yield finding("ssn", text, m.start(), m.end(), 0.85)


# ---------------------------------------------------------------- other countries' national ids
def _std(name: str) -> Callable[[str], bool]:
    mod = importlib.import_module(f"stdnum.{name}")
    return lambda v: bool(mod.is_valid(v))


def _hkid_valid(v: str) -> bool:
    m = re.fullmatch(r"([A-Z]{1,2})([0-9]{6})\(?([0-9A])\)?", v.upper().replace(" ", ""))
    if not m:
        return False
    letters, digits, check = m.groups()
    vals = ([36] if len(letters) == 1 else []) + [ord(c) - 55 for c in letters] + [int(c) for c in digits]
    total = sum(x * w for x, w in zip(vals, range(9, 1, -1), strict=True))
    want = (11 - total % 11) % 11
    return check == ("A" if want == 10 else str(want))


_TW_LETTERS = dict(zip("ABCDEFGHJKLMNPQRSTUVXYWZIO", range(10, 36), strict=True))


def _twid_valid(v: str) -> bool:
    v = v.upper()
    if not re.fullmatch(r"[A-Z][1289][0-9]{8}", v):
        return False
    n = _TW_LETTERS[v[0]]
    total = n // 10 + (n % 10) * 9 + sum(int(c) * w for c, w in zip(v[1:9], range(8, 0, -1), strict=True))
    return (total + int(v[9])) % 10 == 0


def _sg_nric_valid(v: str) -> bool:
    v = v.upper()
    if not re.fullmatch(r"[STFG][0-9]{7}[A-Z]", v):
        return False
    total = sum(int(c) * w for c, w in zip(v[1:8], (2, 7, 6, 5, 4, 3, 2), strict=True))
    total += 4 if v[0] in "TG" else 0
    table = "JZIHGFEDCBA" if v[0] in "ST" else "XWUTRQPNMLK"
    return v[8] == table[total % 11]


def _jp_mynumber_valid(v: str) -> bool:
    d = re.sub(r"[ -]", "", v)
    if not re.fullmatch(r"[0-9]{12}", d):
        return False
    body = [int(c) for c in reversed(d[:11])]
    total = sum(p * (n + 1 if n <= 6 else n - 5) for n, p in enumerate(body, start=1))
    r = total % 11
    return int(d[11]) == (0 if r <= 1 else 11 - r)


def _uk_nino_valid(v: str) -> bool:
    v = v.upper().replace(" ", "")
    if not re.fullmatch(r"[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z][0-9]{6}[A-D]", v):
        return False
    return v[:2] not in {"BG", "GB", "NK", "KN", "TN", "NT", "ZZ"}


# (validator, token shape, names that make a plain-digit token count, shape alone is enough)
_NATIONAL: tuple[tuple[Callable[[str], bool], str, str, bool], ...] = (
    (
        _std("it.codicefiscale"),
        r"[A-Za-z]{6}[0-9LMNPQRSTUV]{2}[A-Za-z][0-9LMNPQRSTUV]{2}[A-Za-z][0-9LMNPQRSTUV]{3}[A-Za-z]",
        r"codice\s+fiscale",
        True,
    ),
    (_std("mx.curp"), r"[A-Z]{4}[0-9]{6}[HM][A-Z]{5}[0-9A-Z][0-9]", "curp", True),
    (_std("es.dni"), r"[0-9]{8}-?[A-Za-z]", r"dni|nif|documento", True),
    (_std("es.nie"), r"[XYZxyz]-?[0-9]{7}-?[A-Za-z]", r"nie|extranjero", True),
    (_std("in_.pan"), r"[A-Z]{5}[0-9]{4}[A-Z]", r"pan", True),
    (_std("in_.aadhaar"), r"[2-9][0-9]{3}[ -]?[0-9]{4}[ -]?[0-9]{4}", r"aadhaa?r|uidai|आधार", False),
    (_std("ch.ssn"), r"756\.[0-9]{4}\.[0-9]{4}\.[0-9]{2}", r"ahv|avs|sozialversicherung", True),
    (_std("br.cpf"), r"[0-9]{3}\.[0-9]{3}\.[0-9]{3}-[0-9]{2}", r"cpf", True),
    (_std("br.cpf"), r"[0-9]{11}", r"cpf", False),
    (_std("kr.rrn"), r"[0-9]{6}-[1-4][0-9]{6}", r"rrn|resident\s+registration|주민등록|居民登录", True),
    (
        _std("fr.nir"),
        r"[12][ ]?[0-9]{2}[ ]?[0-9]{2}[ ]?[0-9AB]{2}[ ]?[0-9]{3}[ ]?[0-9]{3}[ ]?[0-9]{2}",
        r"nir|insee|s[ée]curit[ée]\s+sociale|social\s+security",
        True,
    ),
    (_std("ca.sin"), r"[0-9]{3}[ -]?[0-9]{3}[ -]?[0-9]{3}", r"sin|social\s+insurance|nas", False),
    (_std("gb.nhs"), r"[0-9]{3}[ -]?[0-9]{3}[ -]?[0-9]{4}", r"nhs", False),
    (
        _uk_nino_valid,
        r"[A-Za-z]{2}[ ]?[0-9]{2}[ ]?[0-9]{2}[ ]?[0-9]{2}[ ]?[A-Da-d]",
        r"national\s+insurance|nino|ni\s+(?:number|no)",
        False,
    ),
    (_std("au.tfn"), r"[0-9]{3}[ ]?[0-9]{3}[ ]?[0-9]{2,3}", r"tfn|tax\s+file", False),
    (
        _std("nl.bsn"),
        r"[0-9]{9}|[0-9]{4}\.[0-9]{2}\.[0-9]{3}",
        r"bsn|burgerservicenummer|citizen\s+service",
        False,
    ),
    (
        _std("de.idnr"),
        r"[0-9]{2}[ ]?[0-9]{3}[ ]?[0-9]{3}[ ]?[0-9]{3}",
        r"steuer-?id|idnr|steueridentifikationsnummer|tax\s+id",
        False,
    ),
    (
        _std("se.personnummer"),
        r"(?:[0-9]{2})?[0-9]{6}[-+][0-9]{4}",
        r"personnummer|personal\s+identity",
        True,
    ),
    (_std("fi.hetu"), r"[0-9]{6}[-+AaBCDEFYXWVU][0-9]{3}[0-9A-Ya-y]", r"hetu|henkilötunnus", True),
    (_std("no.fodselsnummer"), r"[0-9]{6}[ ]?[0-9]{5}", r"fødselsnummer|fodselsnummer|birth\s+number", False),
    (_std("dk.cpr"), r"[0-9]{6}-?[0-9]{4}", r"cpr", False),
    (_std("pl.pesel"), r"[0-9]{11}", r"pesel", False),
    (_std("tr.tckimlik"), r"[1-9][0-9]{10}", r"kimlik|tc\s+no|tckn", False),
    (
        _std("za.idnr"),
        r"[0-9]{6}[ ]?[0-9]{4}[ ]?[0-9]{2}[ ]?[0-9]",
        r"id\s+number|identity\s+number|sa\s+id",
        False,
    ),
    (_std("my.nric"), r"[0-9]{6}-[0-9]{2}-[0-9]{4}", r"nric|mykad|ic\s+number", True),
    (_std("pk.cnic"), r"[0-9]{5}-[0-9]{7}-[0-9]", r"cnic", True),
    (_std("th.pin"), r"[1-8][ -]?[0-9]{4}[ -]?[0-9]{5}[ -]?[0-9]{2}[ -]?[0-9]", r"thai\s+id|pin", False),
    (_std("il.idnr"), r"[0-9]{9}", r"teudat|israeli\s+id|zehut", False),
    (_std("ro.cnp"), r"[1-8][0-9]{12}", r"cnp", False),
    (
        _std("be.nn"),
        r"[0-9]{2}\.?[0-9]{2}\.?[0-9]{2}-?[0-9]{3}\.?[0-9]{2}",
        r"rijksregister|registre\s+national|national\s+number",
        False,
    ),
    (_std("id.nik"), r"[0-9]{16}", r"nik|ktp", False),
    (_hkid_valid, r"[A-Za-z]{1,2}[0-9]{6}\(?[0-9Aa]\)?", r"hkid|香港身份证|hong\s+kong\s+id|身份證", True),
    (_twid_valid, r"[A-Za-z][12][0-9]{8}", r"台湾身份证|身分證|身分证|taiwan(?:ese)?\s+id|國民身分", True),
    (_sg_nric_valid, r"[STFGstfg][0-9]{7}[A-Za-z]", r"nric|fin", True),
    (
        _jp_mynumber_valid,
        r"[0-9]{4}[ -]?[0-9]{4}[ -]?[0-9]{4}",
        r"my\s*number|マイナンバー|个人编号|個人番号",
        False,
    ),
)
# any of these names in front also lets a plain-digit token count (the generic "ID number" phrasing)
_ID_GENERIC = r"保险号|社保号|税号|个人号码|身份号码|登录号|登记号|识别号|national\s+id|id\s+(?:card\s+)?(?:number|no\.?|#)|identity\s+(?:card|number)|personal\s+(?:id|number|code)|证件号|身份证|身份號|身分"


@cache
def _national_res() -> tuple[tuple[Callable[[str], bool], re.Pattern[str], re.Pattern[str], bool], ...]:
    return tuple(
        (
            ok,
            re.compile(rf"(?<![0-9A-Za-z.\-]){shape}(?![0-9A-Za-z])"),
            re.compile(rf"(?i)(?<![a-z])(?:{names}|{_ID_GENERIC})(?![a-z])"),
            strong,
        )
        for ok, shape, names, strong in _NATIONAL
    )


def find_national_id(text: str) -> Iterator[PiiFinding]:
    if sum(c.isdigit() for c in text) < 4:
        return
    for ok, shape, names, strong in _national_res():
        for m in shape.finditer(text):
            named = bool(names.search(before(text, m.start(), 40)))
            if not (strong or named):
                continue
            try:
                valid = ok(m.group())
            except Exception:
                valid = False
            if valid:
                yield finding("national_id", text, m.start(), m.end(), 0.9 if named else 0.8)


# ---------------------------------------------------------------- passports and driver licences
_PASSPORT_KW = re.compile(r"(?i)护照|護照|passport|pasaporte|passeport|reisepass")
_DL_KW = re.compile(
    r"(?i)(?<![a-z])(?:driver'?s?|driving|drivers)[’']?s?\s+licen[cs]e|(?<![a-z])licen[cs]e\s+(?:number|no\.?|#)"
    r"|(?<![a-z])dl\s*(?:#|no\.?|number)|(?<![A-Za-z])DL(?![A-Za-z])|驾驶证|驾照|驾驶执照|駕照|駕駛執照"
)
_UK_DL = re.compile(
    r"(?<![0-9A-Za-z])[A-Z9]{5}[0-9][0-9][0156][0-9]{3}[A-Z9]{2}[0-9][A-Z]{2}(?:[ ]?[0-9]{2})?(?![0-9A-Za-z])"
)
_DOC_STOP = re.compile(
    r"(?i)^(?:number|numbers|no|num|expires?|expired|expiry|issued|valid|until|from|state|class|renewal|renewed"
    r"|and|the|for|is|was|with|my|new|old|photo|copy|scan|card)$"
)


def _doc_value(tok: str) -> bool:
    """A document number: 5-20 letters and digits with at least 4 digits, not a year or a word."""
    compact = re.sub(r"[ -]", "", tok)
    digits = sum(c.isdigit() for c in compact)
    if not 5 <= len(compact) <= 20 or _DOC_STOP.match(tok):
        return False
    # mostly digits ("D1234567"), or a machine-style code in capitals ("C01X00T47", "WDLHNTF8OSO6")
    if digits < 4 and not (digits >= 1 and compact.isupper() and len(compact) >= 8):
        return False
    return not re.fullmatch(r"(?:19|20)[0-9]{2}", compact)


_WORD = re.compile(r"[0-9A-Za-z]+(?:-[0-9A-Za-z]+)*")


def _docs_after_keyword(text: str, kw: re.Pattern[str], kind: str) -> Iterator[PiiFinding]:
    """The first word holding a digit after the keyword ("passport no. E12345678", "驾照号码：4403…"),
    with the digit groups that continue it ("D123 4567 8901")."""
    for k in kw.finditer(text):
        window_end = min(len(text), k.end() + 40)
        words = list(_WORD.finditer(text, k.end(), window_end))
        for i, w in enumerate(words):
            if not any(c.isdigit() for c in w.group()):
                if _DOC_STOP.match(w.group()) or len(w.group()) <= 2:
                    continue  # "number is", "no.", "No"
                break  # a real word before any number: the keyword named no value
            end = w.end()
            for nxt in words[i + 1 :]:
                gap = text[end : nxt.start()]
                if gap != " " or not nxt.group().isdigit():
                    break
                end = nxt.end()
            if _doc_value(text[w.start() : end]):
                yield finding(kind, text, w.start(), end, 0.85)  # type: ignore[arg-type]
            break


def find_passport(text: str) -> Iterator[PiiFinding]:
    if _PASSPORT_KW.search(text):
        yield from _docs_after_keyword(text, _PASSPORT_KW, "passport")
        for m in re.finditer(r"(?<![0-9A-Za-z])(?:[A-Za-z]{1,2}[0-9]{6,8}|[0-9]{9})(?![0-9A-Za-z])", text):
            if _PASSPORT_KW.search(after(text, m.end(), 12)):  # "E12345678 is my passport"
                yield finding("passport", text, m.start(), m.end(), 0.8)


def find_driver_license(text: str) -> Iterator[PiiFinding]:
    for m in _UK_DL.finditer(text):
        yield finding("driver_license", text, m.start(), m.end(), 0.9)
    if _DL_KW.search(text):
        yield from _docs_after_keyword(text, _DL_KW, "driver_license")

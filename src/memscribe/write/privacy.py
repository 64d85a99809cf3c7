"""Sensitive-data detection for memory writes (Chinese and English).

Pure functions, no I/O. The detectors live in :mod:`memscribe.write.pii` (one module per family); this
module runs them all, resolves overlaps, labels, scores and decides task necessity. Every detector favours
precision: dates, prices, order ids, flight numbers, versions and times must not be flagged.
``PiiFinding.value`` holds the sensitive text itself, so findings must never be logged; use
:func:`mask_for_log` for anything that goes to a log.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Literal

from memscribe.write.pii.address_en import find_address_en
from memscribe.write.pii.address_zh import find_address_zh
from memscribe.write.pii.finding import PiiFinding, PiiKind
from memscribe.write.pii.medical import find_medical
from memscribe.write.pii.numbers import (
    cn_id_valid,
    find_bank_account,
    find_bank_card,
    find_cn_id,
    find_driver_license,
    find_national_id,
    find_passport,
    find_ssn,
    luhn_valid,
)
from memscribe.write.pii.phone import find_phone
from memscribe.write.pii.secret import find_secret

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

_cn_id_valid = cn_id_valid  # the names the corpus tests use
_luhn = luhn_valid

# Tie-break on identical spans: the more specific kind wins.
_PRIORITY: dict[str, int] = {
    "secret": 9,
    "cn_id": 8,
    "ssn": 7,
    "national_id": 7,
    "bank_card": 6,
    "bank_account": 6,
    "passport": 6,
    "driver_license": 6,
    "email": 5,
    "phone": 4,
    "address": 3,
    "medical": 2,
}
_RISK: dict[str, float] = {
    "secret": 1.0,
    "cn_id": 0.95,
    "national_id": 0.95,
    "bank_card": 0.95,
    "bank_account": 0.95,
    "ssn": 0.95,
    "medical": 0.9,
    "passport": 0.9,
    "driver_license": 0.9,
    "phone": 0.85,
    "email": 0.85,
    "address": 0.8,
}
_LABELS: dict[str, tuple[str, str]] = {
    "cn_id": ("身份证号", "ID number"),
    "national_id": ("证件号", "ID number"),
    "bank_card": ("银行卡号", "bank card"),
    "bank_account": ("银行账号", "bank account"),
    "phone": ("手机号", "phone"),
    "email": ("邮箱", "email"),
    "ssn": ("社会安全号", "SSN"),
    "passport": ("护照号", "passport number"),
    "driver_license": ("驾驶证号", "driver's licence"),
    "address": ("地址", "address"),
    "medical": ("健康信息", "medical info"),
    "secret": ("密钥", "secret"),
}

_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24}(?![A-Za-z0-9-])"
)


def _find_email(text: str) -> Iterator[PiiFinding]:
    if "@" in text:
        for m in _EMAIL.finditer(text):
            yield PiiFinding("email", m.start(), m.end(), m.group(), 0.95)


def _find_address(text: str) -> Iterator[PiiFinding]:
    yield from find_address_zh(text)
    yield from find_address_en(text)


_DETECTORS: tuple[Callable[[str], Iterator[PiiFinding]], ...] = (
    find_secret,
    find_cn_id,
    find_ssn,
    find_national_id,
    find_bank_card,
    find_bank_account,
    find_passport,
    find_driver_license,
    _find_email,
    find_phone,
    _find_address,
    find_medical,
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
# The cues that alone make a value a standing detail of the user's tasks, by kind (the default: a delivery
# cue makes a phone a shipping contact). An address is kept for deliveries and orders; "send the receipt to
# <email>" is a one-off errand, done now, so an email needs the user to ask for it to be kept for a purpose.
_STANDING_CUES: dict[str, tuple[re.Pattern[str], ...]] = {"address": (_DELIVERY_CUE, _ORDER_CUE), "email": ()}
# kinds an explicit "keep this" + a purpose ("remember my email for order notifications") puts in the vault
_KEPT_FOR_A_PURPOSE = frozenset({"phone", "email"})
_SENT_END = re.compile(r"[。！？!?\n]|\.\s")
_NEVER_TASK = frozenset(
    {
        "secret",
        "cn_id",
        "national_id",
        "bank_card",
        "bank_account",
        "ssn",
        "medical",
        "passport",
        "driver_license",
    }
)


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
    if any(cue.search(ctx) for cue in _STANDING_CUES.get(finding.kind, (_DELIVERY_CUE,))):
        return True
    return finding.kind in _KEPT_FOR_A_PURPOSE and bool(_KEEP_CUE.search(ctx) and _PURPOSE_CUE.search(ctx))


def privacy_risk(findings: Sequence[PiiFinding]) -> float:
    """0..1 risk: 0 with no findings; secrets/ids/cards/ssn/medical >= 0.9, phone/email 0.85, address 0.8."""
    if not findings:
        return 0.0
    top = max(_RISK.get(f.kind, 0.8) for f in findings)
    return round(min(1.0, top + 0.03 * (len(findings) - 1)), 4)

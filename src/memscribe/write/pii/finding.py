"""The finding type every detector yields, and the small context helpers they share."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["PiiFinding", "PiiKind", "after", "before", "finding", "sentence_around"]

PiiKind = Literal[
    "cn_id",
    "national_id",
    "bank_card",
    "bank_account",
    "phone",
    "email",
    "ssn",
    "passport",
    "driver_license",
    "address",
    "medical",
    "secret",
]


@dataclass(frozen=True, slots=True)
class PiiFinding:
    kind: PiiKind
    start: int  # char offsets into the text
    end: int
    value: str  # the matched sensitive value (never log it)
    confidence: float  # 0..1


def finding(kind: PiiKind, text: str, start: int, end: int, conf: float) -> PiiFinding:
    return PiiFinding(kind, start, end, text[start:end], conf)


_SENT_END = re.compile(r"[。！？!?\n；;]|\.(?:\s|$)")


def before(text: str, start: int, n: int = 40) -> str:
    """Up to ``n`` chars before ``start``, not reaching back over a sentence end."""
    win = text[max(0, start - n) : start]
    cut = [m.end() for m in _SENT_END.finditer(win)]
    return win[cut[-1] :] if cut else win


def after(text: str, end: int, n: int = 20) -> str:
    """Up to ``n`` chars after ``end``, stopping at a sentence end."""
    win = text[end : end + n]
    m = _SENT_END.search(win)
    return win[: m.start()] if m else win


def sentence_around(text: str, start: int, end: int, n: int = 80) -> str:
    return before(text, start, n) + " " + after(text, end, n)

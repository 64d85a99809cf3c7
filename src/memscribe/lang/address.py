"""Vocatives: the addressee's name when it only calls them ("Mel, I went …", "… right, Caroline?",
"小明，我昨天…"). A memory names its subject, not the person the sentence was said to, so the call goes;
a name that is part of what is said ("I met Caroline's sister") stays."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["strip_vocatives"]

_CJK = re.compile(r"[\u4e00-\u9fff]")
_EN_OPENERS = r"(?:(?:hey|hi|hello|oh|ah|aw+|well|so|yeah|yes|wow|thanks|thank you|congrats)[,!]?\s+)?"


def _forms(name: str) -> str:
    """A pattern for the name and its short forms: the first name, and a nickname that is its prefix
    ("Mel" for Melanie, "Jo" for Joanna)."""
    first = name.split()[0]
    if _CJK.search(first):
        return re.escape(name)
    short = re.escape(first[:3]) + r"[a-z]*" if len(first) > 3 else re.escape(first)
    return rf"(?:{re.escape(name)}|{short})"


def strip_vocatives(text: str, names: Iterable[str]) -> str:
    out = text
    for name in sorted({n for n in names if n}, key=len, reverse=True):
        form = _forms(name)
        if _CJK.search(name):
            out = re.sub(rf"^{form}[，,！!：:、]\s*", "", out)
            out = re.sub(rf"[，,]\s*{form}(?=[。！？!?~～]*$)", "", out)
            continue
        out = re.sub(rf"^{_EN_OPENERS}{form}\b[,!:.]+\s+", "", out, flags=re.IGNORECASE)
        out = re.sub(rf",\s*{form}\b(?=[.!?]*$)", "", out)
    if out != text and out[:1].isalpha() and out[:1].islower():
        out = out[0].upper() + out[1:]
    return out.strip() or text

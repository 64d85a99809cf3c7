"""Character n-grams of a short text (zh + en) and their overlap: cheap lexical features of a learned judgement,
beside the embedding. Pure.

Why: the small e5 embedder rates many same-topic Chinese sentences as near-identical (median cosine 0.9); the
words that tell 过敏 from 喜欢, "cancelled" from "booked", or an employer from a city are cheap to see directly.
"""

from __future__ import annotations

import re

__all__ = ["char_grams", "jaccard"]

_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[a-z0-9']+|[\u3400-\u9fff]")


def char_grams(text: str, sizes: tuple[int, ...] = (2, 3)) -> set[str]:
    """Character n-grams of the lower-cased text (spaces squeezed, word edges marked) plus its words."""
    t = " " + _SPACE.sub(" ", text.lower()).strip() + " "
    out = {t[i : i + n] for n in sizes for i in range(len(t) - n + 1)}
    out |= {"w:" + w for w in _WORD.findall(t) if len(w) > 1}
    return out


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if (a or b) else 0.0

"""The LoCoMo judge's measures, S (strict evidence recall), A (answer recall), P (precision) and R (loose).

Same definitions as the project's judge (``shared/tools/locomo_eval.py``), reimplemented here because the
bench is project code and the judge is not:

* **R, loose evidence recall**: an evidence turn counts when a context item lists it in ``sources``.
* **S, strict evidence recall**: it counts only when the items that list it *together* carry at least half
  of the turn's content words (``holds``) — a memory cannot claim a turn whose words it does not hold, and
  the atomic facts of one turn add up.
* **A, answer recall**: the context text holds >= 60% of the answer's content words (>= 50% beside a date),
  and every date of the answer at its own grain; dates are normalised ("19 January, 2023" == "2023-01-19").
  Dates written only in Chinese characters are not parsed (as in the judge).
* **P, precision**: the share of context items that hold an evidence turn — listed in their sources, counted
  by S, and carried by the item's own text (``carries``: not a ghost source).

Raw-turn baselines are scored by the same function: each packed turn is an item whose ``sources`` is its
own id, so for them S == R and P is the share of packed turns that are evidence.

Everything here is pure (no I/O); ``tests/unit/test_bench_measures.py`` checks it by hand.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "STOP_WORDS",
    "ContextPiece",
    "Observation",
    "Scores",
    "answer_hit",
    "carries",
    "content_words",
    "dates",
    "holds",
    "score",
    "stem",
    "turn_words",
]

_STOP_TEXT = (
    "a an the and or but if of to in on at by for with from as is are was were be been being do does did "
    "have has had i you he she it we they me him her them my your his its our their this that these those "
    "what which who whom when where why how not no yes so too very can could would should will just about "
    "into than then there here also"
)
STOP_WORDS = frozenset(_STOP_TEXT.split())
_WORD = re.compile(r"[a-z0-9]+|[\u4e00-\u9fff]")
_PHOTO = re.compile(r"\[shares a photo:.*?\]")

_MONTH_TEXT = "january february march april may june july august september october november december"
_MONTH_NAMES = _MONTH_TEXT.split()
MONTHS: dict[str, int] = {m: i for i, m in enumerate(_MONTH_NAMES, 1)}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items())})
_MON = (
    r"(january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)"
)
# most specific first: a pattern's match is cut out of the text before the next pattern runs
_DATE_PATTERNS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})"), ("y", "m", "d")),
    (re.compile(r"(\d{1,2})(?:st|nd|rd|th)?\s+" + _MON + r"\.?,?\s+(\d{4})"), ("d", "M", "y")),
    (re.compile(_MON + r"\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})"), ("M", "d", "y")),
    (re.compile(r"(\d{4})-(\d{1,2})(?![\d-])"), ("y", "m")),
    (re.compile(_MON + r"\.?,?\s+(\d{4})"), ("M", "y")),
    (re.compile(r"(?<![\d-])((?:19|20)\d{2})(?![\d-])"), ("y",)),
)

Date = tuple[int, int | None, int | None]  # (year, month, day); None for what the text does not say


def stem(w: str) -> str:
    """A light suffix stripper: dancing/dance -> danc, studies -> study, lights -> light."""
    for suf in ("ies", "ing", "ed", "es", "s"):
        if len(w) - len(suf) >= 3 and w.endswith(suf) and not w.endswith("ss"):
            w = w[: -len(suf)] + ("y" if suf == "ies" else "")
            break
    return w[:-1] if len(w) > 3 and w.endswith("e") else w


def content_words(s: str) -> set[str]:
    """Content words, lightly stemmed, with dates reduced to their numbers (2023-05-07 == 7 May 2023)."""
    s = s.lower().replace("\u2019", "'")
    s = re.sub(r"(\d{4})-(\d{1,2})-(\d{1,2})", lambda m: f"{m[1]} {int(m[2])} {int(m[3])}", s)
    s = re.sub(r"(\d{4})-(\d{1,2})\b", lambda m: f"{m[1]} {int(m[2])}", s)
    out = set()
    for w in _WORD.findall(s):
        if w in MONTHS and w != "may":  # "may" is far more often the verb
            w = str(MONTHS[w])
        elif w.isdigit():
            w = str(int(w))
        if w in STOP_WORDS:
            continue
        out.add(stem(w))
    return out


def dates(s: str) -> tuple[set[Date], str]:
    """The dates in a text, each at its own grain, and the text with them cut out."""
    s = s.lower()
    found: set[Date] = set()
    for rx, shape in _DATE_PATTERNS:

        def take(m: re.Match[str], shape: tuple[str, ...] = shape) -> str:
            v = dict(zip(shape, m.groups(), strict=True))
            month = int(v["m"]) if "m" in v else (MONTHS[v["M"][:3]] if "M" in v else None)
            found.add((int(v["y"]), month, int(v["d"]) if "d" in v else None))
            return " "

        s = rx.sub(take, s)
    return found, s


def _covered(d: Date, have: set[Date]) -> bool:
    y, m, dd = d
    return any(h[0] == y and (m is None or h[1] == m) and (dd is None or h[2] == dd) for h in have)


def answer_hit(answer: object, text: str) -> float | None:
    """1.0 when ``text`` holds the answer: all its dates (at their grain) and enough of its other words.

    None when the answer has neither dates nor content words (the question is not scored for A).
    """
    answer_dates, rest = dates(str(answer))
    words = content_words(rest)
    if not answer_dates and not words:
        return None
    text_dates, _ = dates(text)
    if answer_dates and not all(_covered(d, text_dates) for d in answer_dates):
        return 0.0
    if not words:
        return 1.0
    share = len(words & content_words(text)) / len(words)
    return 1.0 if share >= (0.5 if answer_dates else 0.6) else 0.0


def turn_words(turn_text: str) -> set[str]:
    """A turn's content words without its photo caption, unless the words are fewer than 3."""
    words = content_words(_PHOTO.sub("", turn_text))
    return words if len(words) >= 3 else content_words(turn_text)


def carries(item_text: str, turn_text: str) -> bool:
    """Does a memory carry any real part of the turn? At least 2 of its content words or 20% (not a ghost)."""
    words = turn_words(turn_text)
    if not words:
        return True
    n = len(words & content_words(item_text))
    return n >= 2 or n / len(words) >= 0.2


def holds(item_text: str, turn_text: str) -> bool:
    """Does a text carry the turn? At least half of the turn's content words."""
    words = turn_words(turn_text)
    if not words:
        return True
    return len(words & content_words(item_text)) / len(words) >= 0.5


@dataclass(frozen=True)
class ContextPiece:
    """One item that reached a context: its text and the turn ids it lists as sources."""

    text: str
    sources: frozenset[str]


@dataclass(frozen=True)
class Observation:
    """What one system put in front of the model for one question: its items and the whole context text."""

    items: tuple[ContextPiece, ...]
    text: str


@dataclass(frozen=True)
class Scores:
    """The judge's measures for one question and one system (None: not defined for this question)."""

    loose: float  # R
    strict: float  # S
    answer: float | None  # A; None when the answer has no content words
    precision: float | None  # P; None when the context has no items
    strict_ids: frozenset[str]  # the evidence turns S counted


def score(obs: Observation, evidence: Iterable[str], answer: object, turn_text: Mapping[str, str]) -> Scores:
    """S, A, P and R of one observation against one question's evidence and answer."""
    ev = frozenset(evidence)
    if not ev:
        raise ValueError("a question without evidence is not scored")
    listed = frozenset().union(*(p.sources for p in obs.items)) & ev
    strict = _strict_ids(obs.items, ev, turn_text)
    return Scores(
        loose=len(listed) / len(ev),
        strict=len(strict) / len(ev),
        answer=answer_hit(answer, obs.text),
        precision=_precision(obs.items, ev, strict, turn_text),
        strict_ids=strict,
    )


def _strict_ids(
    items: Sequence[ContextPiece], ev: frozenset[str], turn_text: Mapping[str, str]
) -> frozenset[str]:
    """Evidence turns whose listing items together hold at least half of the turn's content words."""
    carried: dict[str, list[str]] = defaultdict(list)
    for p in items:
        for d in p.sources & ev:
            carried[d].append(p.text)
    return frozenset(d for d, texts in carried.items() if holds(" ".join(texts), turn_text.get(d, "")))


def _precision(
    items: Sequence[ContextPiece], ev: frozenset[str], strict: frozenset[str], turn_text: Mapping[str, str]
) -> float | None:
    if not items:
        return None
    held = sum(
        1 for p in items if any(d in strict and carries(p.text, turn_text.get(d, "")) for d in p.sources & ev)
    )
    return held / len(items)

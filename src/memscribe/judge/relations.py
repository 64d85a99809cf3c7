"""The relation between a stored memory (old) and a new fact — same, update, refine, exception, cancel, done,
related, unrelated (LABELS.md §2) — by a learned pairwise model (``train/relations.py`` trains it).

Features: the cosine of the two passage embeddings; whether subject, slot and value agree; the time between
them; ids and numbers each side holds; the kind pair and slot pair, and the slot both sides share; cheap lexical
overlap; change / done / cancel / exception / negation / now / one-off / again cues of each side; a reschedule
word on the new side, alone and with the two sides' times differing. The raw embeddings (both, their product
and absolute difference) and the hashed grams only the new text has were tried too: on grouped CV of the training pairs
they lowered supersede recall at precision 0.97 (0.29 with all of them, 0.34 with the difference alone, 0.46
without), so the model reads the embeddings only through their cosine. Pure; numpy only. The hard rules and
the thresholds that turn these probabilities into a merge decision live in ``write/merge.py``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

import numpy as np

from memscribe.judge.grams import char_grams, jaccard
from memscribe.judge.linear import LinearModel, load_model
from memscribe.judge.slots import KINDS, SLOTS
from memscribe.lang import lexicon as lx

__all__ = [
    "KINDS",
    "RELATIONS",
    "RelationSide",
    "id_tokens",
    "number_tokens",
    "pair_features",
    "pair_matrix",
    "relation_proba",
]

RELATIONS = ("same", "update", "refine", "exception", "cancel", "done", "related", "unrelated")
_NUMBER = re.compile(r"\d+(?:[.:]\d+)?")
_DATE = re.compile(r"\b\d{4}-\d{2}(?:-\d{2})?\b|\d{4}年|\d{1,2}月\d{1,2}[日号]?")
_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("change", lx.CHANGE),
    ("done", lx.DONE),
    ("cancelled", lx.CANCELLED),
    ("milestone", lx.MILESTONE),
    ("exception", lx.EXCEPTION),
    ("preference", lx.PREFERENCE),
    ("constraint", lx.CONSTRAINT),
    ("plan", lx.PLAN),
    ("habit", lx.HABIT),
    ("temporary", lx.TEMPORARY),
)
# a side that says what holds now ("… these days", "no longer … anymore", "现在", "以后都", "改", "换"): a true
# update's new side says so far more often than a look-alike's, whose new side adds a fact beside the old one
# (grouped CV of the training pairs: supersede recall at precision 0.97 0.55 -> 0.61 with this cue on each side)
_CURRENT = re.compile(
    r"\b(?:now|these days|nowadays|anymore|any more|since|from now on|instead|new)\b"
    r"|现在|如今|最近|以后|从此|这阵子|改|换|新",
    re.IGNORECASE,
)
# a one-off ("tried … once", "a one-time workshop", 试了一次, 体验课) beside a habit adds a fact and replaces none;
# taking a stopped habit up again ("is back at …", 又开始) replaces "stopped …"
_ONE_OFF = re.compile(
    r"\b(?:once|one-time|one time|tried|a try|this time|this week|for a day|one-off)\b|一次|试了|试试|体验|这次|这周|临时",
    re.IGNORECASE,
)
_AGAIN = re.compile(
    r"\b(?:again|back (?:to|on|at|in)|resumed|picked \w+ back up|back up)\b|又|重新|再次|恢复|捡起来",
    re.IGNORECASE,
)
# a plan moved: a reschedule word on the new side ("pushed the hike to Sunday", 改到周五), and the same when both
# sides name a time (a date, a weekday, a clock time) and the times differ. Without them a reschedule reads as a
# refine (the same plan with a date); the times differing alone, without the word, also fit two plans of one kind
# on two days (two flights, an album and a single) and lowered recall on grouped CV; with the word, mean supersede
# recall at precision 0.95–0.98 on grouped CV of train rose 0.65 -> 0.69
_RESCHEDULE = re.compile(
    r"改到|改成|改在|改约|推迟|推到|延期|延迟|延误|提前到|挪到|调到|往后推"
    r"|\b(?:moved|rescheduled|postponed|pushed|delayed|rebooked|bumped|moved up|pulled forward|now (?:on|at|due|set)"
    r"|instead)\b",
    re.IGNORECASE,
)
_TIME = re.compile(
    r"\b\d{4}-\d{2}(?:-\d{2})?\b|\d{1,2}月\d{1,2}[日号]|\d{1,2}号"
    r"|\b(?:january|february|march|april|may|june|july|august|september|october|november|december)\b(?: \d{1,2})?"
    r"|\b\d{1,2}(?:st|nd|rd|th)\b"
    r"|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b|周[一二三四五六日天末]|星期[一二三四五六日天]|礼拜[一二三四五六日天]"
    r"|\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b|[上下]午[一二三四五六七八九十两\d]+点|[早晚]上[一二三四五六七八九十两\d]+点",
    re.IGNORECASE,
)
_PUNCT = re.compile(r"[\s\W_]+", re.UNICODE)
_DATE_ID = re.compile(r"\d{4}-\d{2}(?:-\d{2})?(?:T[\d:]+)?|\d{1,2}-\d{1,2}")


@dataclass(frozen=True, slots=True)
class RelationSide:
    """One side of a pair as the merge sees it. ``subject`` must already be a resolved key (equal strings =
    the same person); ``slot`` a :data:`memscribe.judge.slots.SLOTS` name or None."""

    text: str
    embedding: np.ndarray
    subject: str | None
    slot: str | None
    value: str | None
    kind: str
    at: datetime | None
    lang: str = "en"


def id_tokens(text: str) -> set[str]:
    """Order numbers, room numbers, flight codes …: an id makes two look-alike sentences different facts."""
    # the id pattern also matches an absolute date (2026-05-08): a date differing is a reschedule, not another thing
    return {m.group(1) for m in lx.ID_PATTERN.finditer(text) if not _DATE_ID.fullmatch(m.group(1))}


def number_tokens(text: str) -> set[str]:
    """Numbers that are not part of a date (a date differing is a reschedule, not another thing)."""
    return set(_NUMBER.findall(_DATE.sub(" ", text)))


def _norm(v: str | None) -> str:
    return _PUNCT.sub("", (v or "").lower())


def _one_hot(value: str | None, names: Sequence[str]) -> list[float]:
    return [1.0 if value == n else 0.0 for n in names]


# a plan and a task are one open item to the slot model's eye: "the renovation starts on October 21st" reads
# as a plan, "Greg's crew finished on 2024-10-26" as a task, and they are one job. The slot both sides share is
# also a feature of its own: whether a new value replaces the old depends on the slot (one residence, one
# employer; many hobbies, pets, lessons), which the two sides' slots alone do not tell a linear model
_OPEN_SLOTS = frozenset({"plan", "task"})


def _slot_family(slot: str | None) -> str | None:
    return "plan" if slot in _OPEN_SLOTS else slot


@lru_cache(maxsize=4096)
def _cues(text: str, lang: str) -> tuple[float, ...]:
    neg = lx.NEGATION_ZH if lang == "zh" else lx.NEGATION_EN
    return (
        *(1.0 if p.search(text) else 0.0 for _, p in _CUES),
        1.0 if neg.search(text) else 0.0,
        1.0 if _CURRENT.search(text) else 0.0,
        1.0 if _ONE_OFF.search(text) else 0.0,
        1.0 if _AGAIN.search(text) else 0.0,
    )


@dataclass(frozen=True, slots=True)
class _TextSide:
    """What the pair features read of one side's text alone."""

    grams: frozenset[str]
    ids: frozenset[str]
    numbers: frozenset[str]
    times: frozenset[str]
    moved: bool


@lru_cache(maxsize=4096)
def _text_side(text: str) -> _TextSide:
    """Per text, once: the write path pairs one new statement with each of its neighbours, and the same
    stored memories come back as neighbours of one write after another."""
    return _TextSide(
        grams=frozenset(char_grams(text)),
        ids=frozenset(id_tokens(text)),
        numbers=frozenset(number_tokens(text)),
        times=frozenset(m.group(0).lower() for m in _TIME.finditer(text)),
        moved=bool(_RESCHEDULE.search(text)),
    )


def pair_features(old: RelationSide, new: RelationSide, cosine: float | None = None) -> np.ndarray:
    """One feature row for a pair (old stored memory, new fact). ``cosine``: the two embeddings' cosine when
    the caller already has it (the write path's neighbour search does), so no vector need be fetched."""
    cos = cosine
    if cos is None:
        eo = np.asarray(old.embedding, dtype=np.float32)
        en = np.asarray(new.embedding, dtype=np.float32)
        cos = float(eo @ en / ((np.linalg.norm(eo) * np.linalg.norm(en)) or 1.0))
    so, sn = _text_side(old.text), _text_side(new.text)
    go, gn = so.grams, sn.grams
    vo, vn = _norm(old.value), _norm(new.value)
    ido, idn = so.ids, sn.ids
    no, nn = so.numbers, sn.numbers
    gap = (new.at - old.at).total_seconds() / 86400 if (new.at and old.at) else 0.0
    moved = sn.moved
    to, tn = so.times, sn.times
    shared = _slot_family(old.slot) if old.slot and _slot_family(old.slot) == _slot_family(new.slot) else None
    scalars = [
        cos,
        1.0 if (old.subject or "") == (new.subject or "") else 0.0,
        1.0 if shared else 0.0,
        1.0 if vo and vo == vn else 0.0,
        1.0 if (vo and vn) else 0.0,
        jaccard(char_grams(old.value or ""), char_grams(new.value or "")) if (vo and vn) else 0.0,
        float(np.log1p(max(0.0, gap))),
        1.0 if old.kind == new.kind else 0.0,
        1.0 if (ido and idn and not (ido & idn)) else 0.0,
        1.0 if (ido & idn) else 0.0,
        1.0 if (no and nn and no != nn) else 0.0,
        1.0 if (no & nn) else 0.0,
        jaccard(go, gn),
        len(gn - go) / (len(gn) or 1),
        len(go - gn) / (len(go) or 1),
        1.0 if new.lang == "zh" else 0.0,
        1.0 if moved else 0.0,
        1.0 if (moved and to and tn and to != tn) else 0.0,
    ]
    return np.asarray(
        scalars
        + _one_hot(old.kind, KINDS)
        + _one_hot(new.kind, KINDS)
        + _one_hot(old.slot, SLOTS)
        + _one_hot(new.slot, SLOTS)
        + _one_hot(shared, SLOTS)
        + list(_cues(old.text, old.lang))
        + list(_cues(new.text, new.lang)),
        dtype=np.float32,
    )


def pair_matrix(pairs: Sequence[tuple[RelationSide, RelationSide]]) -> np.ndarray:
    return np.stack([pair_features(o, n) for o, n in pairs])


def relation_proba(
    old: RelationSide, new: RelationSide, model: LinearModel | None = None, *, cosine: float | None = None
) -> dict[str, float]:
    """The probability of each relation for one pair."""
    m = model or load_model("relation")
    p = m.proba(pair_features(old, new, cosine))
    return {c: float(p[i]) for i, c in enumerate(m.classes)}

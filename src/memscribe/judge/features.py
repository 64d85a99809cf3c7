"""Cheap text features of a statement, beside its embedding (zh + en). Pure; no model, no I/O.

Lexicon cues (explicit "remember", plans, preferences, fillers …) are inputs here, not decisions: the learned
model weighs them against the embedding, so a cue word alone never keeps or drops a statement.
"""

from __future__ import annotations

import re

import numpy as np

from memscribe.lang import lexicon as lx
from memscribe.lang.text import detect_lang

__all__ = ["ROLES", "STATEMENT_FEATURES", "statement_features"]

ROLES = ("user", "assistant", "peer")
_EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf]")
_PUNCT = re.compile(r"[\s\W_]+", re.UNICODE)
_SECOND = re.compile(r"你|您|\b(?:you|your|yours|you're|you've|u)\b", re.IGNORECASE)
_THIRD_ZH = re.compile(r"他|她|我(?:妈|爸|哥|姐|弟|妹|老婆|老公|朋友|同事|老板|女儿|儿子|表哥|表姐|室友)")
_THIRD_EN = re.compile(
    r"\b(?:he|she|his|her|they|their|my (?:mom|dad|mother|father|sister|brother|wife|husband|friend|"
    r"colleague|boss|son|daughter|partner|roommate|cousin|aunt|uncle|grandma|grandpa))\b",
    re.IGNORECASE,
)
_CAPWORD = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]{2,}")
_ASSISTANT_DID = re.compile(
    r"已(?:为您|帮你|帮您|经为你|经帮你)?(?:预订|预约|下单|订好|安排|记下|设置|提醒|发送|取消|改签|确认)|帮你(?:订|约|记)|"
    r"\b(?:i've|i have|i)\s+(?:booked|reserved|scheduled|ordered|set|sent|cancell?ed|added|noted|confirmed|"
    r"moved|updated|created)\b",
    re.IGNORECASE,
)
_SUGGEST = re.compile(
    r"建议|推荐|不妨|可以试试|要不要|你可以|"
    r"\b(?:i suggest|i recommend|you could|you might|how about|why not|maybe try|consider|i'd recommend)\b",
    re.IGNORECASE,
)
_CUES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("explicit", lx.EXPLICIT),
    ("milestone", lx.MILESTONE),
    ("change", lx.CHANGE),
    ("exception", lx.EXCEPTION),
    ("preference", lx.PREFERENCE),
    ("constraint", lx.CONSTRAINT),
    ("profile", lx.PROFILE),
    ("plan", lx.PLAN),
    ("task", lx.TASK),
    ("complaint", lx.COMPLAINT),
    ("habit", lx.HABIT),
    ("temporary", lx.TEMPORARY),
    ("self", lx.SELF),
    ("id", lx.ID_PATTERN),
    ("amount", lx.AMOUNT),
    ("number", lx.NUMBER),
    ("second_person", _SECOND),
    ("assistant_did", _ASSISTANT_DID),
    ("suggest", _SUGGEST),
)

STATEMENT_FEATURES: tuple[str, ...] = (
    *(f"role={r}" for r in ROLES),
    "lang=zh",
    "has_prev",
    "log_chars",
    "question",
    "exclaim",
    "emoji",
    "filler",
    "reaction",
    "away",
    "negation",
    "third_person",
    "capitalised_names",
    *(f"cue={name}" for name, _ in _CUES),
)


def _is_filler(text: str, lang: str) -> bool:
    bare = _PUNCT.sub("", text.lower())
    return bare in (lx.FILLERS_ZH if lang == "zh" else lx.FILLERS_EN) or not bare


def statement_features(
    text: str, *, role: str, has_prev: bool = False, lang: str | None = None
) -> np.ndarray:
    """The cheap features of one statement, in the order of :data:`STATEMENT_FEATURES`."""
    lang = lang or detect_lang(text)
    t = text.strip()
    zh = lang == "zh"
    question = bool(lx.QUESTION_END.search(t)) or (
        bool(lx.QUESTION_ZH.search(t)) if zh else bool(lx.QUESTION_START_EN.match(t))
    )
    values = [
        *(1.0 if role == r else 0.0 for r in ROLES),
        1.0 if zh else 0.0,
        1.0 if has_prev else 0.0,
        float(np.log1p(len(t))),
        1.0 if question else 0.0,
        1.0 if ("!" in t or "！" in t) else 0.0,
        float(min(3, len(_EMOJI.findall(t)))),
        1.0 if _is_filler(t, lang) else 0.0,
        1.0 if (lx.REACTION_ZH if zh else lx.REACTION_EN).match(t) else 0.0,
        1.0 if lx.AWAY.search(t) else 0.0,
        1.0 if (lx.NEGATION_ZH if zh else lx.NEGATION_EN).search(t) else 0.0,
        1.0 if (_THIRD_ZH if zh else _THIRD_EN).search(t) else 0.0,
        float(min(3, len(_CAPWORD.findall(t)))) if not zh else 0.0,
        *(1.0 if pat.search(t) else 0.0 for _, pat in _CUES),
    ]
    return np.asarray(values, dtype=np.float32)

"""Trigger: should this message start a write, and how strongly? (DESIGN §2, first stage)

Signals: explicit instructions (记住 / remember), task milestones, salient events (strong negative
sentiment, plan changes), key entities (times, amounts, ids, places, people). Every non-filler user
message fires lightly at message end; the filter decides what is kept.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memscribe.decisions import TriggerResult
from memscribe.lang import lexicon as lx
from memscribe.lang.text import detect_lang

__all__ = ["is_filler", "sentiment", "trigger"]

_STRIP = re.compile(r"[\s\W_]+", re.UNICODE)


def _norm(text: str) -> str:
    return _STRIP.sub(" ", text.lower()).strip()


def is_filler(text: str) -> bool:
    """Pure chit-chat: greetings, acknowledgements, laughter, 'brb' — the whole message, not a part."""
    norm = _norm(text)
    if not norm:
        return True
    if norm in lx.FILLERS_EN or norm.replace(" ", "") in lx.FILLERS_ZH:
        return True
    if lx.AWAY.search(text.strip()) and len(norm) <= 16:
        return True
    # "好的好的，谢谢" / "ok thanks lol": every piece is itself a filler
    pieces = [p for p in re.split(r"[\s,，。.!！?？~～、]+", text.lower()) if p]
    return bool(pieces) and all(p in lx.FILLERS_EN or p in lx.FILLERS_ZH for p in pieces)


@lru_cache(maxsize=1)
def _vader():
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    return SentimentIntensityAnalyzer()


def sentiment(text: str, lang: str) -> float:
    """Polarity in [-1, 1]: VADER for English, SnowNLP's Bayes model (probability positive, rescaled) for
    Chinese — read without importing SnowNLP (lang/sentiment_zh.py: 410 MB less RSS)."""
    if lang == "zh":
        from memscribe.lang.sentiment_zh import positive_probability

        return 2.0 * positive_probability(text) - 1.0
    return float(_vader().polarity_scores(text)["compound"])


def trigger(text: str, *, role: str = "user") -> TriggerResult:
    if is_filler(text):
        return TriggerResult(fire=False, strength=0.0, reasons=("filler",), signals=frozenset({"filler"}))
    lang = detect_lang(text)
    signals: set[str] = set()
    reasons: list[str] = []
    strength = 0.2  # message end: a light trigger for anything that is not filler
    checks = (
        ("explicit", lx.EXPLICIT, 0.6, "explicit instruction to remember"),
        ("milestone", lx.MILESTONE, 0.4, "task milestone"),
        ("change", lx.CHANGE, 0.4, "plan or fact change"),
        ("complaint", lx.COMPLAINT, 0.3, "complaint"),
        ("preference", lx.PREFERENCE, 0.3, "preference"),
        ("constraint", lx.CONSTRAINT, 0.3, "constraint"),
        ("profile", lx.PROFILE, 0.3, "profile fact"),
        ("plan", lx.PLAN, 0.2, "plan"),
        ("temporary", lx.TEMPORARY, 0.1, "temporary instruction"),
        ("habit", lx.HABIT, 0.2, "habit or routine"),
        ("self", lx.SELF, 0.1, "about the speaker"),
    )
    for name, pattern, weight, why in checks:
        if pattern.search(text):
            signals.add(name)
            reasons.append(why)
            strength += weight
    if lx.ID_PATTERN.search(text):
        signals.add("entity:id")
        reasons.append("identifier")
        strength += 0.3
    if lx.AMOUNT.search(text):
        signals.add("entity:amount")
        reasons.append("amount")
        strength += 0.2
    # Only pay for sentiment where it can change the decision.
    if signals & {"complaint", "change"} and sentiment(text, lang) <= -0.5:
        signals.add("negative")
        reasons.append("strong negative sentiment")
        strength += 0.2
    if role != "user":
        strength *= 0.5
    return TriggerResult(
        fire=True, strength=min(1.0, strength), reasons=tuple(reasons), signals=frozenset(signals)
    )

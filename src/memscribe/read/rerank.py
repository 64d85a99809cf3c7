"""Rerank fused candidates: relevance (RRF + embedding similarity) weighted with recency and
authority, times decay-aware retrieval value; a time window in the query favours memories inside it."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime

from memscribe.config import LifecycleConfig, RecallConfig
from memscribe.lang import lexicon as lx
from memscribe.lang.text import detect_lang
from memscribe.lifecycle.decay import retrieval_value
from memscribe.models import MemoryRecord

__all__ = ["Scored", "hand_cut", "rerank", "similarity_score"]

# multilingual-e5 cosines live in a narrow band: ~0.70 for unrelated text, ~0.90+ for paraphrases.
_SIM_FLOOR, _SIM_SPAN = 0.74, 0.16


def similarity_score(cos: float) -> float:
    return min(1.0, max(0.0, (cos - _SIM_FLOOR) / _SIM_SPAN))


@dataclass(slots=True)
class Scored:
    record: MemoryRecord
    score: float
    why: dict[str, float | str]


def rerank(
    records: dict[str, MemoryRecord],
    fused: dict[str, float],
    cosines: dict[str, float],
    keyword_ids: set[str],
    *,
    shifts: dict[str, float] | None = None,
    query: str = "",
    keyword_scores: dict[str, float] | None = None,
    now: datetime,
    window: tuple[datetime, datetime] | None,
    cfg: RecallConfig,
    life: LifecycleConfig,
    deep: bool,
    cut: bool = True,
) -> list[Scored]:
    """The candidates scored by the hand-set weights, best first; with ``cut`` only those the hand-set
    floors keep (:func:`hand_cut`). A learned ranker (:mod:`memscribe.read.ranker`) asks for them uncut.
    ``shifts`` puts the cosine of a memory written in the other language than the query on the scale of the
    query's language for the score (``why["cosine"]`` stays the raw cosine)."""
    if not fused:
        return []
    top = max(fused.values())
    kw = keyword_scores or {}
    kw_top = max(kw.values(), default=0.0) or 1.0
    q_low = query.lower()
    asks_me = bool(_ASKER.search(q_low))
    q_lang = detect_lang(query)
    out: list[Scored] = []
    for mid, f in fused.items():
        rec = records.get(mid)
        if rec is None:
            continue
        cos = cosines.get(mid, 0.0)
        sim = similarity_score(cos + (shifts or {}).get(mid, 0.0))
        if mid not in keyword_ids and sim <= 0.0:
            continue  # only a weak vector neighbour: noise, not memory
        if cfg.fusion == "linear":
            relevance = cfg.w_dense * sim + (1.0 - cfg.w_dense) * (kw.get(mid, 0.0) / kw_top)
        else:
            relevance = 0.5 * (f / top) + 0.5 * sim
        ref = rec.updated_at
        age_days = max(0.0, (now - ref).total_seconds() / 86400.0)
        recency = math.exp(-age_days / 90.0)
        authority = 0.5 * rec.confidence + 0.5 * rec.importance
        value = retrieval_value(rec, now, life)
        score = cfg.w_relevance * relevance + cfg.w_recency * recency + cfg.w_authority * authority
        in_window = False
        if window is not None and rec.time_start is not None:
            end = rec.time_end or rec.time_start
            in_window = rec.time_start <= window[1] and end >= window[0]
            if in_window:
                score += 0.25
        fit = subject_fit(rec.facts.subject, rec.facts.participants, q_low, asks_me)
        if fit < 0 and detect_lang(rec.text) != q_lang:
            # whether the query names the relation ("sister" in "我妹妹在哪儿读研？") cannot be read by its
            # words across languages: no evidence either way
            fit = 0.0
        score += cfg.w_subject * fit
        if not deep and value < cfg.retrieval_value_min:
            continue
        out.append(
            Scored(
                record=rec,
                score=round(score, 4),
                why={
                    "relevance": round(relevance, 4),
                    "cosine": round(cos, 4),
                    "fused": round(f, 5),
                    "recency": round(recency, 4),
                    "authority": round(authority, 4),
                    "retrieval_value": round(value, 4),
                    "in_window": "yes" if in_window else "no",
                    "keyword": round(kw.get(mid, 0.0) / kw_top, 4) if mid in keyword_ids else 0.0,
                    "subject_fit": fit,
                },
            )
        )
    out.sort(key=lambda s: -s.score)
    return hand_cut(out, cfg) if cut else out


def hand_cut(scored: list[Scored], cfg: RecallConfig) -> list[Scored]:
    """The hand-set floors: a score and a relevance floor, and a relevance share of the best candidate's."""
    out = [s for s in scored if s.score >= cfg.min_score and float(s.why["relevance"]) >= cfg.min_relevance]
    if out and cfg.relative_relevance > 0:
        best = max(float(s.why["relevance"]) for s in out)
        out = [s for s in out if float(s.why["relevance"]) >= cfg.relative_relevance * best]
    return out


# a query in the first person asks about the asker ("Where do I work?", "我住在哪？")
_ASKER = re.compile(r"\b(?:i|i'm|i've|my|me|mine)\b|我(?!们)")


def subject_fit(
    subject: str | None, participants: tuple[str, ...] | list[str], q_low: str, asks_me: bool
) -> float:
    """How well a memory's subject fits the person the query asks about, in units of ``w_subject``.

    1 when the query names the subject ("Caroline"), 0.5 when it names only whose relative the subject is
    ("Caroline" for "Caroline's sister"), −1 for a relative's fact when the query asks about the asker and
    does not name the relation ("Where do I work?" is not about "the user's husband").
    """
    names = [subject, *participants]
    if any(isinstance(x, str) and len(x) >= 2 and x.lower() in q_low for x in names):
        return 1.0
    owner = _owner(subject)
    if owner is None or subject is None:
        return 0.0
    relation = re.sub(r"^(?:'s?\s+|的)", "", subject[len(owner) :]).split(" ")[0].lower()
    if relation and (
        relation in q_low or any(k.fullmatch(relation) and k.search(q_low) for k in lx.KIN_SAME)
    ):
        return 0.5
    if len(owner) >= 2 and owner.lower() in q_low:
        return 0.5
    return -1.0 if asks_me else 0.0


def _owner(subject: str | None) -> str | None:
    """Whose relative a third-party subject is: "Melanie's kids" -> "Melanie", "用户的表哥" -> "用户"."""
    if not subject:
        return None
    head = re.split(r"'s? |的", subject, maxsplit=1)[0]
    return head if head != subject else None

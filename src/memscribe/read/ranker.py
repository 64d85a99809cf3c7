"""The learned recall ranker: P(this memory carries evidence for this query), from cheap query-time features.

The hand-set score (:func:`memscribe.read.rerank.rerank`) weighs relevance, recency and authority with fixed
weights; on LoCoMo the evidence often sits low in its order and a 300-token context is two thirds noise. This
ranker reads the same candidates — the recall stage's own list, before the budget — with what is known about
each at query time (:data:`RANK_FEATURES`: the cosine and its place among the candidates, the fused and keyword
scores, the relevance gate's pair features against the bundled background, subject and time-window fit, kind,
slot asked, length) and orders them by a logistic model trained leave-one-conversation-out on the dev
conversations (``train/recall_ranker.py``; weights ``judge/weights/recall_ranker.npz``).

Pure over its inputs: the caller hands in the scored candidates, the query, its vector and the background.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from memscribe.errors import InputError
from memscribe.judge.linear import LinearModel, load_model
from memscribe.judge.relevance import (
    GATE_FEATURES,
    Background,
    cue_rarity,
    pair_features,
    personal_p,
    query_rarity,
    trained_embedder,
)
from memscribe.models import Kind
from memscribe.read.rerank import Scored

__all__ = ["RANK_FEATURES", "RecallRanker", "load_ranker", "rank_features"]

_KINDS = tuple(k.value for k in Kind)
RANK_FEATURES = (
    *GATE_FEATURES,
    "cosine",
    "cosine_gap",  # the best candidate's cosine minus this one's
    "cosine_rank",  # log(1 + place by cosine among the candidates)
    "fused_share",  # the fused (RRF) score over the best candidate's
    "fused_rank",
    "keyword",  # BM25 over the best keyword hit's; 0 when the keyword channel did not find it
    "keyword_hit",
    "hand_score",  # the hand-set score (relevance, recency, authority, subject, window)
    "hand_rank",
    "subject_fit",
    "in_window",
    "has_window",
    "asks_when",
    "has_time",  # the memory has a resolved time
    "when_time",  # asks_when and has_time
    "slot_asked",  # P of the slot the query asks about when it is this memory's slot
    # not recency nor retrieval value: in the dev stores every memory was written the day it was read, so the
    # model would learn a spread that real stores do not have (a month-old memory would look like an outlier)
    "authority",
    "query_rarity",  # summed rarity of the query's content terms
    "coverage",  # shared_rarity / query_rarity: how much of what the query names the memory holds
    "reply_cue",  # rarity of the query terms only the question the memory replied to holds (Facts.replies_to)
    "same_message",  # log(1 + other candidates said in the same message)
    "session_share",  # share of the first candidates (hand-set order) said in the same session
    *(f"kind_{k}" for k in _KINDS),
)
_SESSION_TOP = 10
_ASKS_WHEN = re.compile(
    r"\bwhen\b|\bwhat (?:time|date|day|year|month)\b|\bwhich (?:day|date|year|month)\b|\bhow long ago\b|"
    r"什么时候|啥时候|几点|哪天|几号|哪一天|哪年|几月",
    re.IGNORECASE,
)


def _place(values: Sequence[float]) -> np.ndarray:
    """log(1 + place) of each value in descending order (0 for the best)."""
    order = np.argsort(-np.asarray(values, dtype=np.float64), kind="stable")
    place = np.empty(len(values), dtype=np.float64)
    place[order] = np.arange(len(values))
    return np.log1p(place)


def rank_features(
    bg: Background,
    query: str,
    qvec: np.ndarray,
    scored: Sequence[Scored],
    *,
    personal: float,
    has_window: bool,
    slot_guess: tuple[str, float] | None,
) -> np.ndarray:
    """One row of :data:`RANK_FEATURES` per candidate (pure: the same inputs give the same rows)."""
    if not scored:
        return np.zeros((0, len(RANK_FEATURES)), dtype=np.float32)
    texts = [s.record.text for s in scored]
    cos = np.array([float(s.why["cosine"]) for s in scored])
    fused = np.array([float(s.why["fused"]) for s in scored])
    hand = np.array([float(s.score) for s in scored])
    pair = pair_features(bg, query, qvec, texts, cos.tolist(), personal=personal)
    asks_when = 1.0 if _ASKS_WHEN.search(query) else 0.0
    cos_rank, fused_rank, hand_rank = _place(cos), _place(fused), _place(hand)
    top_fused = max(float(fused.max()), 1e-9)
    q_rarity = query_rarity(query)
    shared = pair[:, GATE_FEATURES.index("shared_rarity")]
    origins = [s.record.sources[0].message_id if s.record.sources else None for s in scored]
    per_origin = Counter(o for o in origins if o is not None)
    top = {int(j) for j in np.argsort(-hand, kind="stable")[:_SESSION_TOP]}
    top_sessions = Counter(scored[j].record.session_id for j in top)
    rows = np.zeros((len(scored), len(RANK_FEATURES)), dtype=np.float32)
    for i, s in enumerate(scored):
        rec, why = s.record, s.why
        kw = float(why.get("keyword", 0.0))
        has_time = 1.0 if rec.time_start is not None else 0.0
        slot = (rec.facts.slot or "").rsplit("|", 1)[-1]
        slot_p = slot_guess[1] if slot_guess is not None and slot and slot == slot_guess[0] else 0.0
        rows[i] = (
            *pair[i],
            cos[i],
            cos.max() - cos[i],
            cos_rank[i],
            fused[i] / top_fused,
            fused_rank[i],
            kw,
            1.0 if kw > 0 else 0.0,
            hand[i],
            hand_rank[i],
            float(why.get("subject_fit", 0.0)),
            1.0 if why.get("in_window") == "yes" else 0.0,
            1.0 if has_window else 0.0,
            asks_when,
            has_time,
            asks_when * has_time,
            slot_p,
            float(why["authority"]),
            q_rarity,
            shared[i] / q_rarity if q_rarity > 0 else 0.0,
            cue_rarity(query, rec.text, rec.facts.replies_to),
            math.log1p(per_origin[origins[i]] - 1) if origins[i] is not None else 0.0,
            (top_sessions[rec.session_id] - (i in top)) / len(top) if rec.session_id is not None else 0.0,
            *(1.0 if rec.kind.value == k else 0.0 for k in _KINDS),
        )
    return rows


@dataclass(frozen=True)
class RecallRanker:
    model: LinearModel  # P(evidence | query, memory) over RANK_FEATURES

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        if x.shape[0] == 0:
            return np.zeros(0, dtype=np.float32)
        return self.model.proba(x)[:, self.model.classes.index("evidence")]

    def order(
        self,
        bg: Background,
        query: str,
        qvec: np.ndarray,
        scored: Sequence[Scored],
        *,
        has_window: bool,
    ) -> list[Scored]:
        """The candidates by P(evidence), best first; each carries it as its score and in ``why``."""
        personal, slot_guess = self._query_reading(bg, query, qvec)
        x = rank_features(
            bg, query, qvec, scored, personal=personal, has_window=has_window, slot_guess=slot_guess
        )
        p = self.probabilities(x)
        out = []
        for s, pi in zip(scored, p.tolist(), strict=True):
            s.why["hand_score"] = s.score
            s.why["p_evidence"] = round(pi, 4)
            out.append(Scored(record=s.record, score=round(pi, 4), why=s.why))
        # The subject rule stays above the learned order: when the query asks about the asker, a relative's
        # fact ("the user's husband works at Square") never outranks the asker's own (subject_fit < 0). The dev
        # conversations ask about named people in the third person, so the model could not learn it from them.
        # Ties keep the hand-set order.
        order = sorted(range(len(out)), key=lambda i: (_of_someone_else(out[i]), -p[i], i))
        return [out[i] for i in order]

    def _query_reading(
        self, bg: Background, query: str, qvec: np.ndarray
    ) -> tuple[float, tuple[str, float] | None]:
        """P(the query is personal) and the slot it asks about, from the query models that read the bundled
        embedder's vectors; with another embedder, the training mean of ``query_personal`` (a neutral input)
        and no slot."""
        if bg.embedder != trained_embedder():
            return float(self.model.mean[RANK_FEATURES.index("query_personal")]), None
        from memscribe.judge.slots import guess_slot

        guess = guess_slot(np.asarray(qvec, dtype=np.float32), "profile")
        return personal_p(query, qvec), (guess.slot, guess.probability)


def _of_someone_else(s: Scored) -> bool:
    return float(s.why.get("subject_fit", 0.0)) < 0


@cache
def load_ranker() -> RecallRanker:
    """The shipped ranker (``train/recall_ranker.py``)."""
    model = load_model("recall_ranker")
    if tuple(model.meta.get("features", ())) != RANK_FEATURES:
        raise InputError("recall_ranker.npz was trained on other features; retrain it")
    return RecallRanker(model)

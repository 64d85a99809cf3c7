"""Hybrid recall inside one user's scope: vector top-k, BM25 top-k and a time-window channel, fused with
RRF and reranked. Structured filters (kind, layer, status, time range, entities, metadata) apply to all.
Last, the relevance gate (:mod:`memscribe.judge.relevance`): a query none of whose first candidates is more
related to it than the bundled background is gets an empty result, not the store's nearest noise."""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any

import numpy as np

from memscribe.boundary import metadata
from memscribe.config import LifecycleConfig, RecallConfig
from memscribe.errors import InputError
from memscribe.judge.relevance import GateVerdict, language_shift, load_background, load_gate
from memscribe.lang.text import detect_lang, keyword_terms
from memscribe.models import MemoryRecord
from memscribe.providers.embedders import Embedder
from memscribe.read.fuse import rrf
from memscribe.read.rerank import Scored, hand_cut, rerank
from memscribe.read.standing import standing_constraints, with_standing
from memscribe.store.base import Store
from memscribe.text_rules import bad_label
from memscribe.write.normalize import check_id, parse_at

__all__ = ["FILTER_KEYS", "hybrid_recall", "learned_order", "matches_filters", "recall_candidates"]

_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="memscribe-recall")

FILTER_KEYS = {
    "kind",
    "layer",
    "status",
    "time_from",
    "time_to",
    "entities",
    "metadata",
    "session_id",
    "agent_id",
}


def _as_set(v: Any) -> set[str]:
    if isinstance(v, str):
        return {v}
    return {str(x) for x in v}


def validate_filters(filters: Mapping[str, Any] | None) -> dict[str, Any]:
    if not filters:
        return {}
    if not isinstance(filters, Mapping):
        raise InputError("filters must be a dict")
    unknown = set(filters) - FILTER_KEYS
    if unknown:
        raise InputError(f"unknown filter keys {sorted(unknown)}; use {sorted(FILTER_KEYS)}")
    out = dict(filters)
    for k in ("session_id", "agent_id"):
        if out.get(k) is not None:
            check_id(out[k], f"filters.{k}")
    for k in ("kind", "layer", "status", "entities"):
        v = out.get(k)
        for x in [v] if isinstance(v, str) else (v or ()):
            if why := bad_label(x):
                raise InputError(f"filters.{k} {why}")
    if out.get("metadata") is not None:
        if not isinstance(out["metadata"], Mapping):
            raise InputError("filters.metadata must be a dict")
        metadata(out["metadata"], what="filters.metadata")
    for k in ("time_from", "time_to"):
        if out.get(k) is not None:
            out[k] = parse_at(out[k])
    return out


def matches_filters(rec: MemoryRecord, f: Mapping[str, Any]) -> bool:
    if not f:
        return True
    if "kind" in f and rec.kind.value not in _as_set(f["kind"]):
        return False
    if "layer" in f and rec.layer.value not in _as_set(f["layer"]):
        return False
    if "status" in f and rec.status.value not in _as_set(f["status"]):
        return False
    if "session_id" in f and rec.session_id != f["session_id"]:
        return False
    if "agent_id" in f and rec.agent_id != f["agent_id"]:
        return False
    if f.get("time_from") is not None or f.get("time_to") is not None:
        start = rec.time_start or rec.created_at
        end = rec.time_end or start
        if f.get("time_from") is not None and end < f["time_from"]:
            return False
        if f.get("time_to") is not None and start > f["time_to"]:
            return False
    if "entities" in f:
        want = {e.lower() for e in _as_set(f["entities"])}
        have = {e.lower() for e in rec.entities}
        if not want & have and not any(w in rec.text.lower() for w in want):
            return False
    if "metadata" in f:
        for k, v in dict(f["metadata"]).items():
            if rec.metadata.get(k) != v:
                return False
    return True


def recall_candidates(
    store: Store,
    embedder: Embedder,
    *,
    user_id: str,
    query: str,
    now: datetime,
    window: tuple[datetime, datetime] | None,
    k: int,
    cfg: RecallConfig,
    life: LifecycleConfig,
    statuses: tuple[str, ...],
    deep: bool,
    filters: Mapping[str, Any] | None = None,
) -> tuple[list[Scored], np.ndarray]:
    """Every candidate of the recall channels that passes the filters, scored by the hand-set weights and
    uncut (best first), and the query's vector."""
    vk = max(cfg.vector_k, k)
    kk = max(cfg.keyword_k, k)
    # The keyword channel needs no embedding: it runs on its own connection while the query is embedded
    # and the vector channel searched (the embedder and SQLite both release the GIL).
    kw_future = _POOL.submit(store.keyword_search, user_id, keyword_terms(query), k=kk, statuses=statuses)
    qvec = embedder.embed_query(query)
    by_vec = store.vector_search(user_id, qvec, k=vk, statuses=statuses)
    by_kw = kw_future.result()
    rankings = [[i for i, _ in by_vec], [i for i, _ in by_kw]]
    if window is not None:
        rankings.append(store.time_range_search(user_id, window[0], window[1], k=kk, statuses=statuses))
    fused = rrf(rankings, k=cfg.rrf_k)
    records = store.get_memories(list(fused))
    live = {}
    for mid, rec in records.items():
        if rec.expire_at is not None and rec.expire_at <= now and not deep:
            continue
        if filters and not matches_filters(rec, filters):
            continue
        live[mid] = rec
    cosines = dict(by_vec)
    missing = [m for m in live if m not in cosines]
    if missing:
        vecs = store.get_vectors(missing)
        for mid, v in vecs.items():
            cosines[mid] = float(np.dot(v, qvec))
    scored = rerank(
        live,
        {m: s for m, s in fused.items() if m in live},
        cosines,
        {i for i, _ in by_kw},
        shifts=_language_shifts(embedder, query, qvec, live),
        now=now,
        window=window,
        cfg=cfg,
        life=life,
        deep=deep,
        query=query,
        keyword_scores=dict(by_kw),
        cut=False,
    )
    return scored, qvec


def _language_shifts(
    embedder: Embedder, query: str, qvec: np.ndarray, records: Mapping[str, MemoryRecord]
) -> dict[str, float]:
    """For each memory written in the other language than the query, what puts its cosine on the scale of the
    query's own language for the hand-set score and floors (:func:`memscribe.judge.relevance.language_shift`,
    measured on the bundled background): e5 sets a Chinese question ~0.11 closer to any Chinese sentence than to
    any English one, so an English memory that answers it would sit under every floor. The cosine itself (what
    the gate and the ranker read) is left as it is."""
    q_lang = detect_lang(query)
    other = [m for m, r in records.items() if detect_lang(r.text) != q_lang]
    if not other or not isinstance(getattr(embedder, "name", None), str):
        return {}
    shift = language_shift(load_background(embedder), query, qvec, records[other[0]].text)
    return dict.fromkeys(other, shift)


def hybrid_recall(
    store: Store,
    embedder: Embedder,
    *,
    user_id: str,
    query: str,
    now: datetime,
    window: tuple[datetime, datetime] | None,
    k: int,
    cfg: RecallConfig,
    life: LifecycleConfig,
    statuses: tuple[str, ...],
    deep: bool,
    filters: Mapping[str, Any] | None = None,
    relevance_gate: bool = False,
) -> list[Scored]:
    """The ranked candidates; with ``relevance_gate`` (what ``search()`` and ``context()`` ask for, not the
    write path's own look-ups), none when nothing among them is relevant to the query.

    ``cfg.ranker`` orders them: ``weights`` by the hand-set score above its floors, ``learned`` by the
    learned P(evidence) (:mod:`memscribe.read.ranker`) over every candidate. The gate judges the hand-set
    order either way (it was trained on it)."""
    scored, qvec = recall_candidates(
        store,
        embedder,
        user_id=user_id,
        query=query,
        now=now,
        window=window,
        k=k,
        cfg=cfg,
        life=life,
        statuses=statuses,
        deep=deep,
        filters=filters,
    )
    hand = hand_cut(scored, cfg)
    ranked = hand
    if cfg.ranker == "learned" and scored:
        pool = hand if cfg.ranker_pool == "floors" else scored
        ranked = (
            learned_order(embedder, query, qvec, pool, window=window, min_p=cfg.ranker_min_p) if pool else []
        )
    if not relevance_gate:
        return ranked
    # the gate judges whether anything matches the query's words and meaning; the facts that govern the action
    # asked for come whatever it says ("order Thai food tonight" and a peanut allergy share neither)
    standing = (
        standing_constraints(store, embedder, user_id=user_id, query=query, qvec=qvec, statuses=statuses)
        if cfg.standing_constraints
        else []
    )
    if filters:
        standing = [s for s in standing if matches_filters(s.record, filters)]
    verdict = gate_verdict(embedder, query, qvec, hand, window=window)
    if not verdict.passed:
        return standing
    for s in ranked:
        s.why["gate"] = round(verdict.best, 4)
        s.why["gate_reason"] = verdict.reason
    return with_standing(standing, ranked)


def learned_order(
    embedder: Embedder,
    query: str,
    qvec: np.ndarray,
    scored: list[Scored],
    *,
    window: tuple[datetime, datetime] | None,
    min_p: float = 0.0,
) -> list[Scored]:
    """The candidates by the learned ranker's P(evidence), best first; past the first, only those with
    P >= ``min_p`` (the first always stays: the gate, not this cut, decides whether anything is relevant)."""
    from memscribe.read.ranker import load_ranker

    ranked = load_ranker().order(
        load_background(embedder), query, qvec, scored, has_window=window is not None
    )
    if min_p > 0:
        ranked = ranked[:1] + [s for s in ranked[1:] if s.score >= min_p]
    return ranked


def gate_verdict(
    embedder: Embedder,
    query: str,
    qvec: np.ndarray,
    ranked: list[Scored],
    *,
    window: tuple[datetime, datetime] | None,
) -> GateVerdict:
    """Whether the ranked candidates hold anything relevant to the query (pure over its inputs).

    A query that names a time ("what did I do last week?") asks about whatever happened then: a candidate
    inside its window is relevant by time, whatever its words."""
    if window is not None and any(s.why.get("in_window") == "yes" for s in ranked):
        first = next(i for i, s in enumerate(ranked) if s.why["in_window"] == "yes")
        return GateVerdict(True, 1.0, 0.0, first, (), "time window")
    gate = load_gate()
    return gate.judge(
        load_background(embedder),
        query,
        qvec,
        [s.record.text for s in ranked],
        [float(s.why["cosine"]) for s in ranked],
        [s.record.facts.slot for s in ranked],
    )

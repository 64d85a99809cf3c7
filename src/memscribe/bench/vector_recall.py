"""Recall of the store's reduced-precision vector search against exact float32 search, on real texts.

The speed bench's vectors are noisy copies of a small pool, which says nothing about how float16 storage
and the low-rank shortlist rank real sentence embeddings. Here the turns of real conversations (LoCoMo,
convbench, MemoryBank; zh + en) are embedded with the store's embedder; a held-out set of other turns are
the queries. For each query the top-k of ``ScopeMatrix.search`` (the path large scopes use: float32
projection shortlist, float16 vectors rescored in float32) is compared with the exact float32 top-k of a
numpy scan over the same vectors. Reported: recall@k of the store's path, of a float16 full scan alone
(what the precision costs, without the shortlist), and the largest gap between a returned score and its
exact float32 cosine.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from memscribe.store.sqlite.vector_cache import ScopeMatrix

__all__ = ["embed_passages", "measure_recall", "real_texts"]


def _locomo_turns(doc: Any) -> Iterable[str]:
    for conv in doc if isinstance(doc, list) else []:
        c = conv.get("conversation", {}) if isinstance(conv, dict) else {}
        for key, turns in c.items():
            if key.startswith("session_") and isinstance(turns, list):
                yield from (t.get("text", "") for t in turns if isinstance(t, dict))


def _memorybank_turns(doc: Any) -> Iterable[str]:
    for user in doc.values() if isinstance(doc, dict) else []:
        for day in (user.get("history") or {}).values() if isinstance(user, dict) else []:
            for turn in day:
                yield turn.get("query", "")
                yield turn.get("response", "")


def real_texts(folder: Path) -> list[str]:
    """Distinct conversation turns (at least 8 characters) of every LoCoMo-format and MemoryBank JSON file
    under ``folder``, in a fixed order."""
    seen: dict[str, None] = {}
    for path in sorted(Path(folder).rglob("*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for text in (*_locomo_turns(doc), *_memorybank_turns(doc)):
            text = " ".join(str(text).split())
            if len(text) >= 8:
                seen.setdefault(text, None)
    return list(seen)


def embed_passages(embedder: Any, texts: list[str], batch: int = 64) -> np.ndarray:
    """``texts`` embedded as passages, ``batch`` at a time, as one float32 matrix."""
    parts = [embedder.embed_passages(texts[s : s + batch]) for s in range(0, len(texts), batch)]
    return np.vstack(parts).astype(np.float32)


def _topk(scores: np.ndarray, k: int) -> np.ndarray:
    top = np.argpartition(-scores, k - 1)[:k]
    return top[np.argsort(-scores[top])]


def measure_recall(
    embedder: Any,
    texts: list[str],
    *,
    queries: int = 200,
    k: int = 20,
    seed: int = 0,
    matrix: ScopeMatrix | None = None,
    limit: int | None = None,
    query_texts: list[str] | None = None,
    batch: int = 64,
) -> dict[str, Any]:
    """Embed ``texts`` (passages; a seeded sample of ``limit`` when given) minus ``queries`` held-out ones
    (embedded as queries) and compare each query's top-``k`` from a ``ScopeMatrix`` (default parameters
    unless ``matrix`` is given) with the exact float32 top-``k``. With ``query_texts`` (real questions),
    those are the queries and every text is a passage."""
    order = list(range(len(texts)))
    random.Random(seed).shuffle(order)
    held = 0 if query_texts is not None else queries
    q_texts = list(query_texts) if query_texts is not None else [texts[i] for i in order[:held]]
    p_texts = [texts[i] for i in order[held : None if limit is None else held + limit]]
    if len(p_texts) <= k:
        raise ValueError("too few texts for the requested k")
    t0 = time.perf_counter()
    mat = embed_passages(embedder, p_texts, batch)
    qs = np.vstack([embedder.embed_query(q) for q in q_texts]).astype(np.float32)
    embed_s = time.perf_counter() - t0
    sm = matrix if matrix is not None else ScopeMatrix(seq=0, dim=0)
    sm.apply([(i, str(i), "active", mat[i].tobytes()) for i in range(len(p_texts))])
    half = mat.astype(np.float16).astype(np.float32)
    found = found16 = 0
    worst = 0.0
    for q in qs:
        exact_scores = mat @ q
        exact = set(_topk(exact_scores, k).tolist())
        got = sm.search(q, k, ("active",))
        rows = [int(i) for i, _ in got]
        found += len(exact & set(rows))
        found16 += len(exact & set(_topk(half @ q, k).tolist()))
        worst = max(worst, max(abs(s - float(exact_scores[r])) for r, (_, s) in zip(rows, got, strict=True)))
    total = k * len(qs)
    return {
        "vectors": len(p_texts),
        "queries": len(qs),
        "k": k,
        "projected": sm._basis is not None,
        "vector_dtype": str(sm._mat.dtype),
        "recall_at_k": found / total,
        "recall_at_k_float16_full_scan": found16 / total,
        "max_score_error": worst,
        "embed_s": embed_s,
    }

"""Keep / working / drop and kind of a statement (issue #14): three small softmax models over one feature row —
hashed tf-idf n-grams of the text, its e5 passage embedding and the cheap features of :mod:`.features`.

The route is two decisions, each its own model, because they turn on different evidence: *keep or drop*
(is anything stated at all: greetings, thanks, questions, reactions, generic advice are not) and, for a kept
statement, *long or working* (does it outlive the current task). ``p_route`` combines them:
p(drop) = p_keep(drop), p(long) = p_keep(keep) · p_term(long), p(working) = p_keep(keep) · p_term(working);
``route`` is drop when p_keep(keep) < 0.5, else the likelier term — so the route agrees with the keep model.
The kind model is trained on kept statements only, so ``kind`` is "the kind, had it been kept".

Trained by ``train/statements.py`` on ``data/labelled/statements/``; the weights ship in ``weights/``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from memscribe.errors import InputError
from memscribe.judge.features import ROLES, STATEMENT_FEATURES, statement_features
from memscribe.judge.linear import LinearModel, load_model
from memscribe.judge.ngrams import NGRAM_BUCKETS, ngram_matrix, ngram_sparse_row

__all__ = [
    "EMBEDDING_DIM",
    "KEEP_MODEL",
    "KIND_MODEL",
    "NGRAM_IDF",
    "TERM_MODEL",
    "StatementJudgement",
    "judge_matrix",
    "judge_statements",
    "statement_matrix",
]

KEEP_MODEL = "statement_keep"  # keep | drop
TERM_MODEL = "statement_term"  # long | working (kept statements)
KIND_MODEL = "statement_kind"  # the 11 kinds (kept statements)
NGRAM_IDF = "statement_ngram_idf"  # the n-grams' idf, shared by the three models
EMBEDDING_DIM = 384


@dataclass(frozen=True, slots=True)
class StatementJudgement:
    route: str  # long | working | drop
    p_route: dict[str, float]
    kind: str | None  # the most likely kind, had it been kept
    p_kind: dict[str, float]


def statement_matrix(
    embeddings: np.ndarray,
    texts: Sequence[str],
    *,
    roles: Sequence[str],
    has_prev: Sequence[bool],
    langs: Sequence[str | None],
) -> np.ndarray:
    """The dense block of a row: the passage embedding followed by :data:`STATEMENT_FEATURES`."""
    cheap = np.stack(
        [
            statement_features(t, role=r, has_prev=p, lang=lang)
            for t, r, p, lang in zip(texts, roles, has_prev, langs, strict=True)
        ]
    ).reshape(len(texts), len(STATEMENT_FEATURES))
    return np.hstack([np.asarray(embeddings, dtype=np.float32).reshape(len(texts), -1), cheap])


def judge_matrix(texts: Sequence[str], dense: np.ndarray, idf: np.ndarray) -> np.ndarray:
    """The models' input row as one dense matrix, [tf-idf n-grams (NGRAM_BUCKETS), dense block] — the layout
    the models were trained on; ``judge_statements`` computes the same logits sparsely."""
    return np.hstack([ngram_matrix(list(texts), idf), dense])


@cache
def _idf() -> np.ndarray:
    path = resources.files("memscribe.judge") / "weights" / f"{NGRAM_IDF}.npy"
    with resources.as_file(path) as p:
        idf = np.load(p, allow_pickle=False).astype(np.float32)
    if idf.shape != (NGRAM_BUCKETS,):  # a weights file from another featuriser would mis-score silently
        raise ValueError(f"{NGRAM_IDF}.npy has shape {idf.shape}, expected ({NGRAM_BUCKETS},)")
    return idf


@dataclass(frozen=True, slots=True)
class _Stacked:
    """The three models as one affine map, split at the n-gram / dense boundary, with the standardisation
    folded in: logits = Σ value·grams[bucket] + dense @ dense_w + bias. A statement touches ~100 of the 32k
    n-gram rows, so inference gathers those rows instead of multiplying a dense 32k-wide vector."""

    grams: np.ndarray  # (NGRAM_BUCKETS, classes of all three)
    dense_w: np.ndarray  # (dense features, classes of all three)
    bias: np.ndarray
    spans: tuple[tuple[LinearModel, slice], ...]


def _stack(models: tuple[LinearModel, ...]) -> _Stacked:
    grams, dense_w, bias, spans, at = [], [], [], [], 0
    for m in models:
        g = slice(0, NGRAM_BUCKETS)
        if not (np.all(m.mean[g] == 0) and np.all(m.scale[g] == 1)):  # trained by fit_ngram_linear
            raise ValueError(f"{m.name}: the n-gram block must be unstandardised")
        d = slice(NGRAM_BUCKETS, None)
        w_d = m.weights[d] / m.scale[d][:, None]
        grams.append(m.weights[g])
        dense_w.append(w_d)
        bias.append(m.bias - m.mean[d] @ w_d)
        spans.append((m, slice(at, at + len(m.classes))))
        at += len(m.classes)
    return _Stacked(
        grams=np.hstack(grams).astype(np.float32),
        dense_w=np.hstack(dense_w).astype(np.float32),
        bias=np.concatenate(bias).astype(np.float32),
        spans=tuple(spans),
    )


@cache
def _models() -> _Stacked:
    return _stack((load_model(KEEP_MODEL), load_model(TERM_MODEL), load_model(KIND_MODEL)))


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def _check(embeddings: np.ndarray, n: int, columns: dict[str, Sequence[object]]) -> None:
    if embeddings.ndim != 2 or embeddings.shape != (n, EMBEDDING_DIM):
        raise InputError(f"embeddings must be ({n}, {EMBEDDING_DIM}), got {embeddings.shape}")
    for name, col in columns.items():
        if len(col) != n:
            raise InputError(f"{name} has {len(col)} entries for {n} texts")
    bad = sorted({str(r) for r in columns["roles"] if r not in ROLES})
    if bad:
        raise InputError(f"unknown speaker role(s) {bad}: use one of {ROLES}")


def _route(p_keep: float, p_route: dict[str, float]) -> str:
    if p_keep < 0.5:
        return "drop"
    return "long" if p_route["long"] >= p_route["working"] else "working"


def judge_statements(
    embeddings: np.ndarray,
    texts: Sequence[str],
    *,
    roles: Sequence[str],
    has_prev: Sequence[bool],
    langs: Sequence[str | None],
    prevs: Sequence[str | None] | None = None,
) -> list[StatementJudgement]:
    """Route and kind of each statement. ``embeddings`` are the e5 passage embeddings of ``texts`` (as the
    write path already computes them). ``has_prev`` says the statement answers the other speaker's previous
    turn; ``prevs`` (that turn's text) is checked for length only: in grouped cross-validation on the training
    split neither the previous turn's embedding nor its n-grams improved any of the three models, so the
    shipped ones do not read it."""
    embeddings = np.asarray(embeddings, dtype=np.float32)
    n = len(texts)
    cols: dict[str, Sequence[object]] = {"roles": roles, "has_prev": has_prev, "langs": langs}
    if prevs is not None:
        cols["prevs"] = prevs
    _check(embeddings, n, cols)
    if n == 0:
        return []
    stacked, idf = _models(), _idf()
    dense = statement_matrix(embeddings, texts, roles=roles, has_prev=has_prev, langs=langs)
    logits = dense @ stacked.dense_w + stacked.bias
    for i, text in enumerate(texts):
        buckets, values = ngram_sparse_row(text, idf)
        logits[i] += values @ stacked.grams[buckets]
    (keep_m, keep_s), (term_m, term_s), (kind_m, kind_s) = stacked.spans
    p_keep = _softmax(logits[:, keep_s])[:, keep_m.classes.index("keep")]
    p_term = _softmax(logits[:, term_s])
    p_kind = _softmax(logits[:, kind_s])
    out: list[StatementJudgement] = []
    for i in range(n):
        p_route = {"drop": float(1.0 - p_keep[i])}
        for j, c in enumerate(term_m.classes):
            p_route[c] = float(p_keep[i] * p_term[i, j])
        kinds = {c: float(p_kind[i, j]) for j, c in enumerate(kind_m.classes)}
        out.append(
            StatementJudgement(
                route=_route(float(p_keep[i]), p_route),
                p_route=p_route,
                kind=max(kinds, key=kinds.__getitem__),
                p_kind=kinds,
            )
        )
    return out

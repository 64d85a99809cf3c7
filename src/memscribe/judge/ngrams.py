"""Hashed character n-grams of a statement (zh + en), the lexical half of the judge features. Pure; numpy only.

The embedding of a short statement blurs the words that decide its kind ("booked" vs "will book", 过敏 vs
喜欢); n-grams keep them. Hashing into a fixed number of buckets needs no vocabulary file, and crc32 is stable
across Python runs and platforms (``hash()`` is salted), so training and inference agree. Values are sublinear
counts, weighted by an inverse document frequency learned with the model, then L2-normalised — tf-idf.
"""

from __future__ import annotations

import re
import zlib
from collections import Counter

import numpy as np

__all__ = ["NGRAM_BUCKETS", "fit_idf", "ngram_counts", "ngram_matrix", "ngram_sparse_row"]

NGRAM_BUCKETS = 1 << 15
_SPACE = re.compile(r"\s+")


def _grams(text: str, n_max: int = 3) -> list[str]:
    # char n-grams inside word boundaries (padded by spaces), as scikit-learn's ``char_wb``: for Chinese a
    # "word" is a run without spaces, so its 1–3-grams are the character n-grams
    out: list[str] = []
    for word in _SPACE.split(text.lower().strip()):
        if not word:
            continue
        padded = f" {word} "
        for n in range(1, n_max + 1):
            out.extend(padded[i : i + n] for i in range(len(padded) - n + 1))
    return out


def ngram_counts(text: str, *, prefix: str = "") -> Counter[int]:
    """Bucket → count of the n-grams of ``text``; ``prefix`` (e.g. the speaker role) marks a second
    vocabulary so "I booked" from the assistant and from the user land in different buckets when wanted."""
    return Counter(zlib.crc32((prefix + g).encode("utf-8")) % NGRAM_BUCKETS for g in _grams(text))


def ngram_sparse_row(text: str, idf: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The non-zero buckets of one text's L2-normalised tf-idf row and their values (inference multiplies
    only these rows of a weight matrix: a statement has ~100 n-grams of 32k buckets)."""
    counts = ngram_counts(text)
    buckets = np.fromiter(counts.keys(), dtype=np.int64, count=len(counts))
    values = 1.0 + np.log(np.fromiter(counts.values(), dtype=np.float32, count=len(counts)))
    if idf is not None:
        values = values * idf[buckets]
    norm = float(np.linalg.norm(values))
    return buckets, (values / norm if norm else values).astype(np.float32)


def ngram_matrix(texts: list[str], idf: np.ndarray | None = None) -> np.ndarray:
    """One L2-normalised tf-idf row per text, dense (for tests and small batches)."""
    x = np.zeros((len(texts), NGRAM_BUCKETS), dtype=np.float32)
    for row, text in enumerate(texts):
        buckets, values = ngram_sparse_row(text, idf)
        x[row, buckets] = values
    return x


def fit_idf(texts: list[str]) -> np.ndarray:
    """Smoothed inverse document frequency per bucket (as scikit-learn's ``TfidfVectorizer``)."""
    df = np.zeros(NGRAM_BUCKETS, dtype=np.float64)
    for text in texts:
        df[list(ngram_counts(text))] += 1
    return (np.log((1 + len(texts)) / (1 + df)) + 1.0).astype(np.float32)

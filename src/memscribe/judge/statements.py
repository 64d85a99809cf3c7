"""The feature matrix of statements for the keep / working / drop and kind models (inference is wired into the
write path with issue #14; ``train/statements.py`` trains on it)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memscribe.judge.features import statement_features

__all__ = ["statement_matrix"]


def statement_matrix(
    embeddings: np.ndarray,
    texts: Sequence[str],
    *,
    roles: Sequence[str],
    has_prev: Sequence[bool],
    langs: Sequence[str | None],
) -> np.ndarray:
    """One row per statement: its passage embedding followed by :data:`STATEMENT_FEATURES`."""
    cheap = np.stack(
        [
            statement_features(t, role=r, has_prev=p, lang=lang)
            for t, r, p, lang in zip(texts, roles, has_prev, langs, strict=True)
        ]
    )
    return np.hstack([np.asarray(embeddings, dtype=np.float32), cheap])

"""Keep / working / drop and kind of a statement, from its embedding and cheap text features."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memscribe.judge.features import statement_features
from memscribe.judge.linear import load_model

__all__ = ["StatementJudgement", "judge_statements", "statement_matrix"]


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


@dataclass(frozen=True, slots=True)
class StatementJudgement:
    route: str  # long | working | drop
    p_route: dict[str, float]
    kind: str | None  # the most likely kind, had it been kept
    p_kind: dict[str, float]


def judge_statements(
    embeddings: np.ndarray,
    texts: Sequence[str],
    *,
    roles: Sequence[str],
    has_prev: Sequence[bool],
    langs: Sequence[str | None],
) -> list[StatementJudgement]:
    """Route and kind of each statement by the shipped models (``statement_route``, ``statement_kind``)."""
    if not texts:
        return []
    x = statement_matrix(embeddings, texts, roles=roles, has_prev=has_prev, langs=langs)
    route_m, kind_m = load_model("statement_route"), load_model("statement_kind")
    pr, pk = route_m.proba(x), kind_m.proba(x)
    out = []
    for r, k in zip(pr, pk, strict=True):
        p_route = {c: float(v) for c, v in zip(route_m.classes, r, strict=True)}
        p_kind = {c: float(v) for c, v in zip(kind_m.classes, k, strict=True)}
        out.append(
            StatementJudgement(
                route=max(p_route, key=p_route.__getitem__),
                p_route=p_route,
                kind=max(p_kind, key=p_kind.__getitem__),
                p_kind=p_kind,
            )
        )
    return out

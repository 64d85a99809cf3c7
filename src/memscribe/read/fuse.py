"""Reciprocal Rank Fusion of several ranked lists."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["rrf"]


def rrf(
    rankings: Sequence[Sequence[str]], k: int = 60, weights: Sequence[float] | None = None
) -> dict[str, float]:
    """score(d) = sum_i w_i / (k + rank_i(d)), ranks starting at 1."""
    weights = weights or [1.0] * len(rankings)
    scores: dict[str, float] = {}
    for ranking, w in zip(rankings, weights, strict=True):
        for rank, doc in enumerate(ranking, start=1):
            scores[doc] = scores.get(doc, 0.0) + w / (k + rank)
    return scores

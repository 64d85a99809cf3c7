"""Build the word-rarity table the relevance gate weighs shared terms with (``memscribe.judge.relevance``):
the most frequent words of English and Chinese with their Zipf frequency (log10 of uses per billion words),
from the ``wordfreq`` package (a training-time dependency; the table ships, wordfreq is never imported at run
time). A word outside the table counts as rare.

    .venv/bin/python train/relevance_terms.py

Writes ``src/memscribe/judge/weights/term_zipf.npz``: ``words`` (one string, newline-separated) and ``zipf``
(uint8, tenths).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import WEIGHTS

WORDS_PER_LANGUAGE = 30000
OUT = WEIGHTS / "term_zipf.npz"


def main() -> None:
    import wordfreq

    table: dict[str, float] = {}
    for lang in ("en", "zh"):
        for w in wordfreq.top_n_list(lang, WORDS_PER_LANGUAGE):
            w = w.lower()
            if "\n" in w or w in table:
                continue
            table[w] = wordfreq.zipf_frequency(w, lang) if lang == "en" else _zh_zipf(wordfreq, w)
    words = sorted(table)
    zipf = np.array([round(table[w] * 10) for w in words], dtype=np.uint8)
    np.savez_compressed(OUT, words=np.array("\n".join(words)), zipf=zipf)
    print(f"{len(words)} words -> {OUT} ({OUT.stat().st_size} bytes)")


def _zh_zipf(wordfreq, w: str) -> float:
    # zipf_frequency would segment Chinese with jieba; the frequency list already holds whole words
    f = wordfreq.get_frequency_dict("zh").get(w, 0.0)
    return max(0.0, float(np.log10(f * 1e9))) if f > 0 else 0.0


if __name__ == "__main__":
    main()

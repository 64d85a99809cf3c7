"""Chinese sentiment: SnowNLP's naive Bayes model, read from its package data without importing SnowNLP.

``import snownlp`` loads its segmentation, tagging and pinyin models at import time: 410 MB of RSS and
about 2 s, for one number per complaint. The sentiment model itself is a 6 MB table of word counts
(``snownlp/sentiment/sentiment.marshal.3``). Here it is scored the way SnowNLP's ``Bayes.classify``
does (add-one smoothed word frequencies per class, class priors), over the words jieba finds with
SnowNLP's stop-word list removed — the segmenter the rest of memscribe already has loaded.
"""

from __future__ import annotations

import gzip
import importlib.util
import marshal
import math
from functools import cache
from pathlib import Path

from memscribe.lang.text import jieba

__all__ = ["positive_probability"]


def _package_dir() -> Path:
    spec = importlib.util.find_spec("snownlp")  # locates the package without running its __init__
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("snownlp (its sentiment model) is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


@cache
def _model() -> tuple[dict[str, tuple[dict[str, float], float, float]], float, frozenset[str]]:
    root = _package_dir()
    raw = (root / "sentiment" / "sentiment.marshal.3").read_bytes()
    try:
        d = marshal.loads(gzip.decompress(raw))
    except OSError:  # stored uncompressed
        d = marshal.loads(raw)
    classes = {k: (v["d"], float(v["total"]), float(v["none"])) for k, v in d["d"].items()}
    stop = frozenset(
        w.strip() for w in (root / "normal" / "stopwords.txt").read_text(encoding="utf-8").splitlines()
    )
    return classes, float(d["total"]), stop


def positive_probability(text: str) -> float:
    """P(positive | text) in [0, 1], as SnowNLP's ``sentiments``."""
    classes, total, stop = _model()
    words = [w for w in jieba().cut(text) if w.strip() and w not in stop]
    logp = {}
    for name, (freq, n, none) in classes.items():
        s = math.log(n) - math.log(total)
        for w in words:
            s += math.log(freq.get(w, none) / n)
        logp[name] = s
    top = max(logp.values())
    z = sum(math.exp(v - top) for v in logp.values())
    return math.exp(logp.get("pos", top) - top) / z

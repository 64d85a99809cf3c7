"""The labelled time corpus (data/labelled/time/): memscribe's resolver must get start, end, grain and recurrence
right on >= 95% of each language, on every class, and on every bug class of issue #17."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from memscribe.bench.timecorpus import Answer, corpus_dir, load_cases, memscribe_answer, score, table

CASES = load_cases()

# the bug classes named in issue #17, each must have cases and pass them
BUG_CLASSES = {
    "relative_hours": ("zh", "en"),
    "clock": ("zh", "en"),
    "explicit_date": ("zh", "en"),
    "prefix_offset": ("zh", "en"),
    "period_end": ("zh", "en"),
    "weekday_offset": ("en",),
    "nth_weekday": ("en",),
    "range": ("zh", "en"),
    "holiday": ("zh", "en"),
    "traditional_cantonese": ("zh",),
    "recurrence": ("zh", "en"),
    "colloquial": ("zh", "en"),
    "none": ("zh", "en"),
    "standing_clock": ("zh", "en"),  # issue #16: a clock in a standing rule is the rule's BYHOUR
}


def test_corpus_shape() -> None:
    counts = Counter(c.lang for c in CASES)
    assert counts["zh"] >= 600 and counts["en"] >= 600
    assert sum(c.lang == "zh" and c.start is None for c in CASES) >= 100
    assert sum(c.lang == "en" and c.start is None for c in CASES) >= 100
    for lang in ("zh", "en"):
        for line in (corpus_dir() / f"{lang}.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            assert set(row) == {"id", "lang", "class", "text", "ref", "start", "end", "grain", "recurrence"}
    for c in CASES:
        assert c.ref.utcoffset() is not None
        if c.start is not None:
            assert c.end is not None and c.start <= c.end and c.grain is not None


def test_scorer_is_strict() -> None:
    c = next(c for c in CASES if c.start is not None and c.recurrence is None)
    assert score(c, Answer(c.start, c.end, c.grain, None)).all
    assert not score(c, Answer(c.start, c.end, "year", None)).all
    assert not score(c, Answer(None, None)).all
    wrong_tz = c.start.replace(tzinfo=None).astimezone()  # same wall clock read in another offset is wrong
    assert not score(c, Answer(wrong_tz, c.end, c.grain)).start or wrong_tz.utcoffset() == c.start.utcoffset()


@pytest.mark.slow
def test_corpus_accuracy_per_language_and_class() -> None:
    t = table(CASES, memscribe_answer)
    for lang in ("zh", "en"):
        row = t[f"{lang}:ALL"]
        assert row["all"] / row["n"] >= 0.95, (lang, row)
    for key, row in t.items():
        if not key.startswith("_"):
            assert row["all"] / row["n"] >= 0.9, (key, row)
    for cls, langs in BUG_CLASSES.items():
        for lang in langs:
            row = t.get(f"{lang}:{cls}")
            assert row is not None and row["n"] >= 5 and row["all"] / row["n"] >= 0.9, (lang, cls, row)

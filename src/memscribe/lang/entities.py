"""Entities in a text: people, places, orgs, ids and amounts (jieba tags for Chinese, capitalised runs for
English). Shared by the write path (filter, encoder) and the read path (query rewrite)."""

from __future__ import annotations

import re
from functools import lru_cache

from memscribe.lang import lexicon as lx
from memscribe.lang.text import jieba

__all__ = ["extract_entities"]

_CAPS = re.compile(r"\b([A-Z][a-zA-Z'’\-]+(?:\s+(?:of|de|la|the|and|&)?\s*[A-Z][a-zA-Z'’\-]+)*)")


@lru_cache(maxsize=2048)
def _zh_tags(text: str) -> tuple[tuple[str, str], ...]:
    return tuple(jieba().tag(text))


def extract_entities(text: str, lang: str) -> dict[str, list[str]]:
    """People, places, orgs, ids, amounts. Cached: the filter and the encoder ask about the same text."""
    return {k: list(v) for k, v in _extract_entities(text, lang).items()}


@lru_cache(maxsize=2048)
def _extract_entities(text: str, lang: str) -> dict[str, tuple[str, ...]]:
    ents: dict[str, list[str]] = {
        "ids": [],
        "amounts": [],
        "people": [],
        "places": [],
        "orgs": [],
        "other": [],
    }
    for m in lx.ID_PATTERN.finditer(text):
        ents["ids"].append(m.group(1))
    for m in lx.AMOUNT.finditer(text):
        ents["amounts"].append(m.group(0).strip())
    if lang == "zh":
        for word, tag in _zh_tags(text):
            if len(word) < 2:
                continue
            bucket = {"nr": "people", "ns": "places", "nt": "orgs", "nz": "other"}.get(tag)
            if bucket:
                ents[bucket].append(word)
        # Latin-script names inside Chinese text (Dana, Tesla)
        for m in _CAPS.finditer(text):
            if m.group(1) not in lx.EN_STOPCAPS and not lx.ID_PATTERN.fullmatch(m.group(1)):
                ents["other"].append(m.group(1))
    else:
        for m in _CAPS.finditer(text):
            name = m.group(1)
            words = [w for w in name.split() if w not in lx.EN_STOPCAPS]
            if not words:
                continue
            start = m.start()
            prefix = text[:start].rstrip()
            sentence_start = not prefix or prefix[-1] in '.!?:;"“(' or start == 0
            if sentence_start and len(words) == 1 and name in lx.EN_STOPCAPS:
                continue
            ents["other"].append(" ".join(words))
    return {k: tuple(dict.fromkeys(v)) for k, v in ents.items()}

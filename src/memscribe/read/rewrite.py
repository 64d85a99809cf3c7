"""Query rewrite: short or pronoun-only queries ("那个呢？", "what about it?") borrow the entities of the
session's recent turns; time expressions become a time window the reranker favours."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from memscribe.lang.entities import extract_entities
from memscribe.lang.text import detect_lang, keyword_terms
from memscribe.lang.timeparse import resolve_times

__all__ = ["RewrittenQuery", "rewrite_query"]

_PRONOUN = re.compile(
    r"^(?:那个|这个|它|他|她|那|这|那件事|这件事|那边|then|and|so)?.{0,4}(?:呢|吗)?[?？]?$|"
    r"\b(?:it|that|this|them|those|there|he|she|they)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class RewrittenQuery:
    text: str  # what is embedded and keyword-searched
    original: str
    window: tuple[datetime, datetime] | None
    expanded_with: tuple[str, ...] = ()


def rewrite_query(query: str, *, now: datetime, recent_turns: list[str] | None = None) -> RewrittenQuery:
    mentions = [m for m in resolve_times(query, now) if m.recurrence is None]  # a rule names no window
    window = (min(m.time_start for m in mentions), max(m.time_end for m in mentions)) if mentions else None
    expanded: list[str] = []
    terms = keyword_terms(query)
    if recent_turns and (len(terms) <= 2 or (_PRONOUN.search(query) and len(terms) <= 4)):
        for turn in reversed(recent_turns[-6:]):
            ents = extract_entities(turn, detect_lang(turn))
            for k in ("ids", "people", "places", "orgs", "other"):
                expanded.extend(e for e in ents.get(k, []) if e not in expanded)
            if len(expanded) >= 4:
                break
        if not expanded:  # no named entities: fall back to the content words of the last user turn
            expanded = keyword_terms(recent_turns[-1])[:6]
    text = query if not expanded else f"{query} {' '.join(expanded[:6])}"
    return RewrittenQuery(text=text, original=query, window=window, expanded_with=tuple(expanded[:6]))

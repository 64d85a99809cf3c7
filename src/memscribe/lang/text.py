"""Language detection, segmentation for the keyword index, and token counting."""

from __future__ import annotations

import math
import re
from functools import lru_cache

__all__ = ["count_tokens", "detect_lang", "keyword_terms", "segment", "truncate_to_tokens"]

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[\w\-']+", re.UNICODE)

# Words that carry no retrieval signal in a query. Kept small: BM25's idf handles the rest.
_STOP_EN = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "do",
        "does",
        "did",
        "have",
        "has",
        "had",
        "i",
        "you",
        "he",
        "she",
        "it",
        "we",
        "they",
        "me",
        "him",
        "her",
        "them",
        "my",
        "your",
        "his",
        "its",
        "our",
        "their",
        "this",
        "that",
        "these",
        "those",
        "what",
        "which",
        "who",
        "whom",
        "when",
        "where",
        "why",
        "how",
        "not",
        "no",
        "yes",
        "so",
        "too",
        "very",
        "can",
        "could",
        "would",
        "should",
        "will",
        "just",
        "about",
        "into",
        "than",
        "then",
        "there",
        "here",
        "also",
        "any",
        "some",
        "did",
        "does",
        "doing",
        "done",
        "ever",
        "much",
        "many",
        "more",
        "most",
        "own",
        "same",
        "s",
        "t",
        "don",
        "didn",
        "isn",
        "aren",
        "wasn",
        "weren",
        "hasn",
        "haven",
        "hadn",
        "won",
        "wouldn",
        "shouldn",
        "couldn",
        "let",
        "us",
    ]
)
_STOP_ZH = frozenset(
    [
        "的",
        "了",
        "吗",
        "呢",
        "吧",
        "啊",
        "呀",
        "是",
        "在",
        "我",
        "你",
        "他",
        "她",
        "它",
        "我们",
        "你们",
        "他们",
        "这",
        "那",
        "这个",
        "那个",
        "什么",
        "怎么",
        "哪",
        "哪个",
        "哪里",
        "哪天",
        "为什么",
        "有",
        "没有",
        "和",
        "与",
        "及",
        "也",
        "都",
        "就",
        "还",
        "又",
        "把",
        "被",
        "让",
        "给",
        "对",
        "从",
        "到",
        "会",
        "能",
        "要",
        "想",
        "最近",
        "一下",
        "一个",
        "吗？",
        "呢？",
        "么",
    ]
)


def detect_lang(text: str) -> str:
    """'zh' when the text has any CJK ideograph, else 'en'. Mixed text is treated as zh (its CJK parts need segmenting)."""
    return "zh" if _CJK.search(text) else "en"


def jieba():  # type: ignore[no-untyped-def]
    """rjieba, imported on first use: loading its dictionary takes ~0.4 s, which a process that never
    meets Chinese text (or has not met it yet) should not pay at import."""
    import rjieba

    return rjieba


@lru_cache(maxsize=4096)
def _cut(text: str) -> tuple[str, ...]:
    return tuple(jieba().cut_for_search(text))


def segment(text: str) -> str:
    """Text as space-separated terms for the FTS5 ``unicode61`` tokenizer.

    Chinese runs are segmented by jieba (search mode, so both 供应商 and 供应 are indexed); everything
    else is left to unicode61, which splits on punctuation and folds case.
    """
    if not _CJK.search(text):
        return text
    return " ".join(t for t in _cut(text) if t.strip())


def keyword_terms(text: str) -> list[str]:
    """Distinct query terms for the keyword index, stop words removed, in order of appearance."""
    raw = _cut(text) if _CJK.search(text) else tuple(_WORD.findall(text))
    out: list[str] = []
    seen: set[str] = set()
    for tok in raw:
        for part in _WORD.findall(tok.lower()):
            part = part.split("'")[0].strip(
                "-_"
            )  # caroline's -> caroline, you're -> you (as FTS5 splits them)
            if not part or part in _STOP_EN or part in _STOP_ZH or part in seen:
                continue
            seen.add(part)
            out.append(part)
    return out


def count_tokens(text: str) -> int:
    """Approximate LLM tokens: one per CJK character, one per 4 UTF-8 bytes of everything else.

    Real BPE tokenizers (tiktoken) need a vocabulary file that is downloaded at run time, which memscribe
    never does. This estimate is conservative for English prose (~4.2 chars/token in cl100k) and for
    Chinese (cl100k spends ~1-1.5 tokens per character), and is the counter the LoCoMo harness uses.
    """
    cjk = len(_CJK.findall(text))
    rest = _CJK.sub("", text)
    return cjk + math.ceil(len(rest.encode("utf-8", "surrogatepass")) / 4)


def truncate_to_tokens(text: str, budget: int) -> str:
    if count_tokens(text) <= budget:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count_tokens(text[:mid] + "…") <= budget:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + "…" if lo else ""

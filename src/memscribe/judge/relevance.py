"""Is anything the store holds relevant to this query? A store-independent relevance gate (issue #16).

e5 cosines sit in a narrow band for everything (unrelated Chinese pairs score 0.84-0.91), and a store's own
score distribution says nothing when the store holds five memories, so neither a raw floor nor a z-score against
the user's memories can tell "related" from "not". The gate compares instead against a fixed BACKGROUND: a
bundled set of memory-like sentences (zh + en, everyday topics). For a query q, mu(q) and sd(q) are the mean
and spread of its cosine to the background; a memory's z = (cos(q, m) - mu) / sd says how much more related m
is to q than a random memory is, whatever the store. Cheap store-independent evidence joins it — content terms
shared by query and memory (weighted by their rarity in the background), shared names and numbers — in a tiny
logistic model (``judge/weights/relevance_gate.npz``, trained by ``train/relevance_gate.py``), with one
query-only input: P(the query asks about someone's life at all) from its vector (``query_personal.npz``), which
tells "where do I live?" from "what's the capital of France?" when the store's one memory shares no word.

A query passes when at least one of its first recall candidates clears the model's threshold; otherwise its
result is empty ("宁缺毋滥"). No per-memory cut: every one tried lost evidence on LoCoMo.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from memscribe.errors import InputError
from memscribe.judge.linear import LinearModel, load_model
from memscribe.lang.text import count_tokens, detect_lang, keyword_terms

__all__ = [
    "GATE_CANDIDATES",
    "GATE_FEATURES",
    "Background",
    "GateVerdict",
    "RelevanceGate",
    "load_background",
    "load_gate",
    "pair_features",
    "personal_features",
    "term_rarity",
]

GATE_CANDIDATES = 20  # the gate judges the first recall candidates only (the rest rank lower anyway)
GATE_FEATURES = (
    "z",  # (cos - mu) / sd against the background in the query's language
    "z_top",  # (cos - mean of the 5 closest background sentences) / sd
    "mu",  # how close the query is to memories in general (chit-chat sits near everything)
    "sd",
    "shared_rarity",  # summed rarity of the content terms query and memory share (capped)
    "shared_max_rarity",  # the rarest shared term
    "shared_name",  # a capitalised name / zh person, place or org shared
    "shared_number",  # a number of 2+ digits, or any digit run in zh, shared
    "answer_type",  # the query asks where / when / how many and the memory holds a place / time / number
    "first_person",  # the query speaks of "I / my / 我" or to "you remember / 你记得"
    "query_personal",  # P(the query asks about someone's life, not general knowledge / chit-chat), from its vector
    "memory_tokens",  # log tokens of the memory: short memories sit near everything
)
_SHARED_RARITY_CAP = 12.0
# rarity of a term = COMMON_ZIPF - its Zipf frequency (>= 0); a term outside the shipped table counts as
# having UNSEEN_ZIPF (the table holds the 30,000 most frequent words of each language)
_COMMON_ZIPF, _UNSEEN_ZIPF = 7.0, 2.0

_FIRST_PERSON = re.compile(
    r"我|咱|俺|\b(?:i|my|me|mine|we|our|us|i'm|i've|i'd)\b|(?:你|您)(?:还)?记得|\bdo you remember\b",
    re.IGNORECASE,
)
_NAME_EN = re.compile(r"\b[A-Z][a-z]{2,}\b")
# (what a question asks for, what a memory must hold to answer it): wh-words against places, times, numbers
_ANSWER_TYPES = (
    (
        re.compile(
            r"\bwhere\b|\b(?:which|what) (?:city|country|town|state|place|neighbou?rhood)\b|哪里|哪儿|哪个(?:城市|国家|地方|区)|在哪|住哪|去哪",
            re.IGNORECASE,
        ),
        re.compile(
            r"\b(?:in|to|at|from|near)\s+(?:the\s+)?[A-Z][a-z]+|[\u4e00-\u9fff]{2,}(?:市|省|区|县|路|街)"
        ),
    ),
    (
        re.compile(
            r"\bwhen\b|\bwhat (?:time|date|day|year|month)\b|\bwhich (?:day|date|year|month)\b|\bhow long ago\b|"
            r"什么时候|啥时候|几点|哪天|几号|哪一天|哪年|几月",
            re.IGNORECASE,
        ),
        re.compile(
            r"\d{4}-\d{2}|\d{1,2}:\d{2}|\d\s?(?:am|pm)\b|\b(?:january|february|march|april|may|june|july|august|"
            r"september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
            r"yesterday|tomorrow|tonight|last|next)\b|[0-9一二三四五六七八九十]+(?:月|号|日|点)|周[一二三四五六日末]|星期|昨天|明天|今天|去年|上周|下周",
            re.IGNORECASE,
        ),
    ),
    (
        re.compile(
            r"\bhow (?:many|much|old|long|far)\b|\bwhat (?:number|price)\b|多少|几个|几岁|几次|多久|多大",
            re.IGNORECASE,
        ),
        re.compile(
            r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|dozen|hundred)\b|[一二两三四五六七八九十百千万]",
            re.IGNORECASE,
        ),
    ),
)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_NUMBER = re.compile(r"\d{2,}|\d(?=[\u4e00-\u9fff])")
_NOT_NAMES = frozenset(
    {
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "whose",
        "why",
        "how",
        "did",
        "does",
        "do",
        "is",
        "are",
        "was",
        "were",
        "the",
        "this",
        "that",
        "these",
        "those",
        "can",
        "could",
        "would",
        "should",
        "will",
        "have",
        "has",
        "had",
        "i",
        "my",
        "user",
        "assistant",
    }
)


@dataclass(frozen=True)
class Background:
    """The bundled background: its sentences, and their vectors in ``embedder``'s space."""

    embedder: str
    sentences: tuple[str, ...]
    vectors: np.ndarray  # (n, dim) float32, L2-normalised
    is_zh: np.ndarray  # (n,) bool: the sentence is Chinese


def _stem(w: str) -> str:
    """A light English suffix stripper: lives/live -> liv, moved/move -> mov, studies -> study."""
    for suf in ("ies", "ing", "ed", "es", "s"):
        if len(w) - len(suf) >= 3 and w.endswith(suf) and not w.endswith("ss"):
            w = w[: -len(suf)] + ("y" if suf == "ies" else "")
            break
    return w[:-1] if len(w) > 3 and w.endswith("e") else w


def _terms(text: str) -> dict[str, str]:
    """Content terms (keyword terms, jieba for zh; one Chinese character counts, one Latin letter does not):
    stem -> the word as written."""
    out: dict[str, str] = {}
    for t in keyword_terms(text):
        if t in _NOT_NAMES or (len(t) < 2 and not _CJK.match(t)):
            continue
        out.setdefault(_stem(t) if t.isascii() and t.isalpha() else t, t)
    return out


@cache
def _zipf_table() -> dict[str, float]:
    path = resources.files("memscribe.judge") / "weights" / "term_zipf.npz"
    with resources.as_file(path) as p, np.load(p, allow_pickle=False) as z:
        words = str(z["words"]).split("\n")
        return dict(zip(words, (z["zipf"].astype(np.float32) / 10.0).tolist(), strict=True))


def term_rarity(term: str) -> float:
    """How rare a word is in general use (0 for the commonest words; about 5 for one outside the table)."""
    return max(0.0, _COMMON_ZIPF - _zipf_table().get(term.lower(), _UNSEEN_ZIPF))


def _names(text: str) -> set[str]:
    names = {m.group(0).lower() for m in _NAME_EN.finditer(text)} - _NOT_NAMES
    if re.search(r"[\u4e00-\u9fff]", text):
        from memscribe.lang.entities import extract_entities

        ents = extract_entities(text, "zh")
        names |= {e for k in ("people", "places", "orgs") for e in ents[k]}
    return names


_BACKGROUNDS: dict[str, Background] = {}
_BG_LOCK = threading.Lock()


@cache
def _shipped() -> tuple[str, tuple[str, ...], np.ndarray]:
    path = resources.files("memscribe.judge") / "weights" / "relevance_background.npz"
    with resources.as_file(path) as p, np.load(p, allow_pickle=False) as z:
        vectors = z["vectors"].astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        return str(z["embedder"]), tuple(str(s) for s in z["sentences"]), vectors


def load_background(embedder: object) -> Background:
    """The background in ``embedder``'s vector space: the shipped vectors for the bundled embedder; for another
    one, the shipped sentences embedded once with it (a few hundred short passages) and kept for the process."""
    name = getattr(embedder, "name", None)
    if not isinstance(name, str):
        raise InputError("the relevance gate needs an embedder with a name")
    with _BG_LOCK:
        bg = _BACKGROUNDS.get(name)
        if bg is None:
            shipped_name, sentences, vectors = _shipped()
            if name != shipped_name:
                vectors = np.asarray(embedder.embed_passages(list(sentences)), dtype=np.float32)  # type: ignore[attr-defined]
                vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            is_zh = np.array([detect_lang(s) == "zh" for s in sentences])
            bg = Background(name, sentences, vectors, is_zh)
            _BACKGROUNDS[name] = bg
        return bg


def pair_features(
    bg: Background,
    query: str,
    qvec: np.ndarray,
    memories: Sequence[str],
    cosines: Sequence[float],
    *,
    personal: float,
) -> np.ndarray:
    """One row of :data:`GATE_FEATURES` per memory (pure: the same inputs give the same rows)."""
    if len(memories) != len(cosines):
        raise InputError("one cosine per memory")
    qvec = np.asarray(qvec, dtype=np.float32)
    if qvec.shape != (bg.vectors.shape[1],):
        raise InputError(f"query vector of dim {qvec.shape}, background has {bg.vectors.shape[1]}")
    # against the background in the query's language: cross-language cosines are lower, and a mixed
    # background would make the spread of every query bimodal
    same = bg.is_zh if detect_lang(query) == "zh" else ~bg.is_zh
    bcos = bg.vectors[same] @ qvec
    mu, sd = float(bcos.mean()), max(float(bcos.std()), 1e-4)
    top = float(np.sort(bcos)[-5:].mean())
    q_terms, q_names, q_nums = _terms(query), _names(query), set(_NUMBER.findall(query))
    first_person = 1.0 if _FIRST_PERSON.search(query) else 0.0
    wanted = [holds for asks, holds in _ANSWER_TYPES if asks.search(query)]
    rows = np.zeros((len(memories), len(GATE_FEATURES)), dtype=np.float32)
    for i, (text, cos) in enumerate(zip(memories, cosines, strict=True)):
        rarity = [term_rarity(q_terms[t]) for t in q_terms.keys() & _terms(text).keys()]
        rows[i] = (
            (cos - mu) / sd,
            (cos - top) / sd,
            mu,
            sd,
            min(sum(rarity), _SHARED_RARITY_CAP),
            max(rarity, default=0.0),
            1.0 if q_names and q_names & _names(text) else 0.0,
            1.0 if q_nums and q_nums & set(_NUMBER.findall(text)) else 0.0,
            1.0 if any(h.search(text) for h in wanted) else 0.0,
            first_person,
            personal,
            math.log1p(count_tokens(text)),
        )
    return rows


def personal_features(query: str, qvec: np.ndarray) -> np.ndarray:
    """The query model's input: the query vector and whether it speaks in the first person."""
    first_person = 1.0 if _FIRST_PERSON.search(query) else 0.0
    return np.append(np.asarray(qvec, dtype=np.float32), np.float32(first_person))


@dataclass(frozen=True)
class GateVerdict:
    """Whether a query's recall passes: the best candidate's P(relevant), the threshold, and which one."""

    passed: bool
    best: float
    threshold: float
    best_index: int | None
    probabilities: tuple[float, ...]


@dataclass(frozen=True)
class RelevanceGate:
    model: LinearModel  # P(relevant | query, memory) over GATE_FEATURES
    personal: LinearModel  # P(the query asks about someone's life | its vector)
    threshold: float

    def personal_p(self, query: str, qvec: np.ndarray) -> float:
        p = self.personal.proba(personal_features(query, qvec))
        return float(p[self.personal.classes.index("personal")])

    def judge(
        self, bg: Background, query: str, qvec: np.ndarray, memories: Sequence[str], cosines: Sequence[float]
    ) -> GateVerdict:
        memories, cosines = list(memories)[:GATE_CANDIDATES], list(cosines)[:GATE_CANDIDATES]
        if not memories:
            return GateVerdict(False, 0.0, self.threshold, None, ())
        x = pair_features(bg, query, qvec, memories, cosines, personal=self.personal_p(query, qvec))
        p = self.model.proba(x)[:, self._pos]
        i = int(p.argmax())
        return GateVerdict(bool(p[i] >= self.threshold), float(p[i]), self.threshold, i, tuple(map(float, p)))

    @property
    def _pos(self) -> int:
        return self.model.classes.index("relevant")


@cache
def load_gate() -> RelevanceGate:
    """The shipped gate; its threshold was chosen on the training split (``train/relevance_gate.py``)."""
    model = load_model("relevance_gate")
    if tuple(model.meta.get("features", ())) != GATE_FEATURES:
        raise InputError("relevance_gate.npz was trained on other features; retrain it")
    return RelevanceGate(model, load_model("query_personal"), float(model.meta["threshold"]))

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

A memory written in the other language than the query (a Chinese question over English notes, an agent's
English search over a Chinese chat) shares no term or name with it, and e5 sets its cosine on another scale (a
Chinese question is ~0.11 closer to any Chinese sentence than to any English one). Its z is measured against the
background in the memory's language, and it is judged by a model of its own (``relevance_cross.npz``, trained on
``data/labelled/relevance/cross_train.jsonl`` against the unanswerable queries' candidates in the other
language), so that the models for one language keep their weights.
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
    "TOPICAL_FEATURES",
    "Background",
    "GateVerdict",
    "RelevanceGate",
    "background_stats",
    "cue_rarity",
    "is_lookup",
    "language_shift",
    "literal_match",
    "load_background",
    "load_gate",
    "pair_features",
    "personal_features",
    "personal_p",
    "query_rarity",
    "slot_match",
    "term_rarity",
    "trained_embedder",
]

GATE_CANDIDATES = 20  # the gate judges the first recall candidates only (the rest rank lower anyway)
GATE_FEATURES = (
    "z",  # (cos - mu) / sd against the background in the memory's language
    "z_top",  # (cos - mean of the 5 closest background sentences of the memory's language) / sd
    "mu",  # how close the query is to memories in general (chit-chat sits near everything)
    "sd",
    "shared_rarity",  # summed rarity of the content terms query and memory share (capped)
    "shared_max_rarity",  # the rarest shared term
    "shared_name",  # a capitalised name / zh person, place or org shared
    "shared_number",  # a number of 2+ digits, or any digit run in zh, shared
    "answer_type",  # the query asks where / when / how many and the memory holds a place / time / number
    "about_self",  # the query asks about the asker's own life ("my …", "where do I …", 我的 / 我住 …)
    "first_person",  # the query speaks of "I / my / 我" or to "you remember / 你记得"
    "query_personal",  # P(the query asks about someone's life, not general knowledge / chit-chat), from its vector
    "memory_tokens",  # log tokens of the memory: short memories sit near everything
)
_SHARED_RARITY_CAP = 12.0
# rarity of a term = COMMON_ZIPF - its Zipf frequency (>= 0); a term outside the shipped table counts as
# having UNSEEN_ZIPF (the table holds the 30,000 most frequent words of each language)
_COMMON_ZIPF, _UNSEEN_ZIPF = 7.0, 2.0

# a question about the asker's own life: "my …", a wh-question (not "how do I …", which asks for instructions)
# whose subject is I, 我的 / 我家 / 我 + a verb of state or plan
_ABOUT_SELF = re.compile(
    r"\b(?:my|mine)\b|\b(?:where|when|what|who|which|whom)\b[^?.!]*\b(?:do|did|am|was|have|had|will|can|should) i\b|"
    r"我的|我家|我们家|我(?:现在|之前|以前|上次|平时|一般|最近)?(?:住|在|是|叫|有|喜欢|爱|要|去|想|对|能|会|该|跟|和)",
    re.IGNORECASE,
)
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


def query_rarity(query: str) -> float:
    """The summed rarity of a query's content terms, capped like a shared term's (what ``shared_rarity`` is a
    share of)."""
    return min(sum(term_rarity(w) for w in _terms(query).values()), _SHARED_RARITY_CAP)


def cue_rarity(query: str, text: str, cue: str | None) -> float:
    """The summed rarity of the query's content terms that a memory's retrieval cue (the question it replied
    to) holds and its text does not, capped like ``shared_rarity``."""
    if not cue:
        return 0.0
    q = _terms(query)
    only_cue = (q.keys() & _terms(cue).keys()) - _terms(text).keys()
    return min(sum(term_rarity(q[t]) for t in only_cue), _SHARED_RARITY_CAP)


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


def trained_embedder() -> str:
    """The embedder whose vectors the query models (``query_personal``, the slot model) were trained on."""
    return _shipped()[0]


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
    # a memory's cosine is measured against the background in ITS language: cross-language cosines sit lower
    # (a Chinese question is ~0.11 closer to any Chinese sentence than to any English one), and a mixed
    # background would make the spread of every query bimodal. mu and sd, what the query is like, are those of
    # the query's own language.
    q_lang = detect_lang(query)
    stats = {lang: background_stats(bg, qvec, lang) for lang in ("zh", "en")}
    mu, sd, _ = stats[q_lang]
    q_terms, q_names, q_nums = _terms(query), _names(query), set(_NUMBER.findall(query))
    first_person = 1.0 if _FIRST_PERSON.search(query) else 0.0
    about_self = 1.0 if _ABOUT_SELF.search(query) else 0.0
    wanted = [holds for asks, holds in _ANSWER_TYPES if asks.search(query)]
    rows = np.zeros((len(memories), len(GATE_FEATURES)), dtype=np.float32)
    for i, (text, cos) in enumerate(zip(memories, cosines, strict=True)):
        rarity = [term_rarity(q_terms[t]) for t in q_terms.keys() & _terms(text).keys()]
        m_mu, m_sd, m_top = stats[detect_lang(text)]
        rows[i] = (
            (cos - m_mu) / m_sd,
            (cos - m_top) / m_sd,
            mu,
            sd,
            min(sum(rarity), _SHARED_RARITY_CAP),
            max(rarity, default=0.0),
            1.0 if q_names and q_names & _names(text) else 0.0,
            1.0 if q_nums and q_nums & set(_NUMBER.findall(text)) else 0.0,
            1.0 if any(h.search(text) for h in wanted) else 0.0,
            about_self,
            first_person,
            personal,
            math.log1p(count_tokens(text)),
        )
    return rows


def cross_lingual(query: str, memories: Sequence[str]) -> np.ndarray:
    """Which memories are written in the other language than the query (what the cross-lingual model judges)."""
    q_lang = detect_lang(query)
    return np.array([detect_lang(m) != q_lang for m in memories], dtype=bool)


def background_stats(bg: Background, qvec: np.ndarray, lang: str) -> tuple[float, float, float]:
    """The query's cosines to the background sentences of one language: their mean, spread (floored), and the
    mean of the 5 closest."""
    bcos = bg.vectors[bg.is_zh if lang == "zh" else ~bg.is_zh] @ np.asarray(qvec, dtype=np.float32)
    return float(bcos.mean()), max(float(bcos.std()), 1e-4), float(np.sort(bcos)[-5:].mean())


def language_shift(bg: Background, query: str, qvec: np.ndarray, text: str) -> float:
    """What to add to the query's cosine with a memory written in the other language to put it on the scale of
    the query's own language: the difference of the query's mean cosines to the background in the two
    languages (0 when both are in one language)."""
    q_lang, m_lang = detect_lang(query), detect_lang(text)
    if q_lang == m_lang:
        return 0.0
    return background_stats(bg, qvec, q_lang)[0] - background_stats(bg, qvec, m_lang)[0]


def personal_features(query: str, qvec: np.ndarray) -> np.ndarray:
    """The query model's input: the query vector, whether it speaks in the first person, whether it asks
    about the asker's own life."""
    cues = [1.0 if _FIRST_PERSON.search(query) else 0.0, 1.0 if _ABOUT_SELF.search(query) else 0.0]
    return np.append(np.asarray(qvec, dtype=np.float32), np.asarray(cues, dtype=np.float32))


_LOOKUP_MAX_TERMS, _LOOKUP_MIN_RARITY = 4, 1.0
# what makes a query a sentence rather than a keyword lookup ("Boston", "which editor", "上海 出差"): a question
# mark, a pronoun, an auxiliary or request verb
_SENTENCE = re.compile(
    r"[?？!！~～]|\b(?:what|what's|whats|when|where|which|who|whom|whose|why|how|i|me|my|you|your|we|our|it|is|are|"
    r"am|was|do|does|did|can|could|would|should|will|tell|give|show|help|convert|good|hey|hi|hello)\b|"
    r"吗|呢|啊|呀|啦|什么|啥|怎么|咋|为什么|为啥|哪|谁|几|多少|多远|多大|多长|我|你|您|帮|给|讲|请|早上好|晚安|你好",
    re.IGNORECASE,
)


def is_lookup(query: str) -> bool:
    """A keyword lookup: a few content words, no question, no pronoun, no verb of a request."""
    return 0 < len(_terms(query)) <= _LOOKUP_MAX_TERMS and not _SENTENCE.search(query)


def literal_match(query: str, memories: Sequence[str]) -> int | None:
    """For a keyword lookup, the first memory holding its rarest word, else None: what the store literally
    holds is relevant to a search for it, whatever the cosines say."""
    if not is_lookup(query):
        return None
    stem, word = max(_terms(query).items(), key=lambda kv: term_rarity(kv[1]))
    if term_rarity(word) < _LOOKUP_MIN_RARITY:
        return None
    return next((i for i, m in enumerate(memories) if stem in _terms(m)), None)


# A question about one of the user's attributes ("where do I live?") is answered by the memory that fills that
# slot even when the words differ ("The user moved to Shanghai"): the write path's slot model (judge/slots.py)
# read on the query vector names the slot asked about when it is this sure, and the query must read as personal.
_SLOT_SURE, _SLOT_PERSONAL = 0.8, 0.2
_SLOTS_NOT_ASKED = frozenset(
    {"other", "plan", "task", "preference"}
)  # one instance per value, not an attribute


def slot_match(qvec: np.ndarray, slots: Sequence[str | None]) -> int | None:
    """The first candidate whose slot (``subject|slot`` as the write path stores it) is the attribute the
    query asks about, else None."""
    from memscribe.judge.slots import guess_slot

    guess = guess_slot(np.asarray(qvec, dtype=np.float32), "profile")
    if guess.probability < _SLOT_SURE or guess.slot in _SLOTS_NOT_ASKED:
        return None
    return next((i for i, s in enumerate(slots) if s and s.rsplit("|", 1)[-1] == guess.slot), None)


@dataclass(frozen=True)
class GateVerdict:
    """Whether a query's recall passes, why (``model`` / ``topical`` / ``cross-lingual`` / ``lookup`` / ``slot`` /
    ``time window`` / ``no candidates``), the best candidate's P(relevant), the threshold, and which candidate decided."""

    passed: bool
    best: float
    threshold: float
    best_index: int | None
    probabilities: tuple[float, ...]
    reason: str = "model"


# the topical model reads only what the query and memory share, not what kind of question it is: a query the
# query model misreads as general ("coffee", "which editor") still passes when a memory is far more related to it
# than the background is
TOPICAL_FEATURES = tuple(
    f for f in GATE_FEATURES if f not in ("about_self", "first_person", "query_personal")
)
_TOPICAL_COLUMNS = [GATE_FEATURES.index(f) for f in TOPICAL_FEATURES]


@dataclass(frozen=True)
class RelevanceGate:
    model: LinearModel  # P(relevant | query, memory) over GATE_FEATURES
    personal: LinearModel  # P(the query asks about someone's life | its vector)
    threshold: float
    topical: LinearModel  # P(relevant | query, memory) over TOPICAL_FEATURES
    topical_threshold: float
    # the query-aware model passes a query only when some candidate is at least this topical: reading a query
    # as personal ("给我写个冒泡排序") must not let any memory through
    topical_floor: float = 0.0
    # P(relevant | query, memory) over GATE_FEATURES for a memory written in the other language than the
    # query (a Chinese question over English notes): no term or name can be shared and the cosines sit on
    # another scale, so such pairs have a model and a threshold of their own; the models above judge the
    # memories in the query's language only. None: every pair goes to the models above.
    cross: LinearModel | None = None
    cross_threshold: float = 1.0

    def personal_p(self, query: str, qvec: np.ndarray) -> float:
        p = self.personal.proba(personal_features(query, qvec))
        return float(p[self.personal.classes.index("personal")])

    def judge(
        self,
        bg: Background,
        query: str,
        qvec: np.ndarray,
        memories: Sequence[str],
        cosines: Sequence[float],
        slots: Sequence[str | None] | None = None,
    ) -> GateVerdict:
        memories, cosines = list(memories)[:GATE_CANDIDATES], list(cosines)[:GATE_CANDIDATES]
        if not memories:
            return GateVerdict(False, 0.0, self.threshold, None, (), "no candidates")
        literal = literal_match(query, memories)
        if literal is not None:
            return GateVerdict(True, 1.0, self.threshold, literal, (), "lookup")
        # a keyword lookup asks what the store holds by construction: as personal as a query gets
        personal = 1.0 if is_lookup(query) else self.personal_p(query, qvec)
        x = pair_features(bg, query, qvec, memories, cosines, personal=personal)
        p, t, c = self.scores(query, memories, x)
        i = int(p.argmax())
        probs = tuple(map(float, np.where(np.isnan(c), p, c)))
        j = int(t.argmax())
        if p[i] >= self.threshold and t[j] >= self.topical_floor:
            return GateVerdict(True, float(p[i]), self.threshold, i, probs)
        if t[j] >= self.topical_threshold:
            return GateVerdict(True, float(t[j]), self.topical_threshold, j, probs, "topical")
        k = int(np.nanargmax(c)) if not np.isnan(c).all() else None
        if k is not None and c[k] >= self.cross_threshold:
            return GateVerdict(True, float(c[k]), self.cross_threshold, k, probs, "cross-lingual")
        if slots is not None and personal >= _SLOT_PERSONAL:
            j = slot_match(qvec, list(slots)[:GATE_CANDIDATES])
            if j is not None:
                return GateVerdict(True, float(p[j]), self.threshold, j, probs, "slot")
        return GateVerdict(False, float(p[i]), self.threshold, i, probs)

    def scores(
        self, query: str, memories: Sequence[str], x: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per memory: P(relevant) by the query-aware and the topical model (0 for a memory in the other
        language when a cross-lingual model judges those), and by the cross-lingual model (NaN for a memory in
        the query's language)."""
        p = self.model.proba(x)[:, self._pos]
        t = self.topical.proba(x[:, _TOPICAL_COLUMNS])[:, self.topical.classes.index("relevant")]
        c = np.full(len(p), np.nan)
        if self.cross is not None:
            other = cross_lingual(query, memories)
            if other.any():
                c[other] = self.cross.proba(x[other])[:, self.cross.classes.index("relevant")]
                p, t = np.where(other, 0.0, p), np.where(other, 0.0, t)
        return p, t, c

    @property
    def _pos(self) -> int:
        return self.model.classes.index("relevant")


def personal_p(query: str, qvec: np.ndarray) -> float:
    """P(the query asks about someone's life) by the shipped query model alone (what the ranker reads: it
    needs no gate weights)."""
    model = load_model("query_personal")
    return float(model.proba(personal_features(query, qvec))[model.classes.index("personal")])


@cache
def load_gate() -> RelevanceGate:
    """The shipped gate; its threshold was chosen on the training split (``train/relevance_gate.py``)."""
    model = load_model("relevance_gate")
    if tuple(model.meta.get("features", ())) != GATE_FEATURES:
        raise InputError("relevance_gate.npz was trained on other features; retrain it")
    topical = load_model("relevance_topical")
    if tuple(topical.meta.get("features", ())) != TOPICAL_FEATURES:
        raise InputError("relevance_topical.npz was trained on other features; retrain it")
    cross = None
    if (resources.files("memscribe.judge") / "weights" / "relevance_cross.npz").is_file():
        cross = load_model("relevance_cross")
        if tuple(cross.meta.get("features", ())) != GATE_FEATURES:
            raise InputError("relevance_cross.npz was trained on other features; retrain it")
    return RelevanceGate(
        model,
        load_model("query_personal"),
        float(model.meta["threshold"]),
        topical,
        float(topical.meta["threshold"]),
        cross=cross,
        cross_threshold=float(cross.meta["threshold"]) if cross is not None else 1.0,
    )

"""Consolidation decisions (DESIGN §4). Pure functions over records and their vectors; no I/O.

- ``find_repeated_episodes``: the same episode said again and again (三次“汇报前需要进度表”) becomes a
  candidate habit; ``semantic_from_episodes`` writes it as ONE semantic memory linked ``derived_from`` to
  its episodes.
- ``near_duplicate_clusters`` + ``merge_cluster``: memories that say the same thing in the same slot
  collapse into the newest one; the others are superseded by it and lend it their sources.
- ``decay_inference``: an unconfirmed inference loses confidence each maintenance day and is archived
  when nobody confirmed it before it fell below the floor.

Similarity is judged twice. Small multilingual-e5 cosines live in a narrow band (two unrelated short
sentences of one language often score 0.90+, 喜欢喝咖啡 / 喜欢喝茶 0.97), so a cosine threshold alone
would merge different facts. A pair must also share its content words: the Jaccard overlap of keyword
terms, with the subject, numbers and dates left out (those are compared exactly elsewhere).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta

import numpy as np

from memscribe.config import LifecycleConfig
from memscribe.facts import Facts, RecordState
from memscribe.lang.text import detect_lang, keyword_terms
from memscribe.models import Kind, Layer, Link, MemoryRecord, Source, Status, new_memory_id
from memscribe.write.merge import distinguishing

__all__ = [
    "HABIT_MARKERS",
    "content_terms",
    "decay_inference",
    "find_repeated_episodes",
    "habit_text",
    "is_inference",
    "merge_cluster",
    "near_duplicate_clusters",
    "same_habit",
    "semantic_from_episodes",
]

HABIT_MARKERS = {"zh": "通常：", "en": "Usually: "}
_CONSOLIDATED_KINDS = frozenset({Kind.preference, Kind.constraint, Kind.fact})
_MERGEABLE_LAYERS = frozenset({Layer.episodic, Layer.semantic})
# An inference decays at most once per this interval, so a re-run (or a restart) the same day is a no-op.
DECAY_MIN_INTERVAL = timedelta(hours=20)

_NUMERIC = re.compile(r"^[\d.:/\-t]+$")
_DATEISH = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}(?::\d{2}){1,2})?|\d{1,2}:\d{2}")
_ISO = r"\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?)?"
_ISO_RANGE = re.compile(rf"{_ISO}(?:\s*(?:至|到|~|–|—|\bto\b|-)\s*{_ISO})?")
_EN_DATE_PHRASE = re.compile(rf"\s*\b(?:on|at|by|from|until|for)\s+{_ISO_RANGE.pattern}(?:'s)?", re.I)
_EN_POSSESSIVE = re.compile(rf"{_ISO_RANGE.pattern}'s")
_SPACES = re.compile(r"[ \t]{2,}")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?，。；：！？])")


# ---------------------------------------------------------------------------------------------- helpers
def is_inference(rec: MemoryRecord) -> bool:
    return rec.facts.inferred is True or rec.metadata.get("inferred") is True


def _is_confirmed(rec: MemoryRecord) -> bool:
    return rec.facts.confirmed is True or rec.metadata.get("confirmed") is True


def _subject(rec: MemoryRecord) -> str:
    return rec.facts.subject or "user"


def content_terms(rec: MemoryRecord) -> frozenset[str]:
    """The words that carry what a memory says: keyword terms minus its subject, numbers and dates."""
    drop = set(keyword_terms(_subject(rec))) | {"user", "用户"}
    return frozenset(t for t in keyword_terms(rec.text) if t not in drop and not _NUMERIC.match(t))


def _anchors(rec: MemoryRecord) -> frozenset[str]:
    """Who, where and which: people, places, organisations and ids named by the memory."""
    f = rec.facts
    return frozenset(f"{k}:{v}" for k in ("people", "places", "orgs", "ids") for v in getattr(f, k))


def _undated_distinguishing(rec: MemoryRecord) -> frozenset[str]:
    """``distinguishing`` without the dates and clock times (a habit recurs on different days)."""
    return frozenset(t for t in distinguishing(rec) if not _DATEISH.fullmatch(t.partition(":")[2]))


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def _overlapping_pairs(terms: Sequence[frozenset[str]], min_jaccard: float) -> set[tuple[int, int]]:
    """Index pairs (i < j) whose term sets have Jaccard >= min_jaccard.

    Prefix filtering (as in set-similarity joins): with terms ordered rarest first, two sets that overlap
    that much must share one of the first ``|A| - ceil(t·|A|) + 1`` terms of each, so only sets sharing a
    prefix term are compared. Exact, and near-linear for the short texts memories are.
    """
    freq: Counter[str] = Counter(t for ts in terms for t in ts)
    index: dict[str, list[int]] = defaultdict(list)
    out: set[tuple[int, int]] = set()
    for i, ts in enumerate(terms):
        if not ts:
            continue
        ordered = sorted(ts, key=lambda t: (freq[t], t))
        prefix = len(ordered) - int(np.ceil(min_jaccard * len(ordered) - 1e-9)) + 1
        seen: set[int] = set()
        for t in ordered[:prefix]:
            for j in index[t]:
                if j in seen:
                    continue
                seen.add(j)
                if _jaccard(ts, terms[j]) >= min_jaccard:
                    out.add((j, i))
            index[t].append(i)
    return out


def _greedy_clusters(n: int, linked: Mapping[int, set[int]], *, min_size: int) -> list[list[int]]:
    """Complete-linkage greedy clustering of items 0..n-1 (oldest first): each unassigned item seeds a
    cluster that takes every unassigned item similar to all of its members."""
    assigned: set[int] = set()
    clusters: list[list[int]] = []
    for seed in range(n):
        if seed in assigned or not linked.get(seed):
            continue
        members = [seed]
        for cand in sorted(linked[seed] - assigned):
            if all(cand in linked[m] for m in members[1:]):
                members.append(cand)
        if len(members) >= min_size:
            clusters.append(members)
            assigned.update(members)
    return clusters


def _similar_groups(
    recs: Sequence[MemoryRecord],
    vectors: Mapping[str, np.ndarray],
    *,
    group_key: Callable[[MemoryRecord], object],
    similarity: float,
    strict: bool,
    min_jaccard: float,
    min_size: int,
) -> list[list[MemoryRecord]]:
    """Clusters inside groups of equal ``group_key`` (the exact conditions: subject, slot, ids, ...) by
    cosine and word overlap."""
    groups: dict[object, list[MemoryRecord]] = defaultdict(list)
    for r in recs:
        if r.id in vectors:
            groups[group_key(r)].append(r)
    out: list[list[MemoryRecord]] = []
    for members in groups.values():
        if len(members) < min_size:
            continue
        members.sort(key=lambda r: (r.created_at, r.updated_at, r.id))
        terms = [content_terms(r) for r in members]
        linked: dict[int, set[int]] = defaultdict(set)
        for i, j in _overlapping_pairs(terms, min_jaccard):
            cos = float(np.dot(vectors[members[i].id], vectors[members[j].id]))
            if cos > similarity if strict else cos >= similarity:
                linked[i].add(j)
                linked[j].add(i)
        for idx in _greedy_clusters(len(members), linked, min_size=min_size):
            out.append([members[i] for i in idx])
    return out


def _union_sources(recs: Iterable[MemoryRecord]) -> list[Source]:
    seen: set[str] = set()
    out: list[Source] = []
    for r in recs:
        for s in r.sources:
            if s.message_id not in seen:
                seen.add(s.message_id)
                out.append(s)
    return out


# ---------------------------------------------------------------------------------------------- episodes
def find_repeated_episodes(
    recs: Sequence[MemoryRecord],
    vectors: Mapping[str, np.ndarray],
    *,
    min_count: int = 3,
    similarity: float = 0.85,
    min_overlap: float = 0.75,
) -> list[list[MemoryRecord]]:
    """Clusters (oldest first) of at least ``min_count`` active episodic memories of one subject that say
    the same pattern: pairwise cosine >= ``similarity``, content-word overlap >= ``min_overlap``, the same
    polarity, people, places and ids. Dates and times may differ (a habit recurs on different days);
    other numbers may not (报销单 123 and 报销单 480 are two errands, not a habit)."""
    episodes = [r for r in recs if r.status == Status.active and r.layer == Layer.episodic]
    return _similar_groups(
        episodes,
        vectors,
        group_key=_pattern_key,
        similarity=similarity,
        strict=False,
        min_jaccard=min_overlap,
        min_size=min_count,
    )


def _pattern_key(r: MemoryRecord) -> tuple[object, ...]:
    """What repeated episodes of one pattern share exactly: subject, polarity, people / places / ids and
    numbers other than dates."""
    return (_subject(r), r.facts.negated, _anchors(r), _undated_distinguishing(r))


def _same_pattern(a: MemoryRecord, b: MemoryRecord) -> bool:
    return _pattern_key(a) == _pattern_key(b)


def same_habit(
    a: MemoryRecord, b: MemoryRecord, cosine: float, *, similarity: float = 0.85, min_overlap: float = 0.8
) -> bool:
    """Two consolidated memories (or a would-be one and a kept one) that state the same habit."""
    return (
        _subject(a) == _subject(b)
        and cosine >= similarity
        and _jaccard(content_terms(a), content_terms(b)) >= min_overlap
        and _same_pattern(a, b)
    )


def habit_text(text: str, lang: str, *, subject: str | None = None) -> str:
    """An episode's text as a habit: its absolute dates removed, prefixed by the habit marker."""
    body = text
    if lang == "en":
        body = _EN_DATE_PHRASE.sub("", body)
        body = _EN_POSSESSIVE.sub("the", body)
    body = _ISO_RANGE.sub("", body)
    body = _SPACE_BEFORE_PUNCT.sub(r"\1", _SPACES.sub(" ", body)).strip(" ,，、：:")
    if subject and body.startswith(f"{subject}："):
        body = subject + body[len(subject) + 1 :]  # "用户：和小王去了西湖" (the date was its subject)
    if not body or not re.search(r"\w", body):
        body = text
    if lang == "en":
        body = body[0].upper() + body[1:]
    return HABIT_MARKERS.get(lang, HABIT_MARKERS["en"]) + body


def _central(cluster: Sequence[MemoryRecord], vectors: Mapping[str, np.ndarray] | None) -> MemoryRecord:
    """The episode closest to all the others (embedding mean cosine; word overlap without vectors)."""
    if vectors and all(r.id in vectors for r in cluster):
        m = np.stack([vectors[r.id] for r in cluster])
        scores = (m @ m.T).sum(axis=1)
    else:
        terms = [content_terms(r) for r in cluster]
        scores = np.array([sum(_jaccard(t, u) for u in terms) for t in terms])
    # ties go to the most recent wording
    best = max(range(len(cluster)), key=lambda i: (round(float(scores[i]), 6), cluster[i].created_at))
    return cluster[best]


def semantic_from_episodes(
    cluster: Sequence[MemoryRecord],
    now: datetime,
    *,
    vectors: Mapping[str, np.ndarray] | None = None,
) -> MemoryRecord:
    """ONE semantic memory for a cluster of repeated episodes, linked ``derived_from`` to each of them."""
    if not cluster:
        raise ValueError("an empty cluster consolidates into nothing")
    central = _central(cluster, vectors)
    kinds = Counter(r.kind for r in cluster)
    top_kind = kinds.most_common(1)[0][0]
    kind = top_kind if top_kind in _CONSOLIDATED_KINDS else Kind.fact
    langs = Counter(r.facts.lang or detect_lang(r.text) for r in cluster)
    lang = langs.most_common(1)[0][0]
    agents = {r.agent_id for r in cluster}
    entities = list(dict.fromkeys(e for r in cluster for e in r.entities))
    return MemoryRecord(
        id=new_memory_id(),
        user_id=central.user_id,
        agent_id=agents.pop() if len(agents) == 1 else None,
        layer=Layer.semantic,
        kind=kind,
        text=habit_text(central.text, lang, subject=_subject(central)),
        raw=central.raw,
        facts=Facts(
            subject=_subject(central),
            lang=lang,
            # the episodes share these exactly (``_pattern_key``); keep them for filters and later matches
            people=central.facts.people,
            places=central.facts.places,
            orgs=central.facts.orgs,
            ids=central.facts.ids,
        ),
        state=RecordState(consolidated_from=len(cluster)),
        entities=[e for e in entities if not _ISO_RANGE.fullmatch(e)],
        importance=max(r.importance for r in cluster),
        confidence=round(sum(r.confidence for r in cluster) / len(cluster), 4),
        status=Status.active,
        links=[Link(type="derived_from", target=r.id) for r in cluster],
        sources=_union_sources(cluster),
        created_at=now,
        updated_at=now,
        version=1,
    )


# ---------------------------------------------------------------------------------------------- duplicates
def _duplicate_key(r: MemoryRecord) -> tuple[object, ...]:
    """What near-duplicates share exactly: subject, layer, kind, slot (or none), polarity, being an
    inference, people / places / ids, and every id, number, amount and date."""
    return (
        _subject(r),
        r.layer,
        r.kind,
        r.facts.slot,
        r.facts.negated,
        is_inference(r),
        _anchors(r),
        frozenset(distinguishing(r)),
    )


def near_duplicate_clusters(
    recs: Sequence[MemoryRecord],
    vectors: Mapping[str, np.ndarray],
    *,
    similarity: float = 0.85,
    min_overlap: float = 0.8,
) -> list[list[MemoryRecord]]:
    """Clusters of active memories that say the same thing: same subject, layer and kind, the same slot
    when either has one, cosine > ``similarity``, content-word overlap >= ``min_overlap``, the same
    polarity, people, places and orgs, and exactly the same ids / numbers / amounts / dates (different
    order numbers are never merged)."""
    live = [r for r in recs if r.status == Status.active and r.layer in _MERGEABLE_LAYERS]
    return _similar_groups(
        live,
        vectors,
        group_key=_duplicate_key,
        similarity=similarity,
        strict=True,
        min_jaccard=min_overlap,
        min_size=2,
    )


def _newest(cluster: Sequence[MemoryRecord]) -> MemoryRecord:
    return max(cluster, key=lambda r: (r.created_at, r.updated_at, r.id))


def merge_cluster(
    cluster: Sequence[MemoryRecord],
) -> tuple[MemoryRecord, list[MemoryRecord]]:
    """(survivor, retired): the newest memory keeps the statement and gains the others' sources, uses and
    entities and a ``supersedes`` link to each; the others become superseded by it. Versions and
    ``updated_at`` are left to the caller."""
    survivor = _newest(cluster)
    others = [r for r in cluster if r.id != survivor.id]
    links = list(survivor.links)
    have = {(link.type, link.target) for link in links}
    for r in others:
        if ("supersedes", r.id) not in have:
            links.append(Link(type="supersedes", target=r.id))
    accessed = [r.last_accessed_at for r in cluster if r.last_accessed_at is not None]
    merged = survivor.model_copy(
        update={
            "sources": _union_sources([survivor, *others]),
            "links": links,
            "entities": list(dict.fromkeys(e for r in [survivor, *others] for e in r.entities)),
            "importance": max(r.importance for r in cluster),
            "confidence": max(r.confidence for r in cluster),
            "access_count": sum(r.access_count for r in cluster),
            "last_accessed_at": max(accessed) if accessed else None,
            "state": survivor.state.model_copy(update={"mentions": sum(r.state.mentions for r in cluster)}),
        },
        deep=True,
    )
    retired = [
        r.model_copy(update={"status": Status.superseded, "superseded_by": survivor.id}, deep=True)
        for r in others
    ]
    return merged, retired


# ---------------------------------------------------------------------------------------------- inferences
def decay_inference(
    rec: MemoryRecord, cfg: LifecycleConfig, *, now: datetime | None = None
) -> MemoryRecord | None:
    """An unconfirmed active inference with its confidence multiplied by ``inference_confidence_decay``
    (archived when it falls below ``inference_archive_below``), or None when nothing changes.

    With ``now``, decay happens at most once per ``DECAY_MIN_INTERVAL`` (the time of the last decay is kept
    in ``state.confidence_decayed_at``), so running maintenance twice the same day is a no-op.
    """
    if rec.status != Status.active or not is_inference(rec) or _is_confirmed(rec):
        return None
    state = rec.state
    if now is not None:
        last = state.confidence_decayed_at
        if last is not None and now - datetime.fromisoformat(str(last)) < DECAY_MIN_INTERVAL:
            return None
        state = state.model_copy(update={"confidence_decayed_at": now.isoformat()})
    confidence = round(rec.confidence * cfg.inference_confidence_decay, 6)
    status = Status.archived if confidence < cfg.inference_archive_below else rec.status
    return rec.model_copy(update={"confidence": confidence, "status": status, "state": state}, deep=True)

"""Standing constraints an action request brings with it (issue #16.3).

"今晚想点个泰国菜外卖，推荐点什么？" shares no word with "用户对花生严重过敏", and no similarity cut should let the
allergy through for every query — but an agent that orders food must see it. So a request to *do* something is
read for its action intent (the learned query-intent model, :mod:`memscribe.judge.intent`), and the user's
own standing facts of the slots that govern that kind of action (the learned slot model reads each candidate)
come with the answer, whatever the relevance gate says of the rest.

Learned: the query's intent and each memory's kind and slot. A rule said in passing is often stored under
another kind than ``constraint`` by the rule encoder — "FYI I can't have tree nuts, I carry an EpiPen." is a
``fact`` (no allergy word), "nobody should phone me after 9 pm" a ``plan`` (a clock) — and the slot model reads the
kind: an allergy stored as a fact read allergy 0.43, under the bar. So a candidate's kind is read again by the
statement judge (:mod:`memscribe.judge.statements`, over the words as said and the stored vector), as the write
path's judge reads a statement. On the statements test split (user statements), the standing test with the
judge's kind agrees with the labels at P 0.756 / R 0.650 against 0.678 / 0.590 with the stored kind. Ruled: which slots govern which action (below) and the
search probe that finds the candidates. Pure apart from :func:`standing_constraints`, which does the I/O.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from memscribe.models import MemoryRecord
from memscribe.read.rerank import Scored

__all__ = [
    "INTENT_MIN",
    "SLOT_MIN",
    "STANDING_SLOTS",
    "is_standing",
    "read_kinds",
    "standing_constraints",
    "standing_slots",
]

# the slots whose facts govern an action of each intent; purchase has none of its own yet (a seat or a budget
# preference is slot "preference", which would bring every liking along). A standing health condition governs
# every outing, not only a doctor's visit: a wheelchair, a knee that can't do stairs or a hearing aid decides which
# restaurant or hotel will do ("I use a wheelchair" for "find a brunch spot"), as diabetes or gout decides what is
# ordered — so food and travel bring slot "health" too (the slot model reads an accessibility need as "health",
# data/labelled/slots/ session 18; an event such as "had a cold last week" stays out by its kind)
STANDING_SLOTS: Mapping[str, frozenset[str]] = {
    "food": frozenset({"allergy", "diet", "health"}),
    "travel": frozenset({"health"}),
    "health": frozenset({"allergy", "health"}),
    "contact": frozenset({"contact_pref", "schedule_rule"}),
    "schedule": frozenset({"schedule_rule", "contact_pref"}),
}
# what a vector search for an intent's standing facts asks (e5 is multilingual: one probe serves zh and en);
# the slot model, not the probe's similarity, decides which of the found memories are standing facts
_PROBES: Mapping[str, str] = {
    "food": "用户的食物过敏、饮食禁忌和健康、行动需要。 The user's food allergies, diet and health or mobility needs.",
    "travel": "用户的健康状况和无障碍需要。 The user's health conditions and accessibility needs.",
    "health": "用户的过敏和健康状况。 The user's allergies and health conditions.",
    "contact": "什么时候、怎么联系用户。 When and how to contact the user.",
    "schedule": "用户的作息和日程规则。 The user's schedule rules and availability.",
}
INTENT_MIN = 0.6  # P(intent) of the query model before its constraints are brought
SLOT_MIN = 0.6  # P(slot) of the slot model before a memory counts as a fact of that slot
PROBE_K = 20
# what happened or is planned is no standing rule; a suggestion is the assistant's, not the user's
_NOT_STANDING = frozenset({"event", "plan", "task", "suggestion"})
_OWN_SUBJECTS = frozenset({"", "user", "the user", "用户"})


# the probes' vectors, by embedder name (its vector space) and intent, as load_background keeps the gate's
# background: five constant texts embedded once per process, not on every action request (a second query
# embedding that doubled their p95) and not evicted with the embedder's query cache
_PROBE_VECTORS: dict[tuple[str, str], np.ndarray] = {}
_PROBE_LOCK = threading.Lock()


def _probe_vector(embedder: Any, intent: str) -> np.ndarray:
    key = (embedder.name, intent)
    with _PROBE_LOCK:
        vec = _PROBE_VECTORS.get(key)
        if vec is None:
            vec = _PROBE_VECTORS[key] = np.asarray(embedder.embed_query(_PROBES[intent]), dtype=np.float32)
    return vec


def standing_slots(intent: str, p: float) -> frozenset[str]:
    """The slots that govern an action of ``intent``, when the query model is sure enough of it."""
    return STANDING_SLOTS.get(intent, frozenset()) if p >= INTENT_MIN else frozenset()


def _own(record: MemoryRecord) -> bool:
    return (record.facts.subject or "").strip().lower() in _OWN_SUBJECTS


def is_standing(
    record: MemoryRecord, slot: str, slot_p: float, slots: frozenset[str], kind: str | None = None
) -> bool:
    """A memory of the user's own (not a relative's or a friend's), a lasting fact (not an event or plan: its
    ``kind`` as read, the stored one when none is given; never the assistant's suggestion), whose slot the slot
    model reads as one of ``slots``."""
    return (
        _own(record)
        and record.kind.value != "suggestion"
        and (kind or record.kind.value) not in _NOT_STANDING
        and slot in slots
        and slot_p >= SLOT_MIN
    )


def read_kinds(records: Sequence[MemoryRecord], vectors: Sequence[np.ndarray]) -> list[str]:
    """Each memory's kind as the statement judge reads it: the n-grams of the words as said (the stored text
    when none were kept) and the stored vector, which is the embedding of the rule encoder's sentence — the
    reading the judge was trained on. The rule encoder's kind rests on cue words a rule said in passing may lack."""
    from memscribe.judge.statements import judge_statements

    if not records:
        return []
    judged = judge_statements(
        np.stack([np.asarray(v, dtype=np.float32) for v in vectors]),
        [r.raw.strip() or r.text for r in records],
        roles=["user"] * len(records),
        has_prev=[False] * len(records),
        langs=[r.facts.lang for r in records],
    )
    return [j.kind or r.kind.value for j, r in zip(judged, records, strict=True)]


def standing_constraints(
    store: Any,
    embedder: Any,
    *,
    user_id: str,
    query: str,
    qvec: np.ndarray,
    statuses: Sequence[str],
) -> list[Scored]:
    """The user's standing facts that govern the action ``query`` asks for, most certain first; none when the
    query asks for no action the table above knows, or the store embeds with another model than the one the
    query and slot models read. The caller applies its filters."""
    from memscribe.judge.intent import query_intent
    from memscribe.judge.relevance import trained_embedder
    from memscribe.judge.slots import guess_slot

    if getattr(embedder, "name", None) != trained_embedder():
        return []
    reading = query_intent(query, qvec)
    slots = standing_slots(reading.intent, reading.p)
    if not slots:
        return []
    probe = _probe_vector(embedder, reading.intent)
    found = store.vector_search(user_id, probe, k=PROBE_K, statuses=statuses)
    records = store.get_memories([mid for mid, _ in found])
    vectors = store.get_vectors(list(records))
    # the judge reads only the user's own memories the probe found (a relative's allergy governs no order)
    own = [(mid, rec) for mid, rec in records.items() if mid in vectors and _own(rec)]
    kinds = read_kinds([rec for _, rec in own], [vectors[mid] for mid, _ in own])
    out: list[Scored] = []
    for (mid, rec), kind in zip(own, kinds, strict=True):
        guess = guess_slot(np.asarray(vectors[mid], dtype=np.float32), kind)
        if is_standing(rec, guess.slot, guess.probability, slots, kind):
            score = round(reading.p * guess.probability, 4)
            out.append(
                Scored(
                    record=rec,
                    score=score,
                    why={
                        "standing": f"{reading.intent}: {guess.slot}",
                        "kind_read": kind,
                        "intent_p": round(reading.p, 4),
                        "slot_p": guess.probability,
                        "cosine": round(float(np.dot(vectors[mid], qvec)), 4),
                    },
                )
            )
    return sorted(out, key=lambda s: -s.score)


def with_standing(standing: list[Scored], ranked: list[Scored]) -> list[Scored]:
    """The ranked memories in their order, with the standing facts they lack right after the first: the best
    match keeps its place (the current state first), and a tight budget still holds the rule that governs
    the action. A standing fact already ranked keeps its rank and says why it is there."""
    by_id = {s.record.id: s for s in standing}
    for s in ranked:
        if s.record.id in by_id:
            s.why["standing"] = by_id[s.record.id].why["standing"]
    missing = [s for s in standing if s.record.id not in {r.record.id for r in ranked}]
    return ranked[:1] + missing + ranked[1:]

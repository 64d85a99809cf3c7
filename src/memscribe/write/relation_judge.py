"""The learned relation model's reading of a new memory against its neighbours (issue #15): P(update) per
neighbour, which ``write/merge.py`` may turn into a supersede when identity holds and the model is confident.

The model (``judge/relations.py``) was trained on the write path's view of a pair: no judged value, each
side's slot as the slot model reads it. So both sides here get the slot model's slot, no value, and the
cosine the neighbour search already computed. Pure apart from the models; the store's vectors come in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime

import numpy as np

from memscribe.decisions import Candidate
from memscribe.judge.linear import load_model
from memscribe.judge.relations import RelationSide, relation_proba
from memscribe.judge.slots import guess_slot
from memscribe.models import MemoryRecord
from memscribe.write.merge import pending_open

__all__ = [
    "ATTRIBUTE_SLOTS",
    "CLOSE_THRESHOLD",
    "attribute_of",
    "attribute_update_probabilities",
    "close_probabilities",
    "moved_probabilities",
    "supersede_threshold",
    "update_probabilities",
]

# P(done) + P(cancel) at or above which the model may close a pending plan or task (write/merge.py,
# _model_close). On grouped CV of the training pairs whose old side is a plan or task, as the write path sees
# them (no value, the slot model's slots): precision 0.936, recall 0.675 at 0.95 (0.916 / 0.776 at 0.90). 0.95
# since the whole-conversation audit of session 14 (train/supersede_audit.py): on the dev chats one false close
# fewer (23 supersedes, 3 judged false) and the same 16 / 29 listed changes caught as at 0.90. The false ones are
# another outing of the plan's kind before its day ("finished another practice test" under "preparing for the
# bar exam in July", 又做完了一套法考模拟题): the merge's gate that the plan's time has come turns those away, as
# it asks a shared thing and the guards. train/relations_close.py.
CLOSE_THRESHOLD = 0.95


def supersede_threshold() -> float:
    """The P(update) above which the shipped model's supersede keeps its measured precision (chosen by
    ``train/relations.py`` on grouped CV of the training pairs)."""
    return float(load_model("relation").meta["supersede_threshold"])


def _side(
    text: str, vec: np.ndarray, subject: str, kind: str, at: datetime | None, lang: str
) -> RelationSide:
    return RelationSide(
        text=text,
        embedding=vec,
        subject=subject,
        slot=guess_slot(vec, kind).slot,
        value=None,
        kind=kind,
        at=at,
        lang=lang,
    )


def _pair_probabilities(
    cand: Candidate,
    vec: np.ndarray,
    neighbours: list[tuple[MemoryRecord, float]],
    vectors: Mapping[str, np.ndarray],
    at: datetime | None,
    *,
    asked: Callable[[MemoryRecord], bool],
    score: Callable[[dict[str, float]], float],
) -> dict[str, float]:
    """``score`` of the relation model's reading of each neighbour (record, cosine) that is ``asked`` about and
    whose vector is known, against the candidate."""
    lang = cand.facts.lang or "en"
    new = _side(cand.text, vec, cand.subject, cand.kind.value, at or cand.time_start, lang)
    out: dict[str, float] = {}
    for r, cosine in neighbours:
        if r.id not in vectors or not asked(r):
            continue
        old = _side(r.text, vectors[r.id], r.facts.subject or "user", r.kind.value, r.created_at, lang)
        out[r.id] = round(score(relation_proba(old, new, cosine=cosine)), 4)
    return out


def update_probabilities(
    cand: Candidate,
    vec: np.ndarray,
    neighbours: list[tuple[MemoryRecord, float]],
    vectors: Mapping[str, np.ndarray],
    at: datetime | None,
) -> dict[str, float]:
    """P(update) of each neighbour (record, cosine) of the candidate's own subject whose vector is known."""
    return _pair_probabilities(
        cand,
        vec,
        neighbours,
        vectors,
        at,
        asked=lambda r: (r.facts.subject or "user") == cand.subject,
        score=lambda p: p["update"],
    )


def close_probabilities(
    cand: Candidate,
    vec: np.ndarray,
    neighbours: list[tuple[MemoryRecord, float]],
    vectors: Mapping[str, np.ndarray],
    at: datetime | None,
) -> dict[str, float]:
    """P(done) + P(cancel) of each neighbour that is a pending plan or task and whose vector is known: the
    model's reading that the new memory closes it ("Greg's crew finished on Saturday" after "the renovation
    starts on October 21st"). Any subject: what the assistant booked is the user's plan (the merge decides)."""
    return _pair_probabilities(
        cand,
        vec,
        neighbours,
        vectors,
        at,
        asked=pending_open,
        score=lambda p: p["done"] + p["cancel"],
    )


def moved_probabilities(
    cand: Candidate,
    vec: np.ndarray,
    neighbours: list[tuple[MemoryRecord, float]],
    vectors: Mapping[str, np.ndarray],
    at: datetime | None,
) -> dict[str, float]:
    """P(update) of each neighbour that is a pending plan, for a new memory that says a plan was moved to
    another time ("Priya pushed our 1:1 to Thursday 4pm"): which plan it moved is the model's reading, since
    the words both share are often only a name or a "1:1". Any subject, as for a close."""
    return _pair_probabilities(
        cand,
        vec,
        neighbours,
        vectors,
        at,
        asked=lambda r: pending_open(r) and r.kind.value == "plan",
        score=lambda p: p["update"],
    )


# the attributes a person holds one value of at a time: a newer value replaces the older one (a second hobby,
# pet or allergy is one more, not a replacement)
ATTRIBUTE_SLOTS = frozenset({"residence", "employer", "job_title", "relationship", "diet", "school"})
# the slot model's probability at which its reading names the attribute (its top choice)
ATTRIBUTE_SLOT_MIN = 0.5
_SLOT_FAMILY = {
    "employer": frozenset({"employer", "job_title"}),
    "job_title": frozenset({"employer", "job_title"}),
    "residence": frozenset({"residence"}),
    "relationship": frozenset({"relationship"}),
    "diet": frozenset({"diet", "allergy"}),
    "school": frozenset({"school"}),
}


def attribute_of(vec: np.ndarray, kind: str, rule_slot: str | None) -> tuple[str | None, bool]:
    """The attribute a statement is of and whether that reading is confident: the rule's slot when the slot
    model's top reading agrees with it (confident), else the slot model's top reading (confident at
    ``ATTRIBUTE_SLOT_MIN``)."""
    guess = guess_slot(vec, kind)
    base = (rule_slot or "").split("|", 1)[-1]
    if base in ATTRIBUTE_SLOTS and guess.slot in _SLOT_FAMILY[base]:
        return base, True
    if guess.slot in ATTRIBUTE_SLOTS:
        return guess.slot, guess.probability >= ATTRIBUTE_SLOT_MIN
    return None, False


def attribute_update_probabilities(
    cand: Candidate,
    vec: np.ndarray,
    neighbours: list[tuple[MemoryRecord, float]],
    vectors: Mapping[str, np.ndarray],
    at: datetime | None,
) -> dict[str, float]:
    """P(update) of each neighbour of the candidate's own subject that holds the same attribute (residence,
    employer, job, partner, diet, school) as the candidate: identity is (subject, attribute), the change is the
    model's reading. Empty when the candidate is of no such attribute."""
    mine, sure = attribute_of(vec, cand.kind.value, cand.slot)
    if mine is None:
        return {}
    family = _SLOT_FAMILY[mine]

    def same_attribute(r: MemoryRecord) -> bool:
        # both read as the attribute, at least one of them confidently ("Left the restaurant gig - I've been a
        # barista at Blue Bottle" reads employer at 0.26, "I work as a line cook" at 0.84)
        if (r.facts.subject or "user") != cand.subject:
            return False
        theirs, their_sure = attribute_of(vectors[r.id], r.kind.value, r.facts.slot)
        return theirs is not None and theirs in family and (sure or their_sure)

    return _pair_probabilities(
        cand, vec, neighbours, vectors, at, asked=same_attribute, score=lambda p: p["update"]
    )

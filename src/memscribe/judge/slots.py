"""The slot (attribute) a single statement fills — residence, employer, diet, one plan … (LABELS.md §1) —
by a learned model over its passage embedding and its kind (``train/slots.py`` trains it; hashed character
n-grams were tried and lowered grouped-CV macro-F1, 0.62 vs 0.65 without; the kind raised it to 0.73).

Identity of a fact is (subject, slot): the merge looks up the store's memories of the same subject and slot, so
this judgement decides which older memories a new one is even compared with for a supersede.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memscribe.judge.linear import LinearModel, load_model
from memscribe.models import Kind

__all__ = ["KINDS", "SLOTS", "SlotGuess", "guess_slot", "slot_matrix"]

SLOTS: tuple[str, ...] = (
    "residence",
    "hometown",
    "employer",
    "job_title",
    "school",
    "relationship",
    "children",
    "pets",
    "family",
    "diet",
    "allergy",
    "health",
    "schedule_rule",
    "contact_pref",
    "plan",
    "task",
    "preference",
    "hobby",
    "skill",
    "possession",
    "name",
    "age",
    "birthday",
    "finance",
    "travel_history",
    "other",
)


@dataclass(frozen=True, slots=True)
class SlotGuess:
    slot: str
    probability: float
    runner_up: str
    why: str


# the memory kinds (models.Kind) plus the assistant's suggestions of the labelled corpora
KINDS: tuple[str, ...] = tuple(k.value for k in Kind)  # the order the weights were trained in


def slot_matrix(embeddings: np.ndarray, kinds: Sequence[str]) -> np.ndarray:
    """One row per statement: its passage embedding followed by the one-hot of its kind (a plan and a task,
    a preference and a hobby read alike; the kind tells them apart)."""
    one_hot = np.array([[1.0 if k == name else 0.0 for name in KINDS] for k in kinds], dtype=np.float32)
    return np.hstack([np.asarray(embeddings, dtype=np.float32), one_hot.reshape(len(kinds), len(KINDS))])


def guess_slot(embedding: np.ndarray, kind: str, model: LinearModel | None = None) -> SlotGuess:
    """The most probable slot of one canonical statement (its embedding and kind), with the model's
    probability and its second choice."""
    m = model or load_model("statement_slot")
    p = m.proba(slot_matrix(np.atleast_2d(embedding), [kind]))[0]
    order = np.argsort(-p)
    best, second = m.classes[order[0]], m.classes[order[1]]
    return SlotGuess(
        slot=best,
        probability=round(float(p[order[0]]), 4),
        runner_up=second,
        why=f"slot model: {best} {p[order[0]]:.2f} (next {second} {p[order[1]]:.2f})",
    )

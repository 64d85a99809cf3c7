"""Units of writing: one statement of a kept turn is one memory (write/statements.py groups a turn's sentences
into statements). A memory never joins two speakers' turns (each memory has one subject; DESIGN §8.1) and lists
only the message it carries — a dropped question or reaction lends no
id, because a source the memory's text does not carry is a ghost (the exchange is reached through the
session and the origin message, not through a second memory). The one exception carries its reason: an
elliptical answer holds its question's text, so it lists that message too (write/answers.py). Pure logic
over per-message analyses."""

from __future__ import annotations

from dataclasses import dataclass

from memscribe.decisions import Candidate, FilterDecision
from memscribe.models import Message
from memscribe.write.answers import Asked

__all__ = ["Analysed", "Unit", "units_of"]


@dataclass(slots=True)
class Analysed:
    index: int
    message: Message
    message_id: str
    decision: FilterDecision
    candidates: tuple[Candidate, ...]  # one per statement the turn makes; none when it is dropped
    vaulted: tuple[tuple[str, str, str], ...] = ()  # (placeholder, kind, value) cut out of this message
    answers: Asked | None = None  # the question an elliptical answer carries

    @property
    def kept(self) -> bool:
        return bool(self.candidates)


@dataclass(slots=True)
class Unit:
    lead: Analysed  # the kept turn this memory is made of
    candidate: Candidate  # the statement of that turn it writes
    vaulted: tuple[tuple[str, str, str], ...]  # the turn's sealed values this statement carries

    @property
    def message_ids(self) -> list[str]:
        return (
            [self.lead.answers.message_id, self.lead.message_id]
            if self.lead.answers
            else [self.lead.message_id]
        )


def units_of(items: list[Analysed]) -> list[Unit]:
    """One unit per statement of each kept turn, in order. A sealed value goes with the statement whose text
    holds its placeholder; one that no statement shows stays with the turn's first (it is never dropped)."""
    units: list[Unit] = []
    for a in items:
        shown = {p for p, _, _ in a.vaulted if any(p in c.text for c in a.candidates)}
        for n, cand in enumerate(a.candidates):
            vaulted = tuple(v for v in a.vaulted if v[0] in cand.text or (n == 0 and v[0] not in shown))
            units.append(Unit(lead=a, candidate=cand, vaulted=vaulted))
    return units

"""Units of writing: one kept turn is one memory. A memory never joins two speakers' turns (each memory has
one subject; DESIGN §8.1) and lists only the message it carries — a dropped question or reaction lends no
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
    candidate: Candidate | None
    vaulted: tuple[tuple[str, str, str], ...] = ()  # (placeholder, kind, value) cut out of this message
    answers: Asked | None = None  # the question an elliptical answer carries


@dataclass(slots=True)
class Unit:
    lead: Analysed  # the kept turn this memory is made of

    @property
    def message_ids(self) -> list[str]:
        return (
            [self.lead.answers.message_id, self.lead.message_id]
            if self.lead.answers
            else [self.lead.message_id]
        )

    @property
    def candidate(self) -> Candidate:
        assert self.lead.candidate is not None
        return self.lead.candidate


def units_of(items: list[Analysed]) -> list[Unit]:
    """One unit per kept turn, in order."""
    return [Unit(lead=a) for a in items if a.candidate is not None]

"""Grouping: in a conversation between people, turns that only ask or react lend their message id to
the memory they belong to (the answer they prompted, the news they reacted to), and short consecutive
turns of one exchange become one memory. Pure logic over per-message analyses."""

from __future__ import annotations

from dataclasses import dataclass, field

from memscribe.decisions import Candidate, FilterDecision
from memscribe.lang.text import count_tokens
from memscribe.models import Message

__all__ = ["Analysed", "Unit", "group_units"]


@dataclass(slots=True)
class Analysed:
    index: int
    message: Message
    message_id: str
    decision: FilterDecision
    candidate: Candidate | None
    vaulted: tuple[tuple[str, str, str], ...] = ()  # (placeholder, kind, value) cut out of this message


@dataclass(slots=True)
class Unit:
    members: list[Analysed]  # the kept turns this memory is made of (first is the lead)
    attached: list[Analysed] = field(default_factory=list)  # dropped turns that lend only their id

    @property
    def message_ids(self) -> list[str]:
        ordered = sorted([*self.members, *self.attached], key=lambda a: a.index)
        return [a.message_id for a in ordered]


def _combinable(prev: Unit, cur: Analysed, max_turns: int, max_tokens: int) -> bool:
    if len(prev.members) >= max_turns:
        return False
    lead = prev.members[0].candidate
    c = cur.candidate
    if lead is None or c is None or lead.layer != c.layer:
        return False
    if cur.index - prev.members[-1].index > 3:
        return False  # only near turns (dropped or attached ones in between are fine)
    tokens = sum(count_tokens(m.candidate.text) for m in prev.members if m.candidate) + count_tokens(c.text)
    return tokens <= max_tokens


def group_units(
    items: list[Analysed], *, conversational: bool, max_turns: int, max_tokens: int = 90
) -> list[Unit]:
    units: list[Unit] = []
    pending_forward: list[Analysed] = []
    for a in items:
        if a.candidate is None:
            if not conversational:
                continue
            if a.decision.attach == "forward":
                pending_forward.append(a)
            elif a.decision.attach == "backward" and units:
                units[-1].attached.append(a)
            continue
        if conversational and units and _combinable(units[-1], a, max_turns, max_tokens):
            # a question in between ("What happened next?") belongs to the same exchange
            units[-1].attached.extend(pending_forward)
            pending_forward.clear()
            units[-1].members.append(a)
            continue
        unit = Unit(members=[a], attached=list(pending_forward))
        pending_forward.clear()
        units.append(unit)
    if pending_forward and units:
        units[-1].attached.extend(pending_forward)
    return units


def combine(unit: Unit) -> Candidate:
    """One candidate for a unit: the lead's fields, the members' texts joined, entities and times united."""
    cands = [m.candidate for m in unit.members if m.candidate is not None]
    lead = cands[0]
    if len(cands) == 1:
        return lead
    lang = lead.facts.lang or "en"
    sep = "" if lang == "zh" else " "
    text = sep.join(c.text for c in cands)
    raw = "\n".join(c.raw for c in cands)
    timed = next((c for c in cands if c.time_start is not None), None)
    united: dict[str, tuple[str, ...]] = {
        k: tuple(dict.fromkeys(v for c in cands for v in getattr(c.facts, k)))
        for k in ("ids", "amounts", "places", "people", "orgs")
    }
    subjects = tuple(dict.fromkeys(c.subject for c in cands))
    facts = lead.facts.model_copy(
        update={
            **united,
            "participants": subjects if len(subjects) > 1 else lead.facts.participants,
            **(
                {"time": timed.facts.time, "time_text": timed.facts.time_text}
                if timed is not None and timed is not lead
                else {}
            ),
        }
    )
    return lead.model_copy(
        update={
            "text": text,
            "raw": raw,
            "facts": facts,
            "entities": tuple(dict.fromkeys(e for c in cands for e in c.entities)),
            "time_start": timed.time_start if timed else None,
            "time_end": timed.time_end if timed else None,
            "importance": max(c.importance for c in cands),
            "timeliness": max(c.timeliness for c in cands),
            "change": any(c.change for c in cands),
            "episode": True,  # an exchange is an episode, not one slot's value
        }
    )

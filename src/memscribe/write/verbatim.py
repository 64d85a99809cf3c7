"""Verbatim writes (``add(..., verbatim=True)``): each message kept as one memory, as given.

The caller has already decided what is worth keeping (a transcript importer, Mem0's ``infer=False``), so
trigger, filter, encode and merge do not run: no message is dropped, rewritten or merged with another.
The privacy stage still does: a sensitive value is cut out (or vaulted) exactly as on the normal path,
because "as given" never means "with the card number". Pure: the pipeline embeds and commits the result.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from memscribe.decisions import Add, Candidate, PrivacyDecision
from memscribe.lang.entities import extract_entities
from memscribe.lang.text import detect_lang
from memscribe.models import Kind, Layer, Message
from memscribe.write.protect import protect

__all__ = ["ENCODER", "VerbatimItem", "verbatim_items"]

ENCODER = "verbatim"  # the encoder name in audit events; also tells the applier not to queue verify
WHY = Add(why="stored verbatim: the caller chose what to keep")

_ENTITY_KINDS = ("ids", "people", "places", "orgs", "other", "amounts")


@dataclass(frozen=True)
class VerbatimItem:
    message: Message
    message_id: str
    privacy: PrivacyDecision
    candidate: Candidate


def verbatim_items(msgs: list[Message], *, session_id: str | None) -> list[VerbatimItem]:
    """One candidate memory per message: its privacy-cleaned text, word for word."""
    out = []
    for m in msgs:
        prot = protect(m.content)
        clean = prot.clean_text
        lang = detect_lang(clean)
        ents = extract_entities(clean, lang)
        cand = Candidate(
            text=clean,
            raw=clean,
            kind=Kind.fact,
            layer=Layer.episodic,
            entities=tuple(dict.fromkeys(e for k in _ENTITY_KINDS for e in ents.get(k, ()))),
            importance=0.5,
            encoder=ENCODER,
            reasons=("verbatim",),
        )
        mid = m.id or f"{session_id or 'msg'}:{uuid.uuid4().hex[:8]}"
        out.append(VerbatimItem(message=m, message_id=mid, privacy=prot, candidate=cand))
    return out

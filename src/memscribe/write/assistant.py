"""Assistant turns (issue #14 item 7): what the assistant did, confirmed or suggested is part of the user's
affairs — a booking made, an order placed, a time confirmed, a suggestion offered. It is kept as the
assistant's own statement (subject: the assistant), never as a fact about the user, so it can neither fill
nor overwrite one of the user's slots.

Which sentences of the turn are worth keeping, and as what kind, is learned (``judge.statements``: its corpus
holds assistant turns from customer service, work assistants and companion chats, with hard negatives —
greetings, offers to help, questions back, generic advice, guesses about the user). The rewrite to the third
person is ruled.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memscribe.judge.statements import StatementJudgement, judge_statements
from memscribe.lang.clauses import Sentence
from memscribe.providers.embedders import Embedder
from memscribe.read.assemble import CONTEXT_LINE
from memscribe.write.encode_rules import name_addressee

__all__ = [
    "ASSISTANT_SUBJECT",
    "AssistantTurn",
    "judge_assistant_turn",
    "speak_of_the_user",
    "without_recited_memories",
]

ASSISTANT_SUBJECT = {"zh": "助手", "en": "the assistant"}


def without_recited_memories(text: str) -> str:
    """An assistant's reply less the memory lines it recites from its context (an agent that passes its recalled
    context on): they are known already, and a recited superseded version stored again as the assistant's
    statement would bring the old value back."""
    return CONTEXT_LINE.sub(" ", text).strip()


def speak_of_the_user(text: str, lang: str) -> str:
    """The assistant's "you" named: "I've booked you a table" -> "I've booked the user a table"."""
    return name_addressee(text, "用户" if lang == "zh" else "the user", lang)


@dataclass(frozen=True, slots=True)
class AssistantTurn:
    kept: list[Sentence]  # the sentences worth keeping, in order
    judged: list[StatementJudgement]  # one per sentence of the turn
    route: str  # long | working | drop: the turn's route (its most lasting kept sentence)
    kind: str | None  # the kind of its most confident kept sentence
    p_keep: float  # the highest keep probability of its sentences


def judge_assistant_turn(sentences: list[Sentence], lang: str, embedder: Embedder) -> AssistantTurn:
    texts = [s.text for s in sentences]
    if not texts:
        return AssistantTurn(kept=[], judged=[], route="drop", kind=None, p_keep=0.0)
    vectors = np.asarray(embedder.embed_passages(texts), dtype=np.float32)
    judged = judge_statements(
        vectors,
        texts,
        roles=["assistant"] * len(texts),
        has_prev=[False] * len(texts),
        langs=[lang] * len(texts),
    )
    # a question back ("Which one?") or a bare acknowledgement ("Done.", "好的。") states nothing
    kept = [
        (s, j)
        for s, j in zip(sentences, judged, strict=True)
        if j.route != "drop" and not s.question and s.terms > 0
    ]
    if not kept:
        p = max(1.0 - j.p_route.get("drop", 1.0) for j in judged)
        return AssistantTurn(kept=[], judged=judged, route="drop", kind=None, p_keep=p)
    route = "long" if any(j.route == "long" for _, j in kept) else "working"
    best = max(kept, key=lambda sj: 1.0 - sj[1].p_route.get("drop", 0.0))[1]
    return AssistantTurn(
        kept=[s for s, _ in kept],
        judged=judged,
        route=route,
        kind=best.kind,
        p_keep=1.0 - best.p_route.get("drop", 0.0),
    )

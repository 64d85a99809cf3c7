"""Elliptical answers: a short reply says something only together with the question it answers.

"Which band did you see?" / "Muse, of course!" — the reply alone is two words of nothing. A short reply
to another speaker's question is kept with that question in its text and raw, and only then may the memory
list the question's message among its sources (it carries that message's content).

A reply that opens with a yes or no to a yes/no question is elliptical whatever its length: "No, too
expensive. Just two passes for me and Theo." after "Do you want me to book a booth? A booth is $2,400." says
what was turned down only with the offer it answers — and a declined offer is the one trace of it (an accepted
one is followed by what was done). The offer need not end its message: its price or reason may follow it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from memscribe.decisions import Candidate, FilterDecision
from memscribe.lang import lexicon as lx
from memscribe.lang.clauses import Sentence
from memscribe.models import Message

# a reply with more informative terms than this says enough on its own
MAX_ANSWER_TERMS = 4


@dataclass(frozen=True, slots=True)
class Asked:
    """The question a message ended with."""

    message_id: str
    message: Message
    question: str
    trailing: bool = True  # the message ends with it (else a yes/no question followed by statements)
    polar: bool = False  # a yes/no question: asks for a decision


def is_polar(question: str) -> bool:
    """A yes/no question ("Want me to order it?", "要不要改到第二天？"), not an open one ("Which one?")."""
    return bool(lx.POLAR_QUESTION_EN.search(question) or lx.POLAR_QUESTION_ZH.search(question))


def opens_with_decision(text: str) -> bool:
    """The reply says yes or no before anything else ("No, too expensive.", "算了，先不买。")."""
    text = text.lstrip()
    return bool(lx.DECISION_EN.match(text) or lx.DECISION_ZH.match(text))


def asked_in(message_id: str, message: Message, sentences: list[Sentence]) -> Asked | None:
    """The question a message ends with, if it ends with one; else the last yes/no question it asked (an offer
    followed by its price or reason)."""
    if not sentences:
        return None
    if sentences[-1].question:
        text = sentences[-1].text
        return Asked(message_id, message, text, trailing=True, polar=is_polar(text))
    for x in reversed(sentences):
        if x.question and is_polar(x.text):
            return Asked(message_id, message, x.text, trailing=False, polar=True)
    return None


def answered(asked: Asked | None, message: Message, sentences: list[Sentence]) -> Asked | None:
    """The question this message answers: the other speaker's, and the reply short and not a pleasantry — or,
    to a yes/no question, a reply that opens with its yes or no."""
    if asked is None or (asked.message.role, asked.message.name) == (message.role, message.name):
        return None
    # the words as said: a leading "Yes," is cut from the sentences
    if asked.polar and sentences and opens_with_decision(message.content):
        return asked
    if not asked.trailing:
        return None
    if sum(x.terms for x in sentences if x.informative) > MAX_ANSWER_TERMS:
        return None
    if not any(x.terms > 0 for x in sentences):
        return None
    if all(
        lx.PLEASANTRY.match(x.text) for x in sentences
    ):  # "你好" after "How can I help you?" answers nothing
        return None
    return asked


def replied_to(asked: Asked | None, message: Message) -> Asked | None:
    """The other speaker's question this message replies to, whatever the reply's length (a retrieval cue:
    the reply's memory is found by the words it was asked with, see :attr:`Facts.replies_to`)."""
    if (
        asked is None
        or not asked.trailing
        or (asked.message.role, asked.message.name) == (message.role, message.name)
    ):
        return None
    return asked


def with_reply_cue(cand: Candidate, asked: Asked) -> Candidate:
    """The candidate with the question it replied to as its retrieval cue (its text stays its own)."""
    return cand.model_copy(update={"facts": cand.facts.model_copy(update={"replies_to": asked.question})})


def keep_answer(
    decision: FilterDecision, sentences: list[Sentence], long_term_min: float
) -> tuple[FilterDecision, list[Sentence]]:
    """A reply the filter dropped as too short is kept: with its question it says something."""
    if decision.route != "drop":
        return decision, sentences
    kept = decision.model_copy(
        update={
            "route": "long",
            "importance": max(decision.importance, long_term_min),
            "reasons": (*decision.reasons, "answers the question before it"),
        }
    )
    if not any(x.informative for x in sentences):
        # "Right, closed Mondays." reads as a reaction alone; as an answer its terms are the content
        sentences = [replace(x, reaction=False) for x in sentences if x.terms > 0]
    return kept, sentences


def carried_text(text: str, question: str, lang: str) -> str:
    """A memory's sentence with the question it answers."""
    if lang == "zh":
        return f"{text.rstrip('。')}（回答“{question}”）。"
    return f'{text.rstrip(".")} (answering "{question}").'


def carry_question(cand: Candidate, asked: Asked, lang: str) -> Candidate:
    """The memory's text and raw carry the question it answers."""
    q = asked.question
    return cand.model_copy(update={"text": carried_text(cand.text, q, lang), "raw": f"{q}\n{cand.raw}"})

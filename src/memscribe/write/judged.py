"""Where the learned statement judge (judge/statements.py) has the say over a user's message on the write path.

The filter (write/filter.py) scores a message by rules; two decisions lean on the judge instead, because its
labelled corpus holds exactly the cases the rules get wrong:

* ``worth_keeping``: of a split turn's statements, which are memories of their own — thanks, praise of a
  suggestion, a wish to chat again ("太感谢了。", "That's a great idea.") are not, once the turn is split;
* ``answer_worth_keeping``: a short reply to the assistant's question, read with that question — "Twice a
  week." after "How often do you run?" says something, "No, that's it for today" after "Anything else?" does not;
* ``second_opinion``: a user's message to an assistant that the rule scores left just under the keep bar
  ("Fine, Priya will take care of the invoices.", "行，发票的事交给小陈吧。") is kept when the judge says it
  states something.

The judge's embedding of a user's statement is the embedding of the sentence the rule encoder writes for it
(``rules_reading``: "The user likes green tea." for "I like green tea."), not of the words as said: that is the
vector the memory is stored with, so a kept statement is embedded once per ``add()`` (issue #22: a second
embedding doubled the write's cost). Its n-grams and cheap features read the words as said.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np

from memscribe.decisions import FilterDecision
from memscribe.judge.statements import judge_statements
from memscribe.lang.clauses import split_sentences
from memscribe.lang.text import detect_lang
from memscribe.models import Message
from memscribe.write.answers import answered, asked_in, carried_text
from memscribe.write.assistant import ASSISTANT_SUBJECT
from memscribe.write.encode_rules import RuleEncoder
from memscribe.write.trigger import trigger

__all__ = [
    "SECOND_OPINION_MIN",
    "answer_reading",
    "answer_worth_keeping",
    "rules_reading",
    "second_opinion",
    "worth_keeping",
]

# below this rule score a message is plainly nothing (a greeting, a bare reaction): no second opinion is asked
SECOND_OPINION_MIN = 0.3

_RULES = RuleEncoder()
_READ = FilterDecision(route="long", importance=0.5, timeliness=0.0, privacy_risk=0.0)


def rules_reading(text: str, *, at: datetime) -> str:
    """The sentence the rule encoder writes for ``text`` said by a user to an assistant at ``at``: what the
    statement judge's embedding reads for a user's statement (train/statements.py embeds the same)."""
    lang = "zh" if detect_lang(text) == "zh" else "en"
    return _RULES.encode(
        text,
        at=at,
        speaker=None,
        trig=trigger(text, role="user"),
        decision=_READ,
        sentences=split_sentences(text),
        conversational=False,
        addressee=ASSISTANT_SUBJECT[lang],
    ).text


def answer_reading(text: str, prev: str, *, at: datetime, prev_role: str = "assistant") -> str | None:
    """What the judge reads for a user's reply ``text`` to ``prev``: the rule encoder's sentence with the question
    it answers, when the write path takes the reply for an elliptical answer (write/answers.py), else None."""
    sentences = split_sentences(text)
    asked = asked_in("prev", Message(role=prev_role, content=prev), split_sentences(prev))
    if answered(asked, Message(role="user", content=text), sentences) is None:
        return None
    lang = "zh" if detect_lang(text) == "zh" else "en"
    return carried_text(rules_reading(text, at=at), asked.question, lang)


def _judge(vectors: np.ndarray, texts: list[str], lang: str, *, answers: bool = False) -> list:
    return judge_statements(
        np.asarray(vectors, dtype=np.float32),
        texts,
        roles=["user"] * len(texts),
        has_prev=[answers] * len(texts),
        langs=[lang] * len(texts),
    )


def worth_keeping(vectors: np.ndarray, said: list[str], lang: str) -> list[bool]:
    """Which statements of a split turn the judge would keep. ``vectors``: the embeddings of the sentences the
    rule encoder writes for them (``rules_reading``); ``said``: the words of each the memory will say (a question
    back to the listener or a pleasantry leaves the memory, so "你喜欢运动吗？" beside "我最近胖了五斤。" must
    not make the statement a question)."""
    return [j.route != "drop" for j in _judge(vectors, said, lang)]


def answer_worth_keeping(vector: np.ndarray, reply: str, lang: str) -> bool:
    """Whether a short reply to the assistant's question says something worth a memory. ``vector``: the
    embedding of the reply's sentence with its question (``answer_reading``); ``reply``: the words as said."""
    judged = _judge(np.asarray(vector, dtype=np.float32).reshape(1, -1), [reply], lang, answers=True)[0]
    return judged.route != "drop"


def second_opinion(
    decision: FilterDecision, vector: np.ndarray, clean: str, lang: str, long_term_min: float
) -> FilterDecision:
    """The filter's drop of a user's message, or the judge's keep (long or working) with its reason.
    ``vector``: the embedding of the sentence the rule encoder writes for the message."""
    judged = _judge(np.asarray(vector, dtype=np.float32).reshape(1, -1), [clean], lang)[0]
    if judged.route == "drop":
        return decision
    return decision.model_copy(
        update={
            "route": judged.route,
            "importance": max(decision.importance, long_term_min),
            "reasons": (
                *decision.reasons,
                f"kept by the statement judge (p_keep {1 - judged.p_route['drop']:.2f})",
            ),
        }
    )

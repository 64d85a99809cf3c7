"""Where the learned statement judge (judge/statements.py) has the say over a user's message on the write path.

The filter (write/filter.py) scores a message by rules; two decisions lean on the judge instead, because its
labelled corpus holds exactly the cases the rules get wrong:

* ``worth_keeping``: of a split turn's statements, which are memories of their own — thanks, praise of a
  suggestion, a wish to chat again ("太感谢了。", "That's a great idea.") are not, once the turn is split (at
  least one is: the filter kept the turn);
* ``second_opinion``: a user's message to an assistant that the rule scores left just under the keep bar
  ("Fine, Priya will take care of the invoices.", "行，发票的事交给小陈吧。") is kept when the judge says it
  states something.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from memscribe.decisions import FilterDecision
from memscribe.judge.statements import judge_statements
from memscribe.lang.clauses import Sentence

__all__ = ["SECOND_OPINION_MIN", "second_opinion", "worth_keeping"]

# below this rule score a message is plainly nothing (a greeting, a bare reaction): no second opinion is asked
SECOND_OPINION_MIN = 0.3


def _judge(texts: list[str], lang: str, embedder: Any) -> list[Any]:
    return judge_statements(
        np.asarray(embedder.embed_passages(texts), dtype=np.float32),
        texts,
        roles=["user"] * len(texts),
        has_prev=[False] * len(texts),
        langs=[lang] * len(texts),
    )


def worth_keeping(groups: list[list[Sentence]], lang: str, embedder: Any) -> list[list[Sentence]]:
    """The statements of a split turn the judge would keep, each without the questions to the listener it would
    drop on their own ("Which goggles should I get?" after "I'm starting swimming lessons next week."; a request
    the judge keeps, "Can you remind me on Thursday?", stays). When it would keep no statement, the likeliest one:
    the filter already chose to keep the turn, and its fact is in one of them, not in the thanks around it."""
    questions = [
        (gi, si) for gi, g in enumerate(groups) if len(g) > 1 for si, s in enumerate(g) if s.question
    ]
    if len(groups) <= 1 and not questions:
        return groups
    sep = "" if lang == "zh" else " "
    texts = [sep.join(s.text for s in g) for g in groups]
    judged = _judge(texts + [groups[gi][si].text for gi, si in questions], lang, embedder)
    asked = {q for q, j in zip(questions, judged[len(groups) :], strict=True) if j.route == "drop"}
    pruned = [[s for si, s in enumerate(g) if (gi, si) not in asked] or g for gi, g in enumerate(groups)]
    if len(groups) == 1:
        return pruned
    kept = [pruned[i] for i, j in enumerate(judged[: len(groups)]) if j.route != "drop"]
    if kept or not groups:
        return kept
    best = min(range(len(groups)), key=lambda i: judged[i].p_route["drop"])
    return [pruned[best]]


def second_opinion(
    decision: FilterDecision, clean: str, lang: str, embedder: Any, long_term_min: float
) -> FilterDecision:
    """The filter's drop of a user's message, or the judge's keep (long or working) with its reason."""
    judged = _judge([clean], lang, embedder)[0]
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

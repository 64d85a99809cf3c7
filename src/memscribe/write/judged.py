"""Where the learned statement judge (judge/statements.py) has the say over a user's message on the write path.

The filter (write/filter.py) scores a message by rules; two decisions lean on the judge instead, because its
labelled corpus holds exactly the cases the rules get wrong:

* ``worth_keeping``: of a split turn's statements, which are memories of their own — thanks, praise of a
  suggestion, a wish to chat again ("太感谢了。", "That's a great idea.") are not, once the turn is split;
* ``second_opinion``: a user's message to an assistant that the rule scores left just under the keep bar
  ("Fine, Priya will take care of the invoices.", "行，发票的事交给小陈吧。") is kept when the judge says it
  states something.
"""

from __future__ import annotations

from collections.abc import Callable
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


def worth_keeping(
    groups: list[list[Sentence]], lang: str, embedder: Any, said: Callable[[Sentence], bool] | None = None
) -> list[list[Sentence]]:
    """The statements of a split turn the judge would keep. ``said``: which sentences of a group the memory will
    say (the others — a question back to the listener, a pleasantry — leave the memory), so the judge reads
    what would be written: "你喜欢运动吗？" beside "我最近胖了五斤。" must not make the statement a question."""
    sep = "" if lang == "zh" else " "
    texts = [
        sep.join(s.text for s in g if said is None or said(s)) or sep.join(s.text for s in g) for g in groups
    ]
    judged = _judge(texts, lang, embedder)
    return [g for g, j in zip(groups, judged, strict=True) if j.route != "drop"]


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

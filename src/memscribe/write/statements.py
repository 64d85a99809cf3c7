"""Statement units: a kept turn is written as one memory per statement it makes (DESIGN §8.1, issue #14).

A turn that says three things ("I went to a support group yesterday. The stories were so inspiring. I'm
thinking of counseling as a career.") is three facts: written as one blob, any one of them drags the others
into every context, a supersede of one loses the rest, and the memory's kind and time are only its first
sentence's. Written as statements, each has its own kind, slot and time; the read path brings a recalled
statement's siblings (the other statements of its message) right after it (read/siblings.py), so nothing the
turn said is out of reach.

A statement is a sentence, together with what cannot stand without it:
- a sentence that leans on the one before — it opens with a pronoun or a connective ("It was made for a local
  church…", "So I want to…", "他在南京上班", "所以…") — continues that statement;
- a question or a fragment of a single content term is not a statement of its own and rides with the one
  before it; a reaction or pleasantry ("Wow!", "太感谢了。") stands alone, and says nothing to keep.
Pure logic over the splitter's sentences; the encoder writes each unit's canonical sentence.
"""

from __future__ import annotations

import re

from memscribe.lang import lexicon as lx
from memscribe.lang.clauses import Sentence

__all__ = ["MIN_TERMS", "statement_groups"]

MIN_TERMS = 2  # content terms a sentence needs to be a statement of its own ("我对花生过敏" has two)

_LEANS_EN = re.compile(
    r"^(?:it|it's|its|that|that's|this|these|those|they|they're|their|them|there|he|he's|his|she|she's|her|"
    r"so|and|but|also|plus|then|which|because|though|too|both|one|ones|such)\b",
    re.IGNORECASE,
)
_LEANS_ZH = re.compile(r"^(?:它|这|那|他|她|其|所以|因此|而且|并且|但|不过|可是|然后|还|也|又|就)")


def _leans(sentence: Sentence, lang: str) -> bool:
    return bool((_LEANS_ZH if lang == "zh" else _LEANS_EN).match(sentence.text.lstrip("\"'“‘(（")))


def _fragment(sentence: Sentence) -> bool:
    return not sentence.informative or sentence.terms < MIN_TERMS


def statement_groups(sentences: list[Sentence], lang: str) -> list[list[Sentence]]:
    """The turn's sentences grouped into statements, in order; every sentence lands in exactly one group.

    A reaction or pleasantry ("Wow!", "That's a great idea.", "太感谢了。") is a group of its own, which the
    caller drops as saying nothing; a question or a short fragment rides with the statement before it."""
    groups: list[list[Sentence]] = []
    # the last group is a reminder question ("Remember the tough engineering project?"): the next sentence
    # ("I finally wrapped that up last month.") says what became of its thing, and they are one statement
    reminder = False
    for s in sentences:
        alone = s.reaction or bool(lx.PLEASANTRY.match(s.text))
        follows = bool(groups) and not all(g.reaction or lx.PLEASANTRY.match(g.text) for g in groups[-1])
        if s.question and lx.REMINDER.match(s.text.lstrip("\"'“‘(（")):
            groups.append([s])
            reminder = True
            continue
        if not alone and follows and (reminder or _leans(s, lang) or _fragment(s)):
            groups[-1].append(s)
        else:
            groups.append([s])
        reminder = False
    return groups

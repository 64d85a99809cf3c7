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

import itertools
import re
from datetime import datetime

from memscribe.lang import lexicon as lx
from memscribe.lang.clauses import Sentence, content_terms
from memscribe.lang.timeparse import TimeMention, is_return, resolve_times
from memscribe.write.correct import CORRECTION

__all__ = ["MIN_TERMS", "split_by_time", "statement_groups"]

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


# where one clause of a sentence ends and another begins: "…, and …", "…，…", "…; …"
_CLAUSE_BREAK = re.compile(
    r"\s*(?:[,;，；]\s*(?:and\s+|还有|另外)?|\s+and\s+(?=(?:I|I'm|I've|my|he|she|his|her|we|our)\b))"
)


# a time inside a relative clause dates the thing, not the statement: "上周买的那件大衣不合身，得在周日前退掉" is one
# statement about the coat (cut at the comma, the second half would not say what is returned)
_ATTRIBUTIVE_ZH = re.compile(r"[刚新才]?[\u4e00-\u9fff]{1,2}的(?:那|这)?[件个双条本台辆只张份把位]?")


# a clause that moves what was just said to its own time is the same statement: "说周四来不了，改成周六下午" (cut
# at the comma, "改成周六下午" would not say what moved)
_MOVED_ON = re.compile(
    rf"\s*(?:(?:就|那就|所以|只好|只能|so|and|we|it'?s)\s*)*(?:改成|换成|换到|改在|{lx.MOVED_TO.pattern})|\s*instead\b",
    re.IGNORECASE,
)


def _dates_a_thing(text: str, end: int) -> bool:
    m = _ATTRIBUTIVE_ZH.match(text, end)
    return m is not None and "的" in m.group() and not text[end:].startswith(("的", "时候"))


def _whole_clauses(
    text: str, pieces: list[tuple[int, int]], mentions: list[TimeMention]
) -> list[tuple[int, int]]:
    """The pieces cut at clause breaks, each joined to the one before it (the first to the one after it) while
    it says nothing but its time: "Check in on the 6th, out on the 9th", "the renovation starts a week later, on
    October 21st" — cut there, "out on 2024-10-09." and "on 2024-10-21." would be memories of their own that say
    neither what ends nor what starts."""

    def bare(a: int, b: int) -> bool:
        rest, pos = [], a
        for m in mentions:
            if m.start >= a and m.end <= b:
                rest.append(text[pos : m.start])
                pos = m.end
        rest.append(text[pos:b])
        return len(content_terms(" ".join(rest))) < MIN_TERMS

    out: list[tuple[int, int]] = []
    # only the first piece can stay bare in ``out`` (every later bare one joins the piece before it): whether it
    # still is, so it is not read again for every piece that follows
    first_bare = False
    for a, b in pieces:
        if out and (first_bare or bare(a, b)):
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
        first_bare = len(out) == 1 and bare(*out[0])
    return out


def split_by_time(groups: list[list[Sentence]], at: datetime, lang: str) -> list[list[Sentence]]:
    """A statement that names two different times is two statements ("my wife's birthday is July 9, I'm allergic
    to bee stings, and I'm planning to repaint the garage next month"; "每个月25号发工资，下周二还要跟审计开会"): a
    memory has one time, so the second would be lost. It is cut at each clause break between its times, whatever
    the clauses lean on; a statement with one time, or with no break between its times, stays whole."""
    out: list[list[Sentence]] = []
    sep = "" if lang == "zh" else " "
    for group in groups:
        text = sep.join(s.text for s in group)
        # a trip's return ("周五回来", "back on Sunday") is the same statement's end, not a second time
        mentions = [
            m
            for m in resolve_times(text, at, lang)
            if m.time_start is not None and not is_return(text, m) and not _dates_a_thing(text, m.end)
        ]
        days = {(m.time_start.date(), m.recurrence) for m in mentions}
        if len(mentions) < 2 or len(days) < 2 or any(s.question or s.reaction for s in group):
            out.append(group)
            continue
        cuts: list[tuple[int, int]] = []
        for before, after in itertools.pairwise(mentions):
            if (before.time_start.date(), before.recurrence) == (after.time_start.date(), after.recurrence):
                continue
            cuts += [
                (b.start(), b.end())
                for b in _CLAUSE_BREAK.finditer(text, before.end, after.start)
                if not _MOVED_ON.match(text, b.end())
            ]
        if not cuts:
            out.append(group)
            continue
        pieces, pos = [], 0
        for start, end in cuts:
            pieces.append((pos, start))
            pos = end
        pieces.append((pos, len(text)))
        # a correction's pieces are what correct.py reads ("说错了，是周三不是周二"): kept as cut
        if not CORRECTION.search(text):
            pieces = _whole_clauses(text, pieces, mentions)
        clauses = [text[a:b].strip() for a, b in pieces]
        clauses = [c for c in clauses if len(content_terms(c)) >= MIN_TERMS]
        if len(clauses) < 2:
            out.append(group)
            continue
        out += [[Sentence(c, question=False, reaction=False, terms=len(content_terms(c)))] for c in clauses]
    return out

"""Merge: reconcile a candidate with what the store already holds. Pure decision logic, no I/O.

Order of judgement, per neighbour (same user scope, same subject):
1. the same slot with another value (city, employer, a changed meeting or flight) -> Supersede;
2. an exception to an existing rule (周末别打扰 + 周六上午可以开短会) -> Link(supplements);
3. the same statement again (paraphrase; nothing distinguishing differs) -> Merge (sources + version);
4. a stated change of a similar fact (改签, moved, rescheduled) sharing an anchor -> Supersede;
5. the opposite polarity of the same topic, newer and explicit -> Supersede;
otherwise Add. Different ids, numbers, dates or people are never collapsed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memscribe.config import WriteConfig
from memscribe.decisions import Add, Candidate, Link, Merge, MergeDecision, Supersede, Update
from memscribe.facts import Facts
from memscribe.lang.text import keyword_terms
from memscribe.lang.timeparse_en import MONTHS as _MONTHS_FULL
from memscribe.lang.timeparse_en import WEEKDAYS as _WDS
from memscribe.models import MemoryRecord

__all__ = ["Neighbour", "decide_merge", "distinguishing"]

_NUM = re.compile(r"\d+(?:[.:/-]\d+)*")


@dataclass(frozen=True, slots=True)
class Neighbour:
    record: MemoryRecord
    similarity: float  # cosine of the two passage embeddings


def _distinguishing(facts: Facts, text: str) -> set[str]:
    out = {f"id:{x}" for x in facts.ids}
    out |= {f"amt:{x}" for x in facts.amounts}
    out |= {f"num:{x}" for x in _NUM.findall(text)}
    return out


def distinguishing(rec: MemoryRecord) -> set[str]:
    """Tokens that make two similar sentences different facts: ids, numbers, amounts, times."""
    return _distinguishing(rec.facts, rec.text)


_TIME_WORDS = frozenset((*_MONTHS_FULL, *(m[:3] for m in _MONTHS_FULL), "sept", *_WDS)) | frozenset(
    [
        "today",
        "tomorrow",
        "yesterday",
        "week",
        "month",
        "year",
        "am",
        "pm",
        "morning",
        "afternoon",
        "evening",
        "night",
        "user",
    ]
)


def _topic_terms(text: str) -> set[str]:
    return {t for t in keyword_terms(text) if len(t) >= 2 and not t.isdigit() and t not in _TIME_WORDS}


# Words that change how something is said, not what: a paraphrase may swap them freely.
_SOFT = frozenset(
    [
        "喜欢",
        "爱",
        "爱喝",
        "爱吃",
        "爱看",
        "就",
        "平时",
        "经常",
        "常常",
        "非常",
        "很",
        "真",
        "特别",
        "一般",
        "通常",
        "总是",
        "比较",
        "还是",
        "一直",
        "都",
        "也",
        "超",
        "挺",
        "always",
        "usually",
        "really",
        "love",
        "loves",
        "like",
        "likes",
        "enjoy",
        "enjoys",
        "adore",
        "prefer",
        "prefers",
        "just",
        "also",
        "very",
        "so",
        "mostly",
        "often",
        "generally",
        "typically",
        "actually",
        "truly",
        "quite",
        "pretty",
        "totally",
        "absolutely",
        "am",
        "is",
        "are",
        "was",
        "be",
        "being",
    ]
)


def substitutes(a: str, b: str) -> bool:
    """True when each text has a content word the other lacks: 对香菜过敏 vs 对乳糖过敏, "can't stand ramen"
    vs "can't stand dumplings". Embeddings rate such pairs as near-identical; they are different facts."""
    ta, tb = _topic_terms(a) - _SOFT, _topic_terms(b) - _SOFT
    return bool(ta - tb) and bool(tb - ta)


_LIKING_KINDS = frozenset({"preference", "constraint"})
# words that say a stance changed (现在不喝了, no longer, quit): a plain "I don't like X" in a conversation
# about something else is not a retraction of an older "I like X"
_STANCE_CHANGE = re.compile(
    r"现在不|如今不|不再|再也不|已经不|戒了|改[喝吃用成为]"
    r"|\b(?:no longer|anymore|any more|stopped|quit|gave up|switched to)\b",
    re.IGNORECASE,
)

# events, tasks and plans happen at a time: a fuller account of another day is another memory
_DATED_KINDS = frozenset({"event", "task", "plan"})


def _same_time(c: Candidate, r) -> bool:  # type: ignore[no-untyped-def]
    if c.time_start is None or r.time_start is None:
        return True
    return c.time_start.date() == r.time_start.date()


def adds_detail(new: str, old: str) -> bool:
    """The new text says all the old one says (content words) and more."""
    tn, to = _topic_terms(new) - _SOFT, _topic_terms(old) - _SOFT
    return bool(tn - to) and not (to - tn)


def decide_merge(c: Candidate, neighbours: list[Neighbour], cfg: WriteConfig) -> MergeDecision:
    same_subject = [n for n in neighbours if (n.record.facts.subject or "user") == c.subject]
    same_subject.sort(key=lambda n: -n.similarity)
    cand_anchors = c.facts.anchors()
    cand_dist = _distinguishing(c.facts, c.text)
    cand_topic = _topic_terms(c.raw)

    for n in same_subject:
        r = n.record
        if c.slot and r.facts.slot == c.slot:
            old_val = r.facts.value
            new_val = c.facts.value
            if (old_val and new_val and old_val != new_val) or c.change or cand_dist != distinguishing(r):
                return Supersede(target=r.id, why=f"newer value for slot {c.slot.split('|', 1)[-1]}")
            if n.similarity >= cfg.slot_similarity:
                return Merge(
                    target=r.id,
                    why=f"same value for slot {c.slot.split('|', 1)[-1]}",
                    similarity=n.similarity,
                )

    for n in same_subject:
        r = n.record
        if n.similarity < cfg.slot_similarity:
            break
        polarity_differs = r.facts.negated != c.negated
        if c.exception and polarity_differs:
            return Link(target=r.id, type="supplements", why="exception to an existing rule")
        if (
            not polarity_differs
            and not c.exception
            and r.kind == c.kind
            and c.kind.value not in _DATED_KINDS
            and _same_time(c, r)
            and distinguishing(r) <= cand_dist
            and adds_detail(c.raw, r.raw)
        ):
            # "I like coffee" then "I like coffee, especially an Americano from Blue Bottle": every content
            # word of the old memory is in the new one, plus more. A merge would keep the poorer sentence
            # (the embedding rates such pairs lower than paraphrases: 0.93 vs 0.99), so rewrite in place.
            return Update(target=r.id, why="the same fact with more detail")
        if (
            n.similarity >= cfg.duplicate_similarity
            and not polarity_differs
            and cand_dist <= distinguishing(r)
            and not substitutes(c.raw, r.raw)
        ):
            return Merge(target=r.id, why="says the same thing again", similarity=round(n.similarity, 4))
        shares_anchor = bool(cand_anchors & r.facts.anchors()) or len(cand_topic & _topic_terms(r.raw)) >= 2
        closes_task = c.facts.status in ("done", "cancelled") and r.facts.status == "pending"
        if closes_task and r.kind.value in ("task", "plan") and len(cand_topic & _topic_terms(r.raw)) >= 1:
            return Supersede(target=r.id, why=f"task {c.facts.status}")
        if c.change and shares_anchor and r.kind == c.kind:
            return Supersede(target=r.id, why="stated change of an earlier fact")
        if c.change and shares_anchor and {r.kind.value, c.kind.value} <= {"plan", "event", "task"}:
            return Supersede(target=r.id, why="stated change of an earlier plan")
        if (
            polarity_differs
            and n.similarity >= cfg.duplicate_similarity - 0.03
            and r.kind == c.kind
            and len((cand_topic & _topic_terms(r.raw)) - _SOFT) >= 2
        ):
            # precision first: similar sentences of one kind are not yet the same thing ("那天没课" after
            # "大后天下午可以" shares a topic, not an object); a negation replaces only what it negates
            return Supersede(target=r.id, why="newer statement with the opposite polarity")
        if (
            polarity_differs
            and _STANCE_CHANGE.search(c.raw)
            and {r.kind.value, c.kind.value} <= _LIKING_KINDS
            and len((cand_topic & _topic_terms(r.raw)) - _SOFT) >= 2
        ):
            # "我喜欢喝咖啡" then "我现在不喝咖啡了": the same object, liked then refused (one is encoded as a
            # preference, the other as a constraint); the newer stance replaces the older one
            return Supersede(
                target=r.id, why="newer statement with the opposite polarity about the same thing"
            )
    return Add()

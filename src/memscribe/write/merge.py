"""Merge: reconcile a candidate with what the store already holds. Pure decision logic, no I/O.

Precision first (issue #15, DESIGN §8.3): a wrong supersede hides a true fact, a missed one leaves two dated
facts, newest first. Every supersede below first passes ``write/supersede_guard.py`` (no third party on one
side only, no two different ids, no question or supposition); a blocked one keeps both, linked as related.

Order of judgement, per neighbour (same user scope, same subject):
1. the same slot with another value (city, employer, a changed meeting or flight) -> Supersede;
2. an exception to an existing rule (周末别打扰 + 周六上午可以开短会) -> Link(supplements);
3. the same statement again (paraphrase; nothing distinguishing differs) -> Merge (sources + version);
4. a plan or task the new memory says is done, sharing its words -> Close (the plan stays, now done); one it
   says is cancelled -> Supersede;
5. a stated change of a similar fact (改签, moved, rescheduled) sharing an anchor -> Supersede;
6. a stance the new memory says has changed (现在不喝了, no longer) about the same thing -> Supersede;
otherwise Add. Different ids, numbers, dates or people are never collapsed. An opposite polarity alone is
no change: "那天没课" after "大后天下午可以", or two feelings a month apart, are both true.

Rules 1 (without a new value) and 4-6 need their cue said of the thing both memories name
(``write/merge_words.py``): the shared words leave out the day, the speakers, the chat and feelings, and the
cue must sit in a clause that holds one of them — "A lot has changed since last time", "he still gets the
job done" and "2023-04-29见！" change, close and plan nothing stored.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from memscribe.config import WriteConfig
from memscribe.decisions import Add, Candidate, Close, Link, Merge, MergeDecision, Supersede, Update
from memscribe.facts import Facts
from memscribe.lang import lexicon as lx
from memscribe.lang.text import segment
from memscribe.models import MemoryRecord
from memscribe.write.assistant import ASSISTANT_SUBJECT
from memscribe.write.merge_words import SOFT as _SOFT
from memscribe.write.merge_words import cue_attaches, object_terms, topic_terms
from memscribe.write.supersede_guard import attribute_said_of_other, supersede_blockers

__all__ = ["Neighbour", "decide_merge", "distinguishing", "pending_open", "shared_things"]

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


def substitutes(a: str, b: str) -> bool:
    """True when each text has a content word the other lacks: 对香菜过敏 vs 对乳糖过敏, "can't stand ramen"
    vs "can't stand dumplings". Embeddings rate such pairs as near-identical; they are different facts."""
    ta, tb = topic_terms(a) - _SOFT, topic_terms(b) - _SOFT
    return bool(ta - tb) and bool(tb - ta)


_LIKING_KINDS = frozenset({"preference", "constraint"})
# words that say a stance changed (现在不喝了, no longer, quit): a plain "I don't like X" in a conversation
# about something else is not a retraction of an older "I like X"
_STANCE_CHANGE = re.compile(
    r"现在不|如今不|不再|再也不|已经不|戒了|改[喝吃用成为]"
    r"|\b(?:no longer|anymore|any more|stopped(?! by\b)|quit|gave up|switched to)\b",
    re.IGNORECASE,
)

# a habit or a liking said to have ended: "戒了", "不跑步了", "stopped running", "don't … anymore", "gave up".
# "不X了" is Chinese for "no longer X" ("现在不喝了"); it is asked of the thing both statements name
_STANCE_ENDED = re.compile(
    rf"(?:{_STANCE_CHANGE.pattern})|不[\u4e00-\u9fff]{{1,3}}了|没再|停了|停掉了|放弃了|\b(?:given up)\b",
    re.IGNORECASE,
)
# something paid for by the month or the year (a subscription, a membership, a plan, an insurance policy) and the
# words that end it:
# "pays for Hulu" then "cancelled my Hulu subscription"; "办了健身房年卡" then "健身卡退了"
_SUBSCRIBED = re.compile(
    r"subscri|membership|\bmember\b|\bpays? for\b|\bpremium\b|\binsurance\b|\binsured\b|\bpolicy\b"
    r"|会员|订阅|包月|包年|套餐|年卡|月卡|季卡|保险|[车寿医意重]险|保单",
    re.IGNORECASE,
)
_SUBSCRIPTION_ENDED = re.compile(
    rf"(?:{lx.CANCELLED_ANY_KIND.pattern})|\b(?:unsubscribed|dropped|ended|let it lapse|didn't renew)\b"
    r"|退订|退掉|退了|停了|不续了|没续|到期不续",
    re.IGNORECASE,
)
_PAUSED = re.compile(
    rf"(?:{lx.TEMPORARY.pattern})|这周|这几天|这两天|先不|等.{{1,8}}再|"
    r"\b(?:for a while|for a bit|for a few (?:days|weeks)|this week|until|till)\b",
    re.IGNORECASE,
)
# the word endings an English verb or noun takes ("run", "runs", "running"): a habit and its end are said in
# different forms of one word
_EN_ENDING = re.compile(r"(?:ing|ed|es|s)$")


def _stems(words: set[str]) -> set[str]:
    out = set()
    for w in words:
        if w.isascii() and len(w) >= 4:
            w = _EN_ENDING.sub("", w)
            if len(w) > 3 and w[-1] == w[-2]:  # "running" -> "runn" -> "run"
                w = w[:-1]
        out.add(w)
    return out


def _is_habit(r: MemoryRecord) -> bool:
    """A standing habit or liking of the old memory: a recurrence, a habit word ("usually", "每天") or a
    liking kind, said without a negation."""
    if r.facts.negated or r.kind.value in _OPEN_KINDS:
        return False
    return bool(r.facts.recurrence) or r.kind.value in _LIKING_KINDS or bool(lx.HABIT.search(r.raw))


def _habit_ended(c: Candidate, r: MemoryRecord) -> str | None:
    """The new memory says the old habit or liking ended ("我每天喝两杯咖啡" then "最近把咖啡戒了"; "I run 5k
    every morning" then "I stopped running after my knee surgery"): the stop word is said of a thing both name
    (in any form of the word) and the new memory is no plan or task of its own. The clause that says it, or None."""
    if c.kind.value in _OPEN_KINDS or r.facts.negated or r.kind.value in _OPEN_KINDS:
        return None
    if _is_habit(r):
        ended = _STANCE_ENDED
    elif _SUBSCRIBED.search(r.raw):
        ended = _SUBSCRIPTION_ENDED  # a subscription is standing like a habit, and is cancelled, not given up
    else:
        return None
    names = {c.subject, r.facts.subject or ""}
    shared = _stems(object_terms(c.text, names)) & _stems(object_terms(r.text, names))
    shared -= _stems(set(topic_terms(" ".join(m.group(0) for m in ended.finditer(c.raw)))))
    if not shared:
        return None
    if _PAUSED.search(c.raw):
        return None  # "stopped painting for a while", "这周先不跑了": a pause, the habit stands
    for clause in re.split(r"[，,。.;；!！?？]", c.raw):
        if ended.search(clause) and _stems(topic_terms(ended.sub(" ", clause))) & shared:
            return clause
    return None


# a habit taken up again ("又抽上烟了", "重新开始跑步", "picked the guitar back up", "running again"), said against
# an older memory of its stop ("戒烟快一年了", "hasn't touched the guitar since college")
_RESUMED = re.compile(
    r"又|重新|再次|恢复|重拾|捡起|复吸|复跑"
    r"|\b(?:again|back up|resumed?|resuming|returned to|back on|back into)\b",
    re.IGNORECASE,
)
_STOPPED_BEFORE = re.compile(
    rf"(?:{_STANCE_ENDED.pattern})|戒[烟酒糖掉]|\b(?:haven't|hasn't|hadn't|not|never)\b[\w' ]{{0,20}}\bsince\b",
    re.IGNORECASE,
)
# an intent or an obligation says the habit is not taken up yet ("I'll start running again", "我得重新开始锻炼")
_NOT_YET = re.compile(
    r"打算|计划|准备|想|要|得|需要|应该"
    r"|\b(?:will|going to|gonna|plan|planning|want to|wanna|should|need to|have to|hope to|might)\b|'ll\b",
    re.IGNORECASE,
)


def _habit_resumed(c: Candidate, r: MemoryRecord) -> bool:
    """The new memory says a habit the old one said had stopped is back ("我戒烟快一年了" then "最近压力大，又抽上
    烟了"; "I haven't touched my guitar since college" then "Picked the guitar back up last month"): the old
    one's stop and the new one's resumption are each said of a thing both name, and the new one says no intent
    or obligation (that would be a plan, not the habit back)."""
    if c.kind.value == "plan" or _NOT_YET.search(c.raw):
        return False
    stopped = _said_of(r.raw, _STOPPED_BEFORE, after=2)
    resumed = _said_of(c.raw, _RESUMED, after=4)
    return bool(stopped & resumed)


def _said_of(raw: str, cue: re.Pattern[str], after: int) -> set[str]:
    """What a cue is said of: the words (stems) of the clauses of ``raw`` that hold it, the cue's own words
    left out, and the Chinese characters of the cue and the ``after`` characters that follow it (戒烟快 -> 烟;
    又抽上烟 -> 抽, 烟): a Chinese verb's object comes right after it, and a word often splits (抽上烟)."""
    out: set[str] = set()
    for clause in re.split(r"[，,。.;；!！?？]", raw):
        for m in cue.finditer(clause):
            out |= _stems(topic_terms(cue.sub(" ", clause)) - _SOFT)
            window = clause[m.start() : m.end() + after]
            out |= {ch for ch in window if "\u4e00" <= ch <= "\u9fff"} - _FUNCTION_CHARS
            if window.isascii():  # "haven't touched my guitar since": the thing is inside the cue
                out |= _stems(topic_terms(m.group(0)) - _SOFT - _CUE_WORDS)
    return out


_CUE_WORDS = frozenset({"haven't", "hasn't", "hadn't", "not", "never", "since", "touched", "stopped", "quit"})
# Chinese characters that name no thing (pronouns, particles, adverbs): a resumption's 我 or 了 is no topic
_FUNCTION_CHARS = frozenset(
    "我你他她它们的了着过也都就还又再在是有和跟把被给让从到对为很太最更上下一不没要会能快已经戒重新次恢复拾捡起"
)


def _same_head(a: set[str], b: set[str]) -> bool:
    """A Chinese word of each side ends in the same character: a compound's last character is its head, so
    蓝色 and 绿色 are both colours, 红茶 and 绿茶 both teas."""
    heads = {w[-1] for w in a if len(w) >= 2 and "\u4e00" <= w[-1] <= "\u9fff"}
    return any(len(w) >= 2 and w[-1] in heads for w in b)


def _status_said(c: Candidate, r: MemoryRecord) -> str | None:
    """The status the new memory gives the old pending plan or task — done or cancelled, said of a thing both
    name — or None. A plan's cancellation may be read as no plan ("桂林不去了，我妈腰疼犯了" as a profile of
    the mother): its cancel words still call off the plan whose place they name."""
    if not pending_open(r):
        return None
    things = _shared_things(c, r, _shared_content(c, r))
    if c.facts.status in ("done", "cancelled") and cue_attaches(c.raw, _STATUS_CUE, things):
        return c.facts.status
    if c.kind.value not in _OPEN_KINDS and cue_attaches(c.raw, lx.CANCELLED, things):
        return "cancelled"
    return None


# a verb the plan says it will do ("need to renew", "has to submit", "I'll pick up"), and its done forms
_EN_WILL = re.compile(
    r"\b(?:to|will|must|should|gonna|'ll|need(?:s)? to|ha(?:s|ve) to|got to|going to|plan(?:ning)? to)\s+"
    r"(?:also\s+|still\s+|finally\s+)?(?P<verb>[a-z]{3,})\b",
    re.IGNORECASE,
)
_EN_IRREGULAR = {
    "paid": "pay",
    "bought": "buy",
    "sent": "send",
    "got": "get",
    "took": "take",
    "taken": "take",
    "made": "make",
    "done": "do",
    "did": "do",
    "went": "go",
    "wrote": "write",
    "written": "write",
    "gave": "give",
    "given": "give",
    "sold": "sell",
    "found": "find",
    "left": "leave",
    "brought": "bring",
    "met": "meet",
    "told": "tell",
    "picked": "pick",
    "put": "put",
    "set": "set",
    "ran": "run",
    "won": "win",
}
# a Chinese verb done: the verb the plan says, then 了 / 好了 / 完了 / 掉了 ("退掉" then "大衣退掉了", "办" then "办好了")
_ZH_DONE_TAIL = ("了", "好了", "完了", "掉了", "过了", "成了")
_CJK_WORD = re.compile(r"[\u4e00-\u9fff]+")
_ZH_NOT_DONE = re.compile(r"还没|没有|没能|尚未|未|要|得|打算|准备|计划|想")


def _en_base(word: str) -> set[str]:
    w = word.lower()
    if w in _EN_IRREGULAR:
        return {_EN_IRREGULAR[w]}
    if not w.endswith("ed") or len(w) < 5:
        return set()
    stem = w[:-2]
    out = {stem, w[:-1]}  # renewed -> renew, scheduled -> schedule
    if len(stem) > 2 and stem[-1] == stem[-2]:
        out.add(stem[:-1])  # submitted -> submit
    if stem.endswith("i"):
        out.add(stem[:-1] + "y")  # applied -> apply
    return out


# a deadline: done before its day is done ("need to renew … before the 30th", "下周一前得把车险续上")
_DEADLINE = re.compile(
    r"(?<=[0-9号日一二三四五六天末])前|之前|以前|截止|\b(?:by|before|due|no later than)\b", re.IGNORECASE
)


def _own_verb_due(r: MemoryRecord, now: datetime | None) -> bool:
    """A dated plan whose report may come now: from its day (a deadline's any time before it) to the report
    window after it."""
    if now is None or r.time_start is None or now > (r.time_end or r.time_start) + _REPORT_WINDOW:
        return False
    return now >= r.time_start - timedelta(hours=12) or _DEADLINE.search(r.raw) is not None


def _own_verb_done(c: Candidate, r: MemoryRecord, things: set[str]) -> str | None:
    """The verb the pending plan says it will do, said done of a thing both name: "need to renew my car
    registration" then "registration renewed online"; "得在周日前把大衣退掉" then "大衣退掉了". Not an intent, a
    negation or a "not yet" ("still haven't renewed", "还没退"). The verb, or None."""
    if not things or c.facts.negated or c.facts.status in ("pending", "cancelled") or _INTENT.search(c.raw):
        return None
    if c.kind.value in _OPEN_KINDS:
        return None  # a plan of its own is no report
    if (c.facts.lang or "en") == "zh":
        # (the verb may be among the words both hold — 续上 in 续上了 — but something else must be too)
        own = [w for w in segment(r.text).split() if len(w) <= 3 and _CJK_WORD.fullmatch(w) and things - {w}]
        for w in own:
            # (a one-character verb only with a result: 办好了, not 去了 — "去了公园散步" is an outing, and
            # its plan may be another)
            for tail in _ZH_DONE_TAIL if len(w) > 1 else _ZH_DONE_TAIL[1:]:
                i = c.raw.find(w + tail)
                if i >= 0 and not _ZH_NOT_DONE.search(c.raw, max(0, i - 3), i):
                    return w
        return None
    planned = {m.group("verb").lower() for m in _EN_WILL.finditer(r.text)} - things
    if not planned or re.search(r"\b(?:not|n't|never|yet)\b", c.raw, re.IGNORECASE):
        return None
    for word in re.findall(r"[A-Za-z]+", c.raw):
        hit = _en_base(word) & planned
        if hit:
            return hit.pop()
    return None


def _over(r: MemoryRecord, at: datetime | None) -> bool:
    """The plan's time ended more than a week before ``at`` (a cancellation is reported in the days after:
    "Friday's dinner with Sam is cancelled" on the Sunday)."""
    end = r.time_end or r.time_start
    return at is not None and end is not None and end < at - timedelta(days=7)


def _names_its_day(c: Candidate, r: MemoryRecord) -> bool:
    """The new statement says the old plan's day and a day of its own: the plan moved from that day."""
    if r.time_start is None or c.time_start is None or c.time_start.date() == r.time_start.date():
        return False
    return r.time_start.date().isoformat() in c.text


def _someone_elses(text: str, things: set[str]) -> bool:
    """A thing both name is said to be another's: "her grant report", "their lease", "我妈的车险"."""
    for t in things:
        if re.search(rf"\b(?:his|her|their)\s+(?:[a-z]+\s+)?{re.escape(t)}", text, re.IGNORECASE):
            return True
        other = r"(?:他|她|他们|她们|[妈爸哥姐弟妹婆公爷奶]|老婆|老公|同事|朋友)的[\u4e00-\u9fff]{0,2}"
        if re.search(other + re.escape(t), text):
            return True
    return False


def _partner_left(c: Candidate, r: MemoryRecord) -> bool:
    """The speaker says a relationship ended ("我跟陈浩已经分手了", "Mark and I split up") and the old memory is
    of that partner as the speaker's partner ("我男朋友叫陈浩，在银行上班": its subject is the boyfriend): the
    person both name is the identity, the partner word the attribute."""
    if not lx.BREAKUP.search(c.raw) or not lx.PARTNER.search(f"{r.facts.subject or ''} {r.raw}"):
        return False
    people = {p for p in c.facts.people if p != c.subject} & set(r.facts.people)
    if not people:  # English names are in no people list: a capitalised name both raw texts hold
        names = {w for w in re.findall(r"\b[A-Z][a-z]+\b", c.raw) if w not in lx.EN_STOPCAPS}
        people = {w for w in names if re.search(rf"\b{w}\b", r.raw)}
    for clause in re.split(r"[，,。.;；!！?？]", c.raw):
        if lx.BREAKUP.search(clause) and any(p in clause for p in people):
            return True
    return False


def _request_fulfilled(c: Candidate, r: MemoryRecord) -> bool:
    """The assistant says it did what the user asked ("Book me the Hyatt Regency for Nov 5 to Nov 7" then
    "Confirmed: Hyatt Regency Denver, check-in Nov 5 … Confirmation HY-55120"): the booking holds all the request
    did and more, so it replaces the request — which would otherwise stay a pending plan beside it, and still
    name the old dates after the booking is moved. The same day, a thing both name."""
    if c.subject not in _ASSISTANT or c.kind.value not in ("plan", "event"):
        return False
    if (r.facts.subject or "user") in _ASSISTANT or not pending_open(r) or not lx.REQUEST.search(r.raw):
        return False
    if c.time_start is None or r.time_start is None or c.time_start.date() != r.time_start.date():
        return False
    if {c.facts.grain, r.facts.grain} & _COARSE_GRAINS:
        return False
    return bool(_shared_things(c, r, _shared_content(c, r)))


def _liking_replaced(c: Candidate, r: MemoryRecord) -> bool:
    """A new liking that rules out others, said as the one that holds now, of the same kind of thing as an
    older liking ("我最喜欢的颜色是蓝色" then "我现在更喜欢绿色了"; "I prefer window seats" then "I've started
    preferring aisle seats"): each names a thing the other does not, and they share what kind of thing it
    is — a word both hold ("seats"), or a Chinese compound's head (蓝色 / 绿色). "I've started to like hiking"
    adds a liking beside the others: it rules nothing out."""
    # (a liking said as a change reads to the kind model as a fact: "I've started preferring aisle seats")
    if r.kind.value not in _LIKING_KINDS or c.kind.value not in (*_LIKING_KINDS, "fact"):
        return False
    if r.facts.negated or c.negated or not substitutes(c.raw, r.raw):
        return False
    if not (lx.EXCLUSIVE_LIKING.search(c.raw) and lx.NOW_LIKING.search(c.raw)):
        return False
    if not lx.EXCLUSIVE_LIKING.search(r.raw) and not lx.PREFERENCE.search(r.raw):
        return False
    names = {c.subject, r.facts.subject or ""}
    new_terms = object_terms(c.text, names) - _SOFT
    old_terms = object_terms(r.text, names) - _SOFT
    return bool(_stems(new_terms) & _stems(old_terms)) or _same_head(
        new_terms - old_terms, old_terms - new_terms
    )


# events, tasks and plans happen at a time: a fuller account of another day is another memory
_DATED_KINDS = frozenset({"event", "task", "plan"})


def _same_time(c: Candidate, r) -> bool:  # type: ignore[no-untyped-def]
    if c.time_start is None or r.time_start is None:
        return True
    return c.time_start.date() == r.time_start.date()


def adds_detail(new: str, old: str) -> bool:
    """The new text says all the old one says (content words) and more."""
    tn, to = topic_terms(new) - _SOFT, topic_terms(old) - _SOFT
    return bool(tn - to) and not (to - tn)


def _norm_value(v: str | None) -> str:
    return re.sub(r"[\s\W_]+", "", (v or "").lower())


def _new_value(c: Candidate, r: MemoryRecord) -> bool:
    """Both name a value for the slot and neither contains the other ("Denver" vs "Boston"; not "Google" vs
    "Google Cloud"), and the new text does not say the old value again without a change cue: "You can call
    me Jack. I love music and movies" restates the name whatever token the extractor took for the value."""
    old, new = _norm_value(r.facts.value), _norm_value(c.facts.value)
    if not (old and new) or _same_value(c, r):
        return False
    return c.change or old not in _norm_value(c.raw)


def _same_value(c: Candidate, r: MemoryRecord) -> bool:
    """Both name a value for the slot and one contains the other ("Stripe" and "Stripe"; "Google" and
    "Google Cloud")."""
    old, new = _norm_value(r.facts.value), _norm_value(c.facts.value)
    return bool(old and new) and (old in new or new in old)


def _shared_content(c: Candidate, r: MemoryRecord) -> set[str]:
    """The object words both statements hold (merge_words.object_terms): no day, no speaker, no chat, no
    feeling, and no people's names — "Ruby" in two sentences is one girl, not one topic. Each statement's
    own sentences, not the raw turn it came from: a vocative ("Friend, …") or a greeting in both turns is
    no shared topic."""
    # (English names only: the Chinese name finder also takes "喝咖啡" for a person)
    names = {*c.facts.people, *r.facts.people} if c.facts.lang == "en" else set()
    names |= {c.subject, r.facts.subject or ""}
    return object_terms(c.text, names) & object_terms(r.text, names)


def _shared_things(c: Candidate, r: MemoryRecord, shared: set[str]) -> set[str]:
    """The shared object words plus the words of the places, organisations and ids both name (a person both
    name is company, not the thing a change is said of)."""
    out = set(shared)
    for a in {*c.facts.places, *c.facts.orgs, *c.facts.ids} & {*r.facts.places, *r.facts.orgs, *r.facts.ids}:
        out |= topic_terms(a) or {a.lower()}
    return out


def shared_things(c: Candidate, r: MemoryRecord) -> set[str]:
    """What two statements both name beyond who: object words, places, organisations, ids."""
    return _shared_things(c, r, _shared_content(c, r))


def _value_words(c: Candidate, r: MemoryRecord) -> set[str]:
    """The words of the slot's values, old and new ("no longer at Costco" is said of Costco)."""
    return {w for v in (c.facts.value, r.facts.value) if v for w in (topic_terms(v) or {v.lower()})}


# change words the trigger's cue list does not hold: "改订每周五的课", "会员卡到期日顺延到2月17日",
# "the closure moves to 21-26 October"; and a present state said against an older one ("你现在的兼职时间是
# 周二下午、周四晚上和周六下午", "the pickup window is now 9-11"): still said of what both name (rule 5)
_CHANGE_MORE = re.compile(
    r"改订|改约|顺延|延到|推到|现在的(?=[\u4e00-\u9fff]{1,8}(?:是|为|变成|改成))"
    r"|\b(?:moves to|is moving to|pushed (?:back )?to|bumped to|is now|are now)\b",
    re.IGNORECASE,
)
# any change cue, to ask what it is said of: "A lot has changed since last time" is said of nothing stored
_CHANGE_CUE = re.compile(
    f"(?:{lx.CHANGE.pattern})|(?:{_CHANGE_MORE.pattern})|(?:{lx.MOVED_TO.pattern})", re.IGNORECASE
)
_STATUS_CUE = re.compile(f"(?:{lx.DONE.pattern})|(?:{lx.CANCELLED.pattern})", re.IGNORECASE)
_ASSISTANT = frozenset(ASSISTANT_SUBJECT.values())
# the learned slots that confirm a rule slot: the model splits what the cue words join ("joined Stripe as a
# staff engineer" reads as a job title, "we moved to Denver" as travel), but never a gym or a group for a job
_SLOT_FAMILY: dict[str, frozenset[str]] = {
    "employer": frozenset({"employer", "job_title", "school"}),
    "residence": frozenset({"residence", "hometown", "travel_history"}),
    "relationship": frozenset({"relationship", "family"}),
    "name": frozenset({"name"}),
    "phone_pref": frozenset({"contact_pref"}),
}


_OPEN_KINDS = frozenset({"plan", "task"})


def pending_open(r: MemoryRecord) -> bool:
    """A pending plan or task: what a report can close (done or cancelled)."""
    return r.facts.status == "pending" and r.kind.value in _OPEN_KINDS


# an intent said of the plan's thing is the plan again, not its report (not lx.PLAN: its weekdays match
# "上周五按时交了")
_INTENT = re.compile(
    r"打算|计划|准备|要去|想去|将要|\b(?:plan|plans|planning|going to|gonna|will|want to|wanna)\b",
    re.IGNORECASE,
)
_REPORT_WINDOW = timedelta(days=45)


def _report_due(r: MemoryRecord, now: datetime | None) -> bool:
    """The plan's time has come and it is still fresh: between its start and the report window after its end.
    An undated plan is never due: closing one by a report ("I finally wrapped that up" after "I've been working
    on a big project") was built and measured in session 14, and on the whole dev conversations an undated
    "plan" was mostly a wish, encouragement or a hope ("John is going to keep pushing for them"): its closes
    were false and it caught no listed change."""
    if now is None or r.time_start is None:
        return False
    return r.time_start <= now <= (r.time_end or r.time_start) + _REPORT_WINDOW


# a month or a year is no day: "a hike in August" and another August statement are not the plan's day
_COARSE_GRAINS = frozenset({"week", "month", "quarter", "year"})


def _reports_plan_done(c: Candidate, r: MemoryRecord, shared: set[str], at: datetime | None) -> str | None:
    """Why the new memory reports that the old pending plan or task happened, or None.

    The old one must be a pending plan or task and the new one not a plan itself, sharing an object word (not
    the day, the speaker, the chat or a feeling: merge_words); then either the new one happened on the plan's
    very day ("今天复查了" on the appointment's date), or, once the plan's time has come, it says of the shared
    thing that it got done, in words the status cues do not hold ("空调换好了")."""
    if not pending_open(r) or c.kind.value in _OPEN_KINDS:
        return None
    if not shared or c.facts.status == "cancelled":
        return None
    if cue_attaches(c.raw, _INTENT, shared):
        return None  # "Andrew has plans for a hike in August" says the plan again; it reports nothing done
    if (
        c.time_start is not None
        and r.time_start is not None
        and c.time_start.date() == r.time_start.date()
        and not {c.facts.grain, r.facts.grain} & _COARSE_GRAINS
    ):
        return "the planned day's report"
    # on another day the plan must have a time that has come, and the words must say more: two content
    # words in common, not one girl's name ("Your future family is gonna be so lucky" is no plan to close)
    # and the report comes while the plan is fresh: an outing months later is another outing ("went to a pet
    # store in October" reports no June workshop, "a party in October" no trip in April)
    now = at or c.time_start
    if _report_due(r, now) and len(shared) >= 2 and cue_attaches(c.raw, lx.COMPLETED, shared):
        return "reported done"
    return None


# a change said from the old value to the new one: "会员卡到期日从1月21日顺延到2月17日", "the call moved from
# Tuesday to Thursday"; the old value (a date, a time, a number or a weekday) must be in the old memory
_FROM_TO = re.compile(
    r"从(?P<zh>[^，。；！？从到]{2,14}?)(?:改|顺延|推迟|延期|延|挪|调|提前|换|变)(?:成|到|为)"
    r"|\b(?:moved|moves|changed|changes|pushed|rescheduled|extended|bumped|shifted|switched)\b[\w' ]{0,30}? "
    r"from (?P<en>[\w:., ]{2,24}?) to\b",
    re.IGNORECASE,
)
_WEEKDAY = re.compile(
    r"周[一二三四五六日天]|星期[一二三四五六日天]|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b", re.I
)


def changed_from(new_raw: str, old_text: str) -> str | None:
    """The old value a stated change names as its starting point, when the old memory holds it, or None."""
    for m in _FROM_TO.finditer(new_raw):
        was = (m.group("zh") or m.group("en") or "").strip(" ,.")
        if not (any(ch.isdigit() for ch in was) or _WEEKDAY.fullmatch(was)):
            continue
        if was.lower() in old_text.lower():
            return was
    return None


_SLOT_CUES = dict(lx.SLOTS)


def _change_names_slot(raw: str, slot: str) -> bool:
    """The change words themselves name the slot: "I lost my job", "got laid off", 失业了 change the employer
    whatever company it was (a value the extractor often misses), where "A lot has changed since last time" is
    said of nothing."""
    pattern = _SLOT_CUES.get(slot.split("|", 1)[-1])
    if pattern is None:
        return False
    return any(pattern.search(m.group(0)) for m in _CHANGE_CUE.finditer(raw))


# sayings that hold a change or done word and say no change of anything stored: "it changed John's view on
# helping others", "how they changed Jolene", "this old player still gets the job done", "well done"
_IDIOMS = re.compile(
    r"\b(?:changed?|changes|changing)\s+(?:(?:\w+['’]s|my|his|her|their|our|your)\s+)?"
    r"(?:view|views|mind|minds|life|lives|perspective|outlook|attitude|world|heart)\b"
    r"|\b(?:changed?|changes|changing)\s+(?:me|him|her|them|us|you|[A-Z][a-z]+)\b(?!\s+(?:to|into|from)\b)"
    r"|\b(?:gets?|got|getting)\s+the\s+job\s+done\b|\bwell\s+done\b",
)


def _without_idioms(c: Candidate) -> Candidate:
    """The candidate with the sayings above taken out of its raw words, for the merge's cue words only."""
    raw = _IDIOMS.sub(" ", c.raw)
    return c if raw == c.raw else c.model_copy(update={"raw": raw})


def _kept_both(r: MemoryRecord, blocked: list[str], rule: str) -> Link:
    return Link(target=r.id, type="related", why=f"{rule}, but {'; '.join(blocked)}: both kept")


def decide_merge(
    c: Candidate,
    neighbours: list[Neighbour],
    cfg: WriteConfig,
    *,
    at: datetime | None = None,
    learned_slot: str | None = None,
    learned_slot_of: Callable[[MemoryRecord], str | None] | None = None,
    update_p: Mapping[str, float] | None = None,
    update_threshold: float = 1.0,
    close_p: Mapping[str, float] | None = None,
    close_threshold: float = 1.0,
    moved_p: Mapping[str, float] | None = None,
    moved_threshold: float = 1.0,
    attribute_p: Mapping[str, float] | None = None,
    attribute_threshold: float = 1.0,
    peer_chat: bool = False,
) -> MergeDecision:
    """``at`` is when the new memory was said; ``learned_slot`` the slot model's reading of it (judge/slots.py):
    a rule slot the model does not confirm ("joined a new activist group" is no employer) supersedes nothing.
    ``learned_slot_of`` reads an older memory the same way, asked only of one that shares the rule slot and would
    be superseded: a rule slot the model does not confirm there either is no value of that slot ("switched to
    Blue Cross through my new job" is insurance, not an employer a later "new job is at …" replaces).
    ``update_p`` is the relation model's P(update) per neighbour id (write/relation_judge.py): when no rule
    decides, a neighbour at or above ``update_threshold`` is superseded if identity holds (see
    :func:`_model_update`). ``close_p`` is its P(done) + P(cancel) per pending plan or task: at or above
    ``close_threshold``, a plan whose time has come is closed when no rule decided (:func:`_model_close`).
    ``moved_p`` is its P(update) per pending plan when the new memory says a plan was moved to another time:
    at or above ``moved_threshold`` that plan takes the new time (:func:`_model_moved`). ``attribute_p`` is its
    P(update) per neighbour of the same subject and attribute (residence, employer …; write/relation_judge.py):
    at or above ``attribute_threshold`` the newer value replaces the older one (:func:`_attribute_update`).
    ``peer_chat``: two named people talking. Their narrative turns say "no longer", "again", "love" and "gets
    the job done" of everything; the rules of a habit ended or resumed, a liking replaced and a break-up, and a
    plan's end read below the slot similarity, are for a user's statements to an assistant (on LoCoMo dev they
    made 4 supersedes, all false)."""
    c = _without_idioms(c)
    same_subject = [n for n in neighbours if (n.record.facts.subject or "user") == c.subject]
    same_subject.sort(key=lambda n: -n.similarity)
    # what the assistant booked or set up is the user's plan: the user's "复查了" reports that booking done
    plans_of = same_subject
    if c.subject not in _ASSISTANT:
        plans_of = same_subject + sorted(
            (n for n in neighbours if n.record.facts.subject in _ASSISTANT), key=lambda n: -n.similarity
        )
    change = c.change or bool(_CHANGE_MORE.search(c.raw) or lx.MOVED_TO.search(c.raw))
    cand_anchors = c.facts.anchors()
    cand_dist = _distinguishing(c.facts, c.text)
    lang = c.facts.lang or "en"
    held: Link | None = None  # a supersede a guard stopped: the first such neighbour is linked as related

    for n in same_subject:
        r = n.record
        if c.slot and r.facts.slot == c.slot:
            # without a new value, the change cue must be said of the slot's value or of what both share
            # ("it changed John's view" moves no earlier event of John's)
            slot_words = _value_words(c, r) | topic_terms(c.slot.split(":", 1)[1] if ":" in c.slot else "")
            said_of = _shared_things(c, r, _shared_content(c, r)) | slot_words
            if _new_value(c, r) or (
                c.change and (cue_attaches(c.raw, _CHANGE_CUE, said_of) or _change_names_slot(c.raw, c.slot))
            ):
                blocked = supersede_blockers(c.raw, r.raw, lang)
                base = c.slot.split("|", 1)[-1]
                if (
                    learned_slot is not None
                    and ":" not in base
                    and learned_slot not in _SLOT_FAMILY.get(base, {base})
                ):
                    blocked.append(f"the slot model reads it as {learned_slot}, not {base}")
                theirs = (
                    learned_slot_of(r)
                    if learned_slot_of is not None and not blocked and ":" not in base
                    else None
                )
                if theirs is not None and theirs not in _SLOT_FAMILY.get(base, {base}):
                    blocked.append(f"the slot model reads the older memory as {theirs}, not {base}")
                if not blocked:
                    return Supersede(target=r.id, why=f"newer value for slot {c.slot.split('|', 1)[-1]}")
                held = held or _kept_both(r, blocked, f"the same slot {c.slot.split('|', 1)[-1]}")
                continue
            # the same value said again, not only a similar sentence in the slot: e5 rates unrelated sentences
            # of one slot above the threshold ("joined a nearby church" / "joined a gym", both read as an
            # employer by the cue word), and a merge keeps only the old words — the new fact would be gone
            if n.similarity >= cfg.slot_similarity and _same_value(c, r):
                return Merge(
                    target=r.id,
                    why=f"same value for slot {c.slot.split('|', 1)[-1]}",
                    similarity=n.similarity,
                )

    for n in same_subject:
        # "到期日从1月21日顺延到2月17日" names the old memory's own value as the one changed
        r = n.record
        was = changed_from(c.raw, f"{r.text}\n{r.raw}")
        if was:
            blocked = supersede_blockers(c.raw, r.raw, lang)
            if not blocked:
                return Supersede(target=r.id, why=f"stated change from its value {was}")
            held = held or _kept_both(r, blocked, f"a stated change from {was}")

    for n in plans_of:
        # a plan is identified by its words and its day, not by how close the sentences sound
        r = n.record
        done = _reports_plan_done(c, r, _shared_content(c, r), at)
        if done:
            blocked = supersede_blockers(c.raw, r.raw, lang, people=False)
            if not blocked:
                return Close(target=r.id, why=f"plan done: {done}")
            held = held or _kept_both(r, blocked, f"plan done: {done}")

    for n in neighbours:
        r = n.record
        if _request_fulfilled(c, r):
            blocked = supersede_blockers(c.raw, r.raw, lang, people=False)
            if not blocked:
                return Supersede(target=r.id, why="the assistant did what the user asked")
            held = held or _kept_both(r, blocked, "a request fulfilled")

    for n in [] if peer_chat else neighbours:
        # a partner's memory has the partner as its subject; the speaker's break-up ends it as the partner's
        r = n.record
        if c.subject not in _ASSISTANT and r.facts.subject not in _ASSISTANT and _partner_left(c, r):
            blocked = supersede_blockers(c.raw, r.raw, lang, people=False)
            if not blocked:
                return Supersede(target=r.id, why="the relationship with the partner it names has ended")
            held = held or _kept_both(r, blocked, "a relationship ended")

    for n in [] if peer_chat else plans_of:
        # "done" / "cancelled" must be said of the old plan's thing: "he still gets the job done" closes no
        # plan about music, "用户刚刚通过了一次面试" none about a chat two days before. However the sentences
        # embed: "They called off the Napa offsite" sits at cosine 0.85 from "Our team offsite in Napa is on
        # August 20" — then two things both name, or one at the neighbours' slot similarity
        r = n.record
        status = _status_said(c, r)
        shared = _shared_content(c, r)
        verb = None
        if status is None and pending_open(r) and _own_verb_due(r, at or c.time_start):
            # the plan's own verb said done: the verb is one more thing both name
            verb = _own_verb_done(c, r, _shared_things(c, r, shared))
            status = "done" if verb else None
        if status is None:
            continue
        if not shared or (
            n.similarity < cfg.slot_similarity and len(_shared_things(c, r, shared) - {verb}) + bool(verb) < 2
        ):
            continue
        if _someone_elses(c.raw, shared) and not _someone_elses(r.raw, shared):
            continue  # "Lisa submitted her grant report" closes no plan of the user's own report
        if status == "cancelled" and _over(r, at):
            continue  # "我把今天的提醒取消了" calls off no reminder of a month ago
        blocked = supersede_blockers(c.raw, r.raw, lang, people=False)
        if not blocked:
            if status == "done":
                return Close(target=r.id, why=f"task done ({verb} said done)" if verb else "task done")
            return Supersede(target=r.id, why="task cancelled", cancels=c.facts.status != "cancelled")
        held = held or _kept_both(r, blocked, f"task {status}")

    for n in [] if peer_chat else same_subject:
        # a habit ended is a change of the habit, however far apart the sentences embed; so is a liking
        # replaced by another of the same kind of thing
        r = n.record
        if _liking_replaced(c, r):
            blocked = supersede_blockers(c.raw, r.raw, lang)
            if not blocked:
                return Supersede(target=r.id, why="a newer liking of the same kind of thing")
            held = held or _kept_both(r, blocked, "a liking replaced")
            continue
        if _habit_resumed(c, r):
            blocked = supersede_blockers(c.raw, r.raw, lang)
            if not blocked:
                return Supersede(target=r.id, why="the habit it names, once stopped, is back")
            held = held or _kept_both(r, blocked, "a habit resumed")
            continue
        said = _habit_ended(c, r)
        if said is not None:
            # someone else named in another clause gave the reason ("瑜伽停了，医生让我休息半年"): the person
            # guard reads the clause that says the end
            blocked = supersede_blockers(c.raw, r.raw, lang, people=False)
            blocked += [b for b in supersede_blockers(said, r.raw, lang) if b not in blocked]
            if not blocked:
                return Supersede(target=r.id, why="the habit or liking it names has ended")
            held = held or _kept_both(r, blocked, "a habit ended")
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
        shared = _shared_content(c, r)
        shares_anchor = bool(cand_anchors & r.facts.anchors()) or len(shared) >= 2
        things = _shared_things(c, r, shared)
        # in a peer chat a plan's end is read here, among the neighbours at the slot similarity, as it always was
        status = _status_said(c, r) if peer_chat and c.facts.status in ("done", "cancelled") else None
        if status is not None and shared:
            blocked = supersede_blockers(c.raw, r.raw, lang, people=False)
            if not blocked:
                if status == "done":
                    return Close(target=r.id, why="task done")
                return Supersede(target=r.id, why=f"task {status}")
            held = held or _kept_both(r, blocked, f"task {status}")
            continue
        dated_pair = {r.kind.value, c.kind.value} <= {"plan", "event", "task"}
        # "物业又改时间了，说周四来不了，改成周六下午": the day the plan is moved from is the plan's own, and the
        # change is said of that day
        moved_from = dated_pair and bool(shared) and _names_its_day(c, r)
        if (
            change
            and (shares_anchor or moved_from)
            and (r.kind == c.kind or dated_pair)
            and (cue_attaches(c.raw, _CHANGE_CUE, things) or (moved_from and _CHANGE_CUE.search(c.text)))
        ):
            # a plan's new date is identified by the plan; a changed fact also by whom it is about
            blocked = supersede_blockers(c.raw, r.raw, lang, people=not dated_pair)
            if not blocked:
                return Supersede(
                    target=r.id,
                    why="stated change of an earlier plan"
                    if dated_pair
                    else "stated change of an earlier fact",
                )
            held = held or _kept_both(r, blocked, "a stated change")
            continue
        if (
            polarity_differs
            and {r.kind.value, c.kind.value} <= _LIKING_KINDS
            # the stance word is said of the thing both name: "I don't drink coffee anymore" of coffee
            and cue_attaches(c.raw, _STANCE_CHANGE, shared)
        ):
            # "我喜欢喝咖啡" then "我现在不喝咖啡了": the same object, liked then refused (one is encoded as a
            # preference, the other as a constraint); the newer stance replaces the older one
            blocked = supersede_blockers(c.raw, r.raw, lang)
            if not blocked:
                return Supersede(
                    target=r.id, why="newer statement with the opposite polarity about the same thing"
                )
            held = held or _kept_both(r, blocked, "a changed stance")
    if held is None and moved_p:
        moved = _model_moved(c, plans_of, moved_p, moved_threshold, lang)
        if moved is not None:
            return moved
    if held is None and close_p:
        closed = _model_close(c, plans_of, close_p, close_threshold, at, lang)
        if closed is not None:
            return closed
    if held is None and attribute_p:
        replaced = _attribute_update(c, same_subject, attribute_p, attribute_threshold, lang)
        if replaced is not None:
            return replaced
    if held is None and update_p:
        return _model_update(c, same_subject, update_p, update_threshold, lang) or Add()
    return held or Add()


def _model_moved(
    c: Candidate, plans_of: list[Neighbour], moved_p: Mapping[str, float], threshold: float, lang: str
) -> MergeDecision | None:
    """The new memory says a plan was moved to another time ("Priya pushed our 1:1 to Thursday 4pm",
    "客户把见面改到周五了") and the relation model reads one pending plan as the one moved: it takes the new
    time. Identity as for a rule's reschedule: a dated plan on another day than the new one, something both
    name beyond the subject (a name counts: the 1:1 with Priya is moved by Priya), and no guard."""
    if c.time_start is None or c.kind.value not in ("plan", "event"):
        return None
    for n in sorted(plans_of, key=lambda n: -moved_p.get(n.record.id, 0.0)):
        r = n.record
        p = moved_p.get(r.id, 0.0)
        if p < threshold:
            break
        if not pending_open(r) or r.time_start is None or r.time_start == c.time_start:
            continue
        names = {c.subject, r.facts.subject or ""}
        if not (
            object_terms(c.text, names) & object_terms(r.text, names) or c.facts.anchors() & r.facts.anchors()
        ):
            continue
        blocked = supersede_blockers(c.raw, r.raw, lang, people=False)
        if blocked:
            return _kept_both(r, blocked, "the plan moved")
        return Supersede(target=r.id, why=f"the plan moved to another time (p={p:.2f})")
    return None


def _model_close(
    c: Candidate,
    plans_of: list[Neighbour],
    close_p: Mapping[str, float],
    threshold: float,
    at: datetime | None,
    lang: str,
) -> MergeDecision | None:
    """The relation model reads the new memory as the pending plan's or task's end (done or cancelled) where
    no cue word says it ("Greg's crew finished on Saturday" after "the renovation starts on October 21st").
    As for the rules' report of a plan done: the new memory is no plan itself and says no intent about the
    shared thing, the plan's time has come and is fresh (within the report window), a thing both statements
    name, and no guard (other ids, a question; not another person: a plan's report often quotes one)."""
    now = at or c.time_start
    if c.kind.value in _OPEN_KINDS or now is None:
        return None
    for n in sorted(plans_of, key=lambda n: -close_p.get(n.record.id, 0.0)):
        r = n.record
        p = close_p.get(r.id, 0.0)
        if p < threshold:
            break
        # a dated plan only (_report_due): the model read "can't wait to try the food there" as the end of an
        # undated "planning to try local cuisines" (on the whole dev conversations 32 of 33 such closes false)
        if not pending_open(r) or not _report_due(r, now):
            continue
        shared = _shared_content(c, r)
        if not shared or cue_attaches(c.raw, _INTENT, shared):
            continue
        if _INTENT.search(c.raw) and not _STATUS_CUE.search(c.raw):
            # a turn that plans something of its own ("planning to check out this cozy cafe") and says nothing
            # done or called off is the next plan, not the end of this one
            continue
        blocked = supersede_blockers(c.raw, r.raw, lang, people=False)
        if blocked:
            return _kept_both(r, blocked, "the relation model reads the plan closed")
        why = f"the relation model reads the plan closed (p={p:.2f})"
        # a cancellation voids the plan; anything else the model reads as its end is the plan done
        if c.facts.status == "cancelled":
            return Supersede(target=r.id, why=why)
        return Close(target=r.id, why=why)
    return None


def _attribute_update(
    c: Candidate, same_subject: list[Neighbour], attribute_p: Mapping[str, float], threshold: float, lang: str
) -> MergeDecision | None:
    """The relation model reads an update of a neighbour that holds the same attribute of the same subject (the
    caller asked only about those): the newer value replaces the older one. The attribute is the identity, so
    no shared word is asked ("works as a line cook" / "has been a barista at Blue Bottle"); the guards are."""
    best = max(
        (n for n in same_subject if attribute_p.get(n.record.id, 0.0) >= threshold),
        key=lambda n: attribute_p[n.record.id],
        default=None,
    )
    if best is None:
        return None
    r = best.record
    blocked = supersede_blockers(c.raw, r.raw, lang)
    other = attribute_said_of_other(c.raw, lang)
    if other and not attribute_said_of_other(r.raw, lang):
        blocked.append(f"the new value is {other}'s")
    if blocked:
        return _kept_both(r, blocked, "a newer value of the same attribute")
    return Supersede(target=r.id, why=f"a newer value of the same attribute (p={attribute_p[r.id]:.2f})")


def _model_update(
    c: Candidate, same_subject: list[Neighbour], update_p: Mapping[str, float], threshold: float, lang: str
) -> MergeDecision | None:
    """The relation model reads the pair as an update and identity holds: the same subject (the caller's
    neighbours are), a thing both statements name in their own sentences (not the raw turns: a vocative or
    a caption in both is no shared topic), and no guard (another person, other ids, a question)."""
    best = max(
        (n for n in same_subject if update_p.get(n.record.id, 0.0) >= threshold),
        key=lambda n: update_p[n.record.id],
        default=None,
    )
    if best is None:
        return None
    r = best.record
    if not _shared_content(c, r):
        return None
    blocked = supersede_blockers(c.raw, r.raw, lang)
    if blocked:
        return _kept_both(r, blocked, "the relation model reads an update")
    return Supersede(target=r.id, why=f"the relation model reads an update (p={update_p[r.id]:.2f})")

"""The offline rule encoder: one clean canonical sentence plus structured fields, no model needed.

- the subject is named (the speaker's ``name``, else 用户 / the user) instead of 我 / I;
- relative times are resolved against the message time and written into the text as ISO dates;
- kind, negation, status, entities, slot and priority are filled from the shared lexicon.
"""

from __future__ import annotations

import re
from datetime import datetime

from memscribe.decisions import Candidate, FilterDecision, TriggerResult
from memscribe.facts import Facts
from memscribe.lang import lexicon as lx
from memscribe.lang.attachments import render_attachments
from memscribe.lang.clauses import Sentence
from memscribe.lang.dropped_subject import restore_dropped_subject
from memscribe.lang.entities import extract_entities
from memscribe.lang.subject import ZH_MY_RELATION, third_party
from memscribe.lang.text import detect_lang
from memscribe.lang.timeparse import TimeMention, iso, primary_time, resolve_times, rewrite_with_absolute
from memscribe.models import Kind, Layer

__all__ = [
    "RuleEncoder",
    "extract_entities",
    "name_subject",
    "says_nothing_of_speaker",
    "status_of",
]  # extract_entities re-exported from lang

_SEMANTIC = {Kind.preference, Kind.constraint, Kind.profile, Kind.fact, Kind.relation, Kind.instruction}
# Common base-form verbs that take an -s after a third-person subject ("the user live" -> "lives").
# A closed list: inflecting anything else ("totally" -> "totallies") does more harm than good.
_EN_VERBS = frozenset(
    [
        "live",
        "work",
        "love",
        "like",
        "hate",
        "prefer",
        "enjoy",
        "want",
        "need",
        "plan",
        "go",
        "deploy",
        "run",
        "eat",
        "drink",
        "play",
        "study",
        "teach",
        "own",
        "know",
        "think",
        "feel",
        "believe",
        "hope",
        "wish",
        "miss",
        "visit",
        "travel",
        "drive",
        "ride",
        "take",
        "make",
        "keep",
        "use",
        "buy",
        "sell",
        "read",
        "write",
        "watch",
        "listen",
        "cook",
        "bake",
        "paint",
        "draw",
        "sing",
        "dance",
        "swim",
        "hike",
        "walk",
        "climb",
        "collect",
        "volunteer",
        "care",
        "help",
        "agree",
        "remember",
        "forget",
        "try",
        "wear",
        "speak",
        "call",
        "text",
        "meet",
        "see",
        "stay",
        "sleep",
        "wake",
        "start",
        "finish",
        "get",
        "have",
        "do",
        "say",
        "tell",
        "look",
        "seem",
        "appreciate",
        "admire",
        "support",
        "adore",
        "dislike",
        "avoid",
        "mean",
        "find",
        "struggle",
        "practice",
        "exercise",
        "train",
        "attend",
        "host",
        "join",
        "lead",
        "manage",
        "handle",
        "spend",
        "save",
        "earn",
        "pay",
        "owe",
        "rent",
        "share",
        "value",
        "follow",
        "organize",
        "prepare",
    ]
)
_EN_ADVERB = frozenset(
    [
        "always",
        "usually",
        "often",
        "never",
        "really",
        "also",
        "just",
        "still",
        "sometimes",
        "normally",
        "generally",
        "rarely",
        "actually",
        "totally",
        "definitely",
        "truly",
        "honestly",
        "absolutely",
        "mostly",
        "typically",
        "now",
        "only",
        "currently",
        "mainly",
        "seldom",
        "hardly",
        "barely",
        "occasionally",
        "regularly",
        "finally",
    ]
)
_EN_I_VERB = re.compile(r"\b[Ii]((?:\s+(?:" + "|".join(sorted(_EN_ADVERB)) + r"))?)\s+([a-z]+)\b")
# "I wanna" / "I gotta" / "I'm gonna": written out, so the verb can agree with the named subject
_COLLOQUIAL = {"wanna": "want to", "gotta": "have to", "gonna": "going to"}
_EN_COLLOQUIAL = re.compile(r"(?<=\b[Ii] )(wanna|gotta)\b|(?<=\b[Ii]['’]m )(gonna)\b")
_EN_I = re.compile(
    # "with an i", "the letter I": a letter after an article is no pronoun
    r"(?<!\ban )(?<!\ba )(?<!\bthe )(?<!\bletter )"
    r"\bI(?: don['’]t| do not| haven['’]t|['’]m| am|['’]ve| have|['’]ll|['’]d)?\b|\bme\b|\bmy\b|\bmine\b|\bmyself\b",
    re.IGNORECASE,
)
# 我 as a pronoun, not inside a word (自我 self-, 忘我, 本我, 小我)
_ZH_I = re.compile(r"(?<![自忘本小])我(?!们)")
_PUNCT_END = re.compile(r"[。！？.!?…]$")
_PAST = re.compile(
    r"了|过|刚刚|\b(?:went|was|were|did|had|got|met|saw|ate|bought|visited|took|came|made|spent|finished|\w+ed)\b",
    re.IGNORECASE,
)
_REMOVED = re.compile(r"\[已移除[^\]]{0,12}\]|\[[a-z ]{1,24} removed\]")
_RECURRING = re.compile(
    r"(?:周末|周[一二三四五六日天]|星期[一二三四五六日天]|礼拜[一二三四五六日天]|晚上|早上|下午|上午)"
    r"|(?:on\s+)?(?:the\s+)?(?:weekends?|mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?)",
    re.IGNORECASE,
)


# A Chinese sentence that opens with an adverb or verb dropped its subject ("已为用户预约好…", "刚搬到杭州"):
# the subject goes in front as it would have been said; anything else is marked as said by the subject.
_ZH_SUBJECTLESS = re.compile(
    r"^(?:已经|已|刚刚|刚|正在|在|会|将|要|想|打算|准备|还|也|都|又|一直|经常|常|每天|每周|帮|替|给|为|把|"
    r"去|来|回|搬|住|换|买|订|约|预约|预订|取消|改|报名|参加|开始|决定|喜欢|讨厌|不|没)"
)


# ... and one that opens with a time, then a verb of intent or change, dropped it too ("2026-04-01想和…",
# "今天刚搬完家"), even when 我 comes later in the sentence ("今天想聊聊我的计划")
_ZH_TIME_THEN_VERB = re.compile(
    r"^((?:\d{4}-\d{2}(?:-\d{2})?(?:[ T]\d{2}:\d{2})?|今天|昨天|明天|最近|这周|周末)[，,]?)"
    r"(?=想|要|打算|准备|刚|已经|正在|开始|决定)"
)


_ASSISTANT_NAMES = frozenset({"助手", "the assistant"})

# "And Ruby has a science fair." / "对了，我下周出差": the connective ties the turn to the one before it, which the
# memory does not hold, so it is dropped ("So far, so good" and "But ..." keep theirs: they carry meaning)
_EN_CONNECTIVE = re.compile(
    r"^(?:oh,?\s+)?(?:and|also|plus)\b,?\s+(?=\S+\s+\S)"
    # a discourse marker before the speaker's own clause ("actually I've started …", "Well, my flight …"): it
    # says how the turn follows the last one, not what holds ("So far, so good" keeps its "So")
    r"|^(?:(?:oh|well|actually|anyway|anyways|btw|by the way|ok|okay|so|um|uh|hmm|yeah|fyi|update|heads up)"
    r"\b[,:!]?\s+)+(?=(?:I|I'm|I've|I'll|I'd|we|we're|we've|my|our)\b)",
    re.I,
)
_ZH_CONNECTIVE = re.compile(r"^(?:对了|还有|另外|此外|而且)[，,]\s*|^(?:另外|此外|而且)(?=\S{4})")


def _drop_opening_connective(body: str, lang: str) -> str:
    rx = _ZH_CONNECTIVE if lang == "zh" else _EN_CONNECTIVE
    out = rx.sub("", body, count=1)
    if out is not body and lang != "zh" and out[:1].islower() and not out.startswith(("i ", "i'")):
        out = out[:1].upper() + out[1:]
    return out


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'“])|(?<=[。！？])")


def _first_sentence(text: str) -> str:
    """Whose words a memory holds is told by its opening: "We enjoy hiking. Melanie has been reading …" still
    needs "Melanie said:" in front."""
    return _SENTENCE_END.split(text, maxsplit=1)[0]


def _said(signals: frozenset[str], lang: str) -> str:
    if "suggestion" in signals:
        return "建议" if lang == "zh" else "suggested"
    if "confirmed" in signals:
        return "确认" if lang == "zh" else "confirmed"
    return "说" if lang == "zh" else "said"


def _third_person(verb: str) -> str:
    v = verb.lower()
    if v == "have":
        return "has"
    if v == "do":
        return "does"
    if v == "go":
        return "goes"
    if re.search(r"(s|sh|ch|x|z|o)$", v):
        return verb + "es"
    if re.search(r"[^aeiou]y$", v):
        return verb[:-1] + "ies"
    return verb + "s"


_SECOND_PERSON = {"zh": re.compile(r"[你您]"), "en": re.compile(r"\byou\b|\byour\b", re.IGNORECASE)}
_FIRST_PERSON = {
    "zh": re.compile(r"我"),
    "en": re.compile(r"\b(?:I|I'm|I've|I'll|I'd|me|my|mine|we|our|us)\b", re.IGNORECASE),
}


def says_nothing_of_speaker(sentence: Sentence, lang: str) -> bool:
    """A pleasantry, or a question (as the splitter read it) about the listener with no word about the speaker."""
    if lx.PLEASANTRY.match(sentence.text):
        return True
    key = "zh" if lang == "zh" else "en"
    return (
        sentence.question
        and bool(_SECOND_PERSON[key].search(sentence.text))
        and not _FIRST_PERSON[key].search(sentence.text)
    )


# an auxiliary or modal right before "I" (a question's inversion): the verb after "I" keeps its bare form
_AUX_BEFORE = re.compile(
    r"\b(?:should|would|could|can|will|shall|may|might|must|do|does|did|am|was|were|have|has|had)\s+$", re.I
)


def name_subject(text: str, subject: str, lang: str) -> str:
    """我 / I -> the subject, keeping the sentence grammatical enough for reading and retrieval."""
    if lang == "zh":
        return _ZH_I.sub(subject, ZH_MY_RELATION.sub(f"{subject}的", text))
    possessive = subject + ("'" if subject.endswith("s") else "'s")
    fixed = {
        "i don't": f"{subject} doesn't",
        "i do not": f"{subject} does not",
        "i haven't": f"{subject} hasn't",
        "i'm": f"{subject} is",
        "i am": f"{subject} is",
        "i've": f"{subject} has",
        "i have": f"{subject} has",
        "i'll": f"{subject} will",
        "i'd": f"{subject} would",
        "i": subject,
        "me": subject,
        "my": possessive,
        "mine": possessive,
        "myself": "themselves",
    }

    def repl(m: re.Match[str]) -> str:
        return fixed.get(m.group(0).lower().replace("’", "'"), m.group(0))

    def agree(m: re.Match[str]) -> str:
        adv, verb = m.group(1) or "", m.group(2)
        if verb.lower() not in _EN_VERBS or _AUX_BEFORE.search(m.string, 0, m.start()):
            return m.group(
                0
            )  # "should I get", "did I tell", "to let me know": the verb after an auxiliary stays bare
        return f"I{adv} {_third_person(verb)}"

    # the verb agrees only where "I" is the subject: "I get" -> "Caroline gets", but "helps me get" ->
    # "helps Caroline get" (an object takes no -s)
    spelled = _EN_COLLOQUIAL.sub(lambda m: _COLLOQUIAL[(m.group(1) or m.group(2)).lower()], text)
    agreed = _EN_I_VERB.sub(agree, spelled)
    return _EN_I.sub(repl, agreed)


# the listener named: in a two-person chat "you" is the other speaker; in the assistant's mouth, the user
_EN_YOU_FIXED = {
    "you're": "{w} is",
    "you are": "{w} is",
    "you were": "{w} was",
    "you've": "{w} has",
    "you have": "{w} has",
    "you don't": "{w} doesn't",
    "you do not": "{w} does not",
    "you haven't": "{w} hasn't",
    "you'll": "{w} will",
    "you'd": "{w} would",
    "your": "{p}",
    "yours": "{p}",
    "yourself": "themselves",
    "you": "{w}",
}
_EN_YOU = re.compile(
    r"\byou(?:['’]re| are| were|['’]ve| have| don['’]t| do not| haven['’]t|['’]ll|['’]d)\b"
    r"|\byourself\b|\byours\b|\byour\b|\byou\b",
    re.IGNORECASE,
)
_EN_YOU_VERB = re.compile(r"\b[Yy]ou((?:\s+(?:" + "|".join(sorted(_EN_ADVERB)) + r"))?)\s+([a-z]+)\b")
# "you" after these is an object or inverted ("made you want", "do you like"): its verb takes no -s
_EN_NOT_SUBJECT_BEFORE = frozenset(
    [
        "do",
        "does",
        "did",
        "don't",
        "doesn't",
        "didn't",
        "can",
        "could",
        "will",
        "would",
        "should",
        "shall",
        "may",
        "might",
        "must",
        "to",
        "let",
        "lets",
        "made",
        "make",
        "makes",
        "help",
        "helps",
        "helped",
        "see",
        "saw",
        "watch",
        "watched",
        "hear",
        "heard",
        "have",
        "has",
        "had",
        "got",
        "get",
        "gets",
        "want",
        "wanted",
    ]
)
# "you know" / "you see" as a filler between commas, and the plural 你们 (the listener's family or team), are
# not the listener
_EN_YOU_FILLER = re.compile(r"(?:^|,)\s*you (?:know|see)\s*(?:,|(?=[.!?]|$))", re.IGNORECASE)
_ZH_YOU = re.compile(r"(?:您|你)(?!们|知道吗|说呢)")


def name_addressee(text: str, addressee: str, lang: str) -> str:
    """你 / you -> the listener, with the verb agreeing where "you" is the subject ("you like" -> "Mel likes")."""
    if lang == "zh":
        return _ZH_YOU.sub(addressee, text)
    possessive = addressee + ("'" if addressee.endswith("s") else "'s")
    text = _EN_YOU_FILLER.sub(
        lambda m: "," if m.group(0).startswith(",") and m.group(0).endswith(",") else "", text
    )
    text = text.strip()

    def agree(m: re.Match[str]) -> str:
        adv, verb = m.group(1) or "", m.group(2)
        before = re.findall(r"[A-Za-z']+", text[: m.start()])
        if verb.lower() not in _EN_VERBS or (before and before[-1].lower() in _EN_NOT_SUBJECT_BEFORE):
            return m.group(0)
        return f"{m.group(0)[:3]}{adv} {_third_person(verb)}"

    agreed = _EN_YOU_VERB.sub(agree, text)

    def repl(m: re.Match[str]) -> str:
        key = re.sub(r"\s+", " ", m.group(0).lower().replace("’", "'"))
        out = _EN_YOU_FIXED.get(key, m.group(0)).format(w=addressee, p=possessive)
        at_start = m.start() == 0 or agreed[: m.start()].rstrip()[-1:] in (".", "!", "?")
        return out[:1].upper() + out[1:] if at_start else out

    return _EN_YOU.sub(repl, agreed)


def _negated(text: str, lang: str) -> bool:
    if lang == "zh":
        return bool(lx.NEGATION_ZH.search(lx.NEGATION_IDIOMS_ZH.sub("", text)))
    return bool(lx.NEGATION_EN.search(lx.NEGATION_IDIOMS_EN.sub("", text)))


# how the speaker is, said in the present: "I'm feeling really down today", "I feel great today", "我今天心情不好",
# "今天有点累". Said of the day it is said on, with no plan word, it is a state now, not a plan for later today
_PRESENT_STATE = re.compile(
    r"\b(?:I'm|I am|I feel|I've been feeling|feeling|feel|am|is|are)\s+"
    r"(?:(?:really|so|very|a bit|a little|kind of|pretty|quite|super|totally|feeling)\s+)*"
    r"(?:down|sad|low|blue|tired|exhausted|sick|ill|unwell|stressed|anxious|nervous|lonely|upset|angry|"
    r"happy|great|good|fine|okay|ok|better|worse|awful|terrible|excited|grateful|bored|sleepy|overwhelmed)\b"
    r"|(?:心情|情绪|状态|感觉|身体)(?:很|有点|特别|不太|不|挺|真|好)?(?:好|差|糟|不错|低落|不好|不舒服)"
    r"|(?:有点|很|特别|挺|好|真|太)(?:累|困|烦|难过|伤心|郁闷|低落|沮丧|焦虑|开心|高兴|不舒服|难受)",
    re.IGNORECASE,
)


def _states_today(text: str, tm: TimeMention, at: datetime) -> bool:
    """A present state of the speaker said of the day it is said on, with no plan word ("going to", 打算)."""
    return (
        tm.time_start.date() == at.date()
        and tm.grain == "day"
        and bool(_PRESENT_STATE.search(text))
        and not lx.PLAN.search(text)
    )


def _ahead(text: str, tm: TimeMention | None, at: datetime) -> bool:
    """A single clock time still ahead, said relative to now and not in the past tense: "I have a dentist
    appointment at 3pm on Friday" is a plan, though "I have a" reads as a profile cue ("I have a daughter who
    starts school next month" keeps its profile: no clock)."""
    return (
        tm is not None
        and tm.recurrence is None
        and tm.granularity in ("hour", "minute")
        and tm.relative
        and tm.time_start > at
        and not _PAST.search(text)
    )


def _kind(
    sig: frozenset[str],
    text: str,
    tm: TimeMention | None,
    at: datetime,
    conversational: bool,
    negated: bool = False,
) -> Kind:
    ruled = tm is not None and tm.recurrence is not None
    if "complaint" in sig:
        return Kind.complaint
    if "milestone" in sig and lx.TASK.search(text):
        return Kind.task
    if lx.ALLERGY.search(text) and not conversational:
        return Kind.constraint  # an allergy governs what may be served, whatever liking words stand beside it
    if "preference" in sig:
        return Kind.preference
    if "constraint" in sig and not conversational:
        return Kind.constraint
    if ruled and negated and not conversational:
        # a standing rule of what the speaker does not do (我晚上十点以后不接电话, 我周末上午不开会, I never take
        # calls after 10pm): it governs what may be booked or sent, like a "don't"
        return Kind.constraint
    if "profile" in sig and not _ahead(text, tm, at):
        return Kind.profile
    if tm is not None and tm.recurrence is None:  # a standing rule (每周四 / on Thursdays) is not an event
        if _states_today(text, tm, at):
            return Kind.event if conversational else Kind.fact
        # "I went hiking with Tom today": today's date, but it already happened
        done = tm.time_start.date() <= at.date() and _PAST.search(text)
        return Kind.plan if tm.time_end >= at and not done else Kind.event
    if lx.ONGOING.search(text) and not ruled and not lx.DONE.search(text):
        # work under way or an outing signed up for, with no date: open until a report closes it
        return Kind.plan
    if (
        "plan" in sig and not ruled
    ):  # a recurring meeting (每周三上午十点开例会) is a schedule rule, no one-off plan
        return Kind.plan
    if lx.TASK.search(text) and not conversational:
        return Kind.task
    return Kind.event if conversational else Kind.fact


def status_of(kind: Kind, text: str) -> str | None:
    """The status a statement of this kind has as said: cancelled, done, pending (an open plan or task) or none."""
    if kind not in (Kind.task, Kind.plan, Kind.event):
        # "洗牙取消了" / "had to cancel the spa day" name no time, so the kind model may call them facts; the
        # cancellation is still what they say
        return "cancelled" if lx.CANCELLED_ANY_KIND.search(text) else None
    if lx.CANCELLED.search(text):
        return "cancelled"
    if lx.DONE.search(text):
        return "done"
    return "pending" if kind in (Kind.task, Kind.plan) else None


def _slot(
    subject: str, text: str, kind: Kind, ents: dict[str, list[str]], change: bool
) -> tuple[str | None, str | None]:
    for name, pattern in lx.SLOTS:
        if pattern.search(text):
            value = (ents["places"] or ents["orgs"] or ents["other"] or [None])[-1]
            return f"{subject}|{name}", value
    if change and kind in (Kind.plan, Kind.event, Kind.task):
        anchor = (ents["ids"] or ents["places"] or ents["orgs"] or ents["people"] or ents["other"] or [None])[
            0
        ]
        if anchor:
            return f"{subject}|{kind.value}:{anchor}", None
    return None, None


class RuleEncoder:
    name = "rules"

    def encode(
        self,
        text: str,
        *,
        at: datetime,
        speaker: str | None,
        trig: TriggerResult,
        decision: FilterDecision,
        sentences: list[Sentence],
        conversational: bool,
        addressee: str | None = None,
    ) -> Candidate:
        lang = detect_lang(text)
        subject = speaker or ("用户" if lang == "zh" else "the user")
        said = [s for s in sentences if s.informative] if conversational else list(sentences)
        # greetings, thanks and questions about the listener ("早上好，朋友。", "你喜欢看电视剧吗？") say
        # nothing about the speaker: the memory keeps the rest of the turn
        said = [s for s in said if not says_nothing_of_speaker(s, lang)] or said
        # "Been reading that book …" dropped its "I": put back, the subject rewriting names the speaker
        body_sents = [
            restore_dropped_subject(s.text) if lang == "en" and not s.question else s.text for s in said
        ]
        # a sentence that only carried a removed sensitive value ("我手机号是[已移除手机号]") says nothing now
        body_sents = [b for b in body_sents if not _REMOVED.search(b)] or body_sents
        sep = "" if lang == "zh" else " "
        body = _drop_opening_connective(sep.join(body_sents).strip(), lang) or text.strip()
        # "[shares a photo: …]" is what the speaker did: "I shared a photo of …"
        body = render_attachments(body, lang)
        # "我表哥在南京上班" is about the cousin: the slot is the cousin's, never the speaker's own
        about = third_party(body_sents[0], subject, lang) if body_sents else None
        mentions = resolve_times(body, at)
        if trig.signals & {"habit", "preference"}:
            # "我喜欢周末去钓鱼" / "I deploy on Thursday": a recurring day, not one date to pin down (a mention the
            # time rules already typed as a recurrence keeps its rule)
            mentions = [m for m in mentions if m.recurrence or not _RECURRING.fullmatch(m.text.strip())]
        tm = primary_time(mentions, body)
        canonical = rewrite_with_absolute(body, mentions) if mentions else body
        canonical = name_subject(canonical, subject, lang)
        if addressee:
            canonical = name_addressee(canonical, addressee, lang)
        if lang == "en" and canonical.startswith(subject) and subject[:1].islower():
            canonical = subject[:1].upper() + canonical[1:]  # "the assistant booked …" opens a sentence
        if not _PUNCT_END.search(canonical):
            canonical += "。" if lang == "zh" else "."
        if lang == "zh":
            canonical = _ZH_TIME_THEN_VERB.sub(lambda m: f"{m.group(1)}{subject}", canonical, count=1)
        if subject.lower() not in _first_sentence(canonical).lower():
            # no 我 / I to rewrite ("去成都的航班改签了", "We moved to Denver"): say whose memory it is, as
            # reported speech rather than a transcript's "Name:" line. A zh sentence that dropped its subject
            # gets it back; otherwise the report is needed only where more than one voice fills the memory (a
            # peer chat, the assistant's words): in a user's own chat with an assistant, "Greg's crew finished
            # on Saturday" is the user's and needs no "The user said:" in front
            reported = conversational or subject in _ASSISTANT_NAMES
            if lang == "zh" and _ZH_SUBJECTLESS.match(canonical):
                canonical = f"{subject}{canonical}"
            elif reported:
                canonical = (
                    f"{subject}{_said(trig.signals, lang)}：{canonical}"
                    if lang == "zh"
                    else f"{subject[0].upper()}{subject[1:]} {_said(trig.signals, lang)}: {canonical}"
                )
        sig = trig.signals
        ents = extract_entities(text, lang)
        negated = _negated(body, lang)
        kind = _kind(sig, body, tm, at, conversational, negated)
        if decision.route == "working":
            layer = Layer.working
        else:
            layer = Layer.semantic if kind in _SEMANTIC else Layer.episodic
        change = "change" in sig
        slot, value = _slot(about or subject, body, kind, ents, change)
        facts = Facts(
            subject=about or subject,
            lang=lang,
            status=status_of(kind, body),
            negated=negated,
            slot=slot,
            value=value,
            # time_start is a datetime: a day-grain time is that day's 00:00 with grain "day"; a recurrence's
            # time_start is its first occurrence and "recurrence" its RFC 5545 rule
            time=iso(tm.time_start, tm.granularity) if tm is not None else None,
            time_text=tm.text if tm is not None else None,
            grain=tm.granularity if tm is not None else None,
            recurrence=(tm.recurrence or None) if tm is not None else None,
            ids=tuple(ents["ids"]),
            amounts=tuple(ents["amounts"]),
            places=tuple(ents["places"]),
            people=tuple(ents["people"]),
            orgs=tuple(ents["orgs"]),
            priority="high" if sig & {"explicit", "milestone", "negative"} else "normal",
        )
        entities = [e for k in ("ids", "people", "places", "orgs", "other", "amounts") for e in ents[k]]
        if tm is not None:
            entities.append(iso(tm.time_start, tm.granularity))
        return Candidate(
            text=canonical,
            raw=text,
            kind=kind,
            layer=layer,
            facts=facts,
            entities=tuple(dict.fromkeys(entities)),
            time_start=tm.time_start if tm else None,
            time_end=tm.time_end if tm else None,
            importance=decision.importance,
            timeliness=decision.timeliness,
            confidence=1.0,
            change=change,
            exception=bool(lx.EXCEPTION.search(body)),
            encoder=self.name,
            reasons=decision.reasons,
        )

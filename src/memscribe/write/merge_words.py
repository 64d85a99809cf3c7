"""Which words two memories share that name the same *thing*, and whether a cue word is said of that thing.

The merge rules (``write/merge.py``) close a plan, apply a stated change or retract a stance only when the
two memories are about one object. Measured on the dev chats (issue #15, data/labelled/merge/), words that
two unrelated memories share anyway made most of the false supersedes left after session 6:

- the day itself ("2023-04-29" in "the user is feeling down on 2023-04-29" and "a painting was selected for
  2023-04-29's exhibition"): a date says *when*, not *what*; the same-day rule already asks for the day;
- who speaks (用户, the user, the speaker's own name): every memory of a user holds them;
- the conversation itself (聊天, 再见, "back to chat", "[shares a photo: …]"): a farewell "see you on
  04-29" and that day's "the chat was fun" share "chat", but neither is a plan;
- how it felt (great, 开心, amazing): two outings that were both "amazing" are still two outings.

And a cue word must be said of the thing the memories share, in the same clause: "A lot has changed since
last time. I'm really enjoying my new job" changes nothing in particular; "he still gets the job done"
completes no plan of the old memory; "the closure moves to 21-26 October" moves the closure.

Pure functions; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from memscribe.lang import lexicon as lx
from memscribe.lang.attachments import CAPTION_SENTENCE
from memscribe.lang.text import keyword_terms
from memscribe.lang.timeparse_en import MONTHS as _MONTHS_FULL
from memscribe.lang.timeparse_en import WEEKDAYS as _WDS

__all__ = ["SOFT", "TIME_WORDS", "cue_attaches", "object_terms", "topic_terms"]


def _words(spaced: str) -> frozenset[str]:
    return frozenset(spaced.split())


TIME_WORDS = frozenset((*_MONTHS_FULL, *(m[:3] for m in _MONTHS_FULL), "sept", *_WDS)) | _words(
    "today tomorrow yesterday tonight week weekend month year am pm morning afternoon "
    "evening night user lately recently now later soon 今天 明天 昨天 后天 前天 大后天 今晚 明晚 昨晚 上周 下周 这周 "
    "本周 周末 上个月 下个月 这个月 今年 明年 去年 早上 上午 中午 下午 晚上 最近 现在 以后 之前 之后 时候 那天 当天 这两天"
)


def topic_terms(text: str) -> set[str]:
    return set(_topic_terms(text))


@lru_cache(maxsize=8192)
def _topic_terms(text: str) -> frozenset[str]:
    # once per text: a write compares its statement with each neighbour, and the same stored memories come
    # back as neighbours of one write after another
    return frozenset(
        t for t in keyword_terms(text) if len(t) >= 2 and not t.isdigit() and t not in TIME_WORDS
    )


# Words that change how something is said, not what: a paraphrase may swap them freely.
SOFT = _words(
    "喜欢 爱 爱喝 爱吃 爱看 就 平时 经常 常常 非常 很 真 特别 一般 通常 总是 比较 还是 一直 都 也 超 挺 always usually really love "
    "loves like likes enjoy enjoys adore prefer prefers just also very so mostly often "
    "generally typically actually truly quite pretty totally absolutely am is are was be "
    "being enjoying enjoyed loving loved liked liking"
)

# who is speaking and to whom: every memory of one user holds these
_PARTIES = _words("用户 助手 ai 伴侣 你 我 我们 user users assistant companion")
# the conversation itself: greetings, farewells, "back to chat", LoCoMo's "[shares a photo: …]"
_CONVERSATION = _words(
    "聊天 聊 聊聊 再见 见 下次 分享 照片 图片 打招呼 问候 chat chats chatting chatted talk talks talking talked "
    "conversation share shares sharing shared photo photos picture pictures pic pics see "
    "seeing hey hi hello bye again back"
)
# how it felt: two outings that were both amazing are still two outings
_FEELING = _words(
    "开心 高兴 愉快 很棒 不错 好 棒 感动 有趣 有意思 心情 感觉 感到 great good awesome amazing cool fun nice happy "
    "excited exciting wonderful fantastic incredible glad feel feeling feels felt lovely "
    "super crazy wild"
)
# verbs and nouns of any sentence: "took care of the dogs" and "took the pups to the park" share no thing
_GENERIC = _words(
    "take took taking taken make made making get got getting go going went gone do did doing "
    "done have had having come came coming give gave put keep kept let thing things stuff "
    "lot lots way time times life everything something anything much 可以 希望 觉得 知道 一些 一下 事情 东西 时间 有点 还有 因为 所以 然后 已经 一个 这个 那个 "
    "有些 一点 起来 但是 我会 自己 没有 什么 怎么 真的 应该 需要"
)
_NOT_OBJECT = _PARTIES | _CONVERSATION | _FEELING | _GENERIC


# an image caption a chat attaches ("[shares a photo: a photography of a group of dogs]") describes the
# picture, not what the speaker says
_CAPTION = re.compile(
    r"\[(?:shares|sharing|shared|sends|sent)\b[^\]]*\]|"
    + CAPTION_SENTENCE.pattern
    + r"|[^。！？]*分享了(?:一张|一段)[^。！？]*[。！？]?",
    re.IGNORECASE,
)


# the report frame the encoder puts in front ("The assistant confirmed: …", "Melanie said: …", "用户说：…") is how
# the memory is told, not what it is about: two confirmations share no topic through "confirmed"
_REPORT_FRAME = re.compile(
    r"^[^:：]{1,40}?\s(?:said|confirmed|suggested):\s*|^[^:：]{1,12}?(?:说|确认|建议)[：:]\s*", re.I
)


# a number with its unit of time ("22日", "7点", "9点多", "10:00"): cut out before segmenting, or its unit
# joins the next character into a word two date ranges share ("10月22日至…" and "1月15日至…" both held "日至")
_NUMBER_UNIT = re.compile(r"(?<![A-Za-z0-9])\d+(?:[年月日号点时分秒]|[:：./-]\d+)*[多半]?")


# a verb with its resultative 完 before the object is the verb and the object: "拔完牙" names 拔牙 as
# "预约拔牙" does, "补完数据" 补数据 (else the segmenter keeps 完牙, a word no plan holds)
_RESULTATIVE = re.compile(r"([拔做写看吃交补考办修录读听学改弄剪洗])完(?=[\u4e00-\u9fff])(?!了)")


def object_terms(text: str, names: Iterable[str] = ()) -> set[str]:
    """The content words of a memory that name what it is about: no dates or numbers, no speakers or
    people's names (given lowered), nothing about the conversation or about how it felt, no image caption."""
    drop = {n.lower() for n in names}
    return {t for t in _object_words(text) if t not in drop}


@lru_cache(maxsize=8192)
def _object_words(text: str) -> frozenset[str]:
    """``object_terms`` before the names are taken out (they differ by pair; the text's words do not)."""
    body = _NUMBER_UNIT.sub(" ", _CAPTION.sub(" ", _REPORT_FRAME.sub("", text, count=1)))
    body = _RESULTATIVE.sub(r"\1", body)
    words = _topic_terms(body) - SOFT
    return frozenset(t for t in words if t not in _NOT_OBJECT and not any(ch.isdigit() for ch in t))


# clause ends: sentence marks in both languages, commas and semicolons, dashes that join two statements
_CLAUSE_END = re.compile(r"[。！？!?；;，,\n]+|(?<=[.])\s+|\s[-–—]+\s|——")


# a reminder question joins the sentence after it ("Remember the tough engineering project? I finally wrapped
# that up"): what that sentence's cue is said of is the thing the question names
_REMINDED = re.compile(
    rf"((?:^|(?<=[。！？!?.]))\s*(?:{lx.REMINDER_WORDS})[^。！？!?.]{{1,80}})[?？]", re.IGNORECASE
)


def cue_attaches(raw: str, cue: re.Pattern[str], about: set[str]) -> bool:
    """True when a clause of ``raw`` that holds the cue also holds one of the words ``about`` (the cue's own
    words left out): the cue is said of that thing."""
    if not about:
        return False
    for clause in _CLAUSE_END.split(_REMINDED.sub(r"\1 ", _CAPTION.sub(" ", raw))):
        if cue.search(clause) and topic_terms(cue.sub(" ", clause)) & about:
            return True
    return False

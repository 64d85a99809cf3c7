"""Sentence-level analysis shared by the filter and the rule encoder: which sentences of a message
inform, and which only react, greet or ask."""

from __future__ import annotations

import re
from dataclasses import dataclass

from memscribe.lang import lexicon as lx
from memscribe.lang.text import detect_lang, keyword_terms

__all__ = ["Sentence", "content_terms", "split_sentences"]

# a face emoji ends a clause in casual chat ("加班到十点🙄 对了，我女儿下个月3号过生日", "so tired 😩 Anyway I
# moved"): a thing's emoji ("我爱🍕和咖啡") does not
_FACE = "\U0001f600-\U0001f64f\U0001f910-\U0001f92f\U0001f970-\U0001f97a\u2639\u263a"
_SPLIT_ZH = re.compile(rf"(?<=[。！？!?；;…])|(?<=[{_FACE}])\s*(?=[^\s{_FACE}，,。！？!?])")
# a title's period ends no sentence: "my kid's pediatrician is Dr. Okafor", "met Mr. Smith at St. Mary's"
_TITLE_DOT = "".join(rf"(?<!\b{t}\.)" for t in lx.TITLES)
_SPLIT_EN = re.compile(
    rf"(?<=[.!?]){_TITLE_DOT}\s+(?=[A-Z0-9\"'(\[])|(?<=[.!?])\s*\n+|\n+|(?<=[{_FACE}])\s+(?=[A-Z0-9])"
)
# Openers that carry nothing: interjections and acknowledgements ("好的，已记下：…", "Noted: …", "Got it, …").
# "so", "well" and "anyway" open a sentence only before a comma ("So far, so good" keeps its "So"), and an
# acknowledgement only before punctuation ("Noted: …" goes, "Done with the report" stays).
_LEADING_FILLER = re.compile(
    r"^(?:(?:(?:你好|您好|嗨|哈喽|好的|嗯+|哦+|对了|那个|啊|诶|哈哈+|收到|明白了?|了解了?|已记下|记下了|没问题|ok(?:ay)?|oh|um+|uh+|hey|hi"
    r"|hello|yeah|yep|haha|lol|btw|by the way|alright|all right|sure|certainly|of course|朋友|亲爱的|friend|buddy)"
    r"[\s,，、!！.。~～:：]+)|(?:so|well|anyway)[,，]\s*|(?:noted|got it|understood|done)[,，.。!！:：]+\s*"
    # an answer's "yes" before what it says ("Yes, I went to the park with my kids", "Right: I start at Stripe in
    # May"): only before punctuation ("True love is rare" keeps its "True"); else the whole sentence read as a
    # reaction and a user's news to an assistant was dropped
    r"|(?:yes|yup|right|true|totally|definitely|absolutely)(?:[,，:：!！—–]|\s[-—–])+\s*"
    # a label in front of the news ("Update: united moved my flight …", "FYI, …", "更新一下：…") is no part of it
    r"|(?:(?:quick\s+|small\s+)?update|fyi|heads[- ]up|更新一下|更新|最新消息)[:：,，]\s*"
    # telling the listener one is about to tell them ("跟你说一下，", "告诉你哦，", "just so you know,") says nothing
    r"|(?:(?:跟|和)你说(?:一下|下|哦|啊)?|告诉你(?:一下|哦|啊)?|提醒你一下|just so you know|for your information)"
    r"[:：,，!！]\s*)+",
    re.IGNORECASE,
)


# Words that judge or cheer rather than inform. A sentence made only of these (plus names and
# pronouns) is a reaction: "You're doing something amazing!", "So proud of you, Mel!".
_EVALUATIVE = frozenset(
    [
        "great",
        "awesome",
        "amazing",
        "cool",
        "nice",
        "good",
        "proud",
        "happy",
        "glad",
        "rewarding",
        "lovely",
        "kind",
        "inspiring",
        "inspired",
        "wonderful",
        "fantastic",
        "incredible",
        "beautiful",
        "sweet",
        "fun",
        "super",
        "really",
        "totally",
        "sounds",
        "sound",
        "looks",
        "look",
        "love",
        "loved",
        "thanks",
        "thank",
        "appreciate",
        "appreciated",
        "doing",
        "job",
        "brave",
        "strong",
        "supportive",
        "hear",
        "heard",
        "wow",
        "congrats",
        "congratulations",
        "cute",
        "adorable",
        "exciting",
        "excited",
        "interesting",
        "special",
        "meaningful",
        "true",
        "agree",
        "yeah",
        "yes",
        "right",
        "definitely",
        "absolutely",
        "hope",
        "hopefully",
        "enjoy",
        "enjoyed",
        "keep",
        "going",
        "mean",
        "means",
        "lot",
        "much",
        "something",
        "things",
        "thing",
        "stuff",
        "lucky",
        "blessed",
        "touching",
        "touched",
        "heartwarming",
        "impressive",
        "impressed",
        "gorgeous",
        "stunning",
        "perfect",
        "best",
        "better",
        "glad",
        "happy",
        "joy",
        "awesome",
        "totally",
        "sure",
        "course",
        "absolutely",
        "wish",
        "luck",
        "care",
        "soon",
        "chat",
        "talk",
        "catch",
        "later",
        "bye",
        "day",
        "today",
        "news",
        "hey",
        "hi",
        "hello",
        "oh",
        "omg",
        "aww",
        "yay",
        "haha",
        "lol",
        "xoxo",
        "ya",
        "u",
        "ur",
        "yourself",
        "ourselves",
        "together",
        "way",
        "feel",
        "feels",
        "feeling",
        "felt",
        "sharing",
        "share",
        "shared",
        "nothing",
        "everything",
        "anything",
    ]
)


_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'll|I'd|my|me|mine|we|we're|we've|our|us)\b", re.IGNORECASE)
# a sentence that names someone or something states a fact, however cheerful ("Her name's Coco and she's
# adorable!", "They're called Peruvian Lilies."): the name is what later questions ask for
_NAMING = re.compile(r"\b(?:name(?:'s|\s+is|\s+was)|named|called)\b", re.IGNORECASE)


def _is_evaluative(core: str) -> bool:
    """A sentence that cheers or judges rather than informs. First-person sentences inform unless they are
    made only of evaluative words ("I love that!"); others need more than two non-evaluative terms
    ("Lucky you to have such an awesome family!" is a reaction; "Dana moved to Denver" is not)."""
    if any(ch.isdigit() for ch in core) or _NAMING.search(core):
        return False
    names = {w.lower() for w in re.findall(r"\b[A-Z][a-z]+\b", core[1:])}  # not the sentence's first word
    terms = content_terms(core)
    rest = [t for t in terms if t not in _EVALUATIVE and t not in names]
    if _FIRST_PERSON.search(core):
        return not rest
    has_eval = len(rest) < len([t for t in terms if t not in names])
    return len(rest) <= 1 or (has_eval and len(rest) <= 2)


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str
    question: bool
    reaction: bool
    terms: int  # content terms (stop words removed)

    @property
    def informative(self) -> bool:
        return not self.reaction and not self.question and self.terms >= 1


def content_terms(text: str) -> list[str]:
    return [t for t in keyword_terms(text) if not t.isdigit() or len(t) >= 2]


def _is_question(s: str, lang: str) -> bool:
    if lx.QUESTION_END.search(s):
        return True
    if lang == "zh":
        return bool(re.search(r"吗[。.]?$", s))
    return False


def split_sentences(text: str) -> list[Sentence]:
    lang = detect_lang(text)
    parts = _SPLIT_ZH.split(text) if lang == "zh" else _SPLIT_EN.split(text)
    out: list[Sentence] = []
    for part in parts:
        s = part.strip()
        if not s:
            continue
        core = _LEADING_FILLER.sub("", s).strip()
        if core != s and core[:1].islower():
            core = core[0].upper() + core[1:]  # "Noted: no orders from …" -> "No orders from …"
        if not core:
            out.append(Sentence(s, question=False, reaction=True, terms=0))
            continue
        reaction = bool(lx.REACTION_EN.match(core) or lx.REACTION_ZH.match(core))
        if not reaction and lang == "en":
            reaction = _is_evaluative(core)
        out.append(
            Sentence(
                core, question=_is_question(core, lang), reaction=reaction, terms=len(content_terms(core))
            )
        )
    return out

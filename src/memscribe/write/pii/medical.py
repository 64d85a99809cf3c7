"""Medical records: diagnoses and prescription drugs (zh + en), from the lexicon in
``memscribe/data/medical_lexicon.json``, and the phrase after an explicit diagnosis or prescription cue
("diagnosed with …", "prescribed …", "确诊为…", "医生给我开了…") even when the term is not in the lexicon.

Allergies, diets and doctor or dentist appointments are not medical records here: only a condition or a
treatment is cut.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from functools import cache
from importlib import resources

from memscribe.write.pii.finding import PiiFinding, finding

__all__ = ["find_medical", "lexicon"]


@cache
def lexicon() -> dict[str, list[str]]:
    text = resources.files("memscribe.data").joinpath("medical_lexicon.json").read_text(encoding="utf-8")
    return {k: v for k, v in json.loads(text).items() if isinstance(v, list)}


def _alternation(terms: Sequence[str]) -> str:
    return "|".join(re.escape(t) for t in sorted(set(terms), key=len, reverse=True))


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    lex = lexicon()
    zh = re.compile(_alternation(lex["zh_diagnoses"] + lex["zh_drugs"]))
    en_terms = [t.replace("'", "['’]") for t in map(re.escape, lex["en_diagnoses"] + lex["en_drugs"])]
    en_terms.sort(key=len, reverse=True)
    en = re.compile(r"(?i)(?<![A-Za-z0-9-])(?:" + "|".join(en_terms) + r")(?![A-Za-z])")
    cs = re.compile(r"(?<![A-Za-z])(?:" + _alternation(lex["en_case_sensitive"]) + r")(?![A-Za-z])")
    not_before = re.compile(r"(?i)(?:" + _alternation(lex["en_not_before"]) + r")\s+$")
    not_after = re.compile(r"(?i)^\s*(?:" + _alternation(lex["en_not_after"]) + r")(?![A-Za-z])")
    return zh, en, cs, not_before, not_after


# the condition or drug named right after a cue, up to a clause boundary
_EN_CUE = re.compile(
    r"(?i)(?<![a-z])(?:diagnosed\s+(?:with|as\s+having)|diagnosis\s+(?:of|is|was)|tested\s+positive\s+for"
    r"|living\s+with\s+(?=[a-z]+(?:'s)?\s+(?:disease|disorder|syndrome))"
    r"|prescribed|prescription\s+(?:for|of)|on\s+a\s+course\s+of|started\s+(?:on|taking)\s+(?=[a-z]+(?:ine|ol|ide|pam|lam|pril|artan|statin|mab|nib|zole|mycin|cillin|one)\b))"
    r"\s+(?:(?:a|an|the|some|with|me|him|her|them)\s+)*"
    r"(?P<term>[^\W\d_][\w'’-]*(?:\s+(?!(?:and|but|or|last|this|in|at|on|for|since|after|before|when|two|three|a|the|which|so|because|to|by|from|daily|every|yesterday|today|recently|ago)\b)[^\W_][\w'’-]*){0,4})"
)
_ZH_CUE = re.compile(
    r"(?:(?P<strong>确诊(?:为|了|出|是)?|诊断(?:为|出|是|出了)|被诊断为|被确诊为|患有|罹患)|查出(?:了|来)?(?:有)?|检查出(?:了)?|得了|患上了?"
    r"|医生(?:给我|给他|给她|给我们)?开了|开了(?:一些|点)?(?=[\u4e00-\u9fff]{2,8}(?:片|胶囊|注射液|缓释片)))"
    r"(?P<term>[\u4e00-\u9fffA-Za-z0-9]{2,12}?)(?=[，。！？；、,.!?;\s]|$|了|的|和|还|而且|但|所以|要|需要|每天|已经)"
)
# a cue-captured Chinese phrase counts only when it names a condition or a drug form
_ZH_CONDITION_END = re.compile(
    r"(?:病|症|癌|瘤|炎|综合征|障碍|感染|阳性|结石|结节|息肉|衰竭|硬化|梗|梗死|出血|中风|狼疮|糖尿|高血压|片|胶囊|注射液|缓释片|素|药)$"
)
_ZH_NOT_AFTER_DE = re.compile(r"^(?:第|一等|冠军|奖|分|名)")


def find_medical(text: str) -> Iterator[PiiFinding]:
    zh, en, cs, not_before, not_after = _patterns()
    has_cjk = any("\u4e00" <= c <= "\u9fff" for c in text)
    if has_cjk:
        for m in zh.finditer(text):
            yield finding("medical", text, m.start(), m.end(), 0.75)
        for m in _ZH_CUE.finditer(text):
            term = m.group("term")
            if (m.group("strong") or _ZH_CONDITION_END.search(term)) and not _ZH_NOT_AFTER_DE.match(term):
                yield finding("medical", text, m.start("term"), m.end("term"), 0.7)
    if any(c.isascii() and c.isalpha() for c in text):
        for rx in (en, cs):
            for m in rx.finditer(text):
                if not not_before.search(text[max(0, m.start() - 30) : m.start()]) and not not_after.match(
                    text[m.end() : m.end() + 12]
                ):
                    yield finding("medical", text, m.start(), m.end(), 0.75)
        for m in _EN_CUE.finditer(text):
            yield finding("medical", text, m.start("term"), m.end("term"), 0.7)

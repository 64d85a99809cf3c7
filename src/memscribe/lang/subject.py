"""Whom a statement is about, when it is not the speaker: "我表哥在南京上班" is the cousin's job, not the user's.

A clause that opens with the speaker's relative, friend or colleague ("我表哥…", "我的同事小王…", "My boss Tom…",
"Our neighbour…") has that person as its subject. Its slot (employer, residence …) is then that person's, so it
can never replace the speaker's own. Pure functions over one sentence; zh + en.
"""

from __future__ import annotations

import re

from memscribe.lang import lexicon as lx
from memscribe.lang.text import jieba

__all__ = ["ZH_MY_RELATION", "ThirdParty", "third_party"]

# right after 我 a one-character kin word is unambiguous too (我哥, 我妈); longest first so 哥哥 wins over 哥
_KIN_ZH = sorted({*lx.CIRCLE_ZH, "爸", "妈", "爹", "娘", "哥", "姐", "弟", "妹"}, key=lambda w: (-len(w), w))
# 我表哥 -> 用户的表哥 (a bare 用户表哥 reads as one word)
ZH_MY_RELATION = re.compile(rf"我(?=(?:{'|'.join(map(re.escape, _KIN_ZH))}))")
_KIN_EN = lx.CIRCLE_EN
# a time or an adverb may come first ("上周我表哥…", "Last week my sister …")
_ZH_LEAD = r"(?:(?:今天|昨天|前天|明天|后天|最近|上周|下周|这周|本周|上个月|下个月|这个月|去年|今年|明年|周末|刚才|其实)[，,]?)?"
_ZH = re.compile(rf"^{_ZH_LEAD}我(的)?({'|'.join(map(re.escape, _KIN_ZH))})(?![们家里])")
# a familiar name right after the relation: 小王 / 老李 / 阿强 (jieba splits 小李刚 as 小 + 李刚)
_ZH_FAMILIAR = re.compile(r"[小老阿][\u4e00-\u9fff](?=[\u4e00-\u9fff，,])")
_EN = re.compile(
    r"^(?i:(?:(?:yesterday|today|recently|last \w+|this \w+|on \w+day),?\s+)?(?:my|our)\s+)"
    rf"((?i:(?:(?:older|younger|big|little|baby|best|new|old|ex-?|step-?|twin)\s*)?(?:{_KIN_EN})))\b"
    r"(?:,?\s+([A-Z][a-z]+)\b)?"
)


class ThirdParty(str):
    """The subject phrase, written as the memory writes it ("用户的表哥", "the user's boss Tom")."""


def third_party(sentence: str, speaker_subject: str, lang: str) -> ThirdParty | None:
    """The person a sentence is about when it opens with the speaker's relative or colleague, else None."""
    s = sentence.strip()
    if lang == "zh":
        m = _ZH.match(s)
        if m is None or re.match(r"(?:和|跟|与|同)我", s[m.end() :]):  # "我妈和我…": the user is in it too
            return None
        return ThirdParty(f"{speaker_subject}的{m.group(2)}{_zh_name(s[m.end() :])}")
    m = _EN.match(s)
    if m is None or re.match(r",?\s*and (?:I|me)\b", s[m.end() :], re.IGNORECASE):  # "My dad and I …"
        return None
    possessive = speaker_subject + ("'" if speaker_subject.endswith("s") else "'s")
    name = m.group(2)
    relation = m.group(1).lower()
    return ThirdParty(f"{possessive} {relation}" + (f" {name}" if name else ""))


def _zh_name(rest: str) -> str:
    """The name that follows a relation ("我同事小王…" -> 小王), or ""."""
    m = _ZH_FAMILIAR.match(rest)
    if m:
        return m.group(0)
    tags = jieba().tag(rest[:12]) if rest else []
    return tags[0][0] if tags and tags[0][1] == "nr" and len(tags[0][0]) >= 2 else ""

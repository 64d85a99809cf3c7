"""Why a new memory may not replace an older one, whatever else the two share (issue #15: precision first).

A wrong supersede hides a true fact; a missed one leaves two dated facts, newest first, both readable. So
every supersede rule of ``write/merge.py`` first asks :func:`supersede_blockers`; any reason it returns keeps
both memories. The classes of false supersede measured on the dev chats (data/labelled/merge/):

- **another person's fact**: "我表哥在南京上班" is no news about the user's own job, "Felix told me he's
  quitting" none about the user's, "叶子说她过年要值班" none about 叶子's studies a month earlier — a third
  party named in one memory and not in the other means the two may not be about the same subject;
- **different ids**: order JD7731029 and order CC20241113 are two orders, whatever words they share;
- **questions and hypotheticals** state nothing to replace anything with ("How long have you been married?",
  "如果我搬到上海…").

Pure functions over the two raw texts; no I/O.
"""

from __future__ import annotations

import re

from memscribe.judge.relations import id_tokens
from memscribe.lang import lexicon as lx
from memscribe.lang.clauses import split_sentences

__all__ = ["asks_or_supposes", "attribute_said_of_other", "ids_of", "supersede_blockers", "third_parties"]

_CIRCLE_ZH = lx.CIRCLE_ZH
_CIRCLE_EN = lx.CIRCLE_EN
_MODIFIER_EN = r"(?:(?:older|younger|little|big|elder|new|old|best|twin|step|ex-?|close|good)\s+)?"
_CIRCLE_EN_RE = re.compile(
    r"\b(?:my|our|his|her|their|[A-Z][a-z]+['’]s)\s+" + _MODIFIER_EN + r"(" + _CIRCLE_EN + r")\b"
    r"|\ba\s+" + _MODIFIER_EN + r"(" + _CIRCLE_EN + r")\s+of\s+(?:mine|ours)\b",
    re.IGNORECASE,
)
_CIRCLE_ZH_RE = re.compile("|".join(map(re.escape, _CIRCLE_ZH)))
# someone the speaker does a thing with is company, not the subject: "I live in Boston with my partner",
# "my girlfriend and I went camping", "我和老婆住在上海", "跟我同事一起去的"
_COMPANION_EN_BEFORE = re.compile(r"\b(?:with|and|&)\s+$", re.IGNORECASE)
_COMPANION_EN_AFTER = re.compile(r"(?:\s+[A-Z][a-z]+)?\s+(?:and|&)\s+(?:I|me)\b")
_COMPANION_ZH = re.compile(r"(?:和|跟|同|与|陪|带着)(?:我的?|我)?$")
# a title after a verb of being is the speaker's own job: "在阿里巴巴做产品经理", "我是医生", "当老师"
_OWN_TITLE_ZH = re.compile(r"(?:做|当|是|成为|担任|作为|升为|升职为)[\u4e00-\u9fff]{0,4}$")
# reported speech names the one it is about: "Felix told me …", "叶子说她 …" (not 我说 / 用户说)
_TOLD_EN = re.compile(r"\b([A-Z][a-z]{1,20})\s+(?:told me|tells me|said|says|mentioned|texted me)\b")
# a name opens its clause: "，小棠说会安排车" (not "到时候再说", where 说 ends a phrase)
_TOLD_ZH = re.compile(r"(?:^|[，,。！!？?；;：:\s])([\u4e00-\u9fff]{1,3}?)(?:跟我说|告诉我|说)")
_NOT_A_PERSON_ZH = re.compile(
    r"^(?:我|用户|你|助手|他|她|它|就|也|都|还|又|再|先|别|只|所以|但|可|能|会|要|想|得|来|去|再说)"
)
_HYPOTHETICAL = re.compile(
    r"^(?:如果|要是|假如|假设|万一|倘若)|\b(?:if i|if we|suppose|imagine if|what if|i wish i could)\b",
    re.IGNORECASE,
)


# "订单号CC20241113": the id pattern wants a boundary before the id, and a Chinese character is a word character
_CJK_EDGE = re.compile(r"(?<=[\u4e00-\u9fff])(?=[A-Za-z0-9#])|(?<=[A-Za-z0-9])(?=[\u4e00-\u9fff])")
_SHORT_CRY = re.compile(r"^\W*(?:\w+\W+){0,2}\w*\W*[!！]+\W*$")  # "Wow, Caroline!", "太好了！"


def ids_of(raw: str) -> set[str]:
    """Order numbers, booking codes, room numbers in a text (dates are not ids: a new date is a reschedule)."""
    return id_tokens(_CJK_EDGE.sub(" ", raw))


def third_parties(raw: str, lang: str) -> set[str]:
    """The people other than the speaker a text speaks of: relatives, colleagues, friends (as said, lowered)
    and whoever a reported sentence quotes."""
    out: set[str] = set()
    if lang == "zh":
        out |= {
            m.group(0)
            for m in _CIRCLE_ZH_RE.finditer(raw)
            if not (_COMPANION_ZH.search(raw[: m.start()]) or _OWN_TITLE_ZH.search(raw[: m.start()]))
        }
        for m in _TOLD_ZH.finditer(raw):
            who = m.group(1)
            if not _NOT_A_PERSON_ZH.match(who) and who not in out:
                out.add(who)
    else:
        for m in _CIRCLE_EN_RE.finditer(raw):
            if not (
                _COMPANION_EN_BEFORE.search(raw[: m.start()]) or _COMPANION_EN_AFTER.match(raw[m.end() :])
            ):
                out.add((m.group(1) or m.group(2)).lower().rstrip("s"))
        out |= {
            m.group(1).lower() for m in _TOLD_EN.finditer(raw) if m.group(1) not in ("I", "He", "She", "They")
        }
    return out


def _clauses(sentence: str, lang: str) -> list[str]:
    # "我搬到上海了，你周末来玩吗？": a Chinese sentence runs a statement and a question together with a comma
    if lang != "zh":
        return [sentence]
    parts = re.split(r"(?<=[，,；;])", sentence)
    return [p.rstrip("，,；;") for p in parts]


def asks_or_supposes(raw: str, lang: str) -> bool:
    """Every sentence a question, or the text opens with a supposition: nothing is stated as so."""
    if _HYPOTHETICAL.search(raw.strip()):
        return True
    # a cheer before the question ("Wow, Caroline! How long have you been married?") states nothing either
    sentences = [
        t
        for t in (c.strip() for s in split_sentences(raw) for c in _clauses(s.text, lang))
        if t and not _SHORT_CRY.match(t) and not (lx.REACTION_ZH if lang == "zh" else lx.REACTION_EN).match(t)
    ]
    if not sentences:
        return False
    question_zh = lx.QUESTION_ZH if lang == "zh" else None
    return all(
        lx.QUESTION_END.search(s)
        or (lang != "zh" and lx.QUESTION_START_EN.match(s) and not s.endswith((".", "!")))
        or (question_zh is not None and question_zh.search(s) and not s.endswith(("。", "！")))
        for s in sentences
    )


def supersede_blockers(new_raw: str, old_raw: str, lang: str, *, people: bool = True) -> list[str]:
    """Reasons the new memory must not replace the old one (empty: a supersede rule may decide).

    ``people=False`` skips the third-party check: a plan's completion or new date is identified by the plan
    itself (its anchor words and ids), and the turn that reports it often quotes someone ("Mr. Okafor says …")."""
    why: list[str] = []
    ids_new, ids_old = ids_of(new_raw), ids_of(old_raw)
    if ids_new and ids_old and not (ids_new & ids_old):
        why.append(f"different ids ({', '.join(sorted(ids_old))} vs {', '.join(sorted(ids_new))})")
    if people:
        tp_new, tp_old = third_parties(new_raw, lang), third_parties(old_raw, lang)
        if (tp_new or tp_old) and not (tp_new & tp_old):
            who = ", ".join(sorted(tp_new ^ tp_old))
            why.append(f"one of them speaks of someone else ({who})")
    if asks_or_supposes(new_raw, lang):
        why.append("the new text asks or supposes, it states nothing")
    if asks_or_supposes(old_raw, lang):
        why.append("the old text asks or supposes, it states nothing")
    return why


_CLAUSE = re.compile(r"[，,。.;；!！?？]|\b(?:so|and|but|because)\b")
_SLOT_CUES = dict(lx.SLOTS)
_MOVING = re.compile(
    r"\b(?:mov(?:e|es|ed|ing)|relocat(?:e|es|ed|ing)) (?:to|back to|out)\b|搬", re.IGNORECASE
)


def attribute_said_of_other(raw: str, lang: str) -> str | None:
    """The third party a statement's attribute words are said of, or None: "室友下个月要搬去苏州了，我得重新找个
    合租的人" is the user's own statement (我得…) but the move is the roommate's; "My roommate is moving to
    Austin, so I need a new roommate" likewise. A clause that holds a residence or employer cue and names a
    third party, with no word of the speaker's own before the cue, is said of that party."""
    for clause in _CLAUSE.split(raw):
        for slot in ("residence", "employer", "relationship"):
            cue = _SLOT_CUES[slot].search(clause) or lx.CHANGE.search(clause) or _MOVING.search(clause)
            if cue is None:
                continue
            others = third_parties(clause, lang)
            if others and not lx.SELF.search(clause, 0, cue.start()):
                return sorted(others)[0]
    return None

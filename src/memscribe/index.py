"""What the keyword index holds for a memory — one rule, used wherever a record's keyword entry is written
(the ledger, re-indexing, import)."""

from __future__ import annotations

from memscribe.lang.text import segment
from memscribe.models import MemoryRecord

__all__ = ["keyword_text_for"]

# The words people ask a slot's value with ("where do I live", "我住哪") are often not the words it was
# stated with ("moved to Shanghai", "搬到上海"). The keyword index (never the text or the embedding) carries
# these question words for memories that fill a slot.
_SLOT_GLOSS = {
    "residence": "live lives home city address 住 住在 居住 家 城市",
    "employer": "work works job employer company 工作 上班 公司 单位",
    "name": "name called 名字 叫",
    "relationship": "relationship partner married single dating 感情 婚姻 对象 单身",
    "phone_pref": "contact reach 联系",
}


def keyword_text_for(rec: MemoryRecord) -> str:
    """A memory's canonical text and entities, jieba-segmented, the question words of the slot it fills and
    the question it replied to (:attr:`Facts.replies_to`)."""
    parts = [rec.text, " ".join(rec.entities), rec.facts.replies_to or ""]
    slot = rec.facts.slot
    if slot:
        parts.append(_SLOT_GLOSS.get(slot.rsplit("|", 1)[-1], ""))
    return segment(" ".join(p for p in parts if p))

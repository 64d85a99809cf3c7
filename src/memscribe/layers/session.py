"""Session memory: the last N turns raw, and a rolling summary of older turns that keeps entities,
numbers, decisions, negations and open questions (rule-based offline). Persisted in the store."""

from __future__ import annotations

import re
from collections.abc import Sequence

from memscribe.config import Settings
from memscribe.lang import lexicon as lx
from memscribe.lang.clauses import split_sentences
from memscribe.lang.text import detect_lang
from memscribe.store.base import SessionMessageRow, Store

__all__ = ["SessionMemory", "summarize_turns"]

_DECISION = re.compile(
    r"决定|确定|定了|就这么|同意|选|\b(?:decided|agreed|let'?s|will go with|chose|confirmed|settled on)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d")
_MAX_LINES = 60


def _keep(sentence: str) -> bool:
    lang = detect_lang(sentence)
    neg = lx.NEGATION_ZH.search(sentence) if lang == "zh" else lx.NEGATION_EN.search(sentence)
    return bool(
        neg
        or _NUMBER.search(sentence)
        or lx.ID_PATTERN.search(sentence)
        or _DECISION.search(sentence)
        or lx.PREFERENCE.search(sentence)
        or lx.CONSTRAINT.search(sentence)
        or lx.EXPLICIT.search(sentence)
        or lx.QUESTION_END.search(sentence)
        or lx.CHANGE.search(sentence)
    )


def summarize_turns(turns: Sequence[SessionMessageRow]) -> list[str]:
    """One line per kept sentence: '- speaker: sentence'. Chit-chat goes; facts, numbers, ids, decisions,
    negations and open questions stay verbatim (a summary must never flip a 不要 into a 要)."""
    lines: list[str] = []
    for t in turns:
        who = t.name or t.role or "user"
        for s in split_sentences(t.content):
            if s.reaction:
                continue
            if _keep(s.text):
                mark = " (open question)" if s.question else ""
                lines.append(f"- {who}: {s.text}{mark}")
    return lines


class SessionMemory:
    def __init__(self, store: Store, session_id: str, user_id: str | None, settings: Settings) -> None:
        self.store, self.session_id, self.user_id = store, session_id, user_id
        self.window = settings.recall.recent_turns

    def recent(self) -> list[SessionMessageRow]:
        return self.store.session_messages(self.session_id, last=self.window)

    def turns(self, *, last: int | None = None) -> list[SessionMessageRow]:
        """The stored turns of this session, oldest first (the ``last`` ones only, when given): each with
        ``seq``, ``role``, ``name``, ``content`` (after the privacy filter), ``message_id`` and ``at``."""
        return self.store.session_messages(self.session_id, last=last)

    def render_recent(self) -> str:
        return "\n".join(f"{t.name or t.role}: {t.content}" for t in self.recent())

    def summary(self) -> str:
        """The rolling summary of every turn older than the window, brought up to date lazily."""
        state = self.store.get_session(self.session_id)
        if state is None:
            return ""
        recent = self.recent()
        if not recent:
            return state.summary
        boundary = recent[0].seq  # everything before the window belongs in the summary
        upto = state.summarized_upto
        if boundary - 1 <= upto:
            return state.summary
        older = [t for t in self.store.session_messages(self.session_id) if upto < t.seq < boundary]
        lines = [ln for ln in state.summary.splitlines() if ln.strip()] + summarize_turns(older)
        if len(lines) > _MAX_LINES:
            # keep negations / ids / numbers first when trimming the oldest lines
            must = [
                ln
                for ln in lines
                if lx.NEGATION_ZH.search(ln) or lx.NEGATION_EN.search(ln) or lx.ID_PATTERN.search(ln)
            ]
            rest = [ln for ln in lines if ln not in must]
            lines = (must + rest[-max(0, _MAX_LINES - len(must)) :])[-_MAX_LINES * 2 :]
        summary = "\n".join(lines)
        self.store.put_session(self.session_id, state.user_id, summary=summary, summarized_upto=boundary - 1)
        return summary

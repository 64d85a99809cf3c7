"""The LLM encoder: the rule encoder's candidate, refined by two prompts (summary + structured fields).

``LLMEncoder.encode`` has the rule encoder's signature and returns a ``Candidate``:

1. the ``RuleEncoder`` runs first — its candidate carries the filter's scores, layer routing, change /
   exception flags, and is the fallback for every field the LLM leaves out or gets wrong;
2. the summary prompt (``memscribe.prompts.encode_summary``) gives the canonical sentence, the structured
   prompt (``memscribe.prompts.encode_structured``) gives kind, times, status, negation, slot, value and
   entities; validated output overrides the rule fields:
   - a kind that is not a ``Kind`` keeps the rule kind (and the layer is recomputed from the kind);
   - a time must parse as ISO 8601; one without an offset gets the message's offset; an unparseable or
     missing time keeps the rule time;
   - a missing status / slot / value / negation keeps the rule value; the slot is keyed by the subject
     (``"Caroline|residence"``) like the rule encoder's;
   - entities are the LLM's, followed by the rule entities it did not name (ids, amounts);
3. on any ``LLMError`` / ``ProviderTimeout`` the rule candidate is returned unchanged, except
   ``encoder="rules(fallback: <error class>)"``, ``fallback="<error class>: <message>"`` and an added reason
   ``"llm failed: <error class>; rule encoder used"`` — nothing is lost, the write goes on, and the write
   report's item says ``encoder="rules"`` with that ``fallback``.

Privacy: ``text`` is the privacy stage's clean text (``PrivacyDecision.clean_text``): every sensitive
value was already replaced by a placeholder (``[手机号 removed]``) before the encoder runs, so vaulted
values never reach the LLM. The prompts tell the model to keep placeholders verbatim.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from memscribe.config import LLMConfig
from memscribe.decisions import Candidate, FilterDecision, TriggerResult
from memscribe.errors import ProviderError
from memscribe.facts import Provenance
from memscribe.lang.clauses import Sentence
from memscribe.lang.text import detect_lang
from memscribe.lang.timeparse import Granularity, iso
from memscribe.models import Kind, Layer
from memscribe.prompts import encode_structured, encode_summary
from memscribe.providers.llms.openai_compat import ChatClient
from memscribe.write.encode_rules import RuleEncoder

__all__ = ["LLMEncoder", "parse_llm_time"]

_log = logging.getLogger(__name__)

# same split as the rule encoder: lasting facts are semantic, things that happen are episodic
_SEMANTIC = {Kind.preference, Kind.constraint, Kind.profile, Kind.fact, Kind.relation, Kind.instruction}
_STATUS_KINDS = {Kind.task, Kind.plan, Kind.event}
_KINDS = frozenset(k.value for k in Kind if k is not Kind.suggestion)  # the prompt's kinds


def parse_llm_time(value: str | None, at: datetime) -> tuple[datetime, Granularity] | None:
    """An LLM time string as an aware datetime (the message's offset when it has none) and its precision.

    None when missing or not ISO 8601. ``"2026-06-16"`` is a day, ``"2026-06-16T15:00"`` an hour,
    ``"2026-06-16T15:30"`` a minute.
    """
    if not value:
        return None
    s = value.strip()
    if s.endswith(("Z", "z")):
        s = s[:-1] + "+00:00"
    try:
        dt = datetime.fromisoformat(s)
    except ValueError:
        return None
    if dt.utcoffset() is None:
        dt = dt.replace(tzinfo=at.tzinfo)
    has_clock = "T" in s or " " in s.strip()
    if not has_clock:
        gran: Granularity = "day"
    elif dt.minute == 0 and dt.second == 0:
        gran = "hour"
    else:
        gran = "minute"
    return dt, gran


def _period_end(start: datetime, gran: Granularity) -> datetime:
    """Inclusive end of the period a time names (as the rule encoder's time_end)."""
    if gran == "day":
        return start.replace(hour=23, minute=59, second=59, microsecond=0)
    if gran == "hour":
        return start.replace(minute=59, second=59, microsecond=0)
    return start.replace(second=59, microsecond=0)


class LLMEncoder:
    """Encoder backed by an OpenAI-compatible chat model, falling back to the rule encoder on failure."""

    name = "llm"

    def __init__(self, cfg: LLMConfig, *, client: ChatClient | None = None) -> None:
        self.cfg = cfg
        self._client = client
        self.rules = RuleEncoder()

    @property
    def client(self) -> ChatClient:
        if self._client is None:  # lazy: building the SDK client costs an import
            self._client = ChatClient(self.cfg)
        return self._client

    @property
    def prompt_versions(self) -> dict[str, str]:
        return {"summary": encode_summary.VERSION, "structured": encode_structured.VERSION}

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
        if at.utcoffset() is None:  # as memscribe.write.normalize does: a naive time is UTC
            at = at.replace(tzinfo=UTC)
        base = self.rules.encode(
            text,
            at=at,
            speaker=speaker,
            trig=trig,
            decision=decision,
            sentences=sentences,
            conversational=conversational,
            addressee=addressee,
        )
        lang = "zh" if detect_lang(text) == "zh" else "en"
        try:
            summary = self.client.complete_json(
                encode_summary.render(
                    encode_summary.SummaryIn(text=text, speaker=speaker, at=at.isoformat(), lang=lang)
                ),
                encode_summary.SummaryOut,
                prompt_version=encode_summary.VERSION,
            )
            fields = self.client.complete_json(
                encode_structured.render(
                    encode_structured.StructuredIn(text=text, speaker=speaker, at=at.isoformat(), lang=lang)
                ),
                encode_structured.StructuredOut,
                prompt_version=encode_structured.VERSION,
            )
        except ProviderError as exc:  # LLMError, ProviderTimeout (and the client's own construction)
            cls = type(exc).__name__
            _log.warning("llm encoder fell back to rules: %s", cls)
            return base.model_copy(
                update={
                    "encoder": f"rules(fallback: {cls})",
                    # the error itself (a status code, a timeout, invalid JSON) for the write report
                    "fallback": f"{cls}: {exc}"[:300],
                    "reasons": (*base.reasons, f"llm failed: {cls}; rule encoder used"),
                }
            )
        return self._merge(base, summary, fields, at=at, decision=decision)

    # ------------------------------------------------------------------ merge LLM output over rules
    def _merge(
        self,
        base: Candidate,
        summary: encode_summary.SummaryOut,
        out: encode_structured.StructuredOut,
        *,
        at: datetime,
        decision: FilterDecision,
    ) -> Candidate:
        subject = base.subject
        lang = base.facts.lang or "en"
        facts: dict[str, Any] = {}
        rejected_kind: str | None = None

        text = summary.text
        if subject.lower() not in text.lower():  # make it self-contained, as the rule encoder does
            text = f"{subject}：{text}" if lang == "zh" else f"{subject[0].upper()}{subject[1:]}: {text}"

        kind = base.kind
        if out.kind in _KINDS:
            kind = Kind(out.kind)
        elif out.kind:
            rejected_kind = out.kind
        if decision.route == "working":
            layer = Layer.working
        else:
            layer = Layer.semantic if kind in _SEMANTIC else Layer.episodic

        time_start, time_end = base.time_start, base.time_end
        rule_time = base.facts.time
        start = parse_llm_time(out.time_start, at)
        if start is not None:
            time_start, gran = start
            end = parse_llm_time(out.time_end, at)
            if end is not None and end[1] == "day":  # "2026-06-07" as an end means the whole day
                end = (_period_end(end[0], "day"), "day")
            time_end = end[0] if end is not None and end[0] >= time_start else _period_end(time_start, gran)
            facts["time"] = iso(time_start, gran)

        facts["status"] = out.status or (base.facts.status if kind in _STATUS_KINDS else None)
        facts["negated"] = base.negated if out.negated is None else bool(out.negated)
        slot = f"{subject}|{out.slot}" if out.slot else base.slot
        facts["slot"] = slot
        facts["value"] = out.value or (base.facts.value if slot == base.slot else None)
        if out.subject and out.subject.lower() != subject.lower():
            facts["about"] = out.subject  # the statement is about someone else (sister, boss ...)
        merged = base.facts.model_copy(update=facts)

        entities = list(out.entities)
        entities += [e for e in base.entities if e != rule_time]
        if time_start is not None and merged.time:
            entities.append(merged.time)
        provenance = Provenance(
            llm_model=self.client.model,
            prompt_versions=dict(self.prompt_versions),
            llm_kind_rejected=rejected_kind,
        )
        return base.model_copy(
            update={
                "text": text,
                "kind": kind,
                "layer": layer,
                "facts": merged,
                "provenance": provenance,
                "entities": tuple(dict.fromkeys(entities)),
                "time_start": time_start,
                "time_end": time_end,
                "encoder": self.name,
            }
        )

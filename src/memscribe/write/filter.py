"""Filter: rules first, then scores (importance, timeliness, privacy_risk) and a route.

Routing (DESIGN §2, thresholds in WriteConfig): residual privacy risk above the limit and not needed for a
task -> drop; importance >= long_term_min -> long-term; timeliness and some importance -> working (TTL);
else drop. Sensitive values themselves were already cut out by the privacy stage, so a message that
mixes a phone number with a hobby keeps the hobby.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from memscribe.config import WriteConfig
from memscribe.decisions import Candidate, FilterDecision, TriggerResult
from memscribe.lang.clauses import Sentence
from memscribe.models import Layer

__all__ = ["outlasts_working", "score_and_route"]


def score_and_route(
    trig: TriggerResult,
    sentences: list[Sentence],
    *,
    has_time: bool,
    has_entity: bool,
    role: str,
    conversational: bool,
    privacy_risk: float,
    repeat: bool,
    cfg: WriteConfig,
) -> FilterDecision:
    if not trig.fire:
        return FilterDecision(
            route="drop",
            importance=0.0,
            timeliness=0.0,
            privacy_risk=privacy_risk,
            reasons=("filler or chit-chat",),
        )
    if role != "user":
        # assistant turns are judged by write/assistant.py (when remember_assistant is on); system and tool
        # turns are never statements
        return FilterDecision(
            route="drop",
            importance=0.0,
            timeliness=0.0,
            privacy_risk=privacy_risk,
            reasons=(f"{role} turn: context only, not a statement by the user",),
        )
    if repeat:
        return FilterDecision(
            route="drop",
            importance=0.0,
            timeliness=0.0,
            privacy_risk=privacy_risk,
            reasons=("repeat of a message already seen in this session",),
        )
    informative = [s for s in sentences if s.informative]
    sig = trig.signals
    if not informative:
        asked = any(s.question for s in sentences)
        why = "question with no new information" if asked else "reaction or greeting with no new information"
        return FilterDecision(
            route="drop",
            importance=0.1,
            timeliness=0.0,
            privacy_risk=privacy_risk,
            reasons=(why,),
        )
    terms = sum(s.terms for s in informative)
    imp = 0.25
    reasons: list[str] = []
    if "explicit" in sig:
        imp += 0.5
        reasons.append("explicit request to remember")
    if sig & {"preference", "constraint", "profile"}:
        imp += 0.35
        reasons.append("preference / constraint / profile")
    if "habit" in sig:
        imp += 0.2
        reasons.append("habit or routine")
    if "self" in sig and terms >= 2:
        imp += 0.15
        reasons.append("a statement about the user")
    if sig & {"milestone", "change"}:
        imp += 0.3
        reasons.append("milestone or change")
    if "complaint" in sig:
        imp += 0.25 + (0.1 if "negative" in sig else 0.0)
        reasons.append("complaint")
    if has_time:
        imp += 0.2
        reasons.append("has a time")
    if "entity:id" in sig:
        imp += 0.3
        reasons.append("has an identifier")
    if "entity:amount" in sig:
        imp += 0.15
        reasons.append("has an amount")
    if has_entity:
        imp += 0.1
        reasons.append("names a person, place or organisation")
    imp += min(0.3, 0.04 * terms)
    if conversational and terms >= 4:
        # A first-hand account in a conversation between people is the raw material of episodic memory.
        imp = max(imp, cfg.long_term_min)
        reasons.append("first-hand account")
    imp = round(min(1.0, imp), 3)
    timeliness = 0.1
    if "temporary" in sig:
        timeliness = 0.85
        reasons.append("temporary (this task / this time)")
    elif has_time or "plan" in sig:
        timeliness = 0.5
    risk = privacy_risk
    if risk > cfg.privacy_drop_above:
        return FilterDecision(
            route="drop",
            importance=imp,
            timeliness=timeliness,
            privacy_risk=risk,
            reasons=(*reasons, "privacy risk too high"),
        )
    # working memory holds an agent's task at hand ("这次先用微信联系"); two people talking have no task of the
    # agent's, and "I'm doing keto right now" is what holds of one of them, not a note for the next hour
    if (
        "temporary" in sig
        and "explicit" not in sig
        and imp >= cfg.working_importance_min
        and not conversational
    ):
        return FilterDecision(
            route="working",
            importance=imp,
            timeliness=timeliness,
            privacy_risk=risk,
            reasons=(*reasons, "routed to working memory"),
        )
    if imp >= cfg.long_term_min:
        return FilterDecision(
            route="long", importance=imp, timeliness=timeliness, privacy_risk=risk, reasons=tuple(reasons)
        )
    if timeliness >= cfg.working_timeliness_min and imp >= cfg.working_importance_min:
        return FilterDecision(
            route="working",
            importance=imp,
            timeliness=timeliness,
            privacy_risk=risk,
            reasons=(*reasons, "timely but not lasting"),
        )
    return FilterDecision(
        route="drop",
        importance=imp,
        timeliness=timeliness,
        privacy_risk=risk,
        reasons=(*reasons, f"importance {imp} below {cfg.long_term_min}"),
    )


def outlasts_working(cand: Candidate, at: datetime, cfg: WriteConfig) -> Candidate:
    """A kept item routed to working memory goes to long-term memory instead when working memory would lose it
    before it matters: it is about a time after its own expiry (a hotel booked for next month, an order
    arriving next week would expire before the day they are about), or it carries an id (a confirmation or
    order number is looked up long after the chat that gave it)."""
    if cand.layer != Layer.working:
        return cand
    expiry = at + timedelta(hours=cfg.working_ttl_hours)
    about = cand.time_end or cand.time_start
    if about is not None and about > expiry:
        why = "about a time after working memory's expiry: kept long-term"
    elif cand.facts.ids:
        why = "carries an id: kept long-term"
    else:
        return cand
    return cand.model_copy(update={"layer": Layer.episodic, "reasons": (*cand.reasons, why)})

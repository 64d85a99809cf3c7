"""`memscribe bench locomo`: S, A and P on LoCoMo against raw-turn baselines in the same run.

Semantics follow the project's judge (``shared/tools/locomo_eval.py``):

* every conversation gets a fresh store and is ingested session by session with its real timestamp,
  one message per turn (speaker -> ``name``, ``dia_id`` -> ``id``, a photo caption appended as
  ``" [shares a photo: …]"``; a turn whose ``role`` is not ``user`` — the user–assistant chats of
  convbench — goes in with that role and no name);
* for every question of categories 1-4 with evidence, ``mem.context(question, budget_tokens=B)`` is
  built and scored by the judge's measures (``memscribe.bench.measures``): **S** strict evidence recall,
  **A** answer recall, **P** precision, and the loose source-only recall **R** as a diagnostic;
* baselines rank the raw turns ``"Speaker: text"`` and pack them in rank order, each turn costing its
  tokens + 1 (a newline), stopping at the first turn that does not fit; their context text carries each
  turn's session date (``"[date] Speaker: text"``), as in the judge. Each baseline runs twice:
  given exactly the tokens memscribe's context used for that question ("same tokens", the judge's
  comparison) and given the whole budget ("full budget"), and gets the same S / A / P.

Baselines: most-recent turns, BM25 over turns (the judge's tokenisation and parameters), dense over
turns (memscribe's own embedder), hybrid RRF (k=60) of BM25 and dense, and Mem0 when it is installed.

The pure parts (evidence normalisation, BM25, packing, RRF, recall, audit application, aggregation) have
no I/O and are unit-tested in ``tests/unit/test_bench_harness.py``; the measures in
``tests/unit/test_bench_measures.py``.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from memscribe.bench.measures import STOP_WORDS, ContextPiece, Observation, Scores, score
from memscribe.bench.mem0_baseline import MEM0_NOT_REQUESTED, Mem0Baseline, mem0_available
from memscribe.bench.mem0_baseline import THRESHOLD as MEM0_THRESHOLD
from memscribe.bench.report import progress as report_progress
from memscribe.read.fuse import rrf

__all__ = [
    "BM25",
    "CATEGORIES",
    "MEASURES",
    "UNDERFILL",
    "Question",
    "QuestionResult",
    "aggregate",
    "apply_audit",
    "conversation_sessions",
    "dense_order",
    "evidence_recall",
    "load_audit",
    "norm_ev",
    "ntok",
    "pack",
    "parse_dt",
    "percentile",
    "question_scores",
    "questions_for",
    "rrf_order",
    "run_locomo",
    "toks",
]

CATEGORIES: dict[int, str] = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
MEASURES = ("S", "A", "P", "R")  # headline S, A, P; R (sources only) is a diagnostic
UNDERFILL = 0.8  # a budget whose median memscribe context is under this share of it is flagged
RRF_K = 60

# Audit error types whose golden *answer* is wrong (the question is dropped from the audited variant).
# WRONG_CITATION questions keep their answer and get the audit's corrected evidence instead.
WRONG_ANSWER_TYPES = frozenset(
    {"HALLUCINATION", "ATTRIBUTION_ERROR", "TEMPORAL_ERROR", "AMBIGUOUS", "INCOMPLETE"}
)

# ---------------------------------------------------------------------------------------------------
# pure helpers (same semantics as the judge)

_STOP = STOP_WORDS  # the judge's stop list
_TOK = re.compile(r"[a-z0-9]+|[\u4e00-\u9fff]")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def toks(s: str) -> list[str]:
    """The judge's BM25 tokenisation: lower-cased ASCII words and single CJK characters, stop words removed."""
    return [w for w in _TOK.findall(s.lower()) if w not in _STOP]


def ntok(s: str) -> int:
    """The judge's token counter: one per CJK character, one per 4 UTF-8 bytes of everything else."""
    cjk = len(_CJK.findall(s))
    rest = _CJK.sub("", s)
    return cjk + math.ceil(len(rest.encode("utf-8", "surrogatepass")) / 4)


def norm_ev(ev: Iterable[str]) -> list[str]:
    """Evidence ids normalised like the judge: ``D8:6; D9:17`` -> two ids, ``D:11:26`` -> ``D11:26``, ``D30:05`` -> ``D30:5``."""
    out = []
    for e in ev:
        for part in re.split(r"[;,\s]+", str(e)):
            m = re.match(r"D:?(\d+):0*(\d+)$", part.strip())
            if m:
                out.append(f"D{int(m.group(1))}:{int(m.group(2))}")
    return out


def parse_dt(s: str) -> dt.datetime:
    s = s.strip()
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return dt.datetime.strptime(s, fmt).replace(tzinfo=dt.UTC)
        except ValueError:
            pass
    raise ValueError(f"unrecognised LoCoMo session date {s!r}")


class BM25:
    """Okapi BM25 over pre-split documents (k1 1.5, b 0.75, idf log(1 + (N-n+.5)/(n+.5))), as in the judge."""

    def __init__(self, docs: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.docs = [toks(d) for d in docs]
        self.n = len(self.docs)
        self.avg = sum(map(len, self.docs)) / max(1, self.n)
        df = Counter(w for d in self.docs for w in set(d))
        self.idf = {w: math.log(1 + (self.n - c + 0.5) / (c + 0.5)) for w, c in df.items()}
        self.tf = [Counter(d) for d in self.docs]
        self.k1 = k1
        self.b = b

    def scores(self, query: str) -> list[float]:
        qt = toks(query)
        out = []
        for i, tf in enumerate(self.tf):
            dl = len(self.docs[i])
            s = 0.0
            for w in qt:
                f = tf.get(w)
                if f:
                    s += (
                        self.idf[w]
                        * f
                        * (self.k1 + 1)
                        / (f + self.k1 * (1 - self.b + self.b * dl / self.avg))
                    )
            out.append(s)
        return out

    def rank(self, query: str, *, matched_only: bool = False) -> list[int]:
        """Document indices, best first (ties: earlier document first). ``matched_only`` drops score-0 documents."""
        sc = self.scores(query)
        order = sorted(range(self.n), key=lambda i: (-sc[i], i))
        return [i for i in order if sc[i] > 0] if matched_only else order


def dense_order(vectors: np.ndarray, query: np.ndarray) -> list[int]:
    """Indices by cosine similarity (vectors are normalised), best first; ties: earlier first."""
    if len(vectors) == 0:
        return []
    sims = vectors @ np.asarray(query, dtype=np.float32)
    return [int(i) for i in np.lexsort((np.arange(len(sims)), -sims))]


def rrf_order(rankings: Sequence[Sequence[int]], k: int = RRF_K) -> list[int]:
    """Reciprocal-rank fusion (``memscribe.read.fuse.rrf``) of index rankings; ties: smaller index first."""
    scores = rrf([[str(i) for i in r] for r in rankings], k=k)
    return sorted((int(i) for i in scores), key=lambda i: (-scores[str(i)], i))


def pack(order: Iterable[int], costs: Sequence[int], allow: int) -> list[int]:
    """Take items in rank order while they fit in ``allow`` tokens; each costs ``costs[i] + 1`` (a newline).

    Stops at the first item that does not fit, like the judge's packer.
    """
    chosen: list[int] = []
    used = 0
    for i in order:
        k = costs[i] + 1
        if used + k > allow:
            break
        used += k
        chosen.append(i)
    return chosen


def evidence_recall(evidence: Iterable[str], got: Iterable[str]) -> float:
    ev = set(evidence)
    if not ev:
        raise ValueError("recall of a question without evidence is undefined")
    return len(ev & set(got)) / len(ev)


def percentile(xs: Sequence[float], q: float) -> float:
    """The judge's percentile: ``sorted(xs)[int(q * len(xs))]`` (clamped); 0.0 for no data."""
    if not xs:
        return 0.0
    s = sorted(xs)
    return float(s[min(len(s) - 1, int(q * len(s)))])


# ---------------------------------------------------------------------------------------------------
# questions and the audit


@dataclass(frozen=True)
class Question:
    conv: str
    index: int  # position in the conversation's ``qa`` list (the audit's ``qa<N>``)
    question: str
    category: int
    evidence: frozenset[str]  # original evidence, normalised and restricted to existing turns (may be empty)
    audited: frozenset[str] | None = None  # evidence in the audited variant; None = dropped from it
    audit_action: str = "unchanged"  # unchanged | corrected | dropped
    answer: str = ""  # the golden answer (A)

    def evidence_for(self, variant: str) -> frozenset[str] | None:
        """Evidence used in ``variant`` ("original" or "audited"); None when the question is not scored there."""
        if variant == "original":
            return self.evidence or None
        return self.audited or None


def turn_message(t: Mapping[str, Any]) -> dict[str, Any]:
    """One LoCoMo turn as an add() message, as the judge builds it (a non-user role goes in without a name)."""
    text = t["text"] + (f" [shares a photo: {t['blip_caption']}]" if t.get("blip_caption") else "")
    role = t.get("role", "user")
    if role == "user":
        return {"role": role, "name": t["speaker"], "content": text, "id": t["dia_id"]}
    return {"role": role, "content": text, "id": t["dia_id"]}


def conversation_sessions(conv: Mapping[str, Any]) -> tuple[list[dict[str, Any]], list[tuple[str, str, int]]]:
    """Sessions as ``{"n", "at", "date", "messages"}`` and the flat turn list ``(dia_id, "Speaker: text", session)``.

    ``date`` is the session's date as the data writes it: the baselines' turns carry it (the judge's A).
    """
    c = conv["conversation"]
    sessions: list[dict[str, Any]] = []
    turns: list[tuple[str, str, int]] = []
    for n in sorted(int(k.split("_")[1]) for k in c if re.fullmatch(r"session_\d+", k)):
        date = c[f"session_{n}_date_time"]
        msgs = [turn_message(t) for t in c[f"session_{n}"]]
        turns += [
            (t["dia_id"], f"{t['speaker']}: {m['content']}", n)
            for t, m in zip(c[f"session_{n}"], msgs, strict=True)
        ]
        sessions.append({"n": n, "at": parse_dt(date).isoformat(), "date": date, "messages": msgs})
    return sessions, turns


def questions_for(conv: Mapping[str, Any], turn_ids: set[str]) -> list[Question]:
    """Questions of categories 1-4, evidence normalised and restricted to the conversation's turns."""
    out = []
    for i, qa in enumerate(conv["qa"]):
        if qa.get("category") not in CATEGORIES:
            continue
        ev = frozenset(norm_ev(qa.get("evidence", []))) & turn_ids
        answer = str(qa.get("answer", ""))
        out.append(Question(conv["sample_id"], i, qa["question"], int(qa["category"]), ev, ev, answer=answer))
    return out


def load_audit(path: Path) -> list[dict[str, Any]]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a list of audit entries")
    return data


def _audit_index(entry: Mapping[str, Any]) -> int | None:
    m = re.search(r"qa(\d+)$", str(entry.get("question_id", "")))
    return int(m.group(1)) if m else None


def apply_audit(
    questions: Sequence[Question], audit: Sequence[Mapping[str, Any]], turn_ids: set[str]
) -> tuple[list[Question], dict[str, int]]:
    """Set each question's audited evidence.

    An entry matches a question by ``sample_id`` and the ``qa<N>`` index of its ``question_id`` when the
    question text agrees, else by ``sample_id`` and exact question text. ``error_type`` in
    ``WRONG_ANSWER_TYPES`` -> dropped from the audited variant; otherwise (``WRONG_CITATION``) the
    ``correct_evidence`` replaces the cited evidence. Returns the questions and counts of what happened.
    """
    by_conv: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for e in audit:
        by_conv[str(e.get("sample_id"))].append(e)
    counts = Counter({"corrected": 0, "dropped": 0, "unchanged": 0, "audit_entries_matched": 0})
    out = []
    for q in questions:
        entry = None
        for e in by_conv.get(q.conv, ()):
            if _audit_index(e) == q.index and e.get("question", q.question) == q.question:
                entry = e
                break
        if entry is None:
            entry = next((e for e in by_conv.get(q.conv, ()) if e.get("question") == q.question), None)
        if entry is None:
            nq = replace(q, audited=q.evidence, audit_action="unchanged")
        elif str(entry.get("error_type")) in WRONG_ANSWER_TYPES:
            nq = replace(q, audited=None, audit_action="dropped")
        else:
            ev = (
                frozenset(norm_ev(entry.get("correct_evidence") or entry.get("cited_evidence") or []))
                & turn_ids
            )
            action = "corrected" if ev != q.evidence else "unchanged"
            nq = replace(q, audited=ev, audit_action=action)
        if entry is not None:
            counts["audit_entries_matched"] += 1
        counts[nq.audit_action] += 1
        out.append(nq)
    return out, dict(counts)


# ---------------------------------------------------------------------------------------------------
# aggregation (pure)


@dataclass
class QuestionResult:
    """What every system showed for one question: ``seen[system][budget]``, and memscribe's context tokens."""

    q: Question
    turn_text: Mapping[str, str]  # dia_id -> the turn's text (the conversation's, shared, not copied)
    seen: dict[str, dict[int, Observation]] = field(default_factory=dict)
    tokens: dict[int, int] = field(default_factory=dict)


def question_scores(r: QuestionResult, variant: str) -> dict[str, dict[int, Scores]] | None:
    """S / A / P / R of every system and budget for one question in ``variant``; None when not scored there."""
    ev = r.q.evidence_for(variant)
    if ev is None:
        return None
    return {
        system: {b: score(obs, ev, r.q.answer, r.turn_text) for b, obs in per_budget.items()}
        for system, per_budget in r.seen.items()
    }


def _measure(s: Scores, measure: str) -> float | None:
    return {"S": s.strict, "A": s.answer, "P": s.precision, "R": s.loose}[measure]


def aggregate(
    results: Sequence[QuestionResult], variant: str
) -> dict[str, dict[str, dict[str, dict[str, Any]]]]:
    """Means per measure, system, budget and category.

    ``{measure: {system: {str(budget): {"multi-hop": x, …, "overall": x, "n": {category: questions}}}}}``;
    a question whose A or P is undefined (an answer without content words, an empty context) is left out
    of that measure's mean, as in the judge.
    """
    acc: dict[tuple[str, str, int, str], list[float]] = defaultdict(list)
    for r in results:
        per_system = question_scores(r, variant)
        if per_system is None:
            continue
        cat = CATEGORIES[r.q.category]
        for system, per_budget in per_system.items():
            for budget, s in per_budget.items():
                for m in MEASURES:
                    v = _measure(s, m)
                    if v is not None:
                        acc[(m, system, budget, cat)].append(v)
                        acc[(m, system, budget, "overall")].append(v)
    out: dict[str, dict[str, dict[str, dict[str, Any]]]] = {m: {} for m in MEASURES}
    for (m, system, budget, cat), vals in sorted(acc.items(), key=lambda kv: kv[0][:3]):
        slot = out[m].setdefault(system, {}).setdefault(str(budget), {"n": {}})
        slot[cat] = sum(vals) / len(vals)
        slot["n"][cat] = len(vals)
    return out


def context_fill(tokens: Sequence[int], budget: int) -> dict[str, Any]:
    """Median and p95 context tokens for a budget, the median's share of it, and whether it under-fills it."""
    median = statistics.median(tokens) if tokens else 0
    fill = median / budget
    return {"median": median, "p95": percentile(tokens, 0.95), "fill": fill, "underfilled": fill < UNDERFILL}


def packed_observation(
    chosen: Sequence[int], pieces: Sequence[ContextPiece], dated: Sequence[str]
) -> Observation:
    """A raw-turn baseline's context: the packed turns as items (each its own source) and their dated text."""
    return Observation(tuple(pieces[i] for i in chosen), "\n".join(dated[i] for i in chosen))


def retention(evidence_ids: set[str], kept_ids: set[str]) -> float | None:
    return len(evidence_ids & kept_ids) / len(evidence_ids) if evidence_ids else None


# ---------------------------------------------------------------------------------------------------
# the run


def _clear_query_cache(embedder: Any) -> None:
    """memscribe's bundled embedder caches query vectors; clear it so every timed call embeds its query
    (a real agent's queries are new; without this, the second budget's context() would be ~15 ms faster)."""
    cache = getattr(embedder, "_cache", None)
    if hasattr(cache, "clear"):
        cache.clear()


def _src_ids(rec: Any) -> set[str]:
    return {
        str(s.message_id) for s in (getattr(rec, "sources", None) or []) if getattr(s, "message_id", None)
    }


def _per_question_scores(r: QuestionResult) -> dict[str, dict[str, dict[str, float | None]]] | None:
    """The original-evidence S / A / P / R of every system and budget, rounded (the results file)."""
    scores = question_scores(r, "original")
    if scores is None:
        return None
    return {
        system: {
            str(b): {m: (None if (v := _measure(sc, m)) is None else round(v, 4)) for m in MEASURES}
            for b, sc in per.items()
        }
        for system, per in scores.items()
    }


def baseline_systems(with_mem0: bool) -> list[str]:
    names = ["recent", "bm25", "dense", "hybrid"] + (["mem0"] if with_mem0 else [])
    return [f"{n}/{mode}" for mode in ("same", "full") for n in names]


def run_locomo(
    data: Path,
    budgets: list[int],
    out_dir: Path | None = None,
    audit: Path | None = None,
    limit_convs: int | None = None,
    console: Console | None = None,
    with_mem0: bool = False,
) -> dict[str, Any]:
    """Run the LoCoMo evidence-recall benchmark; write results/report/plots to ``out_dir`` when given.

    ``with_mem0`` adds Mem0 (:mod:`memscribe.bench.mem0_baseline`) as a baseline when it is installed."""
    from memscribe import Memory
    from memscribe.bench import report

    commit = report.git_commit()
    console = console or Console()
    budgets = sorted({int(b) for b in budgets})
    if not budgets or budgets[0] < 1:
        raise ValueError("budgets must be positive integers")
    convs = json.loads(Path(data).read_text(encoding="utf-8"))
    if limit_convs:
        convs = convs[:limit_convs]
    audit_entries = load_audit(audit) if audit else None
    mem0_ok, mem0_status = mem0_available() if with_mem0 else (False, MEM0_NOT_REQUESTED)
    if with_mem0 and not mem0_ok:
        console.print(f"[yellow]Mem0 baseline:[/yellow] {mem0_status}", markup=True, highlight=False)

    results: list[QuestionResult] = []
    add_actions: Counter[str] = Counter()
    add_ms: list[float] = []  # per session call, divided by its messages (the judge's definition)
    add_msgs = 0
    add_total_s = 0.0
    flush_s = 0.0
    ctx_ms: dict[int, list[float]] = defaultdict(list)
    base_ms: dict[str, list[float]] = defaultdict(list)
    conv_stats = []
    audit_counts: Counter[str] = Counter()
    stored_total = turns_total = 0
    ev_sets: dict[str, set[str]] = {"original": set(), "audited": set()}  # "conv/dia" ids
    kept_sets: dict[str, set[str]] = {"original": set(), "audited": set()}
    t_run = time.perf_counter()

    with report_progress(console) as prog:
        conv_task = prog.add_task("conversations", total=len(convs))
        for conv in convs:
            uid = conv["sample_id"]
            sessions, turns = conversation_sessions(conv)
            turn_ids = {t[0] for t in turns}
            texts = [t[1] for t in turns]
            costs = [ntok(t) for t in texts]
            questions = questions_for(conv, turn_ids)
            if audit_entries is not None:
                questions, counts = apply_audit(questions, audit_entries, turn_ids)
                audit_counts.update(counts)
            scored = [q for q in questions if q.evidence or (audit_entries is not None and q.audited)]

            with tempfile.TemporaryDirectory(prefix="ms-locomo-") as tmp:
                mem = Memory(home=Path(tmp) / "store")
                try:
                    # ---- ingestion, session by session, real timestamps
                    t_ing = time.perf_counter()
                    task = prog.add_task(f"{uid}: ingest sessions", total=len(sessions))
                    for s in sessions:
                        t0 = time.perf_counter()
                        rep = mem.add(s["messages"], user_id=uid, session_id=f"{uid}-s{s['n']}", at=s["at"])
                        el = time.perf_counter() - t0
                        add_actions.update(rep.counts())
                        add_total_s += el
                        add_msgs += len(s["messages"])
                        add_ms.append(el * 1000 / max(1, len(s["messages"])))
                        prog.advance(task)
                    prog.remove_task(task)
                    t0 = time.perf_counter()
                    mem.flush()
                    conv_flush = time.perf_counter() - t0
                    flush_s += conv_flush
                    ingest_s = time.perf_counter() - t_ing
                    recs = mem.list(user_id=uid)
                    kept = set().union(*(_src_ids(r) for r in recs)) if recs else set()
                    stored_total += len(recs)
                    turns_total += len(turns)
                    for variant in ("original", "audited"):
                        ev = set()
                        for q in questions:
                            e = q.evidence_for(variant)
                            if e:
                                ev |= e
                        ev_sets[variant] |= {f"{uid}/{x}" for x in ev}
                        kept_sets[variant] |= {f"{uid}/{x}" for x in ev & kept}

                    # ---- raw-turn baselines: embed the turns once per conversation
                    task = prog.add_task(f"{uid}: embed turns (dense baseline)", total=len(texts))
                    vec_parts = []
                    for i in range(0, len(texts), 32):
                        vec_parts.append(mem.embedder.embed_passages(texts[i : i + 32]))
                        prog.advance(task, len(texts[i : i + 32]))
                    prog.remove_task(task)
                    turn_vecs = np.vstack(vec_parts) if vec_parts else np.zeros((0, 384), np.float32)
                    bm = BM25(texts)
                    recent = list(range(len(turns) - 1, -1, -1))
                    m0 = None
                    if mem0_ok:
                        try:
                            m0 = Mem0Baseline(str(Path(tmp) / "qdrant"), collection="locomo")
                            task = prog.add_task(f"{uid}: mem0 add", total=len(turns))
                            for dia, text, _ in turns:
                                t0 = time.perf_counter()
                                m0.add([text], uid, metadata=[{"dia_id": dia}])
                                base_ms["mem0_add_per_turn"].append((time.perf_counter() - t0) * 1000)
                                prog.advance(task)
                            prog.remove_task(task)
                            if "search:" not in mem0_status:
                                mem0_status += f", search: {m0.variant}, threshold {MEM0_THRESHOLD}"
                        except Exception as exc:  # report why the optional baseline did not run
                            mem0_ok, mem0_status, m0 = (
                                False,
                                f"mem0 failed: {type(exc).__name__}: {exc}",
                                None,
                            )
                    index_of = {t[0]: i for i, t in enumerate(turns)}
                    turn_text = {m["id"]: m["content"] for s in sessions for m in s["messages"]}
                    pieces = [ContextPiece(t[1], frozenset({t[0]})) for t in turns]
                    session_date = {s["n"]: s["date"] for s in sessions}
                    dated = [f"[{session_date[t[2]]}] {t[1]}" for t in turns]

                    # ---- questions
                    task = prog.add_task(f"{uid}: questions", total=len(scored))
                    for q in scored:
                        qr = QuestionResult(q, turn_text)
                        for b in budgets:
                            _clear_query_cache(mem.embedder)
                            t0 = time.perf_counter()
                            ctx = mem.context(q.question, user_id=uid, budget_tokens=b)
                            ctx_ms[b].append((time.perf_counter() - t0) * 1000)
                            items = tuple(
                                ContextPiece(h.memory.text, frozenset(_src_ids(h.memory))) for h in ctx.items
                            )
                            qr.seen.setdefault("memscribe", {})[b] = Observation(items, ctx.text)
                            qr.tokens[b] = ntok(ctx.text)
                        t0 = time.perf_counter()
                        bm_order = bm.rank(q.question)
                        base_ms["bm25"].append((time.perf_counter() - t0) * 1000)
                        _clear_query_cache(mem.embedder)
                        t0 = time.perf_counter()
                        dn_order = dense_order(turn_vecs, mem.embedder.embed_query(q.question))
                        base_ms["dense"].append((time.perf_counter() - t0) * 1000)
                        hy_order = rrf_order([bm.rank(q.question, matched_only=True), dn_order])
                        orders: dict[str, list[int]] = {
                            "recent": recent,
                            "bm25": bm_order,
                            "dense": dn_order,
                            "hybrid": hy_order,
                        }
                        if m0 is not None:
                            t0 = time.perf_counter()
                            found = m0.search(q.question, uid, limit=50)
                            base_ms["mem0"].append((time.perf_counter() - t0) * 1000)
                            dias = [str((r.get("metadata") or {}).get("dia_id", "")) for r in found]
                            orders["mem0"] = [index_of[d] for d in dias if d in index_of]
                        for b in budgets:
                            allow = {"same": max(qr.tokens[b], 1), "full": b}
                            for name, order in orders.items():
                                for mode, lim in allow.items():
                                    chosen = pack(order, costs, lim)
                                    qr.seen.setdefault(f"{name}/{mode}", {})[b] = packed_observation(
                                        chosen, pieces, dated
                                    )
                        results.append(qr)
                        prog.advance(task)
                    prog.remove_task(task)
                    conv_stats.append(
                        {
                            "conv": uid,
                            "sessions": len(sessions),
                            "turns": len(turns),
                            "memories": len(recs),
                            "questions": len(scored),
                            "ingest_s": round(ingest_s, 2),
                            "flush_s": round(conv_flush, 2),
                        }
                    )
                finally:
                    mem.close()
            prog.advance(conv_task)

    variants = {"original": aggregate(results, "original")}
    if audit_entries is not None:
        variants["audited"] = aggregate(results, "audited")
    tokens_by_budget = {str(b): context_fill([r.tokens[b] for r in results], b) for b in budgets}
    res: dict[str, Any] = {
        "commit_at_start": commit,
        "settings": {
            "data": str(data),
            "budgets": budgets,
            "audit": str(audit) if audit else None,
            "limit_convs": limit_convs,
            "rrf_k": RRF_K,
            "wrong_answer_types": sorted(WRONG_ANSWER_TYPES),
            "baseline_packing": "rank order, each turn = ntok('Speaker: text') + 1, stop at first misfit",
            "same_tokens": "baseline allowance = ntok(memscribe context text) for that question and budget",
            "measures": "S strict evidence recall, A answer recall, P precision (headline); R loose, sources "
            "only (diagnostic); definitions of shared/tools/locomo_eval.py (memscribe.bench.measures)",
            "underfill": UNDERFILL,
        },
        "systems": ["memscribe", *baseline_systems(mem0_ok)],
        "mem0": mem0_status,
        "conversations": conv_stats,
        "questions": {
            "original": sum(1 for r in results if r.q.evidence_for("original") is not None),
            "audited": sum(1 for r in results if r.q.evidence_for("audited") is not None)
            if audit_entries is not None
            else None,
        },
        "audit": dict(audit_counts) if audit_entries is not None else None,
        "measures": variants,
        "memscribe": {
            "memories_per_100_turns": 100 * stored_total / max(1, turns_total),
            "memories": stored_total,
            "turns": turns_total,
            "evidence_retention": {
                v: retention(ev_sets[v], kept_sets[v]) for v in (variants if audit_entries else ["original"])
            },
            "add_ms_per_msg_p50": statistics.median(add_ms) if add_ms else 0.0,
            "add_ms_per_msg_p95": percentile(add_ms, 0.95),
            "add_ms_per_msg_mean": 1000 * add_total_s / max(1, add_msgs),
            "add_actions": dict(add_actions),
            "flush_s_total": flush_s,
            "context_ms": {
                str(b): {"p50": statistics.median(v), "p95": percentile(v, 0.95)}
                for b, v in ctx_ms.items()
                if v
            },
            "tokens_used": tokens_by_budget,
        },
        "baseline_ms": {
            k: {"p50": statistics.median(v), "p95": percentile(v, 0.95)} for k, v in base_ms.items() if v
        },
        "per_question": [
            {
                "conv": r.q.conv,
                "qa": r.q.index,
                "category": r.q.category,
                "audit": r.q.audit_action,
                "tokens": {str(b): t for b, t in r.tokens.items()},
                "scores": _per_question_scores(r),
            }
            for r in results
        ],
        "elapsed_s": time.perf_counter() - t_run,
    }
    report.print_locomo(res, console)
    if out_dir is not None:
        report.write_section("locomo", res, Path(out_dir), console)
    return res

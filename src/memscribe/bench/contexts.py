"""`memscribe bench contexts`: N LoCoMo questions chosen with a fixed seed, each beside its recall context at a
token budget, as Markdown with a blank grade column per context line — "relevant to the question or not",
graded by eye (#16); `memscribe bench contexts-tally` reads a graded file back and counts it.

The conversations are ingested as the project's judge (``shared/tools/locomo_eval.py``) ingests them: a fresh
store per conversation, session by session with the real session times, speaker -> message ``name``,
dia_id -> message ``id`` (:func:`memscribe.bench.locomo.conversation_sessions`), then ``flush()``; the
questions are the judge's (categories 1-4 with evidence in the conversation) and each context is
``mem.context(question, user_id=sample_id, budget_tokens=B)`` with no session, as the judge asks it.

The sample is reproducible: every scored question of the file in data order (conversation, then ``qa``
index), ``random.Random(seed)`` picks N of them. With ``stores=DIR`` each conversation's store is kept in
``DIR/<sample_id>/`` beside a marker naming the data file's hash and the commit it was built on, so a rerun
only reads (recall has no side effect on ranking: access statistics feed the lifecycle, not the reader).

The Markdown is the grading form and the parser's input: one section per question, one table row per context
line with columns grade (``R`` relevant / ``I`` irrelevant), class (for ``I``: what kind of noise) and reason,
and an ``answer in context`` line (``yes`` / ``partial`` / ``no``).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memscribe.bench.locomo import CATEGORIES, Question, conversation_sessions, questions_for
from memscribe.bench.measures import answer_hit
from memscribe.errors import InputError

__all__ = [
    "ANSWER_MARKS",
    "GRADES",
    "ContextLine",
    "EvidenceTurn",
    "GradedLine",
    "GradedQuestion",
    "SampledContext",
    "Tally",
    "parse_graded",
    "render_markdown",
    "render_tally",
    "run_contexts",
    "sample_questions",
    "tally",
]

GRADES = {"R": "relevant", "I": "irrelevant"}
ANSWER_MARKS = ("yes", "partial", "no")
RUBRIC = (
    "a line is relevant (R) when it carries part of the answer or of an evidence turn, or a fact a careful "
    "answerer would need for this question; otherwise irrelevant (I), with a class and a short reason"
)
MARKER = "ingested.json"


@dataclass(frozen=True)
class EvidenceTurn:
    id: str
    speaker: str
    text: str
    date: str  # the session's date as the data writes it


@dataclass(frozen=True)
class ContextLine:
    text: str  # the line as it stands in the context text
    sources: tuple[str, ...]  # the memory's source turn ids, in the memory's order


@dataclass(frozen=True)
class SampledContext:
    conv: str
    index: int  # the question's position in the conversation's ``qa`` list
    category: int
    question: str
    answer: str
    evidence: tuple[EvidenceTurn, ...]
    lines: tuple[ContextLine, ...]
    tokens: int
    judge_answer: float | None  # the judge's A on this context (a hint beside the hand mark, not a grade)


@dataclass(frozen=True)
class ContextSample:
    data: str
    seed: int
    budget: int
    pool: int  # scored questions in the file
    commit_contexts: str | None
    commit_stores: Mapping[str, str | None]  # conversation -> commit its store was ingested on
    contexts: tuple[SampledContext, ...]


# ---------------------------------------------------------------------------------------------------
# choosing (pure)


def sample_questions(convs: Sequence[Mapping[str, Any]], n: int, seed: int) -> list[Question]:
    """``n`` of the file's scored questions (categories 1-4 with evidence), picked by ``random.Random(seed)``
    from the data order and returned in it."""
    if n < 1:
        raise InputError("the sample needs n >= 1 questions")
    pool = _pool(convs)
    picked = sorted(random.Random(seed).sample(range(len(pool)), min(n, len(pool))))
    return [pool[i] for i in picked]


def _pool(convs: Sequence[Mapping[str, Any]]) -> list[Question]:
    pool: list[Question] = []
    for conv in convs:
        _, turns = conversation_sessions(conv)
        pool += [q for q in questions_for(conv, {t[0] for t in turns}) if q.evidence]
    return pool


def context_lines(text: str, items: Sequence[Any]) -> tuple[ContextLine, ...]:
    """The context's memory lines paired with their items' sources (no session: one line per item)."""
    body = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("## ")]
    if len(body) != len(items):  # a line with a newline inside: show the memory's own text instead
        body = [getattr(it.memory, "text", "") for it in items]
    return tuple(
        ContextLine(line, tuple(str(s.message_id) for s in it.memory.sources if s.message_id))
        for line, it in zip(body, items, strict=True)
    )


# ---------------------------------------------------------------------------------------------------
# Markdown (the grading form)


def _cell(s: str) -> str:
    return s.replace("\\", "\\\\").replace("|", "\\|").replace("\r", "").replace("\n", "<br>")


def _uncell(s: str) -> str:
    return s.replace("<br>", "\n").replace("\\|", "|").replace("\\\\", "\\").strip()


def render_markdown(sample: ContextSample) -> str:
    stores = sorted({c for c in sample.commit_stores.values()}, key=str)
    lines = [
        f"# Recall contexts at {sample.budget} tokens: {len(sample.contexts)} LoCoMo questions, seed {sample.seed}",
        "",
        f"Data `{sample.data}`: {len(sample.contexts)} of its {sample.pool} scored questions (categories 1-4 "
        f"with evidence) chosen with seed {sample.seed}; contexts built on `{sample.commit_contexts}`, stores "
        f"ingested on {', '.join(f'`{c}`' for c in stores)} (`memscribe bench contexts`).",
        "",
        f"Rubric: {RUBRIC}. Per question, `answer in context`: yes / partial / no.",
        "",
    ]
    for i, c in enumerate(sample.contexts, 1):
        evidence = {e.id for e in c.evidence}
        hint = "n/a" if c.judge_answer is None else ("hit" if c.judge_answer else "miss")
        lines += [
            f"## Q{i} · {c.conv} qa{c.index} · {CATEGORIES.get(c.category, c.category)}",
            "",
            f"- question: {c.question}",
            f"- gold answer: {c.answer}",
            f"- context: {len(c.lines)} lines, {c.tokens} tokens; judge's A: {hint}",
            "- evidence:",
            *(f"  - `{e.id}` ({e.date}) **{e.speaker}**: {e.text}" for e in c.evidence),
            "",
            "| # | context line | sources | grade | class | reason |",
            "|---:|---|---|:---:|---|---|",
        ]
        for k, ln in enumerate(c.lines, 1):
            src = ", ".join(f"**`{s}`**" if s in evidence else f"`{s}`" for s in ln.sources) or "—"
            lines.append(f"| {k} | {_cell(ln.text)} | {src} |  |  |  |")
        if not c.lines:
            lines.append("| — | *(empty context)* | — | — | — | — |")
        lines += ["", "answer in context: __", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------
# reading a graded file back (pure)


@dataclass(frozen=True)
class GradedLine:
    number: int
    text: str
    grade: str  # "R" | "I" | "" (not graded yet)
    klass: str
    reason: str


@dataclass(frozen=True)
class GradedQuestion:
    title: str
    lines: tuple[GradedLine, ...]
    answer: str  # one of ANSWER_MARKS, or "" when not marked


@dataclass(frozen=True)
class Tally:
    questions: int
    lines: int
    irrelevant: int
    ungraded: int
    answers: Mapping[str, int]
    classes: Mapping[str, int] = field(default_factory=dict)
    empty_contexts: int = 0

    @property
    def irrelevant_share(self) -> float:
        graded = self.lines - self.ungraded
        return self.irrelevant / graded if graded else 0.0


_SECTION = re.compile(r"^## (Q\d+ .*)$")
_ANSWER = re.compile(r"^answer in context:\s*(\S*)")


def _row_cells(line: str) -> list[str]:
    """The cells of a Markdown table row (escaped pipes stay inside their cell)."""
    inner = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
    return [c.strip() for c in re.split(r"(?<!\\)\|", inner)]


def parse_graded(text: str) -> list[GradedQuestion]:
    """The questions of a (graded or blank) contexts file; a row or mark it cannot read is a typed error."""
    out: list[GradedQuestion] = []
    title: str | None = None
    rows: list[GradedLine] = []
    answer: str | None = None

    def close() -> None:
        if title is not None:
            if answer is None:
                raise InputError(f"{title}: no 'answer in context:' line")
            out.append(GradedQuestion(title, tuple(rows), answer))

    for n, line in enumerate(text.splitlines(), 1):
        if m := _SECTION.match(line):
            close()
            title, rows, answer = m.group(1), [], None
            continue
        if title is None:
            continue
        if m := _ANSWER.match(line):
            mark = m.group(1).strip().lower()
            mark = "" if mark.strip("_") == "" else mark
            if mark and mark not in ANSWER_MARKS:
                raise InputError(f"line {n}: answer mark {mark!r} is not one of {', '.join(ANSWER_MARKS)}")
            answer = mark
            continue
        if not line.startswith("| ") or line.startswith("| #") or line.startswith("|---"):
            continue
        cells = _row_cells(line)
        if cells[0] == "—":  # the empty-context row
            continue
        if len(cells) != 6 or not cells[0].isdigit():
            raise InputError(
                f"line {n}: a context row has 6 cells (# | line | sources | grade | class | reason)"
            )
        grade = cells[3].upper()
        if grade and grade not in GRADES:
            raise InputError(f"line {n}: grade {cells[3]!r} is not R or I")
        if grade == "I" and not (cells[4] and cells[5]):
            raise InputError(f"line {n}: an irrelevant line needs a class and a reason")
        rows.append(GradedLine(int(cells[0]), _uncell(cells[1]), grade, _uncell(cells[4]), _uncell(cells[5])))
    close()
    if not out:
        raise InputError("no question sections ('## Q<n> …') in the file")
    return out


def tally(questions: Sequence[GradedQuestion]) -> Tally:
    lines = [ln for q in questions for ln in q.lines]
    answers = Counter(q.answer or "unmarked" for q in questions)
    return Tally(
        questions=len(questions),
        lines=len(lines),
        irrelevant=sum(1 for ln in lines if ln.grade == "I"),
        ungraded=sum(1 for ln in lines if not ln.grade),
        answers={
            k: answers.get(k, 0) for k in (*ANSWER_MARKS, "unmarked") if answers.get(k, 0) or k != "unmarked"
        },
        classes=dict(Counter(ln.klass for ln in lines if ln.grade == "I").most_common()),
        empty_contexts=sum(1 for q in questions if not q.lines),
    )


def render_tally(t: Tally) -> str:
    out = [
        f"questions {t.questions}; context lines {t.lines} (empty contexts {t.empty_contexts}); "
        f"irrelevant {t.irrelevant} = {t.irrelevant_share:.1%} of graded lines"
        + (f"; {t.ungraded} not graded" if t.ungraded else ""),
        "answer in context: " + ", ".join(f"{k} {v}" for k, v in t.answers.items()),
        "irrelevant classes:",
        *(f"  {v:3d}  {k}" for k, v in t.classes.items()),
    ]
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------------
# the run


def _sha256(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _open_store(
    conv: Mapping[str, Any], stores: Path | None, tmp: Path, data_sha: str, commit: str | None
) -> tuple[Any, str | None]:
    """The conversation's store, ingested as the judge does unless ``stores`` holds it already; with the
    commit it was ingested on."""
    from memscribe import Memory

    uid = str(conv["sample_id"])
    folder = (stores if stores is not None else tmp) / uid
    marker = folder / MARKER
    if marker.is_file():
        meta = json.loads(marker.read_text(encoding="utf-8"))
        if meta.get("data_sha256") != data_sha or meta.get("conv") != uid:
            raise InputError(f"{folder}: a store of other data (remove it or use another --stores folder)")
        return Memory(home=folder / "store"), meta.get("commit")
    if (folder / "store").exists():
        raise InputError(f"{folder}: an incomplete ingest (no {MARKER}); remove it and rerun")
    mem = Memory(home=folder / "store")
    sessions, _ = conversation_sessions(conv)
    for s in sessions:
        mem.add(s["messages"], user_id=uid, session_id=f"{uid}-s{s['n']}", at=s["at"])
    mem.flush()
    marker.write_text(json.dumps({"conv": uid, "data_sha256": data_sha, "commit": commit}), encoding="utf-8")
    return mem, commit


def run_contexts(
    data: Path, *, n: int = 20, seed: int = 0, budget: int = 300, stores: Path | None = None
) -> ContextSample:
    """Choose the questions, ingest (or reopen) the stores they need and build each one's context."""
    import tempfile

    from memscribe.bench import report

    if budget < 1:
        raise InputError("the budget must be a positive number of tokens")
    try:
        convs = json.loads(Path(data).read_text(encoding="utf-8"))
        chosen = sample_questions(convs, n, seed)
        pool = len(_pool(convs))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{data}: not a LoCoMo file ({exc})") from exc
    commit = report.git_commit()
    data_sha = _sha256(data)
    by_id = {str(c["sample_id"]): c for c in convs}
    out: list[SampledContext] = []
    built: dict[str, str | None] = {}
    with tempfile.TemporaryDirectory(prefix="ms-contexts-") as tmp:
        for uid in dict.fromkeys(q.conv for q in chosen):
            conv = by_id[uid]
            mem, built[uid] = _open_store(conv, stores, Path(tmp), data_sha, commit)
            sessions, _ = conversation_sessions(conv)
            raw = {
                t["dia_id"]: t["speaker"]
                for k, v in conv["conversation"].items()
                if re.fullmatch(r"session_\d+", k)
                for t in v
            }
            turn = {m["id"]: (raw[m["id"]], m["content"], s["date"]) for s in sessions for m in s["messages"]}
            order = {m["id"]: i for i, m in enumerate(m for s in sessions for m in s["messages"])}
            try:
                for q in (q for q in chosen if q.conv == uid):
                    ctx = mem.context(q.question, user_id=uid, budget_tokens=budget)
                    ev = sorted(q.evidence, key=order.__getitem__)
                    out.append(
                        SampledContext(
                            conv=uid,
                            index=q.index,
                            category=q.category,
                            question=q.question,
                            answer=q.answer,
                            evidence=tuple(EvidenceTurn(d, *turn[d]) for d in ev),
                            lines=context_lines(ctx.text, ctx.items),
                            tokens=ctx.tokens,
                            judge_answer=answer_hit(q.answer, ctx.text),
                        )
                    )
            finally:
                mem.close()
    return ContextSample(str(data), seed, budget, pool, commit, built, tuple(out))

"""Train the statement judgements — keep/drop (``statement_keep``), long/working of a kept statement
(``statement_term``) and kind (``statement_kind``) — on ``data/labelled/statements/{zh,en}_{train,test}.jsonl``
and print per-class precision / recall / F1 on the fixed test split: all, its slice of real hand-labelled dev
turns, zh and en; also the 3-way route (long / working / drop) the two route models give together.

    .venv/bin/python train/statements.py            # retrain, report, write src/memscribe/judge/weights/
    .venv/bin/python train/statements.py --check    # report the shipped weights only

Hyper-parameters (the L2 strength C and the dense block's weight beside the n-grams) are chosen by grouped
4-fold cross-validation on the training split only. Set MEMSCRIBE_TRAIN_CACHE to keep the embedding cache
outside the repository.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (
    DATA,
    WEIGHTS,
    choose_c_and_weight,
    embed_passages,
    fit_ngram_linear,
    load_jsonl,
    ngram_csr,
    print_scores,
    scores,
)

from memscribe.judge.linear import LinearModel
from memscribe.judge.ngrams import fit_idf
from memscribe.judge.statements import (
    KEEP_MODEL,
    KIND_MODEL,
    NGRAM_IDF,
    TERM_MODEL,
    judge_statements,
    statement_matrix,
)
from memscribe.write.judged import answer_reading, rules_reading

CORPUS = DATA / "statements"
ROUTE = "statement_route"  # the 3-way route, reported (not a model of its own)
# (C, dense weight) candidates per model. The grid is small because each fit takes minutes on two shared
# cores; it was narrowed by wider grouped-CV runs on the training split (dense weight 0.1 and C=1 for kind
# scored lower; the previous turn's embedding and role-marked n-grams added < 0.005 CV macro-F1).
GRID = {
    KEEP_MODEL: ((1.0, 0.05), (3.0, 0.05)),
    TERM_MODEL: ((1.0, 0.05), (3.0, 0.05)),
    KIND_MODEL: ((3.0, 0.05), (10.0, 0.05)),
}

Select = Callable[[dict], bool]
Label = Callable[[dict], str]
TASKS: dict[str, tuple[Select, Label]] = {
    KEEP_MODEL: (lambda it: True, lambda it: "drop" if it["route"] == "drop" else "keep"),
    TERM_MODEL: (lambda it: it["route"] != "drop", lambda it: it["route"]),
    KIND_MODEL: (lambda it: it["route"] != "drop", lambda it: it["kind"]),
}


def load(split: str) -> list[dict]:
    return load_jsonl(CORPUS.glob(f"*_{split}.jsonl"))


# the time a user's statement is read at: its relative times become dates, as on the write path
READ_AT = datetime(2024, 5, 15, 10, 0, tzinfo=UTC)


def reading(it: dict) -> tuple[str, bool]:
    """What the judge's embedding reads, and whether it is read as an answer to the previous turn. For a user's
    statement, the sentence the rule encoder writes for it (the write path embeds that once, for the judge and
    for the memory: write/judged.py), with the question it answers when the write path takes it for an
    elliptical answer (write/answers.py); for the assistant's and a peer's, the words as said (their turns are
    judged sentence by sentence before they are encoded)."""
    if it["speaker_role"] != "user":
        return it["text"], False
    if it.get("prev"):
        answer = answer_reading(it["text"], it["prev"], at=READ_AT)
        if answer is not None:
            return answer, True
    return rules_reading(it["text"], at=READ_AT), False


def readings(items: list[dict]) -> tuple[list[str], list[bool]]:
    read = [reading(it) for it in items]
    return [r for r, _ in read], [a for _, a in read]


def dense(items: list[dict]) -> np.ndarray:
    texts, answers = readings(items)
    return statement_matrix(
        embed_passages(texts),
        [it["text"] for it in items],
        roles=[it["speaker_role"] for it in items],
        has_prev=answers,
        langs=[it["lang"] for it in items],
    )


def group_of(it: dict) -> str:
    # real turns of one conversation, and written items of one batch, stay in one fold
    src = str(it.get("source", "written"))
    return src.rsplit(":", 2)[0] if src != "written" else f"{it['lang']}-{it['id'][:-2]}"


def is_real(it: dict) -> bool:
    return str(it.get("source", "written")) != "written"


def report_of(y: list[str], pred: list[str], items: list[dict], classes: tuple[str, ...]) -> dict:
    out = {"all": scores(y, pred, classes)}
    parts = {"real": is_real, "zh": lambda it: it["lang"] == "zh", "en": lambda it: it["lang"] == "en"}
    for part, keep in parts.items():
        idx = [i for i, it in enumerate(items) if keep(it)]
        if idx:
            out[part] = scores([y[i] for i in idx], [pred[i] for i in idx], classes)
    return out


def judge(items: list[dict]):
    """The shipped inference path (judge_statements) on labelled items."""
    texts, answers = readings(items)
    return judge_statements(
        embed_passages(texts),
        [it["text"] for it in items],
        roles=[it["speaker_role"] for it in items],
        has_prev=answers,
        langs=[it["lang"] for it in items],
        prevs=[it.get("prev") for it in items],
    )


def evaluate_shipped(test: list[dict]) -> dict[str, dict]:
    """Reports of the shipped models through judge_statements: keep/drop, long/working and kind on the
    statements each was trained for, and the 3-way route on all."""
    js = judge(test)
    kept = [i for i, it in enumerate(test) if it["route"] != "drop"]
    kept_items = [test[i] for i in kept]
    keep_pred = ["drop" if j.route == "drop" else "keep" for j in js]
    term_pred = ["long" if js[i].p_route["long"] >= js[i].p_route["working"] else "working" for i in kept]
    return {
        KEEP_MODEL: report_of([TASKS[KEEP_MODEL][1](it) for it in test], keep_pred, test, ("drop", "keep")),
        TERM_MODEL: report_of([it["route"] for it in kept_items], term_pred, kept_items, ("long", "working")),
        KIND_MODEL: report_of(
            [it["kind"] for it in kept_items],
            [str(js[i].kind) for i in kept],
            kept_items,
            tuple(sorted({it["kind"] for it in kept_items})),
        ),
        ROUTE: report_of(
            [it["route"] for it in test], [j.route for j in js], test, ("drop", "long", "working")
        ),
    }


def train(train_items: list[dict]) -> None:
    idf = fit_idf([it["text"] for it in train_items])
    WEIGHTS.mkdir(parents=True, exist_ok=True)
    np.save(WEIGHTS / f"{NGRAM_IDF}.npy", idf)
    for name, (keep, label) in TASKS.items():
        items = [it for it in train_items if keep(it)]
        y = [label(it) for it in items]
        x, grams = dense(items), ngram_csr([it["text"] for it in items], idf)
        print(f"\n{name}: choosing hyper-parameters on {len(items)} training statements", flush=True)
        (c, w), cv = choose_c_and_weight(grams, x, y, [group_of(it) for it in items], GRID[name])
        m = fit_ngram_linear(name, grams, x, y, c=c, dense_weight=w)
        meta = {"c": c, "dense_weight": w, "cv_macro_f1": cv, "train_n": len(items)}
        LinearModel(m.name, m.classes, m.weights, m.bias, m.mean, m.scale, meta).save(WEIGHTS / f"{name}.npz")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="report the shipped weights, do not retrain")
    args = ap.parse_args()
    test = load("test")
    if not args.check:
        train(load("train"))
        from memscribe.judge import linear, statements

        linear.load_model.cache_clear()
        statements._models.cache_clear()
        statements._idf.cache_clear()
    reports = evaluate_shipped(test)
    for name, report in reports.items():
        for part, s in report.items():
            print_scores(f"{name} [{part}]", s)
    if not args.check:
        import json

        summary = {
            name: {part: {"macro_f1": s["macro_f1"], "accuracy": s["accuracy"]} for part, s in r.items()}
            for name, r in reports.items()
        }
        (WEIGHTS / "statement_scores.json").write_text(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main()

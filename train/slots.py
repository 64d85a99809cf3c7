"""Train the slot classifier (``statement_slot``) of a single canonical statement (its embedding and its kind) on
the statements corpus (its kept items: ``canonical`` and, for training only, the words as said), on the slot-only
rows of data/labelled/slots/ (training only) and on both sides of the relation pairs,
and print per-slot precision / recall / F1 on the fixed test split (statements test + relation-pair test sides).

    MEMSCRIBE_TRAIN_CACHE=/tmp/emb .venv/bin/python train/slots.py            # retrain, report, write weights
    .venv/bin/python train/slots.py --check                                   # report the shipped weights
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DATA, WEIGHTS, choose_c, embed_passages, fit_linear, load_jsonl, print_scores, scores

from memscribe.judge.linear import LinearModel
from memscribe.judge.slots import slot_matrix

NAME = "statement_slot"


def load(split: str) -> list[dict]:
    """Items {text, slot, kind, lang, group, part}: one per kept statement (canonical) and per distinct pair side."""
    out: list[dict] = []
    for it in load_jsonl((DATA / "statements").glob(f"*_{split}.jsonl")):
        if it.get("route") == "drop" or not it.get("slot") or not it.get("canonical"):
            continue
        src = str(it.get("source", "written"))
        group = src.rsplit(":", 2)[0] if src != "written" else f"{it['lang']}-s-{it['id'][:-2]}"
        out.append(
            {
                "text": it["canonical"],
                "slot": it["slot"],
                "kind": it["kind"],
                "lang": it["lang"],
                "group": group,
                "part": "statements",
                "real": src != "written",
            }
        )
        if split == "train" and it["text"] != it["canonical"]:
            # the words as said teach the same slot from another surface form (never used for scoring)
            out.append(
                {
                    "text": it["text"],
                    "slot": it["slot"],
                    "kind": it["kind"],
                    "lang": it["lang"],
                    "group": group,
                    "part": "statements-raw",
                    "real": src != "written",
                }
            )
    if split == "train":
        # slot-only rows (data/labelled/slots/): canonical statements written for the weak slots and their hard
        # negatives; kept out of the statements corpus so keep / route / kind are not trained on them
        out.extend(slot_rows("train"))
    seen: set[str] = {o["text"] for o in out}
    for it in load_jsonl((DATA / "relations").glob(f"*_{split}.jsonl")):
        src = str(it.get("source", "written"))
        group = src.rsplit(":", 2)[0] if src != "written" else f"{it['lang']}-p-{it['id'][:-2]}"
        for side in ("old", "new"):
            s = it[side]
            if s.get("slot") and s["text"] not in seen:
                seen.add(s["text"])
                out.append(
                    {
                        "text": s["text"],
                        "slot": s["slot"],
                        "kind": s["kind"],
                        "lang": it["lang"],
                        "group": group,
                        "part": "pairs",
                        "real": src != "written",
                    }
                )
    if split == "test":
        # the slot-only test rows (written apart, other settings and personas) are scored as their own part,
        # never inside the fixed split's parts (all / zh / en / statements / pairs / real)
        out.extend(slot_rows("test"))
    return out


def slot_rows(split: str) -> list[dict]:
    return [
        {
            "text": it["canonical"],
            "slot": it["slot"],
            "kind": it["kind"],
            "lang": it["lang"],
            "group": f"{it['lang']}-slot-{int(it['id'].rsplit('-', 1)[1]) // 10}",
            "part": "slots",
            "real": False,
        }
        for it in load_jsonl((DATA / "slots").glob(f"*_{split}.jsonl"))
    ]


def features(items: list[dict]) -> np.ndarray:
    return slot_matrix(embed_passages([it["text"] for it in items]), [it["kind"] for it in items])


def evaluate(model: LinearModel, x: np.ndarray, items: list[dict]) -> dict:
    y = [it["slot"] for it in items]
    pred = model.predict(x)
    fixed = [i for i, it in enumerate(items) if it["part"] != "slots"]  # the fixed test split
    parts = {
        "all": fixed,
        "zh": [i for i in fixed if items[i]["lang"] == "zh"],
        "en": [i for i in fixed if items[i]["lang"] == "en"],
        "statements": [i for i, it in enumerate(items) if it["part"] == "statements"],
        "pairs": [i for i, it in enumerate(items) if it["part"] == "pairs"],
        "real": [i for i, it in enumerate(items) if it["real"]],
        # the slot-only test rows (data/labelled/slots/*_test.jsonl)
        "slots": [i for i, it in enumerate(items) if it["part"] == "slots"],
    }
    out = {}
    for name, idx in parts.items():
        if idx:
            classes = sorted({y[i] for i in idx})  # macro-F1 over the slots this part holds
            out[name] = scores([y[i] for i in idx], [pred[i] for i in idx], classes)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="report the shipped weights, do not retrain")
    args = ap.parse_args()
    test = load("test")
    x_te = features(test)
    if args.check:
        model = LinearModel.from_file(WEIGHTS / f"{NAME}.npz", NAME)
    else:
        train = load("train")
        x_tr = features(train)
        y_tr = [it["slot"] for it in train]
        c = choose_c(x_tr, y_tr, [it["group"] for it in train], grid=(0.01, 0.03, 0.1))
        fitted = fit_linear(NAME, x_tr, y_tr, c=c)
        model = LinearModel(
            name=NAME,
            classes=fitted.classes,
            weights=fitted.weights,
            bias=fitted.bias,
            mean=fitted.mean,
            scale=fitted.scale,
            meta={"c": c, "train_n": len(train), "test_n": len(test)},
        )
        model = replace(model, meta={**model.meta, "reported": evaluate(model, x_te, test)})
        WEIGHTS.mkdir(parents=True, exist_ok=True)
        model.save(WEIGHTS / f"{NAME}.npz")
        print(f"C={c} train n={len(train)}")
    for part, s in evaluate(model, x_te, test).items():
        print_scores(f"{NAME} [{part}]", s)


if __name__ == "__main__":
    main()

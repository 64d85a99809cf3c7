"""Train the statement judgements — keep/working/drop (``statement_route``) and kind (``statement_kind``) —
on ``data/labelled/statements/{zh,en}_{train,test}.jsonl`` and print per-class precision / recall / F1 on
the fixed test split (and on its slice of real, hand-labelled dev turns).

    .venv/bin/python train/statements.py            # retrain, report, write src/memscribe/judge/weights/
    .venv/bin/python train/statements.py --check    # report the shipped weights only
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DATA, WEIGHTS, choose_c, embed_passages, fit_linear, load_jsonl, print_scores, scores

from memscribe.judge.linear import LinearModel
from memscribe.judge.statements import statement_matrix

CORPUS = DATA / "statements"


def load(split: str) -> list[dict]:
    return load_jsonl(CORPUS.glob(f"*_{split}.jsonl"))


def features(items: list[dict]) -> np.ndarray:
    emb = embed_passages([it["text"] for it in items])
    return statement_matrix(
        emb,
        [it["text"] for it in items],
        roles=[it["speaker_role"] for it in items],
        has_prev=[bool(it.get("prev")) for it in items],
        langs=[it["lang"] for it in items],
    )


def group_of(it: dict) -> str:
    # real turns of one conversation, and written items of one batch, stay in one fold
    src = str(it.get("source", "written"))
    return src.rsplit(":", 2)[0] if src != "written" else f"{it['lang']}-{it['id'][:-2]}"


def evaluate(model: LinearModel, x: np.ndarray, y: list[str], items: list[dict]) -> dict:
    pred = model.predict(x)
    out = {"all": scores(y, pred, model.classes)}
    real = [i for i, it in enumerate(items) if str(it.get("source", "written")) != "written"]
    if real:
        out["real"] = scores([y[i] for i in real], [pred[i] for i in real], model.classes)
    for lang in ("zh", "en"):
        idx = [i for i, it in enumerate(items) if it["lang"] == lang]
        out[lang] = scores([y[i] for i in idx], [pred[i] for i in idx], model.classes)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="report the shipped weights, do not retrain")
    args = ap.parse_args()
    train, test = load("train"), load("test")
    x_test = features(test)
    tasks = {
        "statement_route": (lambda it: True, lambda it: it["route"]),
        "statement_kind": (lambda it: it["route"] != "drop" and it.get("kind"), lambda it: it["kind"]),
    }
    for name, (keep, label) in tasks.items():
        te = [i for i, it in enumerate(test) if keep(it)]
        te_items = [test[i] for i in te]
        y_te = [label(it) for it in te_items]
        if args.check:
            model = LinearModel.from_file(WEIGHTS / f"{name}.npz", name)
        else:
            tr_items = [it for it in train if keep(it)]
            x_tr = features(tr_items)
            y_tr = [label(it) for it in tr_items]
            c = choose_c(x_tr, y_tr, [group_of(it) for it in tr_items])
            model = fit_linear(name, x_tr, y_tr, c=c)
            report = evaluate(model, x_test[te], y_te, te_items)
            model = LinearModel(
                name=name,
                classes=model.classes,
                weights=model.weights,
                bias=model.bias,
                mean=model.mean,
                scale=model.scale,
                meta={"c": c, "train_n": len(tr_items), "test_n": len(te_items), "reported": report},
            )
            WEIGHTS.mkdir(parents=True, exist_ok=True)
            model.save(WEIGHTS / f"{name}.npz")
        report = evaluate(model, x_test[te], y_te, te_items)
        for part, s in report.items():
            print_scores(f"{name} [{part}]", s)


if __name__ == "__main__":
    main()

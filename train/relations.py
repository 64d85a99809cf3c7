"""Train the pairwise relation model (``relation``) on ``data/labelled/relations/{zh,en}_train.jsonl``, pick the
supersede threshold on grouped cross-validation of the training split (never on test), and print on the fixed
test split: supersede (= relation ``update``) precision / recall per language after the merge's hard rules, and
per-relation precision / recall.

    MEMSCRIBE_TRAIN_CACHE=/tmp/emb .venv/bin/python train/relations.py          # retrain, report, write weights
    .venv/bin/python train/relations.py --check                                  # report the shipped weights
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DATA, WEIGHTS, embed_passages, fit_linear, load_jsonl, print_scores, scores

from memscribe.judge.linear import LinearModel
from memscribe.judge.relations import RELATIONS, RelationSide, id_tokens, pair_matrix

NAME = "relation"
CORPUS = DATA / "relations"
# the supersede threshold is the lowest that keeps cross-validated precision at this level (test asks ≥ 0.95;
# the margin absorbs the gap between folds of train and a test split written apart from it)
TARGET_PRECISION = 0.97
# the regularisations tried (grouped CV of train picks one, see main)
C_GRID = (0.01, 0.03, 0.1, 0.3)


def load(split: str) -> list[dict]:
    return load_jsonl(CORPUS.glob(f"*_{split}.jsonl"))


def group_of(it: dict) -> str:
    # real pairs of one conversation, and written pairs of one batch of ten, stay in one fold
    src = str(it.get("source", "written"))
    return src.rsplit(":", 2)[0] if src != "written" else f"{it['lang']}-{it['id'][:-1]}"


def _side(s: dict, emb: np.ndarray, lang: str) -> RelationSide:
    return RelationSide(
        text=s["text"],
        embedding=emb,
        subject=s.get("subject"),
        slot=s.get("slot"),
        value=s.get("value"),
        kind=s.get("kind") or "fact",
        at=datetime.fromisoformat(s["at"]) if s.get("at") else None,
        lang=lang,
    )


def without_values(items: list[dict]) -> list[dict]:
    """The pairs as the write path sees them today: no judged value on either side."""
    return [{**it, "old": {**it["old"], "value": None}, "new": {**it["new"], "value": None}} for it in items]


def with_slots(items: list[dict], slot_of: dict[str, str]) -> list[dict]:
    """The pairs with each side's slot as the shipped slot model reads it (not the label)."""
    return [
        {
            **it,
            "old": {**it["old"], "slot": slot_of[it["old"]["text"]]},
            "new": {**it["new"], "slot": slot_of[it["new"]["text"]]},
        }
        for it in items
    ]


def features(items: list[dict]) -> np.ndarray:
    emb = embed_passages([it[side]["text"] for it in items for side in ("old", "new")])
    pairs = [
        (_side(it["old"], emb[2 * i], it["lang"]), _side(it["new"], emb[2 * i + 1], it["lang"]))
        for i, it in enumerate(items)
    ]
    return pair_matrix(pairs)


def predicted_slots(items: list[dict]) -> dict[str, str]:
    from memscribe.judge.linear import load_model
    from memscribe.judge.slots import slot_matrix

    kind_of = {it[side]["text"]: it[side]["kind"] for it in items for side in ("old", "new")}
    texts = sorted(kind_of)
    x = slot_matrix(embed_passages(texts), [kind_of[t] for t in texts])
    return dict(zip(texts, load_model("statement_slot").predict(x), strict=True))


def identity_holds(it: dict) -> bool:
    """The merge's hard rules for a supersede: the same subject, and no two different ids."""
    o, n = it["old"], it["new"]
    ido, idn = id_tokens(o["text"]), id_tokens(n["text"])
    return o.get("subject") == n.get("subject") and not (ido and idn and not (ido & idn))


def supersedes(p_update: np.ndarray, items: list[dict], threshold: float) -> np.ndarray:
    return np.array([p >= threshold and identity_holds(it) for p, it in zip(p_update, items, strict=True)])


def precision_recall(pred: np.ndarray, truth: np.ndarray) -> tuple[float, float, int, int]:
    tp = int((pred & truth).sum())
    return (
        (tp / pred.sum() if pred.sum() else 1.0),
        (tp / truth.sum() if truth.sum() else 1.0),
        int(pred.sum()),
        int(truth.sum()),
    )


def choose_threshold(p_update: np.ndarray, items: list[dict]) -> tuple[float, float, float]:
    """Lowest threshold whose out-of-fold supersede precision reaches TARGET_PRECISION (the most recall at
    that precision); returns (threshold, cv precision, cv recall)."""
    truth = np.array([it["relation"] == "update" for it in items])
    best = (0.99, 1.0, 0.0)
    for t in np.arange(0.30, 0.991, 0.01):
        p, r, _, _ = precision_recall(supersedes(p_update, items, float(t)), truth)
        if p >= TARGET_PRECISION and r > best[2]:
            best = (round(float(t), 2), p, r)
    return best


def out_of_fold(x: np.ndarray, y: list[str], groups: list[str], c: float) -> np.ndarray:
    from sklearn.model_selection import GroupKFold

    oof = np.zeros(len(y))
    ys = np.asarray(y)
    for tr, va in GroupKFold(n_splits=5).split(x, y, groups):
        m = fit_linear("cv", x[tr], ys[tr], c=c)
        oof[va] = m.proba(x[va])[:, m.classes.index("update")]
    return oof


def report(model: LinearModel, x: np.ndarray, items: list[dict]) -> dict:
    threshold = float(model.meta["supersede_threshold"])
    proba = model.proba(x)
    p_update = proba[:, model.classes.index("update")]
    pred = [model.classes[i] for i in proba.argmax(axis=1)]
    out: dict = {}
    for part in ("all", "zh", "en", "real"):
        idx = [
            i
            for i, it in enumerate(items)
            if part == "all"
            or it["lang"] == part
            or (part == "real" and str(it.get("source", "written")) != "written")
        ]
        sub = [items[i] for i in idx]
        truth = np.array([it["relation"] == "update" for it in sub])
        p, r, n_pred, n_true = precision_recall(supersedes(p_update[idx], sub, threshold), truth)
        out[part] = {
            "supersede": {
                "precision": round(p, 4),
                "recall": round(r, 4),
                "predicted": n_pred,
                "true": n_true,
            },
            "relations": scores([it["relation"] for it in sub], [pred[i] for i in idx], list(RELATIONS)),
        }
    return out


def print_report(rep: dict, threshold: float) -> None:
    for part, r in rep.items():
        s = r["supersede"]
        print(
            f"\nsupersede [{part}] threshold={threshold:.2f}: precision={s['precision']:.3f} "
            f"recall={s['recall']:.3f} (predicted {s['predicted']}, true {s['true']})"
        )
        print_scores(f"relation argmax [{part}]", r["relations"])


def test_conditions(test: list[dict]) -> dict[str, tuple[list[dict], np.ndarray]]:
    """The test split three ways: as labelled; without values; and as the write path sees it (no value, the
    slot model's slots)."""
    bare = without_values(test)
    out = {"labelled": test, "no_value": bare, "write_path": with_slots(bare, predicted_slots(test))}
    return {k: (items, features(items)) for k, items in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="report the shipped weights, do not retrain")
    ap.add_argument(
        "--rereport",
        action="store_true",
        help="keep the shipped weights, store their scores again (after the slot model was retrained)",
    )
    args = ap.parse_args()
    conditions = test_conditions(load("test"))
    if args.check or args.rereport:
        model = LinearModel.from_file(WEIGHTS / f"{NAME}.npz", NAME)
        if args.rereport:
            reported = {k: report(model, x, items) for k, (items, x) in conditions.items()}
            model = replace(model, meta={**model.meta, "reported": reported})
            model.save(WEIGHTS / f"{NAME}.npz")
    else:
        # every pair three times: with its labelled values; without (the write path has no judged value yet,
        # so the model must not lean on one); and without values, with the slot model's slots (the write path
        # has no labelled slot either: a wrong slot must not turn a real change into "unrelated"). The copies
        # of a pair share a group, so CV never splits them
        train = load("train")
        bare = without_values(train)
        train = train + bare + with_slots(bare, predicted_slots(bare))
        x_tr = features(train)
        y_tr = [it["relation"] for it in train]
        groups = [group_of(it) for it in train]
        # C is chosen for what the model is for: the most out-of-fold supersede recall at TARGET_PRECISION
        # (macro-F1 over the eight relations chose 0.03, whose squeezed update scores left the threshold high)
        threshold, cv_p, cv_r, c = max(
            ((*choose_threshold(out_of_fold(x_tr, y_tr, groups, c), train), c) for c in C_GRID),
            key=lambda t: t[2],
        )
        print(
            f"C={c} supersede threshold={threshold} (grouped CV of train: precision {cv_p:.3f}, recall {cv_r:.3f})"
        )
        fitted = fit_linear(NAME, x_tr, y_tr, c=c)
        meta = {
            "c": c,
            "supersede_threshold": threshold,
            "cv_supersede": {"precision": round(cv_p, 4), "recall": round(cv_r, 4)},
            "train_n": len(train),
            "test_n": len(conditions["labelled"][0]),
        }
        model = replace(fitted, meta=meta)
        reported = {k: report(model, x, items) for k, (items, x) in conditions.items()}
        model = replace(model, meta={**meta, "reported": reported})
        WEIGHTS.mkdir(parents=True, exist_ok=True)
        model.save(WEIGHTS / f"{NAME}.npz")
    for k, (items, x) in conditions.items():
        print(f"\n===== test split, {k} =====")
        print_report(report(model, x, items), float(model.meta["supersede_threshold"]))


if __name__ == "__main__":
    main()

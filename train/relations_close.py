"""The threshold of the relation model's close reading (write/relation_judge.py CLOSE_THRESHOLD): P(done) +
P(cancel) of pairs whose old side is a plan or task, as the write path sees them (no value, the slot model's
slots), out of fold on grouped CV of the training split (the shipped C), against every other relation; then
the same reading of the shipped weights on the test split, for the record (never used to choose).

    MEMSCRIBE_TRAIN_CACHE=/tmp/emb .venv/bin/python train/relations_close.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import fit_linear
from relations import (
    features,
    group_of,
    identity_holds,
    load,
    predicted_slots,
    test_conditions,
    with_slots,
    without_values,
)

from memscribe.judge.linear import load_model

CLOSE = ("done", "cancel")


def _p_close(proba: np.ndarray, classes: list[str]) -> np.ndarray:
    return sum(proba[:, classes.index(c)] for c in CLOSE)


def _open(items: list[dict]) -> np.ndarray:
    return np.array([it["old"].get("kind") in ("plan", "task") and identity_holds(it) for it in items])


def _line(name: str, pred: np.ndarray, truth: np.ndarray, open_: np.ndarray) -> str:
    tp = int((pred & truth).sum())
    return (
        f"{name}: precision={tp / max(int(pred.sum()), 1):.3f} "
        f"recall={tp / max(int((truth & open_).sum()), 1):.3f} predicted={int(pred.sum())}"
    )


def main() -> None:
    from sklearn.model_selection import GroupKFold

    train = load("train")
    bare = without_values(train)
    train = train + bare + with_slots(bare, predicted_slots(bare))
    x = features(train)
    y = np.asarray([it["relation"] for it in train])
    groups = [group_of(it) for it in train]
    c = load_model("relation").meta["c"]
    oof = np.zeros(len(y))
    for tr, va in GroupKFold(n_splits=5).split(x, y, groups):
        m = fit_linear("cv", x[tr], y[tr], c=c)
        oof[va] = _p_close(m.proba(x[va]), list(m.classes))
    open_, truth = _open(train), np.isin(y, CLOSE)
    for t in np.arange(0.70, 0.991, 0.05):
        print(_line(f"grouped CV of train, threshold {t:.2f}", open_ & (oof >= t), truth, open_))
    model = load_model("relation")
    items, xt = test_conditions(load("test"))["write_path"]
    pt = _p_close(model.proba(xt), list(model.classes))
    open_t, truth_t = _open(items), np.isin([it["relation"] for it in items], CLOSE)
    for t in (0.85, 0.90, 0.95):
        print(_line(f"test split (write path), threshold {t:.2f}", open_t & (pt >= t), truth_t, open_t))


if __name__ == "__main__":
    main()

"""The shipped judge weights reproduce the scores they report on their corpus' fixed test split
(`train/statements.py` wrote both), and the test split is apart from the training split."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "train"))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["statement_route", "statement_kind"])
def test_shipped_statement_models_reproduce_their_reported_scores(name):
    import statements as training  # train/statements.py

    from memscribe.judge.linear import load_model

    model = load_model(name)
    keep = (lambda it: True) if name == "statement_route" else (lambda it: it["route"] != "drop")
    label = (lambda it: it["route"]) if name == "statement_route" else (lambda it: it["kind"])
    test = [it for it in training.load("test") if keep(it)]
    report = training.evaluate(model, training.features(test), [label(it) for it in test], test)
    reported = model.meta["reported"]
    for part in ("all", "real", "zh", "en"):
        assert report[part]["macro_f1"] == pytest.approx(reported[part]["macro_f1"], abs=1e-3), part
        assert report[part]["accuracy"] == pytest.approx(reported[part]["accuracy"], abs=1e-3), part


def test_statement_test_split_shares_no_text_with_training():
    import statements as training

    norm = lambda t: "".join(ch for ch in t.lower() if ch.isalnum())  # noqa: E731
    train = {norm(it["text"]) for it in training.load("train")}
    shared = [
        it["id"] for it in training.load("test") if norm(it["text"]) in train and len(norm(it["text"])) > 8
    ]
    assert len(shared) <= 3, shared

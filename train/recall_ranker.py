"""Train the learned recall ranker (``memscribe.read.ranker``) and measure it out of fold.

Rows: for each dev question (LoCoMo conv-26/41/44/48/50 and the two convbench dev conversations, categories 1-4
with evidence) the recall stage's own candidate list (``recall_candidates``, k=40, above the hand-set floors: what
the ranker orders by default) with
:data:`RANK_FEATURES`. Label = the judge's (``shared/tools/locomo_eval.py``): the memory lists an evidence turn
in its sources AND carries it. Folds: leave one conversation out (each LoCoMo conversation, convbench as one
fold); every figure printed is out of fold.

    python train/recall_ranker.py rows STORES...          # STORES: folders holding <sample_id>/store
    python train/recall_ranker.py fit                     # LOCO P/R + reliability, writes the fold models
    python train/recall_ranker.py eval --budget 300,1000 [--ranker learned|weights] [--min-p T]
    python train/recall_ranker.py ship                    # fit on every row, write judge/weights/recall_ranker.npz

``eval`` runs the real ``Memory.context`` on copies of the stores with each conversation's fold model (the
model that never saw it) and prints the judge's S / A / P (``train/readeval.py``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import WEIGHTS, fit_linear
from readeval import Judge, conversations, evaluate_store

from memscribe.judge.linear import LinearModel
from memscribe.read.ranker import RANK_FEATURES, RecallRanker

ROOT = Path(__file__).resolve().parents[1]
# the rows are committed (derived from the dev stores, which are not): the shipped scores are reproducible
ROWS = ROOT / "data" / "ranker" / "recall_rows.npz"
# fold models and reports of a run (not committed)
WORK = Path(os.environ.get("MEMSCRIBE_RANKER_WORK", ROOT / ".cache" / "recall-ranker"))
FOLDS = WORK / "folds"
LOCOMO = Path("/work/shared/datasets/locomo/locomo_dev.json")
CONVBENCH = Path("/work/shared/datasets/convbench/conv_dev.json")
K = 40
C = 0.3
SCORES = WEIGHTS / "recall_ranker_scores.json"


def fold_of(conv: str) -> str:
    return conv if conv.startswith("conv-") else "convbench"


def build_rows(stores: list[Path]) -> None:
    from memscribe import Memory
    from memscribe.judge.relevance import load_gate
    from memscribe.judge.slots import guess_slot
    from memscribe.read.query import statuses_for
    from memscribe.read.ranker import rank_features
    from memscribe.read.recall import load_background, recall_candidates
    from memscribe.read.rerank import hand_cut
    from memscribe.read.rewrite import rewrite_query

    judge = Judge()
    xs, ys, groups, qids = [], [], [], []
    for _path, conv in conversations([LOCOMO, CONVBENCH]):
        folder = next(
            (s / conv["sample_id"] for s in stores if (s / conv["sample_id"] / "store").is_dir()), None
        )
        if folder is None:
            print(f"no store for {conv['sample_id']}", file=sys.stderr)
            continue
        uid = conv["sample_id"]
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(folder / "store", Path(tmp) / "store")
            mem = Memory(home=Path(tmp) / "store")
            store, emb, s = mem._store, mem.embedder, mem.settings
            bg, gate = load_background(emb), load_gate()
            turns = judge.turn_texts(conv)
            for qi, qa in judge.questions(conv, turns):
                now = mem._clock()
                rq = rewrite_query(qa["question"], now=now, recent_turns=None)
                scored, qvec = recall_candidates(
                    store,
                    emb,
                    user_id=uid,
                    query=rq.text,
                    now=now,
                    window=rq.window,
                    k=K,
                    cfg=s.recall,
                    life=s.lifecycle,
                    statuses=statuses_for({}, deep=False),
                    deep=False,
                )
                if not scored:
                    continue
                # what the ranker orders by default: the candidates above the hand-set floors
                scored = hand_cut(scored, s.recall)
                if not scored:
                    continue
                guess = guess_slot(np.asarray(qvec, dtype=np.float32), "profile")
                x = rank_features(
                    bg,
                    rq.text,
                    qvec,
                    scored,
                    personal=gate.personal_p(rq.text, qvec),
                    has_window=rq.window is not None,
                    slot_guess=(guess.slot, guess.probability),
                )
                ev = judge.evidence(qa, turns)
                for row, sc in zip(x, scored, strict=True):
                    xs.append(row)
                    ys.append(judge.label(sc.record, ev, turns))
                    groups.append(uid)
                    qids.append(f"{uid}:{qi}")
            mem.close()
        print(f"{uid}: {len(set(q for q in qids if q.startswith(uid + ':')))} questions", file=sys.stderr)
    ROWS.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        ROWS,
        x=np.array(xs, dtype=np.float32),
        y=np.array(ys, dtype=np.int8),
        group=np.array(groups),
        qid=np.array(qids),
        features=np.array(RANK_FEATURES),
    )
    print(f"rows {len(ys)}, positives {sum(ys)}, questions {len(set(qids))}")


def load_rows() -> dict[str, np.ndarray]:
    with np.load(ROWS, allow_pickle=False) as z:
        if tuple(str(f) for f in z["features"]) != RANK_FEATURES:
            raise SystemExit("rows were built on other features: rebuild them (rows)")
        return {k: z[k] for k in z.files}


def _fit(x: np.ndarray, y: np.ndarray, c: float = C) -> LinearModel:
    labels = np.where(y == 1, "evidence", "other")
    m = fit_linear("recall_ranker", x, list(labels), c=c, class_weight=None)
    return m


def _metrics(p: np.ndarray, y: np.ndarray, qid: np.ndarray, hand_rank: np.ndarray) -> dict[str, float]:
    """Row P/R at 0.5, and per question: the place of the first evidence by P vs by the hand score."""
    from sklearn.metrics import average_precision_score, roc_auc_score

    out: dict[str, float] = {
        "auc": float(roc_auc_score(y, p)),
        "ap": float(average_precision_score(y, p)),
    }
    pred = p >= 0.5
    out["precision@0.5"] = float((pred & (y == 1)).sum() / max(1, pred.sum()))
    out["recall@0.5"] = float((pred & (y == 1)).sum() / max(1, (y == 1).sum()))
    first_l, first_h, hit1_l, hit1_h, hit3_l, hit3_h, n = 0.0, 0.0, 0, 0, 0, 0, 0
    for q in np.unique(qid):
        m = qid == q
        yq = y[m]
        if yq.sum() == 0:
            continue
        n += 1
        ol = np.argsort(-p[m], kind="stable")
        oh = np.argsort(hand_rank[m], kind="stable")
        fl = int(np.argmax(yq[ol] == 1))
        fh = int(np.argmax(yq[oh] == 1))
        first_l += 1.0 / (1 + fl)
        first_h += 1.0 / (1 + fh)
        hit1_l += fl == 0
        hit1_h += fh == 0
        hit3_l += fl < 3
        hit3_h += fh < 3
    out.update(
        questions_with_evidence=n,
        mrr_learned=first_l / n,
        mrr_hand=first_h / n,
        hit1_learned=hit1_l / n,
        hit1_hand=hit1_h / n,
        hit3_learned=hit3_l / n,
        hit3_hand=hit3_h / n,
    )
    return out


def reliability(p: np.ndarray, y: np.ndarray, bins: int = 10) -> list[tuple[float, float, float, float, int]]:
    out = []
    edges = np.linspace(0, 1, bins + 1)
    for lo, hi in itertools.pairwise(edges):
        m = (p >= lo) & ((p < hi) if hi < 1 else (p <= hi))
        if m.sum():
            out.append((float(lo), float(hi), float(p[m].mean()), float(y[m].mean()), int(m.sum())))
    return out


def fit_folds(c: float = C, *, write: bool = True) -> dict[str, object]:
    r = load_rows()
    x, y, group, qid = r["x"], r["y"], r["group"], r["qid"]
    folds = np.array([fold_of(str(g)) for g in group])
    oof = np.zeros(len(y))
    if write:
        FOLDS.mkdir(parents=True, exist_ok=True)
    for f in sorted(set(folds)):
        tr = folds != f
        m = _fit(x[tr], y[tr], c)
        m.meta.update(features=list(RANK_FEATURES), fold=f)
        if write:
            m.save(FOLDS / f"{f}.npz")
        oof[~tr] = RecallRanker(m).probabilities(x[~tr])
    hand_rank = x[:, RANK_FEATURES.index("hand_rank")]
    report = {"c": c, "rows": len(y), "positives": int(y.sum()), "all": _metrics(oof, y, qid, hand_rank)}
    for f in sorted(set(folds)):
        m = folds == f
        report[f] = _metrics(oof[m], y[m], qid[m], hand_rank[m])
    report["reliability"] = reliability(oof, y)
    return report


def evaluate_shipped() -> dict[str, float]:
    """The shipped weights on the committed rows (in sample: it was fit on all of them)."""
    from memscribe.read.ranker import load_ranker

    r = load_rows()
    p = load_ranker().probabilities(r["x"])
    hand_rank = r["x"][:, RANK_FEATURES.index("hand_rank")]
    return _metrics(p, r["y"], r["qid"], hand_rank)


def print_report(rep: dict[str, object]) -> None:
    print(f"C={rep['c']} rows={rep['rows']} positives={rep['positives']} (out of fold)")
    for k, v in rep.items():
        if isinstance(v, dict):
            print(
                f"  {k:10s} "
                + " ".join(f"{a}={b:.3f}" if isinstance(b, float) else f"{a}={b}" for a, b in v.items())
            )
    print("  reliability (bin, mean P, evidence share, rows):")
    for lo, hi, mp, ev, n in rep["reliability"]:
        print(f"    [{lo:.1f},{hi:.1f}) P={mp:.3f} observed={ev:.3f} n={n}")


def run_eval(
    stores: list[Path],
    budgets: list[int],
    ranker: str,
    min_p: float,
    fold_models: bool,
    cuts: tuple[float, ...] = (),
) -> dict:
    import memscribe.read.ranker as ranker_mod

    os.environ["MEMSCRIBE_RECALL__RANKER"] = ranker
    os.environ["MEMSCRIBE_RECALL__RANKER_MIN_P"] = str(min_p)
    judge = Judge()
    res: dict[str, dict[int, dict[str, list[float]]]] = {}
    for _path, conv in conversations([LOCOMO, CONVBENCH]):
        uid = conv["sample_id"]
        folder = next((s / uid for s in stores if (s / uid / "store").is_dir()), None)
        if folder is None:
            continue
        if fold_models:
            model = LinearModel.from_file(FOLDS / f"{fold_of(uid)}.npz", "recall_ranker")
            ranker_mod.load_ranker = lambda m=model: RecallRanker(m)  # type: ignore[assignment]
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(folder / "store", Path(tmp) / "store")
            res[uid] = evaluate_store(judge, conv, Path(tmp) / "store", budgets, cuts)
    return res


def summarise(res: dict, budgets: list[int]) -> dict[str, dict[int, dict[str, float]]]:
    parts = {
        "locomo": [u for u in res if u.startswith("conv-")],
        "convbench": [u for u in res if not u.startswith("conv-")],
    }
    out: dict[str, dict[int, dict[str, float]]] = {}
    for name, uids in parts.items():
        if not uids:
            continue
        out[name] = {}
        for b in sorted({k for u in uids for k in res[u]}, key=str):
            agg: dict[str, list[float]] = defaultdict(list)
            for u in uids:
                for k, v in res[u][b].items():
                    agg[k] += v
            out[name][b] = {k: float(np.mean(v)) if v else 0.0 for k, v in agg.items()}
            out[name][b]["q"] = len(agg["S"])
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["rows", "fit", "eval", "ship"])
    ap.add_argument("stores", nargs="*", type=Path)
    ap.add_argument("--budget", default="300,1000")
    ap.add_argument("--ranker", default="learned")
    ap.add_argument("--min-p", type=float, default=0.0)
    ap.add_argument("--cuts", default="", help="eval: also score each context cut at these P(evidence)")
    ap.add_argument("--c", type=float, default=C)
    ap.add_argument("--shipped", action="store_true", help="eval: the shipped weights, not the fold models")
    a = ap.parse_args()
    stores = a.stores or [Path("/work/g8stores"), Path("/work/s9/rank9-stores")]
    if a.cmd == "rows":
        build_rows(stores)
    elif a.cmd == "fit":
        rep = fit_folds(a.c)
        print_report(rep)
        WORK.mkdir(parents=True, exist_ok=True)
        (WORK / "fit_report.json").write_text(json.dumps(rep, indent=1))
    elif a.cmd == "eval":
        budgets = [int(b) for b in a.budget.split(",")]
        cuts = tuple(float(t) for t in a.cuts.split(",") if t)
        res = run_eval(
            stores, budgets, a.ranker, a.min_p, fold_models=a.ranker == "learned" and not a.shipped, cuts=cuts
        )
        summ = summarise(res, budgets)
        for name, by_b in summ.items():
            for b, m in by_b.items():
                print(
                    f"{name} budget {b} ranker={a.ranker} min_p={a.min_p}: S {m['S']:.3f} A {m['A']:.3f} "
                    f"P {m['P']:.3f} items {m['n']:.1f} tok {m['tok']:.0f} (q={m['q']})"
                )
    elif a.cmd == "ship":
        r = load_rows()
        m = _fit(r["x"], r["y"], a.c)
        rep = json.loads((WORK / "fit_report.json").read_text())
        m.meta.update(
            features=list(RANK_FEATURES),
            c=a.c,
            rows=len(r["y"]),
            trained_on="LoCoMo conv-26/41/44/48/50 + convbench dev (every row; figures are out of fold)",
            out_of_fold=rep["all"],
        )
        m.save(WEIGHTS / "recall_ranker.npz")
        from memscribe.read.ranker import load_ranker

        load_ranker.cache_clear()
        from memscribe.judge.linear import load_model

        load_model.cache_clear()
        scores = {"out_of_fold": rep, "shipped_in_sample": evaluate_shipped()}
        SCORES.write_text(json.dumps(scores, indent=1) + "\n")
        print(f"wrote {WEIGHTS / 'recall_ranker.npz'}, {SCORES}")


if __name__ == "__main__":
    main()

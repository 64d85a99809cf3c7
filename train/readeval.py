"""S / A / P of ``Memory.context`` over kept LoCoMo-format stores, read side only, with the judge's own
definitions (imported from ``shared/tools/locomo_eval.py``): S strict evidence recall, A answer recall, P the
share of context items that carry an evidence turn.

    python train/readeval.py STORES_DIR --budget 300,1000 [--data FILE] [--convs conv-26,...]

Each store is read from a temporary copy (recall writes access statistics).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

JUDGE = Path(os.environ.get("MEMSCRIBE_LOCOMO_EVAL", "/work/shared/tools/locomo_eval.py"))


class Judge:
    """The judge's functions, loaded from its file."""

    def __init__(self, path: Path = JUDGE) -> None:
        spec = importlib.util.spec_from_file_location("locomo_eval", path)
        assert spec is not None and spec.loader is not None
        self.le = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.le)

    @staticmethod
    def turn_texts(conv: dict[str, Any]) -> dict[str, str]:
        c = conv["conversation"]
        out = {}
        for k in c:
            if k.startswith("session_") and not k.endswith("date_time") and isinstance(c[k], list):
                for t in c[k]:
                    cap = f" [shares a photo: {t['blip_caption']}]" if t.get("blip_caption") else ""
                    out[t["dia_id"]] = t["text"] + cap
        return out

    def evidence(self, qa: dict[str, Any], turns: dict[str, str]) -> set[str]:
        return set(self.le.norm_ev(qa.get("evidence", []))) & set(turns)

    def questions(self, conv: dict[str, Any], turns: dict[str, str]) -> Iterator[tuple[int, dict[str, Any]]]:
        for i, qa in enumerate(conv["qa"]):
            if qa["category"] != 5 and self.evidence(qa, turns):
                yield i, qa

    def label(self, rec: Any, ev: set[str], turns: dict[str, str]) -> int:
        """1 when the memory lists an evidence turn in its sources and carries it."""
        ids = {s.message_id for s in rec.sources}
        return int(any(self.le.carries(rec.text, turns[d]) for d in ids & ev))


def conversations(paths: Iterable[Path]) -> Iterator[tuple[Path, dict[str, Any]]]:
    for p in paths:
        for conv in json.loads(Path(p).read_text(encoding="utf-8")):
            yield p, conv


def score_context(
    judge: Judge,
    qa: dict[str, Any],
    ev: set[str],
    turns: dict[str, str],
    text: str,
    items: list[dict[str, Any]],
    r: dict[str, list[float]],
) -> None:
    """The judge's S, A and P of one context, appended to ``r``."""
    le = judge.le
    carried: dict[str, str] = defaultdict(str)
    for m in items:
        for d in le.src_ids(m) & ev:
            carried[d] += " " + (m.get("text") or "")
    strict = {d for d, t in carried.items() if le.holds(t, turns.get(d, ""))}
    r["S"].append(len(ev & strict) / len(ev))
    h = le.answer_hit(qa.get("answer", ""), text)
    if h is not None:
        r["A"].append(h)
    held = sum(
        1
        for m in items
        if any(d in strict and le.carries(m.get("text") or "", turns.get(d, "")) for d in le.src_ids(m) & ev)
    )
    if items:
        r["P"].append(held / len(items))
    r["tok"].append(le.ntok(text))
    r["n"].append(len(items))


def evaluate_store(
    judge: Judge, conv: dict[str, Any], home: Path, budgets: list[int], cuts: tuple[float, ...] = ()
) -> dict[Any, dict[str, list[float]]]:
    """Per budget (and per ``(budget, cut)``: the same context without the ranked items, past the first, whose
    P(evidence) is below the cut; a sibling stays with its head), the judge's measures of every question."""
    from memscribe import Memory
    from memscribe.read.assemble import format_line

    le = judge.le
    uid = conv["sample_id"]
    turns = judge.turn_texts(conv)
    res: dict[Any, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    mem = Memory(home=home)
    try:
        for _i, qa in judge.questions(conv, turns):
            ev = judge.evidence(qa, turns)
            for b in budgets:
                ctx = mem.context(qa["question"], user_id=uid, budget_tokens=b)
                text, items = le.ctx_items(ctx)
                score_context(judge, qa, ev, turns, text, items, res[b])
                for t in cuts:
                    keep = [
                        j
                        for j, h in enumerate(ctx.items)
                        if j == 0 or "sibling_of" in h.why or float(h.why.get("p_evidence", 1.0)) >= t
                    ]
                    sub = [items[j] for j in keep]
                    sub_text = "\n".join(format_line(ctx.items[j].memory) for j in keep)
                    score_context(judge, qa, ev, turns, sub_text, sub, res[(b, t)])
    finally:
        mem.close()
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("stores", type=Path)
    ap.add_argument("--budget", default="300,1000")
    ap.add_argument("--data", type=Path, default=Path("/work/shared/datasets/locomo/locomo_dev.json"))
    ap.add_argument("--convs", default="")
    a = ap.parse_args()
    budgets = [int(b) for b in a.budget.split(",")]
    only = set(filter(None, a.convs.split(",")))
    judge = Judge()
    total: dict[int, dict[str, list[float]]] = {b: defaultdict(list) for b in budgets}
    for _p, conv in conversations([a.data]):
        uid = conv["sample_id"]
        if (only and uid not in only) or not (a.stores / uid / "store").is_dir():
            continue
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(a.stores / uid / "store", Path(tmp) / "store")
            res = evaluate_store(judge, conv, Path(tmp) / "store", budgets)
        for b in budgets:
            for k, v in res[b].items():
                total[b][k] += v
    for b in budgets:
        r = total[b]

        def m(x: list[float]) -> float:
            return sum(x) / len(x) if x else 0.0

        print(
            f"budget {b}: S {m(r['S']):.3f} A {m(r['A']):.3f} P {m(r['P']):.3f} items {m(r['n']):.1f} "
            f"tok_med {statistics.median(r['tok'])} (q={len(r['S'])})"
        )


if __name__ == "__main__":
    main()

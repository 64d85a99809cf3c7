"""Judge ``context()`` end to end, relevance gate included, on the cached dev stores
(``train/relevance_stores.py``): S and A at a budget on the LoCoMo stores (as ``locomo_eval.py`` measures them),
the share of answerable questions (LoCoMo, convbench, MemoryBank probing) that get an empty context, and the
share of unanswerable queries (held-apart test + probe files by default) that do, per store and language.

    .venv/bin/python train/relevance_eval.py [--budget 300] [--stores NAME ...] [--ungated]
        [--unanswerable test probe]

Records no access (the stores stay as built).
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import load_jsonl
from relevance_rows import STORES, UNANSWERABLE, answerable_queries, eval_module, measure_context, ungated


def main() -> None:
    from memscribe import Memory

    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=int, default=300)
    ap.add_argument("--stores", nargs="*")
    ap.add_argument("--unanswerable", nargs="*", default=["test", "probe"], choices=sorted(UNANSWERABLE))
    ap.add_argument("--ungated", action="store_true", help="recall without the gate, for comparison")
    ap.add_argument("--show", action="store_true", help="print each unanswerable query that got a context")
    args = ap.parse_args()
    if args.ungated:
        ungated()
    ev = eval_module()
    unans = load_jsonl([UNANSWERABLE[s] for s in args.unanswerable])
    names = args.stores or sorted(p.name for p in STORES.iterdir() if p.is_dir() and not p.suffix)
    shares: dict[str, list[float]] = defaultdict(list)
    for name in names:
        mem = Memory(STORES / name)
        mem._reader._on_access = lambda ids: None
        users = sorted(mem._store.iter_users())
        for q in answerable_queries(name):
            if q["user"] not in users:
                continue
            m = measure_context(ev, mem.context(q["query"], user_id=q["user"], budget_tokens=args.budget), q)
            shares[f"{q['origin']} answerable empty"].append(1.0 if m["items"] == 0 else 0.0)
            for k in ("S", "A"):
                if m.get(k) is not None:
                    shares[f"{q['origin']} {k}"].append(float(m[k]))
        for u in unans:
            ctx = mem.context(u["query"], user_id=users[0], budget_tokens=args.budget)
            empty = 0.0 if ctx.items else 1.0
            for key in (
                f"unanswerable empty {name}",
                f"unanswerable empty {u['lang']}",
                "unanswerable empty all",
            ):
                shares[key].append(empty)
            if args.show and ctx.items:
                print(
                    f"  [{name}] {u['query']!r} -> {ctx.items[0].memory.text[:70]!r} {ctx.items[0].why.get('gate')}"
                )
        mem.close()
    for k, v in sorted(shares.items()):
        print(f"{k:48s} {sum(v) / len(v):.3f}  (n={len(v)})")
    print(f"budget {args.budget}, {'ungated' if args.ungated else 'gated'}")


if __name__ == "__main__":
    main()

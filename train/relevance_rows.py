"""Record, once per dev store, what recall without the relevance gate does for every query the relevance gate is trained and judged
on, so the gate can be fitted and measured offline without re-running recall:

- every LoCoMo / convbench question (categories 1-4 with evidence) and the MemoryBank probing questions of the
  store's users: the strict evidence recall S and answer recall A of ``context()`` at 300 and 1000 tokens
  (measured as ``/work/shared/tools/locomo_eval.py`` does), and which candidates carry an evidence turn;
- every unanswerable query (train, test and probe files) against the store's first user;
- for each query: the query vector and the first recall candidates (text, cosine to the query).

    .venv/bin/python train/relevance_rows.py [--stores NAME ...] [--out DIR]

Reads the stores built by ``train/relevance_stores.py``; records no access (the stores stay as built).
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DATA, load_jsonl
from relevance_stores import DATASETS
from relevance_stores import DEFAULT_OUT as STORES

ROWS = Path(os.environ.get("MEMSCRIBE_RELEVANCE_ROWS", "/work/cache/relev6/rows"))
CANDIDATES = 20  # the gate looks at the first recall candidates only
UNANSWERABLE = {
    "train": DATA / "relevance" / "unanswerable.jsonl",
    "test": DATA / "relevance" / "unanswerable_test.jsonl",
    "probe": DATA / "relevance" / "unanswerable_probe.jsonl",
}


def eval_module():
    import importlib.util

    spec = importlib.util.spec_from_file_location("locomo_eval", DATASETS.parent / "tools" / "locomo_eval.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def turns_of(conv: dict) -> dict[str, str]:
    out = {}
    for k, v in conv["conversation"].items():
        if k.startswith("session_") and isinstance(v, list):
            for t in v:
                out[t["dia_id"]] = t["text"] + (
                    f" [shares a photo: {t['blip_caption']}]" if t.get("blip_caption") else ""
                )
    return out


def answerable_queries(name: str) -> list[dict]:
    """The store's questions with their evidence turns and answers (LoCoMo, convbench), or the MemoryBank
    probing questions of its users (no evidence ids: only whether the context is empty is measured)."""
    ev = eval_module()
    out = []
    for file, prefix in (("locomo/locomo_dev.json", "locomo"), ("convbench/conv_dev.json", "convbench")):
        for conv in json.loads((DATASETS / file).read_text()):
            if f"{prefix}-{conv['sample_id']}" != name:
                continue
            turns = turns_of(conv)
            for qa in conv["qa"]:
                evid = set(ev.norm_ev(qa.get("evidence", []))) & set(turns)
                if qa["category"] == 5 or not evid:
                    continue
                out.append(
                    {
                        "query": qa["question"],
                        "user": conv["sample_id"],
                        "evidence": evid,
                        "answer": str(qa.get("answer", "")),
                        "turns": {d: turns[d] for d in evid},
                        "origin": prefix,
                    }
                )
    if name.startswith("memorybank-"):
        lang = name.split("-")[1]
        fname = {"zh": "probing_questions_cn.jsonl", "en": "probing_questions_en.jsonl"}[lang]
        for line in (DATASETS / "memorybank" / fname).read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            for user, qs in json.loads(line).items():
                out.extend({"query": q, "user": user.strip(), "origin": "memorybank"} for q in qs)
    return out


def measure_context(ev, ctx, q: dict) -> dict:
    """S and A of one context for a question with evidence (as locomo_eval.py measures them)."""
    items = [h.memory for h in ctx.items]
    if "evidence" not in q:
        return {"items": len(items)}
    carried = defaultdict(str)
    for m in items:
        for d in {s.message_id for s in m.sources} & q["evidence"]:
            carried[d] += " " + m.text
    strict = {d for d, t in carried.items() if ev.holds(t, q["turns"].get(d, ""))}
    return {
        "items": len(items),
        "S": len(q["evidence"] & strict) / len(q["evidence"]),
        "A": ev.answer_hit(q["answer"], ctx.text),
    }


def ungated() -> None:
    """Recall as it is without the relevance gate (what the gate is trained on and compared with)."""
    import memscribe.read.query as query
    from memscribe.read.recall import hybrid_recall

    query.hybrid_recall = lambda *a, **kw: hybrid_recall(*a, **{**kw, "relevance_gate": False})


def record_store(name: str, out_dir: Path) -> Path:
    from memscribe import Memory

    ungated()
    ev = eval_module()
    mem = Memory(STORES / name)
    mem._reader._on_access = lambda ids: None  # judge the store as built
    embedder = mem._reader._recall._embedder
    last_vec: list[np.ndarray] = []
    embed_query = embedder.embed_query

    def spy(text: str) -> np.ndarray:
        v = embed_query(text)
        last_vec.append(v)
        return v

    embedder.embed_query = spy
    users = sorted(mem._store.iter_users())
    queries = answerable_queries(name)
    for split, path in UNANSWERABLE.items():
        queries.extend(
            {"query": u["query"], "user": users[0], "origin": f"unanswerable-{split}", "lang": u["lang"]}
            for u in load_jsonl([path])
        )
    rows = []
    for q in queries:
        if q["user"] not in users:
            continue
        row = {k: v for k, v in q.items() if k != "turns"}
        for budget in (300, 1000):
            ctx = mem.context(q["query"], user_id=q["user"], budget_tokens=budget)
            row[f"ctx{budget}"] = measure_context(ev, ctx, q)
        last_vec.clear()
        scored = mem._reader._recall(q["query"], user_id=q["user"], k=25, filters=None)[:CANDIDATES]
        row["qvec"] = last_vec[-1].astype(np.float16)
        row["candidates"] = [
            {
                "text": s.record.text,
                "cosine": float(s.why["cosine"]),
                "evidence": bool({x.message_id for x in s.record.sources} & q.get("evidence", set())),
            }
            for s in scored
        ]
        rows.append(row)
    mem.close()
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.pkl"
    path.write_bytes(pickle.dumps(rows))
    return path


def load_rows(names: list[str] | None = None, rows_dir: Path = ROWS) -> dict[str, list[dict]]:
    files = sorted(rows_dir.glob("*.pkl"))
    return {p.stem: pickle.loads(p.read_bytes()) for p in files if names is None or p.stem in names}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--stores", nargs="*")
    ap.add_argument("--out", type=Path, default=ROWS)
    args = ap.parse_args()
    names = args.stores or sorted(p.name for p in STORES.iterdir() if p.is_dir() and not p.suffix)
    for name in names:
        print(record_store(name, args.out), flush=True)


if __name__ == "__main__":
    main()

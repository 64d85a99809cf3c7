"""The MemoryBank user turns the write path keeps, for grading by hand (issue #14): a few users of the zh and en
files are ingested through the public API exactly as train/memorybank_keep_share.py does (one session per day,
the query a ``user`` message, the response an ``assistant`` one); every user turn is written out with whether it
is kept, the memories that list it (text, kind, layer, the roles of their sources), the audit reasons of those
memories, and the statement judge's p_keep of the whole turn as the judge reads it (write/judged.py).

    .venv/bin/python train/memorybank_kept_turns.py DATASETS_MEMORYBANK "焦彦,王峰" "Frank,Gary" [out.jsonl]

Without ``out.jsonl`` the kept turns are printed; with it every turn (kept or not) is written one JSON a line.
"""

from __future__ import annotations

import json
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memorybank_keep_share import ingest_user

from memscribe import Memory
from memscribe.judge.statements import judge_statements
from memscribe.lang.text import detect_lang
from memscribe.write.judged import rules_reading


def _p_keep(mem: Memory, text: str, day: str) -> float | None:
    """The statement judge's keep probability of the whole turn (the rule encoder's sentence embedded)."""
    try:
        reading = rules_reading(text, at=datetime.fromisoformat(f"{day}T12:00:00").replace(tzinfo=UTC))
        vec = np.asarray(mem.worker_embedder.embed_passages([reading]), dtype=np.float32)
        j = judge_statements(vec, [text], roles=["user"], has_prev=[False], langs=[detect_lang(text)])[0]
        return round(1.0 - j.p_route["drop"], 3)
    except Exception:  # the figure helps grading; the keep decision is read from the store
        return None


def kept_turns(path: Path, users: list[str]) -> list[dict]:
    data = json.loads(path.read_text(encoding="utf-8"))
    keys = {k.strip(): k for k in data}
    out: list[dict] = []
    with Memory(home=tempfile.mkdtemp(prefix="ms-kept-")) as mem:
        for name in users:
            user = keys[name]
            turns = ingest_user(mem, user, data[user])
            by_turn: dict[str, list[dict]] = {}
            for r in mem.list(user_id=user, status="all"):
                roles = sorted({s.role for s in r.sources})
                reasons = [
                    f"{e.stage}:{e.action}: {e.reason}"
                    for e in mem.explain(r.id)
                    if e.stage in ("filter", "merge", "encode")
                ]
                info = {
                    "text": r.text,
                    "kind": str(r.kind.value),
                    "layer": str(r.layer.value),
                    "status": str(r.status.value),
                    "source_roles": roles,
                    "n_sources": len(r.sources),
                    "reasons": reasons[:4],
                }
                for s in r.sources:
                    by_turn.setdefault(s.message_id, []).append(info)
            for mid, (day, query, response) in turns.items():
                mems = by_turn.get(mid, [])
                out.append(
                    {
                        "id": mid.strip(),
                        "kept": bool(mems),
                        "query": query,
                        "response": response[:160],
                        "p_keep": _p_keep(mem, query, day),
                        "memories": mems,
                    }
                )
    return out


def main() -> None:
    root = Path(sys.argv[1])
    rows = kept_turns(root / "memory_bank_cn.json", [u for u in sys.argv[2].split(",") if u])
    rows += kept_turns(root / "memory_bank_en.json", [u for u in sys.argv[3].split(",") if u])
    if len(sys.argv) > 4:
        with open(sys.argv[4], "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    for r in rows:
        if not r["kept"]:
            continue
        print(f"== {r['id']}  p_keep={r['p_keep']}")
        print(f"   Q: {r['query']}")
        for m in r["memories"]:
            print(f"   -> [{m['kind']}|{m['layer']}|{','.join(m['source_roles'])}] {m['text']}")
    n = len(rows)
    k = sum(r["kept"] for r in rows)
    print(f"kept {k}/{n} user turns ({100 * k / max(1, n):.1f}%)")


if __name__ == "__main__":
    main()

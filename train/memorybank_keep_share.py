"""Share of MemoryBank user turns the write path keeps (issue #14: ≤ 50%): every user of the zh and en files
is ingested through the public API (one session per day, the user's query as a ``user`` message and the
companion's response as an ``assistant`` one); a user turn counts as kept when some memory lists it.

    .venv/bin/python train/memorybank_keep_share.py [../shared/datasets/memorybank]
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from memscribe import Memory


def ingest_user(mem: Memory, user: str, u: dict) -> dict[str, tuple[str, str, str]]:
    """One MemoryBank user through the public API, a session per day (the query a ``user`` message, the
    response an ``assistant`` one); returns each user turn's message id -> (day, query, response)."""
    turns: dict[str, tuple[str, str, str]] = {}
    for day, conv in sorted(u["history"].items()):
        msgs = []
        for i, t in enumerate(conv):
            mid = f"{user}:{day}:{i}:q"
            turns[mid] = (day, t["query"], t["response"])
            msgs.append({"role": "user", "content": t["query"], "id": mid})
            msgs.append({"role": "assistant", "content": t["response"], "id": f"{user}:{day}:{i}:r"})
        if msgs:
            mem.add(msgs, user_id=user, session_id=f"{user}-{day}", at=f"{day}T12:00:00")
    mem.flush()
    return turns


def keep_share(path: Path) -> tuple[int, int]:
    data = json.loads(path.read_text(encoding="utf-8"))
    turns = kept = 0
    with Memory(home=tempfile.mkdtemp(prefix="ms-keep-")) as mem:
        for user, u in data.items():
            ids = set(ingest_user(mem, user, u))
            held = {s.message_id for r in mem.list(user_id=user, status="all") for s in r.sources}
            turns += len(ids)
            kept += len(ids & held)
    return kept, turns


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/datasets/memorybank")
    total_kept = total = 0
    for name in ("memory_bank_cn.json", "memory_bank_en.json"):
        kept, turns = keep_share(root / name)
        total_kept, total = total_kept + kept, total + turns
        print(f"{name}: {kept}/{turns} user turns kept ({100 * kept / max(1, turns):.1f}%)")
    print(f"all: {total_kept}/{total} ({100 * total_kept / max(1, total):.1f}%)")


if __name__ == "__main__":
    main()

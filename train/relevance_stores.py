"""Build the dev stores the relevance model is trained and judged against, once, into a cache folder:
the 5 LoCoMo dev conversations and the 2 convbench dev chats (ingested exactly as
``/work/shared/tools/locomo_eval.py`` does: session by session, real timestamps, turn ids as message ids) and
the MemoryBank zh + en users (its first three users, one user id each, day by day).

    .venv/bin/python train/relevance_stores.py [--out DIR] [--only NAME ...]

Each store is a memscribe home folder ``DIR/<name>/`` (names: ``locomo-conv-26`` …, ``convbench-zh-assistant-dev``,
``memorybank-zh``, ``memorybank-en``); an existing one is kept.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import sys
from pathlib import Path

DATASETS = Path(os.environ.get("MEMSCRIBE_DATASETS", "/work/shared/datasets"))
MEMORYBANK_USERS = 3
DEFAULT_OUT = Path(os.environ.get("MEMSCRIBE_RELEVANCE_STORES", "/work/cache/relev6/stores"))


def parse_dt(s: str) -> dt.datetime:
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return dt.datetime.strptime(s.strip(), fmt).replace(tzinfo=dt.UTC)
        except ValueError:
            pass
    raise ValueError(s)


def locomo_sessions(conv: dict) -> list[tuple[str, str, list[dict]]]:
    """(session id, ISO time, messages) of one LoCoMo-format conversation, as locomo_eval.py passes them."""
    c, uid = conv["conversation"], conv["sample_id"]
    out = []
    for n in sorted(int(k.split("_")[1]) for k in c if re.fullmatch(r"session_\d+", k)):
        msgs = []
        for t in c[f"session_{n}"]:
            text = t["text"] + (f" [shares a photo: {t['blip_caption']}]" if t.get("blip_caption") else "")
            role = t.get("role", "user")
            msg = {"role": role, "content": text, "id": t["dia_id"]}
            if role == "user":
                msg["name"] = t["speaker"]
            msgs.append(msg)
        out.append((f"{uid}-s{n}", parse_dt(c[f"session_{n}_date_time"]).isoformat(), msgs))
    return out


def memorybank_sessions(user: str, data: dict) -> list[tuple[str, str, list[dict]]]:
    out = []
    for day, turns in sorted(data["history"].items()):
        msgs = []
        for i, t in enumerate(turns):
            msgs.append({"role": "user", "content": t["query"], "id": f"{day}:{i}:query"})
            msgs.append({"role": "assistant", "content": t["response"], "id": f"{day}:{i}:response"})
        out.append((f"{user}-{day}", f"{day}T12:00:00+00:00", msgs))
    return out


def plans() -> dict[str, list[tuple[str, list[tuple[str, str, list[dict]]]]]]:
    """store name -> [(user id, sessions)]."""
    out: dict[str, list] = {}
    for conv in json.loads((DATASETS / "locomo" / "locomo_dev.json").read_text()):
        out[f"locomo-{conv['sample_id']}"] = [(conv["sample_id"], locomo_sessions(conv))]
    for conv in json.loads((DATASETS / "convbench" / "conv_dev.json").read_text()):
        out[f"convbench-{conv['sample_id']}"] = [(conv["sample_id"], locomo_sessions(conv))]
    for lang, fname in (("zh", "memory_bank_cn.json"), ("en", "memory_bank_en.json")):
        data = json.loads((DATASETS / "memorybank" / fname).read_text())
        # the first users by sorted key (the corpus' test side): enough for the unanswerable measure
        users = sorted(data)[:MEMORYBANK_USERS]
        out[f"memorybank-{lang}"] = [(u.strip(), memorybank_sessions(u.strip(), data[u])) for u in users]
    return out


def build(home: Path, users: list[tuple[str, list[tuple[str, str, list[dict]]]]]) -> None:
    from memscribe import Memory

    tmp = home.with_suffix(".partial")
    if tmp.exists():  # an interrupted build: start it again
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    mem = Memory(tmp)
    for uid, sessions in users:
        for sid, at, msgs in sessions:
            mem.add(msgs, user_id=uid, session_id=sid, at=at)
    mem.flush()
    mem.close()
    tmp.rename(home)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    for name, users in plans().items():
        if args.only and name not in args.only:
            continue
        home = args.out / name
        if home.exists():
            continue
        t0 = dt.datetime.now()
        build(home, users)
        print(
            f"{name}: {sum(len(s) for _, s in users)} sessions in {(dt.datetime.now() - t0).seconds}s",
            flush=True,
        )


if __name__ == "__main__":
    sys.exit(main())

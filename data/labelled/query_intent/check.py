"""Validate the query-intent corpora in this folder and print their counts.

Usage: python data/labelled/query_intent/check.py [--quiet]

Checks every ``{zh,en}_{train,test}.jsonl`` next to this file: required fields and allowed labels, unique ids,
source formats (``written``, ``locomo:<conv>:<qa index>``, ``convbench:<sample>:<dia_id>``), that a real
conversation (a convbench session) feeds one split only, and that no text is an exact or near copy of another (normalised text, or
char-3-gram Jaccard >= 0.8) within a split or across the splits of one language. Exits 1 on any problem.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path

HERE = Path(__file__).resolve().parent
INTENTS = ("food", "schedule", "contact", "travel", "purchase", "health", "none")
FIELDS = ("id", "lang", "setting", "text", "intent", "source")
NEAR = 0.8


def norm(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def grams(text: str) -> set[str]:
    t = norm(text)
    return {t[i : i + 3] for i in range(max(1, len(t) - 2))}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def group_of(source: str) -> str:
    """The conversation (LoCoMo) or session (convbench: its dev conversations are one long chat each, so a
    session, not the chat, is the unit) a real item comes from."""
    parts = source.split(":")
    if parts[0] == "convbench":  # convbench:<sample>:D<session>:<turn>
        return ":".join(parts[:3])
    return ":".join(parts[:2])


def load(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def check() -> list[str]:
    problems: list[str] = []
    rows: dict[tuple[str, str], list[dict]] = {}
    for path in sorted(HERE.glob("*_*.jsonl")):
        lang, split = path.stem.split("_")
        rows[(lang, split)] = items = load(path)
        for it in items:
            where = f"{path.name}:{it.get('id')}"
            if tuple(sorted(it)) != tuple(sorted(FIELDS)):
                problems.append(f"{where}: fields {sorted(it)}")
                continue
            if it["lang"] != lang:
                problems.append(f"{where}: lang {it['lang']} in a {lang} file")
            if it["intent"] not in INTENTS:
                problems.append(f"{where}: intent {it['intent']!r}")
            if not it["text"].strip() or not it["setting"]:
                problems.append(f"{where}: empty text or setting")
            src = it["source"]
            parts = src.split(":")
            if not (src == "written" or (parts[0] in ("locomo", "convbench") and len(parts) >= 3)):
                problems.append(f"{where}: source {src!r}")
    ids = Counter(it["id"] for items in rows.values() for it in items)
    problems += [f"duplicate id {i}" for i, n in ids.items() if n > 1]
    # a real conversation feeds one split only, so the test split's real slice is unseen conversations
    conv_split: dict[str, set[str]] = {}
    for (_, split), items in rows.items():
        for it in items:
            if it["source"] != "written":
                conv_split.setdefault(group_of(it["source"]), set()).add(split)
    problems += [f"conversation {c} in both splits" for c, s in conv_split.items() if len(s) > 1]
    for lang in sorted({lang for lang, _ in rows}):
        items = [it for (lg, _), its in rows.items() if lg == lang for it in its]
        g = [grams(it["text"]) for it in items]
        for i, j in combinations(range(len(items)), 2):
            if norm(items[i]["text"]) == norm(items[j]["text"]) or jaccard(g[i], g[j]) >= NEAR:
                problems.append(f"near copies: {items[i]['id']} / {items[j]['id']}")
    return problems


def counts() -> None:
    for path in sorted(HERE.glob("*_*.jsonl")):
        items = load(path)
        c = Counter(it["intent"] for it in items)
        real = sum(it["source"] != "written" for it in items)
        line = " ".join(f"{k}={c[k]}" for k in INTENTS)
        print(f"{path.name:<18} n={len(items):<4} {line} none_share={c['none'] / len(items):.2f} real={real}")


if __name__ == "__main__":
    found = check()
    for p in found:
        print(p)
    if "--quiet" not in sys.argv:
        counts()
    sys.exit(1 if found else 0)

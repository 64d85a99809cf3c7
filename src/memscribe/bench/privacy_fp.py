"""How many ordinary conversation turns lose text to the privacy stage (false positives of ``protect``).

Reads the dev conversations (LoCoMo dev, MemoryBank zh + en, convbench dev), runs every turn through
``memscribe.write.protect.protect`` exactly as ``Memory.add`` would, and prints per dataset how many turns
had anything cut, by kind. With ``--show`` it prints what was cut, so a person can judge whether it is really
sensitive (these are public research conversations: nothing real is exposed by printing them).

    python -m memscribe.bench.privacy_fp [--show N] [--json OUT]

The module imports only ``protect``, so the same file measures an older checkout:
``PYTHONPATH=/old/src python path/to/privacy_fp.py``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from memscribe.write.protect import protect

# the dev datasets sit beside a clone of the repository (they are not part of it); --root names another folder
DATASETS = Path(__file__).resolve().parents[3].parent / "shared" / "datasets"
_PLACEHOLDER = re.compile(r"\[(?:已移除)?[^\[\]]{1,20}?(?:#\d+| removed)?\]")


def locomo_turns(path: Path) -> Iterator[str]:
    for conv in json.loads(path.read_text(encoding="utf-8")):
        c = conv["conversation"]
        for key, turns in c.items():
            if key.startswith("session_") and isinstance(turns, list):
                for t in turns:
                    text = t["text"]
                    if t.get("blip_caption"):  # locomo_eval adds the caption to the message the same way
                        text += f" [shares a photo: {t['blip_caption']}]"
                    yield text


def memorybank_turns(path: Path) -> Iterator[str]:
    for user in json.loads(path.read_text(encoding="utf-8")).values():
        for day in user["history"].values():
            for t in day:
                yield t["query"]
                yield t["response"]


def sources(root: Path) -> dict[str, Iterator[str]]:
    return {
        "locomo_dev": locomo_turns(root / "locomo" / "locomo_dev.json"),
        "memorybank_cn": memorybank_turns(root / "memorybank" / "memory_bank_cn.json"),
        "memorybank_en": memorybank_turns(root / "memorybank" / "memory_bank_en.json"),
        "convbench_dev": locomo_turns(root / "convbench" / "conv_dev.json"),
    }


def _cut_parts(text: str, clean: str) -> list[str]:
    """The pieces of ``text`` that ``clean`` replaced by placeholders (for the --show listing)."""
    pieces = _PLACEHOLDER.split(clean)
    out, pos = [], 0
    for i, piece in enumerate(pieces):
        at = text.find(piece, pos) if piece else pos
        if at < 0:
            break
        if i:
            out.append(text[pos:at])
        pos = at + len(piece)
    return [p for p in out if p]


def measure(root: Path) -> dict[str, dict[str, object]]:
    result: dict[str, dict[str, object]] = {}
    for name, turns in sources(root).items():
        n = cut = 0
        by_kind: Counter[str] = Counter()
        examples: list[dict[str, object]] = []
        for text in turns:
            n += 1
            d = protect(text)
            if d.clean_text == text:
                continue
            cut += 1
            kinds = sorted({k for _, k, _ in d.vaulted} | set(d.dropped_kinds))
            by_kind.update(kinds)
            examples.append({"kinds": kinds, "cut": _cut_parts(text, d.clean_text), "text": text})
        result[name] = {"turns": n, "cut": cut, "by_kind": dict(by_kind), "examples": examples}
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=DATASETS)
    ap.add_argument("--show", type=int, default=0, help="print up to N cut turns per dataset")
    ap.add_argument("--json", type=Path, help="write the full result (with every cut turn) here")
    args = ap.parse_args(argv)
    result = measure(args.root)
    total_n = total_cut = 0
    for name, r in result.items():
        total_n += r["turns"]  # type: ignore[operator]
        total_cut += r["cut"]  # type: ignore[operator]
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(r["by_kind"].items()))  # type: ignore[union-attr]
        print(f"{name:15s} turns {r['turns']:6d}  cut {r['cut']:4d}  ({kinds or '-'})")
        for ex in r["examples"][: args.show]:  # type: ignore[index]
            print(f"    {ex['kinds']} cut={ex['cut']!r}  | {ex['text'][:160]!r}")
    print(f"privacy_fp: {total_cut} of {total_n} turns lose text to the privacy stage")
    if args.json:
        args.json.write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

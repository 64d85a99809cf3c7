"""Check the relation-pairs corpus (LABELS.md §2): schema, allowed values, ids, real-turn split, near-duplicates.

Run: python data/labelled/relations/check.py            (exit 1 on any error)
     python data/labelled/relations/check.py --counts   (also print split x relation x family tables)

Near-duplicates: a train pair and a test pair of the same language whose old+new texts have a
character-3-gram Jaccard >= 0.8 are flagged (errors: the test split must share no near-copies with train).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
# The dev datasets sit in shared/ beside the repository (or above it); None when absent.
DATASETS = next(
    (p / "shared" / "datasets" for p in HERE.parents if (p / "shared" / "datasets").is_dir()), None
)

LANGS = ("zh", "en")
SPLITS = ("train", "test")
RELATIONS = ("same", "update", "refine", "exception", "cancel", "done", "related", "unrelated")
FAMILIES = (
    "same_topic_diff_fact",
    "same_words_diff_subject",
    "one_verb_two_meanings",
    "diff_ids_numbers",
    "both_true_diff_times",
    "stance_not_change",
)
# A hard negative is a pair that looks like a change but must not supersede.
NEGATIVE_RELATIONS = ("same", "refine", "related", "unrelated", "exception")
SETTINGS = (
    "customer_service",
    "companion",
    "work_assistant",
    "peer_chat",
    "group_chat",
    "family",
    "health",
    "travel",
    "shopping",
    "education",
    "finance",
    "home",
)
from memscribe.judge.slots import KINDS, SLOTS  # noqa: E402 — one vocabulary: the models'
SUBJECT_RE = re.compile(r"^(self|assistant|world|third:\S.*|peer:\S.*)$")
ID_RE = re.compile(r"^(zh|en)-(w|r)-(\d{4})$")
SOURCE_RES = {
    "locomo": re.compile(r"^locomo:(conv-\d+):D(\d+):(\d+)$"),
    "memorybank": re.compile(r"^memorybank:(zh|en):([^:]+):(\d{4}-\d{2}-\d{2}):(\d+):(query|response)$"),
    "convbench": re.compile(r"^convbench:((?:zh|en)-assistant-dev):D(\d+):(\d+)$"),
}
LOCOMO_TEST = {"conv-26", "conv-44"}
LOCOMO_TRAIN = {"conv-41", "conv-48", "conv-50"}
FIELDS = {"id", "lang", "setting", "source", "old_source", "relation", "family", "old", "new"}
SIDE_FIELDS = {"text", "subject", "slot", "value", "kind", "at"}


def memorybank_test_users() -> dict[str, set[str]] | None:
    """The first 5 users by sorted dict key, per language (LABELS.md §0), compared stripped."""
    if DATASETS is None:
        return None
    out: dict[str, set[str]] = {}
    for lang, name in (("zh", "memory_bank_cn.json"), ("en", "memory_bank_en.json")):
        path = DATASETS / "memorybank" / name
        if not path.exists():
            return None
        keys = sorted(json.loads(path.read_text(encoding="utf-8")))
        out[lang] = {k.strip() for k in keys[:5]}
    return out


def real_split(source: str, mb_test: dict[str, set[str]] | None) -> str | None:
    """Which split a real turn belongs to, or None when the reference is malformed."""
    for kind, rx in SOURCE_RES.items():
        m = rx.match(source)
        if not m:
            continue
        if kind == "locomo":
            conv = m.group(1)
            return "test" if conv in LOCOMO_TEST else "train" if conv in LOCOMO_TRAIN else None
        if kind == "memorybank":
            if mb_test is None:
                return "unknown"
            return "test" if m.group(2).strip() in mb_test[m.group(1)] else "train"
        session = int(m.group(2))
        return "test" if session <= 3 else "train"
    return None


def grams(text: str) -> set[str]:
    t = re.sub(r"\s+", " ", text.lower())
    return {t[i : i + 3] for i in range(max(1, len(t) - 2))}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def check_side(side: object, where: str, errors: list[str]) -> datetime | None:
    if not isinstance(side, dict) or set(side) != SIDE_FIELDS:
        errors.append(f"{where}: needs exactly {sorted(SIDE_FIELDS)}")
        return None
    if not isinstance(side["text"], str) or len(side["text"].strip()) < 4:
        errors.append(f"{where}.text: empty or too short")
    if not isinstance(side["subject"], str) or not SUBJECT_RE.match(side["subject"]):
        errors.append(
            f"{where}.subject: {side['subject']!r} not self|assistant|world|third:<who>|peer:<Name>"
        )
    if side["slot"] not in SLOTS:
        errors.append(f"{where}.slot: {side['slot']!r} not allowed")
    if side["kind"] not in KINDS:
        errors.append(f"{where}.kind: {side['kind']!r} not allowed")
    if side["value"] is not None and (not isinstance(side["value"], str) or not side["value"].strip()):
        errors.append(f"{where}.value: must be a non-empty string or null")
    try:
        at = datetime.fromisoformat(side["at"])
    except (TypeError, ValueError):
        errors.append(f"{where}.at: {side['at']!r} is not an ISO datetime")
        return None
    if at.tzinfo is None:
        errors.append(f"{where}.at: needs a UTC offset")
        return None
    return at


def check_item(item: dict, lang: str, split: str, mb_test, errors: list[str]) -> None:
    iid = item.get("id", "?")
    where = f"{lang}_{split}:{iid}"
    if set(item) != FIELDS:
        errors.append(f"{where}: fields {sorted(set(item) ^ FIELDS)} missing or extra")
        return
    m = ID_RE.match(iid)
    if not m or m.group(1) != lang:
        errors.append(f"{where}: id must be {lang}-w-NNNN or {lang}-r-NNNN")
    if item["lang"] != lang:
        errors.append(f"{where}: lang {item['lang']!r} in the {lang} file")
    if item["setting"] not in SETTINGS:
        errors.append(f"{where}: setting {item['setting']!r} not allowed")
    if item["relation"] not in RELATIONS:
        errors.append(f"{where}: relation {item['relation']!r} not allowed")
    if item["family"] is not None and item["family"] not in FAMILIES:
        errors.append(f"{where}: family {item['family']!r} not allowed")
    written = item["source"] == "written"
    if m and (m.group(2) == "w") != written:
        errors.append(f"{where}: w ids are written pairs, r ids real ones")
    if written:
        if item["old_source"] is not None:
            errors.append(f"{where}: a written pair has old_source null")
    else:
        for key in ("source", "old_source"):
            ref = item[key]
            got = real_split(ref, mb_test) if isinstance(ref, str) else None
            if got is None:
                errors.append(f"{where}: {key} {ref!r} is not a valid real-turn reference")
            elif got not in (split, "unknown"):
                errors.append(f"{where}: {key} {ref!r} belongs to the {got} split")
            if (
                isinstance(ref, str)
                and ref.startswith("memorybank:")
                and not ref.startswith(f"memorybank:{lang}:")
            ):
                errors.append(f"{where}: {key} is a memorybank turn of the other language")
    old_at = check_side(item["old"], f"{where}.old", errors)
    new_at = check_side(item["new"], f"{where}.new", errors)
    if old_at and new_at and not new_at > old_at:
        errors.append(f"{where}: new.at must be after old.at")
    same_text = (
        isinstance(item["old"], dict)
        and isinstance(item["new"], dict)
        and (item["old"].get("text", "").strip() == item["new"].get("text", "").strip())
    )
    if same_text:
        errors.append(f"{where}: old and new texts are identical")


def load(path: Path, errors: list[str]) -> list[dict]:
    items = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            items.append(json.loads(line))
        except json.JSONDecodeError as exc:
            errors.append(f"{path.name}:{n}: not JSON ({exc})")
    return items


def table(items: list[dict]) -> str:
    rel = Counter(i["relation"] for i in items)
    fam = Counter(i["family"] or "-" for i in items)
    neg = Counter(i["family"] for i in items if i["family"] and i["relation"] in NEGATIVE_RELATIONS)
    n = len(items) or 1
    lines = ["  relation: " + ", ".join(f"{r} {rel[r]} ({100 * rel[r] / n:.1f}%)" for r in RELATIONS)]
    lines.append(
        "  family (all / as hard negative): "
        + ", ".join(f"{f} {fam[f]}/{neg[f]} ({100 * neg[f] / n:.1f}%)" for f in FAMILIES)
        + f", none {fam['-']}"
    )
    cross = Counter((i["family"] or "-", i["relation"]) for i in items)
    for f in (*FAMILIES, "-"):
        row = ", ".join(f"{r} {cross[(f, r)]}" for r in RELATIONS if cross[(f, r)])
        lines.append(f"    {f}: {row}")
    real = sum(1 for i in items if i["source"] != "written")
    lines.append(f"  real-turn pairs: {real}; settings: {dict(Counter(i['setting'] for i in items))}")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--counts", action="store_true", help="print split x relation x family tables")
    ap.add_argument("--threshold", type=float, default=0.8, help="near-duplicate Jaccard threshold")
    args = ap.parse_args()
    errors: list[str] = []
    warnings: list[str] = []
    mb_test = memorybank_test_users()
    if mb_test is None:
        warnings.append("memorybank data not found: memorybank real-turn splits not verified")
    data: dict[tuple[str, str], list[dict]] = {}
    seen: dict[str, str] = {}
    for lang in LANGS:
        for split in SPLITS:
            path = HERE / f"{lang}_{split}.jsonl"
            if not path.exists():
                errors.append(f"{path.name}: missing")
                data[(lang, split)] = []
                continue
            items = load(path, errors)
            data[(lang, split)] = items
            for item in items:
                check_item(item, lang, split, mb_test, errors)
                iid = item.get("id")
                if iid in seen:
                    errors.append(f"{lang}_{split}:{iid}: id also in {seen[iid]}")
                seen[iid] = f"{lang}_{split}"
    for lang in LANGS:
        train, test = data[(lang, "train")], data[(lang, "test")]
        keyed = [(i["id"], grams(i["old"]["text"] + " " + i["new"]["text"])) for i in train]
        for t in test:
            g = grams(t["old"]["text"] + " " + t["new"]["text"])
            for tid, tg in keyed:
                score = jaccard(g, tg)
                if score >= args.threshold:
                    errors.append(f"near-duplicate across splits: {t['id']} ~ {tid} (Jaccard {score:.2f})")
        for split, items in (("train", train), ("test", test)):
            pairs = Counter((i["old"]["text"], i["new"]["text"]) for i in items)
            for (o, n), c in pairs.items():
                if c > 1:
                    errors.append(f"{lang}_{split}: pair repeated {c}x: {o} / {n}")
    total = sum(len(v) for v in data.values())
    print(f"checked {total} pairs in {len(data)} files")
    for lang in LANGS:
        both = data[(lang, "train")] + data[(lang, "test")]
        print(
            f"{lang}: train {len(data[(lang, 'train')])}, test {len(data[(lang, 'test')])}, total {len(both)}"
        )
        if args.counts:
            for split in SPLITS:
                print(f" {lang} {split}:")
                print(table(data[(lang, split)]))
            print(f" {lang} all:")
            print(table(both))
    for w in warnings:
        print("warning:", w)
    for e in errors[:200]:
        print("error:", e)
    if len(errors) > 200:
        print(f"... and {len(errors) - 200} more errors")
    print(f"{len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

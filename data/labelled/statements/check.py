"""Validate the statement corpora in this folder (LABELS.md §1) and print their counts.

Usage: python data/labelled/statements/check.py [--quiet]

Checks every `*_train.jsonl` / `*_test.jsonl` next to this file (`{zh,en}_*` one language each, any other
prefix a class file of both languages, each row checked as its own `lang`): required fields and allowed values, the
null-iff-drop rules, unique ids, source formats, the real-turn split rule (test/train sides of the dev data,
never the same turn in both splits), and exact / near-duplicate `text` within and across splits of one language
(normalised text, or char-3gram Jaccard >= 0.8). Then prints counts per split x route / kind / slot /
speaker_role / subject type and the per-language target mix. Exit status 1 if any error was found; target
misses and soft issues are printed as warnings and do not fail the run.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATASETS = Path("/work/shared/datasets")

FIELDS = (
    "id", "lang", "setting", "source", "speaker_role", "speaker", "prev", "text", "route", "kind",
    "subject", "slot", "value", "negated", "status", "canonical",
)  # fmt: skip
LANGS = {"zh", "en"}
ROLES = {"user", "assistant", "peer"}
ROUTES = {"long", "working", "drop"}
KINDS = {
    "preference", "constraint", "profile", "fact", "event", "plan", "task", "complaint", "relation",
    "instruction", "suggestion",
}  # fmt: skip
SLOTS = {
    "residence", "hometown", "employer", "job_title", "school", "relationship", "children", "pets", "family",
    "diet", "allergy", "health", "schedule_rule", "contact_pref", "plan", "task", "preference", "hobby", "skill",
    "possession", "name", "age", "birthday", "finance", "travel_history", "other",
}  # fmt: skip
STATUSES = {"planned", "done", "cancelled", "postponed", "open", "accepted", "rejected"}
STATUS_KINDS = {"plan", "task", "suggestion"}
STATUS_BY_KIND = {
    "plan": {"planned", "done", "cancelled", "postponed"},
    "task": {"open", "done", "cancelled", "postponed"},
    "suggestion": {"open", "accepted", "rejected"},
}
ID_RE = re.compile(r"^(zh|en)-([a-z]+)-(\d{4,})$")
SUBJECT_RE = re.compile(r"^(self|addressee|assistant|world|third:\S.*)$")
SRC_LOCOMO = re.compile(r"^locomo:(conv-\d+):D(\d+):(\d+)$")
SRC_MB = re.compile(r"^memorybank:(zh|en):([^:]+):(\d{4}-\d{2}-\d{2}):(\d+):(query|response)$")
SRC_CB = re.compile(r"^convbench:([a-z]+-[a-z-]+):D(\d+):(\d+)$")
LOCOMO_TEST = {"conv-26", "conv-44"}
LOCOMO_TRAIN = {"conv-41", "conv-48", "conv-50"}
EMOJI_RE = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf]")
NEAR_DUP = 0.8


def _memorybank_users(lang: str) -> list[str] | None:
    name = {"zh": "memory_bank_cn.json", "en": "memory_bank_en.json"}[lang]
    path = DATASETS / "memorybank" / name
    if not path.exists():
        return None
    return sorted(json.loads(path.read_text(encoding="utf-8")))


def real_split(source: str, mb_users: dict[str, list[str] | None]) -> str | None:
    """'test' / 'train' for a real-turn source under LABELS.md's split rule; None if the source is malformed."""
    if m := SRC_LOCOMO.match(source):
        conv = m.group(1)
        return "test" if conv in LOCOMO_TEST else "train" if conv in LOCOMO_TRAIN else None
    if m := SRC_MB.match(source):
        users = mb_users.get(m.group(1))
        if users is None:
            return "unknown"
        if m.group(2) not in users:
            return None
        return "test" if users.index(m.group(2)) < 5 else "train"
    if m := SRC_CB.match(source):
        return "test" if int(m.group(2)) <= 3 else "train"
    return None


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).lower()
    kept = "".join(ch for ch in text if unicodedata.category(ch)[0] not in "PSZC")
    return kept or "".join(ch for ch in text if not ch.isspace())  # emoji-only text stays itself


def grams(text: str) -> set[str]:
    n = normalise(text)
    return {n[i : i + 3] for i in range(len(n) - 2)} if len(n) >= 3 else {n}


def subject_type(subject: str | None) -> str:
    if subject is None:
        return "-"
    return "third" if subject.startswith("third:") else subject


def check_item(item: dict, lang: str, where: str, errors: list[str], warnings: list[str]) -> None:
    def err(msg: str) -> None:
        errors.append(f"{where} {item.get('id')}: {msg}")

    def warn(msg: str) -> None:
        warnings.append(f"{where} {item.get('id')}: {msg}")

    missing = [f for f in FIELDS if f not in item]
    extra = [f for f in item if f not in FIELDS]
    if missing:
        err(f"missing fields {missing}")
        return
    if extra:
        err(f"unknown fields {extra}")
    m = ID_RE.match(str(item["id"]))
    if not m:
        err("id must look like zh-w-0001")
    elif m.group(1) != lang:
        err("id prefix does not match the file's language")
    if item["lang"] != lang:
        err(f"lang {item['lang']!r} in a {lang} file")
    for f in ("setting", "text", "source"):
        if not isinstance(item[f], str) or not item[f].strip():
            err(f"{f} must be a non-empty string")
    for f in ("speaker", "prev", "value", "canonical"):
        if item[f] is not None and (not isinstance(item[f], str) or not item[f].strip()):
            err(f"{f} must be null or a non-empty string")
    if item["speaker_role"] not in ROLES:
        err(f"speaker_role {item['speaker_role']!r}")
    if item["route"] not in ROUTES:
        err(f"route {item['route']!r}")
        return
    if not isinstance(item["negated"], bool):
        err("negated must be a bool")
    drop = item["route"] == "drop"
    if m and (m.group(2) == "w") != (item["source"] == "written"):
        err("id origin letter 'w' iff source is 'written'")
    for f in ("kind", "slot", "canonical"):
        if (item[f] is None) != drop:
            err(f"{f} must be null iff route is drop")
    if drop:
        for f in ("value", "status"):
            if item[f] is not None:
                err(f"{f} must be null for a dropped statement")
        if item["subject"] is not None and not SUBJECT_RE.match(str(item["subject"])):
            err(f"subject {item['subject']!r}")
        return
    if item["kind"] not in KINDS:
        err(f"kind {item['kind']!r}")
    if item["slot"] not in SLOTS:
        err(f"slot {item['slot']!r}")
    if not isinstance(item["subject"], str) or not SUBJECT_RE.match(item["subject"]):
        err(f"subject {item['subject']!r}")
    kind, status = item["kind"], item["status"]
    if kind in STATUS_KINDS:
        if status not in STATUS_BY_KIND[kind]:
            err(f"status {status!r} not allowed for kind {kind} (allowed {sorted(STATUS_BY_KIND[kind])})")
    elif status is not None:
        err(f"status must be null for kind {kind}")
    # a suggestion is the assistant's, or the user's answer to one (with `prev`, the suggestion it answers:
    # README_en.md "a user's acceptance or rejection of a suggestion")
    if kind == "suggestion" and item["speaker_role"] != "assistant" and not item.get("prev"):
        err("kind suggestion is the assistant's, or a reply to one (with prev)")
    if kind == "instruction" and item["speaker_role"] != "user":
        warn("instruction from a speaker who is not the user")
    if item["subject"] == "assistant" and item["speaker_role"] == "peer":
        err("subject assistant in a peer chat")
    if item["subject"] == "self" and item["speaker_role"] == "assistant":
        err("an assistant statement about itself has subject 'assistant'; about the user, 'addressee'")
    canonical = item["canonical"] or ""
    if EMOJI_RE.search(canonical):
        err("emoji in canonical")
    if item["speaker_role"] == "user" and item["subject"] in ("self", "addressee"):
        who = "用户" if lang == "zh" else "the user"
        if who not in canonical.lower() and (item["speaker"] or "\0") not in canonical:
            warn(f"canonical of a user statement does not name {who}")


def near_duplicates(rows: list[tuple[str, str, str]]) -> list[str]:
    """rows: (where, id, text). Exact normalised duplicates and char-3gram Jaccard >= NEAR_DUP."""
    out: list[str] = []
    seen: dict[str, tuple[str, str]] = {}
    sets = [grams(t) for _, _, t in rows]
    index: dict[str, list[int]] = defaultdict(list)
    for i, (where, iid, text) in enumerate(rows):
        n = normalise(text)
        if n in seen:
            out.append(f"duplicate text: {seen[n][0]} {seen[n][1]} == {where} {iid}: {text!r}")
            continue
        seen[n] = (where, iid)
        counts: Counter[int] = Counter()
        for g in sets[i]:
            for j in index[g]:
                counts[j] += 1
        for j, shared in counts.items():
            union = len(sets[i]) + len(sets[j]) - shared
            if union and shared / union >= NEAR_DUP and len(normalise(rows[j][2])) >= 3:
                out.append(
                    f"near-duplicate text ({shared / union:.2f}): {rows[j][0]} {rows[j][1]} ~ {where} {iid}: "
                    f"{rows[j][2]!r} / {text!r}"
                )
        for g in sets[i]:
            index[g].append(i)
    return out


def table(title: str, counters: dict[str, Counter], keys: list[str] | None = None) -> str:
    splits = list(counters)
    keys = keys or sorted({k for c in counters.values() for k in c}, key=lambda k: str(k))
    width = max([len(str(k)) for k in keys] + [len(title)])
    lines = [f"{title:<{width}} " + " ".join(f"{s:>7}" for s in splits) + "   total"]
    for k in keys:
        vals = [counters[s][k] for s in splits]
        lines.append(f"{k!s:<{width}} " + " ".join(f"{v:>7}" for v in vals) + f" {sum(vals):>7}")
    return "\n".join(lines)


def targets(lang: str, items: list[dict]) -> list[str]:
    """The per-language target mix of LABELS.md §1; returns the misses."""
    out: list[str] = []
    n = len(items)
    test = [i for i in items if i["_split"] == "test"]
    real_test = [i for i in test if i["source"] != "written"]
    drop = sum(i["route"] == "drop" for i in items)
    kinds = Counter(i["kind"] for i in items if i["kind"])
    slots = Counter(i["slot"] for i in items if i["slot"])
    share = {
        "assistant": sum(i["speaker_role"] == "assistant" for i in items) / max(n, 1),
        "peer": sum(i["speaker_role"] == "peer" for i in items) / max(n, 1),
        "third": sum(str(i["subject"]).startswith("third:") for i in items) / max(n, 1),
    }
    print(
        f"[{lang}] items {n} (test {len(test)}, real test turns {len(real_test)}), drop {drop / max(n, 1):.1%}, "
        f"assistant {share['assistant']:.1%}, peer {share['peer']:.1%}, third-party {share['third']:.1%}"
    )
    if n < 1500:
        out.append(f"[{lang}] {n} items < 1500")
    if len(test) < 350:
        out.append(f"[{lang}] test {len(test)} items < 350")
    if len(real_test) < 120:
        out.append(f"[{lang}] real test turns {len(real_test)} < 120")
    if not 0.35 <= drop / max(n, 1) <= 0.45:
        out.append(f"[{lang}] drop share {drop / max(n, 1):.1%} outside 35-45%")
    out += [f"[{lang}] kind {k}: {kinds[k]} < 40" for k in sorted(KINDS) if kinds[k] < 40]
    out += [f"[{lang}] slot {s}: {slots[s]} < 15" for s in sorted(SLOTS - {"other"}) if slots[s] < 15]
    for key, floor in (("assistant", 0.15), ("peer", 0.20), ("third", 0.10)):
        if share[key] < floor:
            out.append(f"[{lang}] {key} share {share[key]:.1%} < {floor:.0%}")
    return out


def main(argv: list[str]) -> int:
    quiet = "--quiet" in argv
    errors: list[str] = []
    warnings: list[str] = []
    by_lang: dict[str, list[dict]] = defaultdict(list)
    mb_users = {lang: _memorybank_users(lang) for lang in LANGS}
    ids: dict[str, str] = {}
    files = sorted(HERE.glob("*_train.jsonl")) + sorted(HERE.glob("*_test.jsonl"))
    if not files:
        print("no *_train.jsonl / *_test.jsonl files found")
        return 1
    for path in files:
        prefix, split = path.stem.rsplit("_", 1)
        # `{zh,en}_{split}.jsonl` hold one language; a class file (e.g. `names_{split}.jsonl`) holds both,
        # and each of its rows is checked as a row of its own `lang`
        mixed = prefix not in LANGS
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{path.name}:{n}"
            if not line.strip():
                errors.append(f"{where}: empty line")
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as exc:
                errors.append(f"{where}: bad JSON ({exc})")
                continue
            if not isinstance(item, dict):
                errors.append(f"{where}: not an object")
                continue
            lang = item.get("lang") if mixed else prefix
            if lang not in LANGS:
                errors.append(f"{where}: unknown language {lang!r}")
                continue
            check_item(item, lang, where, errors, warnings)
            if any(f not in item for f in FIELDS):
                continue
            if item["id"] in ids:
                errors.append(f"{where}: id {item['id']} already used at {ids[item['id']]}")
            ids[item["id"]] = where
            if item["source"] != "written":
                side = real_split(item["source"], mb_users)
                if side is None:
                    errors.append(f"{where} {item['id']}: malformed or unknown source {item['source']!r}")
                elif side == "unknown":
                    warnings.append(f"{where}: cannot verify the split of {item['source']} (dataset missing)")
                elif side != split:
                    errors.append(f"{where} {item['id']}: {item['source']} belongs to the {side} split")
            item["_split"], item["_where"] = split, where
            by_lang[lang].append(item)

    for lang, items in sorted(by_lang.items()):
        sources: dict[str, set[str]] = defaultdict(set)
        for i in items:
            if i["source"] != "written":
                sources[i["source"]].add(i["_split"])
        errors += [f"[{lang}] turn {s} used in both splits" for s, sp in sources.items() if len(sp) > 1]
        errors += near_duplicates([(i["_where"], i["id"], i["text"]) for i in items])

    for lang, items in sorted(by_lang.items()):
        splits = sorted({i["_split"] for i in items}, key=lambda s: s != "train")
        print(f"\n===== {lang} =====")
        dims = (
            ("route", lambda i: i["route"]),
            ("kind", lambda i: i["kind"] or "-"),
            ("slot", lambda i: i["slot"] or "-"),
            ("speaker_role", lambda i: i["speaker_role"]),
            ("subject", lambda i: subject_type(i["subject"])),
            ("origin", lambda i: "written" if i["source"] == "written" else i["source"].split(":")[0]),
            ("status", lambda i: i["status"] or "-"),
            ("negated", lambda i: str(i["negated"])),
            ("prev", lambda i: "with prev" if i["prev"] else "-"),
        )
        for title, key in dims:
            print(table(title, {s: Counter(key(i) for i in items if i["_split"] == s) for s in splits}))
            print()
        print(
            table(
                "route x speaker_role",
                {
                    s: Counter(f"{i['route']}/{i['speaker_role']}" for i in items if i["_split"] == s)
                    for s in splits
                },
            )
        )
        print()
        warnings += targets(lang, items)

    if warnings and not quiet:
        print(f"\n{len(warnings)} warning(s):")
        print("\n".join(f"  WARN {w}" for w in warnings))
    if errors:
        print(f"\n{len(errors)} error(s):")
        print("\n".join(f"  ERROR {e}" for e in errors))
        return 1
    print(f"\nOK: {sum(len(v) for v in by_lang.values())} items in {len(files)} file(s), no errors")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

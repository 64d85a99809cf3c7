"""Check the English statement corpus (LABELS.md §1): schema, split rule, near-duplicates, target mix.

Usage: python data/labelled/statements/check_en.py [--datasets /work/shared/datasets] [--strict]
Exit status 1 when any error is found (with --strict, also when a target of the mix is missed).
Standard library only, so it runs without the project's venv.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPLITS = ("train", "test")
FIELDS = (
    "id",
    "lang",
    "setting",
    "source",
    "speaker_role",
    "speaker",
    "prev",
    "text",
    "route",
    "kind",
    "subject",
    "slot",
    "value",
    "negated",
    "status",
    "canonical",
)
ROLES = {"user", "assistant", "peer"}
ROUTES = {"long", "working", "drop"}
from memscribe.judge.slots import KINDS, SLOTS  # noqa: E402 — one vocabulary: the models'
STATUSES = {"planned", "done", "cancelled", "postponed", "open", "accepted", "rejected"}
STATUS_KINDS = {"plan", "task", "suggestion"}
PLAIN_SUBJECTS = {"self", "addressee", "assistant", "world"}
ID_RE = re.compile(r"^en-[a-z]+-\d{4,}$")
REAL_RE = re.compile(
    r"^(?:locomo:(?P<lconv>conv-\d+):D(?P<lsess>\d+):\d+"
    r"|memorybank:en:(?P<mbuser>[^:]+):\d{4}-\d{2}-\d{2}:\d+:(?:query|response)"
    r"|convbench:(?P<cb>[a-z]+-[a-z-]+):D(?P<csess>\d+):\d+)$"
)
# Real-turn split rule of LABELS.md: which real turns belong to the test split.
TEST_LOCOMO = {"conv-26", "conv-44"}
TRAIN_LOCOMO = {"conv-41", "conv-48", "conv-50"}
TEST_CONVBENCH_SESSIONS = {1, 2, 3}
NEAR_DUP_JACCARD = 0.8
EMOJI_RE = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf]")


def norm(text: str) -> str:
    return " ".join(text.lower().split())


def trigrams(text: str) -> set[str]:
    t = f"  {norm(text)}  "
    return {t[i : i + 3] for i in range(len(t) - 2)}


def load(path: Path, errors: list[str]) -> list[dict]:
    items = []
    if not path.exists():
        errors.append(f"{path.name}: missing")
        return items
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            errors.append(f"{path.name}:{n}: empty line")
            continue
        try:
            items.append(json.loads(line))
        except json.JSONDecodeError as e:
            errors.append(f"{path.name}:{n}: not JSON ({e})")
    return items


def check_item(it: dict, where: str, errors: list[str]) -> None:
    missing = [f for f in FIELDS if f not in it]
    extra = [f for f in it if f not in FIELDS]
    if missing or extra:
        errors.append(f"{where}: missing fields {missing} / unknown fields {extra}")
        return
    if not isinstance(it["id"], str) or not ID_RE.match(it["id"]):
        errors.append(f"{where}: bad id {it['id']!r}")
    if it["lang"] != "en":
        errors.append(f"{where}: lang must be 'en'")
    for f in ("setting", "text", "source"):
        if not isinstance(it[f], str) or not it[f].strip():
            errors.append(f"{where}: {f} must be a non-empty string")
    if it["speaker_role"] not in ROLES:
        errors.append(f"{where}: speaker_role {it['speaker_role']!r}")
    if it["speaker"] is not None and not (isinstance(it["speaker"], str) and it["speaker"].strip()):
        errors.append(f"{where}: speaker must be a name or null")
    if it["prev"] is not None and not (isinstance(it["prev"], str) and it["prev"].strip()):
        errors.append(f"{where}: prev must be a string or null")
    if it["route"] not in ROUTES:
        errors.append(f"{where}: route {it['route']!r}")
    drop = it["route"] == "drop"
    for f in ("kind", "slot", "canonical"):
        if drop and it[f] is not None:
            errors.append(f"{where}: {f} must be null for a drop")
        if not drop and it[f] is None:
            errors.append(f"{where}: {f} must be set when route is {it['route']}")
    if it["kind"] is not None and it["kind"] not in KINDS:
        errors.append(f"{where}: kind {it['kind']!r}")
    if it["slot"] is not None and it["slot"] not in SLOTS:
        errors.append(f"{where}: slot {it['slot']!r}")
    s = it["subject"]
    if not isinstance(s, str) or not (s in PLAIN_SUBJECTS or (s.startswith("third:") and s[6:].strip())):
        errors.append(f"{where}: subject {s!r}")
    if not isinstance(it["negated"], bool):
        errors.append(f"{where}: negated must be a boolean")
    if it["value"] is not None and not (isinstance(it["value"], str) and it["value"].strip()):
        errors.append(f"{where}: value must be a non-empty string or null")
    if drop and it["value"] is not None:
        errors.append(f"{where}: value must be null for a drop")
    st = it["status"]
    if st is not None and st not in STATUSES:
        errors.append(f"{where}: status {st!r}")
    if it["kind"] in STATUS_KINDS and st is None:
        errors.append(f"{where}: a {it['kind']} needs a status")
    if it["kind"] not in STATUS_KINDS and st is not None:
        errors.append(f"{where}: status only for plan/task/suggestion, not {it['kind']}")
    c = it["canonical"]
    if c is not None:
        if not isinstance(c, str) or not c.strip():
            errors.append(f"{where}: canonical must be a non-empty string")
        elif EMOJI_RE.search(c):
            errors.append(f"{where}: emoji in canonical")
        elif re.match(r"^[A-Z][a-z]+:\s", c):
            errors.append(f"{where}: 'Name:' prefix in canonical")
        elif c[-1] not in ".!?\"')":
            errors.append(f"{where}: canonical should be one sentence ending in punctuation")


def real_split(source: str, mb_test_users: set[str] | None) -> str | None:
    """Which split a real turn belongs to under the split rule; None when `source` is not a real reference."""
    m = REAL_RE.match(source)
    if not m:
        return None
    if m["lconv"]:
        if m["lconv"] in TEST_LOCOMO:
            return "test"
        return "train" if m["lconv"] in TRAIN_LOCOMO else "unknown"
    if m["mbuser"]:
        if mb_test_users is None:
            return "unchecked"
        return "test" if m["mbuser"] in mb_test_users else "train"
    if not m["cb"].startswith("en-"):
        return "unknown"
    return "test" if int(m["csess"]) in TEST_CONVBENCH_SESSIONS else "train"


def load_real_turns(ds: Path) -> tuple[dict[str, str], set[str]]:
    turns: dict[str, str] = {}
    for conv in json.loads((ds / "locomo/locomo_dev.json").read_text(encoding="utf-8")):
        for key, sess in conv["conversation"].items():
            if key.startswith("session_") and isinstance(sess, list):
                for t in sess:
                    turns[f"locomo:{conv['sample_id']}:{t['dia_id']}"] = t["text"]
    for conv in json.loads((ds / "convbench/conv_dev.json").read_text(encoding="utf-8")):
        for key, sess in conv["conversation"].items():
            if key.startswith("session_") and isinstance(sess, list):
                for t in sess:
                    turns[f"convbench:{conv['sample_id']}:{t['dia_id']}"] = t["text"]
    mb = json.loads((ds / "memorybank/memory_bank_en.json").read_text(encoding="utf-8"))
    # The first five users by dict key (keys carry stray spaces; the reference uses the stripped name).
    test_users = {k.strip() for k in sorted(mb)[:5]}
    for user, u in mb.items():
        for date, lst in u["history"].items():
            for i, t in enumerate(lst):
                base = f"memorybank:en:{user.strip()}:{date}:{i}"
                turns[base + ":query"] = t["query"]
                turns[base + ":response"] = t["response"]
    return turns, test_users


def near_duplicates(items: list[tuple[str, dict]]) -> list[str]:
    """Pairs whose normalised text is equal or whose char-3gram Jaccard is >= NEAR_DUP_JACCARD."""
    grams = [trigrams(it["text"]) for _, it in items]
    index: dict[str, list[int]] = defaultdict(list)
    found = []
    for i, g in enumerate(grams):
        cand = Counter()
        for tg in g:
            for j in index[tg]:
                cand[j] += 1
        for j, inter in cand.items():
            union = len(g) + len(grams[j]) - inter
            if union and inter / union >= NEAR_DUP_JACCARD:
                (si, a), (sj, b) = items[i], items[j]
                found.append(
                    f"near-duplicate {sj}:{b['id']} / {si}:{a['id']} "
                    f"(J={inter / union:.2f}): {b['text']!r} / {a['text']!r}"
                )
        for tg in g:
            index[tg].append(i)
    return found


def overlapping_statements(items: list[dict]) -> list[str]:
    """Statements split from one real turn must not contain one another (each clause is said once)."""
    by_turn: dict[str, list[dict]] = defaultdict(list)
    for it in items:
        if (
            isinstance(it.get("source"), str)
            and it["source"] != "written"
            and isinstance(it.get("text"), str)
        ):
            by_turn[it["source"]].append(it)
    found = []
    for src, its in by_turn.items():
        for a in its:
            for b in its:
                if a is not b and len(b["text"]) < len(a["text"]) and norm(b["text"]) in norm(a["text"]):
                    found.append(
                        f"overlapping statements of {src}: {a['id']} contains {b['id']} ({b['text']!r})"
                    )
    return found


def pct(n: int, d: int) -> str:
    return f"{n} ({100 * n / d:.1f}%)" if d else "0"


def report(by_split: dict[str, list[dict]]) -> list[str]:
    """Print the counts and return the target-mix misses (LABELS.md §1)."""
    everything = [it for s in SPLITS for it in by_split[s]]
    misses = []
    for s in SPLITS:
        its = by_split[s]
        n = len(its)
        real = sum(it["source"] != "written" for it in its)
        print(f"\n== {s}: {n} items, {real} from real turns")
        for field in ("route", "kind", "slot", "speaker_role", "negated", "status"):
            c = Counter(str(it[field]) for it in its)
            print(f"  {field}: " + ", ".join(f"{k}={v}" for k, v in sorted(c.items(), key=lambda kv: -kv[1])))
        subj = Counter("third" if it["subject"].startswith("third:") else it["subject"] for it in its)
        print("  subject: " + ", ".join(f"{k}={v}" for k, v in subj.most_common()))
        print(
            "  setting: "
            + ", ".join(f"{k}={v}" for k, v in Counter(it["setting"] for it in its).most_common())
        )
        print(
            f"  drop {pct(sum(it['route'] == 'drop' for it in its), n)}, "
            f"assistant {pct(sum(it['speaker_role'] == 'assistant' for it in its), n)}, "
            f"peer {pct(sum(it['speaker_role'] == 'peer' for it in its), n)}, "
            f"third-party {pct(subj['third'], n)}"
        )
    n = len(everything)
    kinds = Counter(it["kind"] for it in everything if it["kind"])
    slots = Counter(it["slot"] for it in everything if it["slot"])
    drop = sum(it["route"] == "drop" for it in everything) / max(n, 1)
    checks = [
        (n >= 1500, f"total {n} >= 1500"),
        (len(by_split["test"]) >= 350, f"test {len(by_split['test'])} >= 350"),
        (sum(it["source"] != "written" for it in by_split["test"]) >= 120, "test real turns >= 120"),
        (0.35 <= drop <= 0.45, f"drop share {drop:.3f} in [0.35, 0.45]"),
        (sum(it["speaker_role"] == "assistant" for it in everything) >= 0.15 * n, "assistant >= 15%"),
        (sum(it["speaker_role"] == "peer" for it in everything) >= 0.20 * n, "peer >= 20%"),
        (sum(it["subject"].startswith("third:") for it in everything) >= 0.10 * n, "third-party >= 10%"),
    ]
    checks += [(kinds[k] >= 40, f"kind {k} {kinds[k]} >= 40") for k in sorted(KINDS)]
    checks += [(slots[s] >= 15, f"slot {s} {slots[s]} >= 15") for s in sorted(set(SLOTS) - {"other"})]
    print("\n== targets (both splits)")
    for ok, what in checks:
        print(f"  {'ok  ' if ok else 'MISS'} {what}")
        if not ok:
            misses.append(what)
    return misses


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", type=Path, default=HERE)
    ap.add_argument("--datasets", type=Path, default=Path("/work/shared/datasets"))
    ap.add_argument("--strict", action="store_true", help="a missed target of the mix is an error")
    args = ap.parse_args()
    errors: list[str] = []
    by_split = {s: load(args.dir / f"en_{s}.jsonl", errors) for s in SPLITS}
    for s in SPLITS:  # the English rows of topic files holding both languages (assistant_questions_*.jsonl)
        for path in sorted(args.dir.glob(f"*_{s}.jsonl")):
            if path.stem.split("_")[0] not in ("en", "zh"):
                by_split[s] += [it for it in load(path, errors) if it.get("lang") == "en"]
    real_turns, mb_test = (None, None)
    if (args.datasets / "locomo/locomo_dev.json").exists():
        real_turns, mb_test = load_real_turns(args.datasets)
    else:
        print(f"note: {args.datasets} not found; real-turn text and MemoryBank split not checked")
    ids = Counter()
    turn_split: dict[str, set[str]] = defaultdict(set)
    for s in SPLITS:
        for it in by_split[s]:
            where = f"{s}:{it.get('id')}"
            check_item(it, where, errors)
            ids[it.get("id")] += 1
            src = it.get("source", "")
            if src == "written":
                continue
            rs = real_split(src, mb_test)
            if rs is None:
                errors.append(f"{where}: source {src!r} is neither 'written' nor a real turn reference")
                continue
            if rs in ("test", "train") and rs != s:
                errors.append(f"{where}: real turn {src} belongs to the {rs} split")
            if rs == "unknown":
                errors.append(f"{where}: real turn {src} is from data outside the allowed dev sets")
            turn_split[src].add(s)
            if real_turns is not None:
                if src not in real_turns:
                    errors.append(f"{where}: no such turn {src}")
                elif it["text"] not in real_turns[src]:
                    errors.append(f"{where}: text is not the words of {src}: {it['text']!r}")
    errors += [f"duplicate id {i} ({c}x)" for i, c in ids.items() if c > 1]
    errors += [f"turn {t} used in both splits" for t, ss in turn_split.items() if len(ss) > 1]
    errors += overlapping_statements([it for s in SPLITS for it in by_split[s]])
    errors += near_duplicates(
        [(s, it) for s in SPLITS for it in by_split[s] if isinstance(it.get("text"), str)]
    )
    misses = report(by_split)
    print(f"\n{len(errors)} error(s)")
    for e in errors[:200]:
        print("  " + e)
    if args.strict and misses:
        print(f"{len(misses)} target(s) missed (strict)")
    return 1 if errors or (args.strict and misses) else 0


if __name__ == "__main__":
    sys.exit(main())

"""Check the relevance corpora (LABELS.md §3): schema, allowed values, ids, groups, splits, near-duplicates.

Run: python data/labelled/relevance/check.py   (exit status 1 on any error; warnings do not fail)
Prints counts per split x label x intent, and per query type and hard-negative type.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent

LANGS = ("zh", "en")
INTENTS = {
    "food", "schedule", "travel", "purchase", "contact", "health", "work", "study",
    "entertainment", "finance", "home", "social", "general",
}  # fmt: skip
KINDS = {
    "preference", "constraint", "profile", "fact", "event", "plan", "task", "complaint",
    "relation", "instruction", "suggestion",
}  # fmt: skip
STATUSES = {"planned", "done", "cancelled", "postponed", "open", "accepted", "rejected"}
SETTINGS = {
    "customer_service", "companion", "work_assistant", "friends_chat", "group_chat", "family",
    "health", "travel", "shopping", "education", "finance", "home",
}  # fmt: skip
QTYPES = {"direct", "paraphrase", "action", "temporal", "third_party", "named_chat", "multi"}
NEGS = {
    "same_words", "same_person_other_topic", "superseded", "small_talk", "near_useless",
    "other_person", "unrelated",
}  # fmt: skip
UNANSWERABLE_TYPES = {"general_knowledge", "chitchat", "coding", "math", "weather", "howto", "language"}
GROUP_SIZE = (5, 10)
GROUP_POSITIVES = (1, 3)
NEAR_DUP = 0.8

# Real-turn split (LABELS.md §0): which dev conversations may feed which split.
TEST_LOCOMO = {"conv-26", "conv-44"}
TRAIN_LOCOMO = {"conv-41", "conv-48", "conv-50"}
MB_TEST = {
    "zh": {"刘琳", "周立", "姚国栋", "孙悦", "宫晓燕"},
    "en": {"Ivy", "Jason", "Linda", "Roland", "Emily"},
}
# MemoryBank's zh and en users are translations of each other (王峰 = Frank, ...); a user whose twin is in
# the other language's test split stays out of train too, so a bilingual model cannot learn a test store.
MB_TWIN_OF_TEST = {"zh": {"张曼婷", "陈阳"}, "en": {"Gary", "Sunny"}}
CJK = re.compile(r"[\u3400-\u9fff]")
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?$")

errors: list[str] = []
warnings: list[str] = []


def err(where: str, msg: str) -> None:
    errors.append(f"ERROR {where}: {msg}")


def warn(where: str, msg: str) -> None:
    warnings.append(f"warn  {where}: {msg}")


def load(path: Path) -> list[dict]:
    rows = []
    if not path.exists():
        err(path.name, "missing file")
        return rows
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            err(f"{path.name}:{n}", "blank line")
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            err(f"{path.name}:{n}", f"bad JSON: {e}")
            continue
        if not isinstance(row, dict):
            err(f"{path.name}:{n}", "not an object")
            continue
        row["_where"] = f"{path.name}:{n}"
        rows.append(row)
    return rows


def grams(text: str) -> set[str]:
    t = re.sub(r"\s+", " ", text.lower().strip())
    return {t[i : i + 3] for i in range(max(1, len(t) - 2))}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def near_duplicates(left: list[str], right: list[str]) -> list[tuple[str, str, float]]:
    lg = [(t, grams(t)) for t in sorted(set(left))]
    rg = [(t, grams(t)) for t in sorted(set(right))]
    hits = []
    for a, ga in lg:
        for b, gb in rg:
            j = jaccard(ga, gb)
            if j >= NEAR_DUP:
                hits.append((a, b, j))
    return hits


def check_lang_text(where: str, lang: str, text: str) -> None:
    has_cjk = bool(CJK.search(text))
    if lang == "zh" and not has_cjk:
        err(where, f"zh item without Chinese characters: {text!r}")
    if lang == "en" and has_cjk:
        err(where, f"en item with Chinese characters: {text!r}")


def check_source(where: str, lang: str, split: str, source: str) -> None:
    """Real-turn references must come from the conversations their split may use."""
    if source == "written":
        return
    parts = source.split(":")
    if parts[0] == "locomo":
        if len(parts) != 4 or not re.fullmatch(r"D\d+", parts[2]):
            err(where, f"bad locomo source {source!r}")
            return
        allowed = TEST_LOCOMO if split == "test" else TRAIN_LOCOMO
        if parts[1] not in allowed:
            err(where, f"{source} not allowed in {split}")
    elif parts[0] == "memorybank":
        if len(parts) != 6 or parts[1] != lang or parts[5] not in ("query", "response"):
            err(where, f"bad memorybank source {source!r}")
            return
        in_test = parts[2].strip() in MB_TEST[lang]
        if in_test != (split == "test"):
            err(where, f"{source}: MemoryBank user {parts[2]!r} belongs to the other split")
        if split == "train" and parts[2].strip() in MB_TWIN_OF_TEST[lang]:
            err(
                where,
                f"{source}: MemoryBank user {parts[2]!r} is the twin of a test user in the other language",
            )
    elif parts[0] == "convbench":
        m = re.fullmatch(r"convbench:(zh|en)-assistant-dev:D(\d+):\d+", source)
        if not m:
            err(where, f"bad convbench source {source!r}")
            return
        if m.group(1) != lang:
            err(where, f"{source}: convbench sample in the other language")
        in_test = int(m.group(2)) <= 3
        if in_test != (split == "test"):
            err(where, f"{source}: convbench session belongs to the other split")
    else:
        err(where, f"unknown source {source!r}")


def check_query_source(where: str, lang: str, split: str, qs: str) -> None:
    if qs == "written":
        return
    m = re.fullmatch(r"locomo:(conv-\d+):qa:(\d+)", qs)
    if m:
        allowed = TEST_LOCOMO if split == "test" else TRAIN_LOCOMO
        if m.group(1) not in allowed:
            err(where, f"query {qs} not allowed in {split}")
        return
    m = re.fullmatch(r"convbench:(zh|en)-assistant-dev:qa:(\d+)", qs)
    if m:
        if m.group(1) != lang:
            err(where, f"query {qs}: other language")
        return
    m = re.fullmatch(r"memorybank:(zh|en):probe:(.+):(\d+)", qs)
    if m:
        if m.group(1) != lang:
            err(where, f"query {qs}: other language")
        if (m.group(2).strip() in MB_TEST[lang]) != (split == "test"):
            err(where, f"query {qs}: MemoryBank user belongs to the other split")
        if split == "train" and m.group(2).strip() in MB_TWIN_OF_TEST[lang]:
            err(where, f"query {qs}: MemoryBank user is the twin of a test user in the other language")
        return
    err(where, f"unknown query_source {qs!r}")


PAIR_FIELDS = {
    "id": str, "lang": str, "setting": str, "source": str, "query_source": str, "group": str,
    "query": str, "memory": str, "label": int, "intent": str, "qtype": str, "why": str,
}  # fmt: skip


def _pair_files() -> list[tuple[str, str, str, list[dict]]]:
    """(key, query language, split, rows) of every pair file: ``{lang}_{split}.jsonl`` (query and memory in one
    language) and the cross-lingual ``cross_{split}.jsonl`` (a question in ``lang`` over a memory written in
    ``memory_lang``), whose rows are split by their query's language."""
    out = []
    for lang in LANGS:
        for split in ("train", "test"):
            out.append((f"{lang}_{split}", lang, split, load(HERE / f"{lang}_{split}.jsonl")))
    for split in ("train", "test"):
        rows = load(HERE / f"cross_{split}.jsonl")
        for lang in LANGS:
            out.append((f"cross_{lang}_{split}", lang, split, [r for r in rows if r.get("lang") == lang]))
        for r in rows:
            if r.get("lang") not in LANGS:
                err(r["_where"], f"lang {r.get('lang')!r}")
    return out


def check_pairs(all_ids: set[str]) -> dict[str, list[dict]]:
    by_split: dict[str, list[dict]] = {}
    for key, lang, split, rows in _pair_files():
        cross = key.startswith("cross_")
        by_split[key] = rows
        groups: dict[str, list[dict]] = defaultdict(list)
        for r in rows:
            w = r["_where"]
            for f, t in PAIR_FIELDS.items():
                if not isinstance(r.get(f), t) or (t is str and not r[f].strip()):
                    err(w, f"field {f!r} missing or not {t.__name__}")
            if errors and errors[-1].startswith(f"ERROR {w}"):
                continue
            if r["id"] in all_ids:
                err(w, f"duplicate id {r['id']}")
            all_ids.add(r["id"])
            if not r["id"].startswith(f"{lang}-"):
                err(w, f"id {r['id']} not prefixed by language")
            if r["lang"] != lang:
                err(w, f"lang {r['lang']} in the {lang} file")
            if r["label"] not in (0, 1):
                err(w, f"label {r['label']}")
            if r["intent"] not in INTENTS:
                err(w, f"intent {r['intent']!r}")
            if r["setting"] not in SETTINGS:
                err(w, f"setting {r['setting']!r}")
            if r["qtype"] not in QTYPES:
                err(w, f"qtype {r['qtype']!r}")
            if r.get("kind") is not None and r["kind"] not in KINDS:
                err(w, f"kind {r['kind']!r}")
            if r.get("status") is not None and r["status"] not in STATUSES:
                err(w, f"status {r['status']!r}")
            if r["label"] == 1 and r.get("neg") is not None:
                err(w, "a relevant pair with a neg type")
            if r["label"] == 0 and r.get("neg") not in NEGS:
                err(w, f"irrelevant pair without a valid neg type: {r.get('neg')!r}")
            if r.get("asked_at") is not None and not ISO_DATE.match(str(r["asked_at"])):
                err(w, f"asked_at {r['asked_at']!r} not ISO")
            check_lang_text(w, lang, r["query"])
            mlang = lang
            if cross:
                mlang = r.get("memory_lang")
                if mlang not in LANGS or mlang == lang:
                    err(w, f"a cross-lingual pair needs memory_lang, the other language: {mlang!r}")
                    mlang = lang
                elif not r["id"].startswith(f"{lang}-x-") or not r["group"].startswith(f"{lang}-x-"):
                    err(w, f"cross-lingual ids and groups are <lang>-x-…: {r['id']}, {r['group']}")
            elif r.get("memory_lang", lang) != lang:
                err(w, "memory_lang differs from lang outside the cross-lingual files")
            check_lang_text(w, mlang, r["memory"])
            check_source(w, lang, split, r["source"])
            check_query_source(w, lang, split, r["query_source"])
            groups[r["group"]].append(r)
        for gid, items in groups.items():
            w = f"{lang}_{split} group {gid}"
            if len({i["query"] for i in items}) != 1:
                err(w, "more than one query text in a group")
            if len({i["intent"] for i in items}) != 1 or len({i["qtype"] for i in items}) != 1:
                err(w, "intent/qtype differ within a group")
            if not GROUP_SIZE[0] <= len(items) <= GROUP_SIZE[1]:
                err(w, f"{len(items)} memories (want {GROUP_SIZE[0]}-{GROUP_SIZE[1]})")
            pos = sum(i["label"] for i in items)
            if not GROUP_POSITIVES[0] <= pos <= GROUP_POSITIVES[1]:
                err(w, f"{pos} relevant memories (want {GROUP_POSITIVES[0]}-{GROUP_POSITIVES[1]})")
            mems = [i["memory"] for i in items]
            if len(set(mems)) != len(mems):
                err(w, "the same memory twice in a group")
    for lang in LANGS:
        # a group id may not be reused across splits
        train_rows = by_split[f"{lang}_train"] + by_split[f"cross_{lang}_train"]
        test_rows = by_split[f"{lang}_test"] + by_split[f"cross_{lang}_test"]
        train_g = {r["group"] for r in train_rows}
        test_g = {r["group"] for r in test_rows}
        if train_g & test_g:
            err(lang, f"group ids in both splits: {sorted(train_g & test_g)[:5]}")
        tr_q = [r["query"] for r in train_rows]
        te_q = [r["query"] for r in test_rows]
        for a, b, j in near_duplicates(tr_q, te_q):
            err(f"{lang} train/test", f"near-duplicate queries (J={j:.2f}): {a!r} ~ {b!r}")
        tr_m = [r["memory"] for r in train_rows if r["source"] == "written"]
        te_m = [r["memory"] for r in test_rows if r["source"] == "written"]
        for a, b, j in near_duplicates(tr_m, te_m):
            warn(f"{lang} train/test", f"near-duplicate written memories (J={j:.2f}): {a!r} ~ {b!r}")
    return by_split


def check_simple(name: str, fields: dict[str, type], allowed_key: str, allowed: set[str], all_ids: set[str]):
    rows = load(HERE / name)
    for r in rows:
        w = r["_where"]
        bad = [f for f, t in fields.items() if not isinstance(r.get(f), t) or not str(r.get(f)).strip()]
        if bad:
            err(w, f"fields missing or mistyped: {bad}")
            continue
        if r["id"] in all_ids:
            err(w, f"duplicate id {r['id']}")
        all_ids.add(r["id"])
        if r["lang"] not in LANGS:
            err(w, f"lang {r['lang']!r}")
            continue
        if not r["id"].startswith(f"{r['lang']}-"):
            err(w, f"id {r['id']} not prefixed by language")
        if r[allowed_key] not in allowed:
            err(w, f"{allowed_key} {r[allowed_key]!r}")
        if r.get("setting") is not None and r["setting"] not in SETTINGS:
            err(w, f"setting {r['setting']!r}")
        check_lang_text(w, r["lang"], r["query"])
    queries = [r["query"] for r in rows if "query" in r]
    if len(set(queries)) != len(queries):
        dup = [q for q, c in Counter(queries).items() if c > 1]
        err(name, f"repeated queries: {dup[:5]}")
    return rows


def main() -> int:
    all_ids: set[str] = set()
    pairs = check_pairs(all_ids)
    ufields = {"id": str, "lang": str, "query": str, "type": str, "source": str}
    ifields = {"id": str, "lang": str, "query": str, "intent": str, "source": str}
    un = check_simple("unanswerable.jsonl", ufields, "type", UNANSWERABLE_TYPES, all_ids)
    un_t = check_simple("unanswerable_test.jsonl", ufields, "type", UNANSWERABLE_TYPES, all_ids)
    # written for the next retrain of the gate, not in the shipped one's training (README)
    un_p = check_simple("unanswerable_pending.jsonl", ufields, "type", UNANSWERABLE_TYPES, all_ids)
    it = check_simple("intents.jsonl", ifields, "intent", INTENTS, all_ids)
    it_t = check_simple("intents_test.jsonl", ifields, "intent", INTENTS, all_ids)

    for a_name, a, b_name, b in (
        ("unanswerable", un, "unanswerable_test", un_t),
        ("intents", it, "intents_test", it_t),
    ):
        for a_q, b_q, j in near_duplicates([r["query"] for r in a], [r["query"] for r in b]):
            err(f"{a_name}/{b_name}", f"near-duplicate queries (J={j:.2f}): {a_q!r} ~ {b_q!r}")
    # the held-apart unanswerable and intent test queries may not echo any training query
    train_queries = [r["query"] for k, v in pairs.items() if k.endswith("_train") for r in v]
    train_queries += [r["query"] for r in un] + [r["query"] for r in un_p] + [r["query"] for r in it]
    test_queries = [r["query"] for r in un_t] + [r["query"] for r in it_t]
    test_queries += [r["query"] for k, v in pairs.items() if k.endswith("_test") for r in v]
    for a_q, b_q, j in near_duplicates(train_queries, test_queries):
        msg = f"near-duplicate train/test queries across files (J={j:.2f}): {a_q!r} ~ {b_q!r}"
        err("cross-file", msg)

    # counts
    print("== relevance pairs: split x label x intent ==")
    for key, rows in pairs.items():
        groups = {r["group"] for r in rows}
        lab = Counter(r["label"] for r in rows)
        print(f"{key}: {len(rows)} pairs, {len(groups)} query groups, relevant {lab[1]}, not {lab[0]}")
        by_int = defaultdict(Counter)
        for r in rows:
            by_int[r["intent"]][r["label"]] += 1
        print("  intent        rel  not")
        for i in sorted(by_int):
            print(f"  {i:<13} {by_int[i][1]:>4} {by_int[i][0]:>4}")
        qg = Counter()
        for g in groups:
            qg[next(r["qtype"] for r in rows if r["group"] == g)] += 1
        print("  query types (groups):", dict(sorted(qg.items())))
        print("  hard negatives:", dict(sorted(Counter(r["neg"] for r in rows if r["label"] == 0).items())))
        print("  settings (pairs):", dict(sorted(Counter(r["setting"] for r in rows).items())))
        real = sum(1 for r in rows if r["source"] != "written" or r["query_source"] != "written")
        print(f"  pairs from real dev turns or questions: {real}")
    for name, rows, key in (
        ("unanswerable", un, "type"),
        ("unanswerable_test", un_t, "type"),
        ("unanswerable_pending", un_p, "type"),
        ("intents", it, "intent"),
        ("intents_test", it_t, "intent"),
    ):
        print(f"== {name}: {len(rows)} ==")
        for lang in LANGS:
            c = Counter(r[key] for r in rows if r.get("lang") == lang)
            print(f"  {lang}: {sum(c.values())} {dict(sorted(c.items()))}")
    for w in warnings:
        print(w)
    for e in errors:
        print(e)
    print(f"{len(errors)} errors, {len(warnings)} warnings")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

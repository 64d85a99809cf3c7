"""Replay each judged supersede and each listed real change on its own: a quick check of a merge change.

``train/supersede_audit.py`` ingests whole conversations (tens of minutes on a shared machine). This script
writes only the turns of one pair — the old turn(s), then the new turn(s), each at its real session time,
through the public API into a fresh user — and reports whether a memory of the new turns superseded a memory
of the old ones (or closed one of them as done). A pair seen alone has fewer neighbours than in its conversation, so it is a proxy (the audit
is the measure), but it tells in a minute whether a false class is gone and the true changes still hold.

Reads ``data/labelled/merge/supersedes_judged.jsonl`` (pairs with a verdict) and ``real_changes.jsonl``.
Usage: python train/supersede_replay.py [--only false,true,changes] [--seen merge6] [--verbose]
Last line: ``judged false still superseding F/NF; judged true superseding T/NT; changes caught C/NC``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "train"))

from supersede_audit import SOURCES, _conv_ids, _turns  # noqa: E402

MERGE = ROOT / "data" / "labelled" / "merge"


def _conversations() -> dict[str, object]:
    from memscribe.bench.audit import load_conversation

    out: dict[str, object] = {}
    for paths in SOURCES.values():
        for path in paths:
            for cid in _conv_ids(path):
                out[cid] = load_conversation(path, cid)
    return out


def _turn_messages(conv, turn_ids: list[str]) -> list[tuple[str, dict]]:  # type: ignore[no-untyped-def, type-arg]
    want = set(turn_ids)
    return [(s["at"], m) for s in conv.sessions for m in s["messages"] if m["id"] in want]


def replay(mem, uid: str, conv, old: list[str], new: list[str]) -> tuple[bool, list[str]]:  # type: ignore[no-untyped-def]
    for at, msg in _turn_messages(conv, old) + _turn_messages(conv, new):
        mem.add([dict(msg)], user_id=uid, session_id=f"{uid}-{at[:10]}", at=at)
    mem.flush()
    recs = mem.list(user_id=uid, status="all", limit=1000)
    by_id = {r.id: r for r in recs}
    notes: list[str] = []
    hit = False
    # a plan closed as done stays active; the report that closed it links to it ("closes")
    closed_by = {lk.target: r for r in recs for lk in r.links if lk.type == "closes"}
    for r in recs:
        succ = by_id.get(r.superseded_by or "") or closed_by.get(r.id)
        pend = r.state.pending
        targets = [succ] if succ else []
        if pend is not None and pend.decision in ("supersede", "close") and pend.target in by_id:
            targets = []
            if set(_turns(r)) & set(new) and set(_turns(by_id[pend.target])) & set(old):
                hit = True
        for t in targets:
            if set(_turns(r)) & set(old) and set(_turns(t)) & set(new):
                hit = True
                notes.append(f"{r.text[:90]!r} -> {t.text[:90]!r}")
    return hit, notes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="false,true,changes")
    ap.add_argument("--seen", default="", help="only judged rows whose seen_on names this (e.g. merge6)")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    only = set(args.only.split(","))
    from memscribe import Memory

    convs = _conversations()
    judged = [json.loads(x) for x in (MERGE / "supersedes_judged.jsonl").read_text("utf-8").splitlines() if x]
    changes = [json.loads(x) for x in (MERGE / "real_changes.jsonl").read_text("utf-8").splitlines() if x]
    cases: list[tuple[str, str, list[str], list[str], str]] = []
    for r in judged:
        if r["verdict"] is None or (args.seen and args.seen not in " ".join(r.get("seen_on") or [])):
            continue
        group = "true" if r["verdict"] else "false"
        if group in only:
            cases.append((group, r["conv"], list(r["old_turns"]), list(r["new_turns"]), r["key"]))
    if "changes" in only:
        for c in changes:
            cases.append(
                ("changes", c["conv"], [t["turn"] for t in c["old"]], [t["turn"] for t in c["new"]], c["id"])
            )
    counts: dict[str, list[int]] = {}
    with tempfile.TemporaryDirectory(prefix="ms-replay-") as tmp, Memory(home=Path(tmp)) as mem:
        for i, (group, conv, old, new, key) in enumerate(cases):
            hit, notes = replay(mem, f"replay-{i}", convs[conv], old, new)
            counts.setdefault(group, [0, 0])
            counts[group][0] += hit
            counts[group][1] += 1
            bad = hit if group == "false" else not hit
            if bad or args.verbose:
                print(f"[{group}{' SUPERSEDED' if hit else ' kept'}] {key}", *notes, sep="\n    ", flush=True)
    f, t, c = (counts.get(g, [0, 0]) for g in ("false", "true", "changes"))
    print(
        f"judged false still superseding {f[0]}/{f[1]}; judged true superseding {t[0]}/{t[1]}; "
        f"changes caught {c[0]}/{c[1]}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

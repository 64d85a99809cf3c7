"""Every supersede memscribe makes while ingesting the dev chats, and how many listed real changes it caught.

Ingests LoCoMo dev, convbench dev and the MemoryBank zh + en users through the public API (``Memory().add``,
as ``memscribe bench audit`` does: real session times, an assistant turn as ``role: assistant``, MemoryBank
one session per day), then prints every supersede — the old memory and the one that replaced it, both texts
and their source turn ids — and which changes of ``data/labelled/merge/real_changes.jsonl`` were caught.
A change is caught when a memory made from one of its old turns is superseded (at write time, or proposed
for review) by a memory made from one of its new turns.

With ``--judged FILE`` (JSONL of ``{key, verdict: true|false, why}``, key = ``conv|old turns|new turns``) each
supersede is marked with its hand verdict and the true/false counts are printed; supersedes without a
verdict are listed as unjudged. ``--write-unjudged FILE`` appends the unjudged ones (verdict null) to fill in.

Usage: python train/supersede_audit.py [--only locomo,convbench,memorybank] [--convs conv-26,...]
       [--judged data/labelled/merge/supersedes_judged.jsonl] [--json OUT]
Last line: ``supersedes: N (true T, false F, unjudged U); changes caught C/L (x%)``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path("/work/shared/datasets")
SOURCES = {
    "locomo": [DATA / "locomo" / "locomo_dev.json"],
    "convbench": [DATA / "convbench" / "conv_dev.json"],
    "memorybank": [DATA / "memorybank" / "memory_bank_cn.json", DATA / "memorybank" / "memory_bank_en.json"],
}
CHANGES = ROOT / "data" / "labelled" / "merge" / "real_changes.jsonl"


@dataclass(frozen=True)
class Supersede:
    dataset: str
    conv: str
    old_turns: tuple[str, ...]
    old_text: str
    new_turns: tuple[str, ...]
    new_text: str
    why: str
    pending: bool  # proposed for review rather than applied

    @property
    def key(self) -> str:
        return f"{self.conv}|{','.join(self.old_turns)}|{','.join(self.new_turns)}"


def _conv_ids(path: Path) -> list[str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, list):
        return [str(c["sample_id"]) for c in data]
    return sorted(k.strip() for k in data)


def _turns(rec) -> tuple[str, ...]:  # type: ignore[no-untyped-def]
    return tuple(str(s.message_id) for s in rec.sources if getattr(s, "message_id", None))


def supersedes_of(
    records: Iterable,
    dataset: str,
    conv: str,
    reason: Callable[[str], str],  # type: ignore[type-arg]
) -> list[Supersede]:
    """Applied supersedes (old status superseded, pointing to its successor), plans closed as done (the report
    links to the plan it ``closes``; the plan stays active, now done — since session 15 a completion is a
    status change, and it is judged like a supersede: a false one mislabels a true plan) and both kinds held
    for review."""
    recs = list(records)
    by_id = {r.id: r for r in recs}
    out: list[Supersede] = []
    for old in recs:
        new = by_id.get(old.superseded_by or "")
        if new is not None:
            why = reason(old.id)
            out.append(Supersede(dataset, conv, _turns(old), old.text, _turns(new), new.text, why, False))
    for new in recs:
        for link in new.links:
            if link.type == "closes" and link.target in by_id:
                old = by_id[link.target]
                why = reason(old.id)
                out.append(Supersede(dataset, conv, _turns(old), old.text, _turns(new), new.text, why, False))
    for new in recs:
        pending = new.state.pending
        if pending is not None and pending.decision in ("supersede", "close") and pending.target in by_id:
            old = by_id[pending.target]
            out.append(
                Supersede(dataset, conv, _turns(old), old.text, _turns(new), new.text, pending.why, True)
            )
    return out


def ingest(dataset: str, path: Path, conv_id: str, home: Path) -> list[Supersede]:
    from memscribe import Memory
    from memscribe.bench.audit import load_conversation

    conv = load_conversation(path, conv_id)
    uid = f"{dataset}-{conv.conv_id}"
    with Memory(home=home) as mem:
        for s in conv.sessions:
            if not s["messages"]:  # a MemoryBank day with no exchange
                continue
            mem.add(list(s["messages"]), user_id=uid, session_id=f"{uid}-s{s['n']}", at=s["at"])
        mem.flush()
        records = mem.list(user_id=uid, status="all", limit=100000)

        def reason(memory_id: str) -> str:
            return next(
                (
                    v.reason
                    for v in reversed(mem.history(memory_id))
                    if v.reason.startswith(("superseded", "closed"))
                ),
                "",
            )

        return supersedes_of(records, dataset, conv.conv_id, reason)


def caught(change: dict, found: list[Supersede]) -> Supersede | None:  # type: ignore[type-arg]
    old = {t["turn"] for t in change["old"]}
    new = {t["turn"] for t in change["new"]}
    for s in found:
        if s.conv == change["conv"] and old & set(s.old_turns) and new & set(s.new_turns):
            return s
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="locomo,convbench,memorybank")
    ap.add_argument("--convs", default="", help="comma-separated conversation / user ids (default: all)")
    ap.add_argument("--judged", type=Path, default=None)
    ap.add_argument("--write-unjudged", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    wanted = {c for c in args.convs.split(",") if c}
    verdicts: dict[str, dict] = {}  # type: ignore[type-arg]
    if args.judged and args.judged.exists():
        for line in args.judged.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                verdicts[row["key"]] = row
    changes = [json.loads(x) for x in CHANGES.read_text(encoding="utf-8").splitlines() if x.strip()]
    found: list[Supersede] = []
    with tempfile.TemporaryDirectory(prefix="ms-supersede-") as tmp:
        for dataset in args.only.split(","):
            for path in SOURCES[dataset]:
                for conv_id in _conv_ids(path):
                    if wanted and conv_id not in wanted:
                        continue
                    got = ingest(dataset, path, conv_id, Path(tmp) / "store")
                    print(f"# {dataset} {conv_id}: {len(got)} supersedes", file=sys.stderr, flush=True)
                    found += got
    datasets = set(args.only.split(","))
    n_true = n_false = 0
    unjudged: list[Supersede] = []
    for s in found:
        v = verdicts.get(s.key)
        mark = "?" if v is None or v.get("verdict") is None else ("TRUE" if v["verdict"] else "FALSE")
        n_true += mark == "TRUE"
        n_false += mark == "FALSE"
        if mark == "?":
            unjudged.append(s)
        print(f"[{mark}] {s.dataset} {s.conv} {'(pending) ' if s.pending else ''}why: {s.why}")
        print(f"    old {','.join(s.old_turns)}: {s.old_text}")
        print(f"    new {','.join(s.new_turns)}: {s.new_text}")
    scope = [c for c in changes if c["dataset"] in datasets and (not wanted or c["conv"] in wanted)]
    hits = 0
    print("\nlisted changes:")
    for c in scope:
        s = caught(c, found)
        hits += s is not None
        print(f"  [{'caught' if s else 'missed'}] {c['id']} {c['conv']} {c['change']}: {c['what']}")
    if args.write_unjudged and unjudged:
        with args.write_unjudged.open("a", encoding="utf-8") as f:
            for s in unjudged:
                row = {"key": s.key, "verdict": None, "why": "", **asdict(s)}
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
    if args.json:
        args.json.write_text(
            json.dumps([asdict(s) for s in found], ensure_ascii=False, indent=1), encoding="utf-8"
        )
    pct = 100 * hits / max(1, len(scope))
    print(
        f"supersedes: {len(found)} (true {n_true}, false {n_false}, unjudged {len(unjudged)}); "
        f"changes caught {hits}/{len(scope)} ({pct:.0f}%)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

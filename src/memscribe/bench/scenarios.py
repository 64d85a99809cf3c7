"""`memscribe bench scenarios`: run a scenario file (update, conflict, negation, dedup, time resolution,
privacy; zh + en) through the public API and score every check — the semantics of the project's judge."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["check", "run_scenario", "run_scenarios"]


def _blob(d: dict[str, Any]) -> str:
    parts = [str(d.get("text") or ""), str(d.get("raw") or "")]
    if d.get("structured"):
        parts.append(json.dumps(d["structured"], ensure_ascii=False, default=str))
    for k in ("time_start", "time_end", "entities"):
        if d.get(k):
            parts.append(json.dumps(d[k], ensure_ascii=False, default=str))
    return "\n".join(parts).lower()


def check(
    mem, uid: str, ck: dict[str, Any], allm: list[dict], outputs: list[str], home: Path
) -> tuple[bool, str]:  # type: ignore[no-untyped-def]
    active = [m for m in allm if m.get("status") in (None, "active")]

    def contains(m: dict, s: str) -> bool:
        return s.lower() in _blob(m)

    def active_with(s: str | None) -> list[dict]:
        return [m for m in active if not s or contains(m, s)]

    t = ck["type"]
    if t in ("active_count_max", "active_count_min"):
        n = len(active_with(ck.get("contains")))
        return (n <= ck["max"]) if t.endswith("max") else (n >= ck["min"]), f"{n} active"
    if t == "some_active_contains":
        return bool(active_with(ck["expect"])), ""
    if t == "some_active_contains_all":
        ok = any(
            all(contains(m, e) for e in ck["expect"]) and any(contains(m, a) for a in ck["any_of"])
            for m in active
        )
        return ok, ""
    if t == "none_active_contains":
        bad = [f for f in ck["forbid"] if active_with(f)]
        return not bad, f"found {bad}"
    if t == "none_active_contains_all":
        bad = [m for m in active if all(contains(m, e) for e in ck["forbid_together"])]
        return not bad, f"{len(bad)} active memories hold all of {ck['forbid_together']}"
    if t == "context_excludes":
        c = mem.context(ck["query"], user_id=uid, budget_tokens=ck["budget"]).text
        outputs.append(c)
        bad = [f for f in ck["forbid"] if f.lower() in c.lower()]
        return not bad, f"context has {bad}: " + c[:100].replace("\n", " | ")
    if t in ("search_top1_contains", "search_topk_contains"):
        k = 1 if t == "search_top1_contains" else ck["k"]
        hits = mem.search(ck["query"], user_id=uid, limit=max(k, 5))[:k]
        texts = [_blob(h.memory.model_dump(mode="json")) for h in hits]
        outputs.append("\n".join(texts))
        joined = "\n".join(texts)
        ok = (
            any(e.lower() in joined for e in ck["expect_any"])
            if k == 1
            else all(e.lower() in joined for e in ck["expect_all"])
        )
        return ok, "top: " + (texts[0][:80].replace("\n", " | ") if texts else "nothing")
    if t == "context_contains":
        c = mem.context(ck["query"], user_id=uid, budget_tokens=ck["budget"]).text
        outputs.append(c)
        return any(e.lower() in c.lower() for e in ck["expect_any"]), c[:100].replace("\n", " | ")
    if t == "time_start_prefix":
        ts = [str(m.get("time_start") or "") for m in active_with(ck["contains"])]
        return any(x.startswith(ck["expect"]) for x in ts), f"time_start={ts}"
    if t == "superseded_exists":
        return any(m.get("status") == "superseded" and contains(m, ck["contains"]) for m in allm), ""
    if t == "history_min":
        n = max((len(mem.history(m["id"])) for m in active_with(ck["contains"])), default=0)
        return n >= ck["min"], f"{n} versions"
    if t == "status_of":
        st = [str((m.get("structured") or {}).get("status", "")).lower() for m in active_with(ck["contains"])]
        return any(s in ck["expect_any"] for s in st), f"status={st}"
    if t == "importance_min":
        cands = active_with(ck["contains"])
        return any(
            (m.get("importance") or 0) >= ck["min"] for m in cands
        ), f"{[m.get('importance') for m in cands]}"
    if t == "layer_of":
        ls = [str(m.get("layer")) for m in active_with(ck["contains"])]
        return any(x in ck["expect_any"] for x in ls), f"layer={ls}"
    if t == "linked":
        a_set, b_set = active_with(ck["a"]), active_with(ck["b"])

        def targets(m: dict) -> set[str]:
            return {str(link.get("target")) for link in m.get("links") or []}

        ok = any(
            (b["id"] in targets(a) or a["id"] in targets(b)) and a["id"] != b["id"]
            for a in a_set
            for b in b_set
        )
        return ok, ""
    if t == "no_plaintext":
        leaks = []
        listing = json.dumps(allm, ensure_ascii=False, default=str)
        for s in ck["secrets"]:
            sb = s.encode()
            for p in home.rglob("*"):
                if p.is_file() and sb in p.read_bytes():
                    leaks.append(f"{s} in {p.name}")
            if any(s in o for o in outputs) or s in listing:
                leaks.append(f"{s} in api output")
        return not leaks, "; ".join(sorted(set(leaks)))
    return False, f"unknown check type {t}"


def run_scenario(sc: dict[str, Any], *, async_api: bool = False) -> list[tuple[str, bool, str]]:
    from memscribe import Memory

    home = Path(tempfile.mkdtemp(prefix="ms-scn-"))
    old = os.environ.get("MEMSCRIBE_HOME")
    os.environ["MEMSCRIBE_HOME"] = str(home)
    try:
        mem = Memory(home=home)
        uid = sc["user"]
        for st in sc["steps"]:
            mem.add(st["messages"], user_id=uid, session_id=sc["id"], at=st["at"])
        mem.flush()
        allm = [r.model_dump(mode="json") for r in mem.list(user_id=uid, status=None)]
        outputs = [json.dumps(allm, ensure_ascii=False, default=str)]
        results = []
        for ck in sc["checks"]:
            ok, why = check(mem, uid, ck, allm, outputs, home)
            results.append((ck["type"], ok, why))
        mem.close()
        return results
    finally:
        if old is None:
            os.environ.pop("MEMSCRIBE_HOME", None)
        else:
            os.environ["MEMSCRIBE_HOME"] = old


def run_scenarios(
    path: Path, *, out_dir: Path | None = None, console: Console | None = None
) -> dict[str, Any]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    scenarios = data["scenarios"] if isinstance(data, dict) else data
    rows = []
    for sc in scenarios:
        for t, ok, why in run_scenario(sc):
            rows.append({"scenario": sc["id"], "check": t, "ok": ok, "why": why})
    passed = sum(r["ok"] for r in rows)
    summary = {"passed": passed, "failed": len(rows) - passed, "total": len(rows), "checks": rows}
    if out_dir is not None:
        from memscribe.bench.report import write_section

        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "scenarios.json").write_text(
            json.dumps(summary, ensure_ascii=False, indent=1), encoding="utf-8"
        )
        # the same figures in results.json and report.md, beside the other benches
        write_section("scenarios", {"data": str(path), **summary}, out_dir, console=console)
    if console is not None:
        t = Table(title=f"scenarios: {passed}/{len(rows)} checks passed")
        for col in ("scenario", "check", "ok", "why"):
            t.add_column(col, overflow="fold")
        for r in rows:
            t.add_row(
                r["scenario"], r["check"], "[green]pass[/green]" if r["ok"] else "[red]FAIL[/red]", r["why"]
            )
        console.print(t)
    return summary

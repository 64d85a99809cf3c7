"""`memscribe bench ingest`: streamed ingest of a large JSONL file — throughput and bounded memory.

Generates an N-message conversation file (Chinese and English, user and assistant turns, sessions of 20,
facts, plans, preferences and chit-chat), then ingests it in a fresh child process through the same code
as `memscribe ingest`, sampling the child's resident memory (RSS) at every 10 % of the file (10 %, 50 %, 100 % in the table).
Beside it, in the same run, the baseline any non-streaming loader pays: a child that only parses the
whole file into memory (no memory work at all) — its RSS growth is the file's, which a streamed ingest
must not show.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["make_messages", "run_ingest_bench", "write_jsonl"]

_EN = (
    "I'm flying to {city} on {day} for the {event}.",
    "My sister {name} is visiting us next {day}.",
    "I prefer {drink} over coffee these days.",
    "Please remember that I'm allergic to {food}.",
    "We moved the {event} to {day} afternoon at {hour} pm.",
    "I just bought a {thing} for {n} dollars.",
    "My order #{order} arrived damaged, I'm really annoyed.",
    "I started learning {skill} last month.",
    "ok thanks",
    "haha nice",
    "Can you summarize that again?",
    "Our team budget for {event} is {n}k.",
)
_ZH = (
    "我{day}要去{city_zh}出差，{event_zh}在那边开。",
    "以后{event_zh}都安排在{day_zh}下午{hour}点。",
    "我不吃{food_zh}，记住哦。",
    "我最近在学{skill_zh}，每周练{n}次。",
    "订单{order}的快递还没到，有点着急。",
    "我妹妹{name_zh}下周来{city_zh}看我。",
    "好的谢谢",
    "哈哈哈",
    "这个月的预算是{n}万。",
    "我换了新工作，在{city_zh}的一家{org_zh}。",
)
_SLOTS: dict[str, tuple[str, ...]] = {
    "city": ("Tokyo", "Berlin", "Austin", "Lisbon", "Toronto", "Seoul", "Denver"),
    "day": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"),
    "event": ("design review", "offsite", "quarterly planning", "launch party", "board meeting"),
    "name": ("Anna", "Maya", "Leo", "Sofia", "Ethan"),
    "drink": ("green tea", "oat latte", "matcha", "sparkling water"),
    "food": ("peanuts", "shellfish", "gluten", "sesame"),
    "thing": ("road bike", "standing desk", "camera lens", "tent"),
    "skill": ("Spanish", "the piano", "pottery", "rock climbing"),
    "city_zh": ("上海", "深圳", "成都", "杭州", "北京", "西安"),
    "event_zh": ("项目评审会", "季度复盘", "团建", "产品发布会", "客户拜访"),
    "day_zh": ("周一", "周二", "周三", "周四", "周五"),
    "food_zh": ("香菜", "辣椒", "海鲜", "花生"),
    "skill_zh": ("游泳", "书法", "吉他", "日语"),
    "name_zh": ("小美", "阿杰", "婷婷", "浩然"),
    "org_zh": ("咨询公司", "互联网公司", "设计工作室", "银行"),
}
_ASSISTANT = ("Got it, I'll keep that in mind.", "好的，已经记下了。", "Sure — anything else?", "明白。")


def _fill(template: str, rng: random.Random) -> str:
    values = {k: rng.choice(v) for k, v in _SLOTS.items()}
    values.update(n=rng.randint(2, 900), hour=rng.randint(1, 6), order=rng.randint(10**7, 10**8 - 1))
    return template.format(**values)


def make_messages(n: int, *, seed: int = 11) -> Any:
    """``n`` message dicts (a generator: the bench never holds the file in memory either)."""
    rng = random.Random(seed)
    for i in range(n):
        session = i // 20
        if i % 20 in (5, 11, 17):
            role, content = "assistant", rng.choice(_ASSISTANT)
        else:
            role, content = "user", _fill(rng.choice(_ZH if rng.random() < 0.5 else _EN), rng)
        day = 1 + session // 4
        yield {
            "role": role,
            "content": content,
            "id": f"m{i}",
            "session_id": f"s{session}",
            "at": f"2026-{1 + (day // 28) % 12:02d}-{1 + day % 28:02d}T{9 + (i % 20) // 3:02d}:00:00+08:00",
        }


def write_jsonl(path: Path, n: int, *, seed: int = 11, pad: int = 0) -> int:
    """Write ``n`` messages to ``path`` (each with ``pad`` bytes of an ignored field); returns its size."""
    with path.open("w", encoding="utf-8") as fh:
        for m in make_messages(n, seed=seed):
            if pad:
                m["attachment"] = "x" * pad
            fh.write(json.dumps(m, ensure_ascii=False) + "\n")
    return path.stat().st_size


# The child processes: a clean interpreter, so RSS is the ingest's and nothing else's.
_CHILD_INGEST = r"""
import json, resource, sys, time
from pathlib import Path
from memscribe import Memory
from memscribe.interfaces.ingest import ingest_jsonl

def rss_mb():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**20

path, home, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
marks = sorted({max(1, n * p // 100) for p in range(10, 101, 10)})
mem = Memory(home=home)
mem.add("warm-up: I like tea.", user_id="warmup")  # models loaded before the first sample
print(json.dumps({"at": 0, "rss_mb": rss_mb()}), flush=True)

def progress(p):
    while marks and p.messages >= marks[0]:
        print(json.dumps({"at": marks.pop(0), "messages": p.messages, "elapsed_s": p.elapsed_s, "rss_mb": rss_mb()}), flush=True)

rep = ingest_jsonl(mem, path, user_id="bench", progress=progress, progress_every=max(1, n // 100))
t = time.monotonic()
mem.flush()
drain = time.monotonic() - t
print(json.dumps({"done": rep.as_dict(), "verify_drain_s": drain, "rss_mb": rss_mb(),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "stats": mem.stats(user_id="bench")["memories_by_status"]}), flush=True)
mem.close()
"""
_CHILD_LOAD_ALL = r"""
import json, resource, sys
from pathlib import Path
def rss_mb():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**20
before = rss_mb()
rows = [json.loads(line) for line in Path(sys.argv[1]).read_text(encoding="utf-8").splitlines()]
print(json.dumps({"rows": len(rows), "rss_before_mb": before, "rss_mb": rss_mb(),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}), flush=True)
"""


def _child(code: str, *args: str, console: Console | None = None) -> list[dict[str, Any]]:
    """Run a child interpreter; its JSON lines are collected (and shown as they come, for progress)."""
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryFile(mode="w+") as errs:
        proc = subprocess.Popen(
            [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=errs, text=True
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("{"):
                row = json.loads(line)
                rows.append(row)
                if console is not None and "messages" in row:
                    rate = row["messages"] / max(row["elapsed_s"], 1e-9)
                    console.print(
                        f"  {row['messages']} messages, {rate:.0f} msg/s, RSS {row['rss_mb']:.0f} MB",
                        highlight=False,
                    )
        if proc.wait() != 0:
            errs.seek(0)
            raise RuntimeError(f"bench child failed: {errs.read()[-2000:]}")
    return rows


def run_ingest_bench(
    n: int, *, out_dir: Path | None = None, console: Console | None = None, keep: Path | None = None
) -> dict[str, Any]:
    console = console or Console()
    with tempfile.TemporaryDirectory(prefix="memscribe-bench-ingest-") as tmp:
        work = keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        data = work / f"messages-{n}.jsonl"
        size = write_jsonl(data, n)
        console.print(f"generated {n} messages ({size / 2**20:.1f} MB) in {data}")
        t = time.monotonic()
        rows = _child(_CHILD_INGEST, str(data), str(work / "store"), str(n), console=console)
        wall = time.monotonic() - t
        baseline = _child(_CHILD_LOAD_ALL, str(data))[0]
    samples = [r for r in rows if "at" in r]
    done = next(r for r in rows if "done" in r)
    rep = done["done"]
    base_rss = samples[0]["rss_mb"]
    result = {
        "n": n,
        "file_mb": round(size / 2**20, 2),
        "messages_per_s": rep["messages_per_s"],
        "ingest_s": rep["elapsed_s"],
        "verify_drain_s": round(done["verify_drain_s"], 2),
        "wall_s": round(wall, 1),
        "actions": rep["actions"],
        "memories": done["stats"],
        "rss_mb": {
            ("start" if s["at"] == 0 else f"{round(100 * s['at'] / n)}%"): round(s["rss_mb"], 1)
            for s in samples
        },
        "rss_growth_mb": round(samples[-1]["rss_mb"] - base_rss, 1),
        # after the first 10 % the embedder's buffers and the caches have their working size: what grows
        # from there on grows with the data (the store's in-memory vectors), not with the file
        "rss_growth_10_to_100_mb": round(samples[-1]["rss_mb"] - samples[1]["rss_mb"], 1),
        "peak_rss_mb": round(done["peak_rss_mb"], 1),
        "baseline_load_all": {
            "rss_growth_mb": round(baseline["rss_mb"] - baseline["rss_before_mb"], 1),
            "peak_rss_mb": round(baseline["peak_rss_mb"], 1),
        },
    }
    t = Table(title=f"bench ingest: {n} messages ({result['file_mb']} MB JSONL)")
    t.add_column("")
    t.add_column("memscribe ingest (streamed)", justify="right")
    t.add_column("baseline: parse whole file, no memory work", justify="right")
    t.add_row("messages/s", f"{rep['messages_per_s']}", "")
    t.add_row("ingest time", f"{rep['elapsed_s']:.1f} s (+ {done['verify_drain_s']:.1f} s verify drain)", "")
    for label, v in result["rss_mb"].items():
        if label in ("start", "10%", "50%", "100%"):
            t.add_row(f"RSS at {label}", f"{v} MB", "")
    curve = list(result["rss_mb"].values())[1:]
    t.add_row("RSS curve, every 10 %", " ".join(f"{v:.0f}" for v in curve) + " MB", "")
    t.add_row(
        "RSS growth over the run",
        f"{result['rss_growth_mb']} MB",
        f"{result['baseline_load_all']['rss_growth_mb']} MB",
    )
    t.add_row("RSS growth 10 % -> 100 %", f"{result['rss_growth_10_to_100_mb']} MB", "")
    t.add_row("peak RSS", f"{result['peak_rss_mb']} MB", f"{result['baseline_load_all']['peak_rss_mb']} MB")
    t.add_row("memories by status", json.dumps(result["memories"]), "")
    console.print(t)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / f"ingest-{n}.json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    return result

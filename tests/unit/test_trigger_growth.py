"""The write path's rule stages cost linear time in their input, measured as a ratio in one process.

A 30 KB run of digits once held a request for minutes (quadratic backtracking in the trigger's amount
pattern). Absolute speed is a benchmark's question (``memscribe bench components``); whether the cost of 10x the
input is ~10x (linear) or ~100x (quadratic) is a property of the code, which this asserts with a wide margin.
"""

from __future__ import annotations

from memscribe.bench.components import GROWTH_LIMIT, measure_components, measure_growth, render


def test_trigger_cost_grows_linearly_with_hostile_input():
    rows = [g for g in measure_growth(repeat=3) if g.name.startswith("trigger")]
    assert len(rows) == 2
    for g in rows:
        assert g.large_ms > 0 and g.ratio <= GROWTH_LIMIT, g


def test_components_bench_reports_every_stage_against_the_embedder():
    costs = measure_components(repeat=2)
    names = {c.name for c in costs}
    for lang in ("en", "zh"):
        assert {
            f"resolve_times ({lang})",
            f"trigger ({lang})",
            f"judge_statements, per statement ({lang})",
        } <= names
    assert all(c.baseline_ms > 0 and c.ms > 0 for c in costs)
    table = render(costs, [])
    assert table.count("\n") >= len(costs) + 1 and "embed one passage" in table

"""Progress bars for long CLI commands (import, ingest, reindex, copy): done / total, rate, elapsed, ETA.

Drawn on stderr, so stdout stays the command's output (JSON with ``--json``). On a terminal the bar
redraws in place; elsewhere (a pipe, a log file, CI) rich prints it once, in its final state, when the
command ends — a line like ``importing ━━━━━━━━ 1000/1000 memories 812/s 0:00:01 0:00:00``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

__all__ = ["RateColumn", "bar"]


class RateColumn(ProgressColumn):
    """Items per second, with the unit the task counts (``"812 memories/s"``)."""

    def render(self, task: Task) -> Text:
        unit = task.fields.get("unit", "items")
        speed = task.speed
        if speed is None and task.elapsed and task.completed:
            speed = task.completed / task.elapsed  # one jump (a small table): the average is the rate
        if speed is None:
            return Text(f"? {unit}/s", style="progress.data.speed")
        fmt = f"{speed:.1f}" if speed < 10 else f"{speed:,.0f}"
        return Text(f"{fmt} {unit}/s", style="progress.data.speed")


@contextmanager
def bar(console: Console) -> Iterator[Progress]:
    """A rich ``Progress`` with the columns every long command shows; add tasks with ``unit=...``."""
    progress = Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[unit]}"),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        # a fast command still shows a rate: rich averages speed over this window (seconds)
        speed_estimate_period=60,
    )
    with progress:
        yield progress

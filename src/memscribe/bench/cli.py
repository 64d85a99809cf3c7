"""`memscribe bench …` commands: benchmarks against baselines in the same run (never timed tests)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

__all__ = ["bench_app"]

bench_app = typer.Typer(help="Benchmarks against baselines in one run.", no_args_is_help=True)
console = Console()


@bench_app.command("scenarios")
def bench_scenarios(
    data: Path = typer.Option(
        ..., "--data", help="Scenario file (format of shared/datasets/scenarios_dev.json)"
    ),
    out: Path | None = typer.Option(None, "--out", help="Folder for scenarios.json"),
) -> None:
    """Run a scenario file (update, conflict, negation, dedup, time, privacy) and score every check."""
    from memscribe.bench.scenarios import run_scenarios

    run_scenarios(data, out_dir=out, console=console)

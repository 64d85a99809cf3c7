"""`memscribe bench …` commands: benchmarks against baselines in the same run (never timed tests)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import typer
from rich.console import Console

__all__ = ["bench_app"]

bench_app = typer.Typer(help="Benchmarks against baselines in one run.", no_args_is_help=True)
console = Console()


@bench_app.command("scenarios")
def bench_scenarios(
    data: Path = typer.Option(..., "--data", help="Scenario file (format of tests/scenarios/scenarios.json)"),
    out: Path | None = typer.Option(None, "--out", help="Folder for scenarios.json"),
) -> None:
    """Run a scenario file (update, conflict, negation, dedup, time, privacy) and score every check."""
    from memscribe.bench.scenarios import run_scenarios

    run_scenarios(data, out_dir=out, console=console)


def _int_list(value: str, option: str) -> list[int]:
    try:
        out = [int(x.replace("_", "")) for x in value.split(",") if x.strip()]
    except ValueError:
        raise typer.BadParameter(f"{option} takes a comma list of integers, got {value!r}") from None
    if not out or min(out) < 1:
        raise typer.BadParameter(f"{option} takes positive integers, got {value!r}")
    return out


@bench_app.command("locomo")
def bench_locomo(
    data: Path = typer.Option(
        ...,
        "--data",
        help="LoCoMo JSON (e.g. data/locomo/locomo10.json from github.com/snap-research/locomo)",
    ),
    budget: str = typer.Option("500,1000,2000", "--budget", help="Context token budgets, comma list"),
    out: Path = typer.Option(Path("bench-out"), "--out", help="Folder for results.json, report.md and plots"),
    audit: Path | None = typer.Option(
        None, "--audit", help="Audit file: corrected evidence, wrong-answer questions"
    ),
    limit_convs: int | None = typer.Option(None, "--limit-convs", help="Only the first N conversations"),
    mem0: bool = typer.Option(False, "--mem0", help="Also run Mem0 (when installed: see PEERS.md)"),
) -> None:
    """Evidence recall on LoCoMo vs raw-turn baselines (recent, BM25, dense, hybrid, Mem0) in one run."""
    from memscribe.bench.locomo import run_locomo

    run_locomo(
        data,
        budgets=_int_list(budget, "--budget"),
        out_dir=out,
        audit=audit,
        limit_convs=limit_convs,
        console=console,
        with_mem0=mem0,
    )


@bench_app.command("audit")
def bench_audit(
    data: Path = typer.Option(..., "--data", help="LoCoMo JSON or MemoryBank JSON (memory_bank_cn/en.json)"),
    conv: str = typer.Option(..., "--conv", help="LoCoMo sample_id (e.g. conv-26) or MemoryBank user name"),
    n: int = typer.Option(40, "--n", min=1, help="Memories to print"),
    seed: int = typer.Option(0, "--seed", help="Seed of the sample (same seed, same memories)"),
    out: Path | None = typer.Option(
        None, "--out", help="Also write the Markdown here (e.g. docs/grades/…md)"
    ),
) -> None:
    """Ingest one conversation; print N memories (fixed seed) beside their source turns, with a grade column."""
    from memscribe.bench.audit import render_markdown, run_audit

    _print_markdown(lambda: render_markdown(run_audit(data, conv, n=n, seed=seed)), out)


@bench_app.command("contexts")
def bench_contexts(
    data: Path = typer.Option(..., "--data", help="LoCoMo JSON (e.g. the dev conversations)"),
    n: int = typer.Option(20, "--n", min=1, help="Questions to print"),
    seed: int = typer.Option(0, "--seed", help="Seed of the sample (same seed, same questions)"),
    budget: int = typer.Option(300, "--budget", min=1, help="Context token budget"),
    stores: Path | None = typer.Option(
        None, "--stores", help="Keep (and on a rerun reuse) each conversation's store in this folder"
    ),
    out: Path | None = typer.Option(None, "--out", help="Also write the Markdown here (docs/grades/…md)"),
) -> None:
    """N questions (fixed seed), each with its evidence turns and its context, one gradable row per line."""
    from memscribe.bench.contexts import render_markdown, run_contexts

    _print_markdown(
        lambda: render_markdown(run_contexts(data, n=n, seed=seed, budget=budget, stores=stores)), out
    )


def _print_markdown(render: Callable[[], str], out: Path | None) -> None:
    """A gradable Markdown printout to stdout (and ``out``); a typed error exits 2 with its message."""
    from memscribe.errors import MemscribeError

    try:
        md = render()
    except MemscribeError as exc:
        console.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
        raise typer.Exit(2) from exc
    typer.echo(md)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(md, encoding="utf-8")


@bench_app.command("contexts-tally")
def bench_contexts_tally(
    graded: Path = typer.Argument(
        ..., help="A contexts file with its grade, class and answer marks filled in"
    ),
) -> None:
    """Count a graded contexts file: lines, irrelevant share, answers present, irrelevant classes."""
    from memscribe.bench.contexts import parse_graded, render_tally, tally
    from memscribe.errors import MemscribeError

    try:
        typer.echo(render_tally(tally(parse_graded(graded.read_text(encoding="utf-8")))))
    except (MemscribeError, OSError) as exc:
        console.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
        raise typer.Exit(2) from exc


@bench_app.command("speed")
def bench_speed(
    n: str = typer.Option("10000,100000", "--n", help="Store sizes (memories of one user), comma list"),
    out: Path = typer.Option(Path("bench-out"), "--out", help="Folder for results.json, report.md and plots"),
    store: str | None = typer.Option(None, "--store", help="Store URL (default: a temporary SQLite store)"),
    mem0: bool = typer.Option(False, "--mem0", help="Also run Mem0 at scales up to 10k (when installed)"),
    recall_data: Path | None = typer.Option(
        None,
        "--recall-data",
        help="Folder of LoCoMo-format / MemoryBank JSON: adds recall@20 of the vector matrix vs exact float32",
    ),
) -> None:
    """Latency, throughput, memory and disk at scale, each next to a baseline (numpy KNN, raw insert)."""
    from memscribe.bench.speed import run_speed

    run_speed(
        _int_list(n, "--n"),
        out_dir=out,
        console=console,
        store_url=store,
        with_mem0=mem0,
        recall_data=recall_data,
    )


@bench_app.command("rest")
def bench_rest(
    n: int = typer.Option(60, "--n", help="Messages (the first 5 of each side are warm-up)"),
    out: Path | None = typer.Option(None, "--out", help="Write the figures as JSON here too"),
) -> None:
    """A served write (POST /v1/memories, warm `memscribe serve` on 127.0.0.1) vs the library's add()."""
    import json

    from memscribe.bench.rest import run_rest_write
    from memscribe.errors import MemscribeError

    try:
        res = run_rest_write(n).summary()
    except (MemscribeError, ValueError) as exc:
        console.print(f"[red]error:[/red] {exc}", markup=True, highlight=False)
        raise typer.Exit(2) from exc
    lib, rest, ratio = res["library_add_ms"], res["rest_post_ms"], res["rest_vs_library"]
    typer.echo(f"{res['messages_timed']} messages, same stream, alternately")
    typer.echo(f"library add()          p50 {lib['p50']:7.1f} ms   p95 {lib['p95']:7.1f} ms")
    typer.echo(f"POST /v1/memories      p50 {rest['p50']:7.1f} ms   p95 {rest['p95']:7.1f} ms")
    typer.echo(f"served / library       p50 {ratio['p50']:7.2f}x     p95 {ratio['p95']:7.2f}x")
    if out is not None:
        out.write_text(json.dumps(res, indent=2), encoding="utf-8")


@bench_app.command("lifecycle")
def bench_lifecycle(
    days: int = typer.Option(365, "--days", min=1, help="Simulated days"),
    per_day: int = typer.Option(50, "--per-day", min=1, help="Messages per day"),
    seed: int = typer.Option(0, "--seed"),
    out: Path = typer.Option(Path("bench-out"), "--out", help="Folder for lifecycle.json and lifecycle.png"),
) -> None:
    """One user for a year: is the active set bounded while every recently used memory stays active?"""
    import json
    import tempfile

    from memscribe.bench.simulate import simulate_year

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="memscribe-lifecycle-") as home:
        res = simulate_year(home, msgs_per_day=per_day, days=days, seed=seed, plot_path=out / "lifecycle.png")
    (out / "lifecycle.json").write_text(json.dumps(res, ensure_ascii=False, indent=1, default=str))
    console.print(
        f"active at days {res['active_at']}; slope first/last window {res['slope_first']} / "
        f"{res['slope_last']} per day; recently used {res['recently_accessed']}, still active "
        f"{res['recently_accessed_active']}, replaced by a newer version {res['recently_accessed_replaced']}, "
        f"lost {len(res['recently_accessed_lost'])}; {res['runtime_s']} s -> {out / 'lifecycle.png'}"
    )


@bench_app.command("ingest")
def bench_ingest(
    n: int = typer.Option(100_000, "--n", help="Messages in the generated JSONL file"),
    out: Path | None = typer.Option(None, "--out", help="Folder for ingest-N.json"),
    keep: Path | None = typer.Option(None, "--keep", help="Keep the file and store in this folder"),
) -> None:
    """Streamed ingest of an N-message file: messages/s and RSS at 10/50/100 % (bounded memory)."""
    from memscribe.bench.ingest import run_ingest_bench

    if n < 1:
        raise typer.BadParameter("--n must be positive")
    run_ingest_bench(n, out_dir=out, console=console, keep=keep)


@bench_app.command("components")
def bench_components(
    repeat: int = typer.Option(30, "--repeat", min=1, help="Calls per stage (the median is reported)"),
    out: Path | None = typer.Option(None, "--out", help="Write the Markdown tables here too"),
) -> None:
    """Each rule / judge stage's cost per call as a ratio to embedding the same text, and its growth with input."""
    from memscribe.bench.components import measure_components, measure_growth, render

    costs, growth = measure_components(repeat), measure_growth(max(3, repeat // 6))
    _print_markdown(lambda: render(costs, growth), out)
    if not all(c.ok for c in costs) or not all(g.ok for g in growth):
        raise typer.Exit(1)

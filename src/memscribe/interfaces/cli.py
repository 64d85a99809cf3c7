"""`memscribe` command line: a thin shell over the Python API (typer + rich)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from memscribe.errors import MemscribeError

app = typer.Typer(
    help="memscribe — write-first long-term memory for LLM agents.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()
err = Console(stderr=True)

HomeOpt = typer.Option(None, "--home", help="Store folder (default: $MEMSCRIBE_HOME or ./.memscribe)")
JsonOpt = typer.Option(False, "--json", help="Machine-readable JSON output")
UserOpt = typer.Option(..., "--user", "-u", help="User id (the memory scope)")


def _memory(home: Path | None, *, create: bool = False):  # type: ignore[no-untyped-def]
    """The store at ``home``. Only commands that bring memories in (``create``: add, ingest, import) may
    create one; any other command pointed at a folder without a store fails with ``NoStoreError`` rather
    than leaving an empty store behind (a mistyped ``--home`` would otherwise look like a store that lost
    everything)."""
    from memscribe.config import Settings, settings_for
    from memscribe.memory import Memory

    settings = settings_for(Settings(), home=home, store=None)
    if not create:
        _run(lambda: require_store(settings))
    return Memory(settings=settings)


def require_store(settings: Any) -> None:
    """Raise ``NoStoreError`` when ``settings`` name a SQLite store whose file does not exist (a
    PostgreSQL URL is checked by connecting, as always)."""
    from memscribe.errors import NoStoreError

    url = settings.store or ""
    if url and not url.startswith("sqlite:///"):
        return
    if not settings.db_path.is_file():
        raise NoStoreError(
            f"no memscribe store at {settings.db_path} — check --home / MEMSCRIBE_HOME "
            "(this command only reads and does not create one; `memscribe add`, `ingest` or `import` do)"
        )


def _count_lines(path: Path) -> int | None:
    """Non-empty lines of a file (a progress bar's total); None when it cannot be read (the command then
    reports the error itself)."""
    try:
        with path.open("rb") as fh:
            return sum(1 for line in fh if line.strip())
    except OSError:
        return None


def _emit(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=1, default=str) + "\n")


def _run(fn):  # type: ignore[no-untyped-def]
    try:
        return fn()
    except MemscribeError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from exc


def _records_table(recs: list, title: str) -> Table:  # type: ignore[type-arg]
    t = Table(title=title, show_lines=False)
    for col in ("id", "kind", "layer", "status", "time", "text"):
        t.add_column(col, overflow="fold")
    for r in recs:
        when = r.time_start.isoformat(timespec="minutes") if r.time_start else ""
        t.add_row(r.id, r.kind.value, r.layer.value, r.status.value, when, r.text)
    return t


@app.command()
def add(
    text: str = typer.Argument(..., help="Message text ('-' reads stdin)"),
    user: str = UserOpt,
    session: str | None = typer.Option(None, "--session"),
    name: str | None = typer.Option(None, "--name"),
    at: str | None = typer.Option(None, "--at", help="ISO 8601 time of the message"),
    home: Path | None = HomeOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Add a message to a user's memory."""
    if text == "-":
        text = sys.stdin.read()
    with _memory(home, create=True) as mem:
        msg = {"role": "user", "content": text, **({"name": name} if name else {})}
        rep = _run(lambda: mem.add(msg, user_id=user, session_id=session, at=at))
        mem.flush()
    if as_json:
        _emit(rep.model_dump(mode="json"))
        return
    for it in rep.items:
        console.print(
            f"[bold]{it.action}[/bold] {it.memory_id or ''} {it.text or ''}  [dim]{'; '.join(it.reasons)}[/dim]"
        )


@app.command()
def search(
    query: str,
    user: str = UserOpt,
    limit: int = typer.Option(5, "--limit", "-k"),
    deep: bool = typer.Option(False, "--deep", help="Include archived and low-value memories"),
    home: Path | None = HomeOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Search a user's memories (hybrid: vector + BM25, fused and reranked)."""
    with _memory(home) as mem:
        hits = _run(lambda: mem.search(query, user_id=user, limit=limit, deep=deep))
    if as_json:
        _emit([h.model_dump(mode="json") for h in hits])
        return
    t = Table(title=f"search: {query}")
    for col in ("score", "id", "kind", "text"):
        t.add_column(col, overflow="fold")
    for h in hits:
        t.add_row(f"{h.score:.3f}", h.memory.id, h.memory.kind.value, h.memory.text)
    console.print(t)


@app.command()
def context(
    query: str,
    user: str = UserOpt,
    budget: int = typer.Option(800, "--budget"),
    session: str | None = typer.Option(None, "--session"),
    home: Path | None = HomeOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Assemble the token-budgeted context for a query."""
    with _memory(home) as mem:
        ctx = _run(lambda: mem.context(query, user_id=user, session_id=session, budget_tokens=budget))
    if as_json:
        _emit(ctx.model_dump(mode="json"))
        return
    console.print(ctx.text or "[dim](nothing relevant)[/dim]")
    console.print(f"[dim]{ctx.tokens}/{budget} tokens, {len(ctx.items)} memories[/dim]")


@app.command("list")
def list_(
    user: str = UserOpt,
    status: str = typer.Option("active", "--status", help="active|superseded|archived|expired|deleted|all"),
    kind: str | None = typer.Option(None, "--kind"),
    home: Path | None = HomeOpt,
    as_json: bool = JsonOpt,
) -> None:
    """List a user's memories."""
    with _memory(home) as mem:
        recs = _run(lambda: mem.list(user_id=user, status=None if status == "all" else status, kind=kind))
    if as_json:
        _emit([r.model_dump(mode="json") for r in recs])
        return
    console.print(_records_table(recs, f"{len(recs)} memories of {user}"))


@app.command()
def show(memory_id: str, home: Path | None = HomeOpt, as_json: bool = JsonOpt) -> None:
    """Show one memory with all its fields."""
    with _memory(home) as mem:
        rec = _run(lambda: mem.get(memory_id))
    if as_json:
        _emit(rec.model_dump(mode="json"))
        return
    console.print_json(rec.model_dump_json())


@app.command()
def history(memory_id: str, home: Path | None = HomeOpt, as_json: bool = JsonOpt) -> None:
    """Every version of a memory (and of the memories it superseded)."""
    with _memory(home) as mem:
        versions = _run(lambda: mem.history(memory_id))
    if as_json:
        _emit([v.model_dump(mode="json") for v in versions])
        return
    t = Table(title=f"history of {memory_id}")
    for col in ("memory", "v", "at", "reason", "status", "text"):
        t.add_column(col, overflow="fold")
    for v in versions:
        t.add_row(
            v.memory_id,
            str(v.version),
            v.created_at.isoformat(timespec="seconds"),
            v.reason,
            v.record.status.value,
            v.record.text,
        )
    console.print(t)


@app.command()
def why(memory_id: str, home: Path | None = HomeOpt, as_json: bool = JsonOpt) -> None:
    """Why is this remembered: the audit trail of every stage's decision."""
    with _memory(home) as mem:
        events = _run(lambda: mem.explain(memory_id))
    if as_json:
        _emit([e.model_dump(mode="json") for e in events])
        return
    t = Table(title=f"why {memory_id}")
    for col in ("stage", "action", "reason", "scores"):
        t.add_column(col, overflow="fold")
    for e in events:
        t.add_row(e.stage, e.action, e.reason, ", ".join(f"{k}={v:.2f}" for k, v in e.scores.items()))
    console.print(t)


@app.command()
def rollback(memory_id: str, version: int, home: Path | None = HomeOpt) -> None:
    """Restore a memory to an earlier version (as a new version)."""
    with _memory(home) as mem:
        rec = _run(lambda: mem.rollback(memory_id, version))
    console.print(f"{rec.id} is at version {rec.version}: {rec.text}")


@app.command()
def delete(
    memory_id: str,
    reason: str = typer.Option("deleted from the CLI", "--reason"),
    home: Path | None = HomeOpt,
) -> None:
    """Soft-delete a memory (kept in history)."""
    with _memory(home) as mem:
        rec = _run(lambda: mem.delete(memory_id, reason=reason))
    console.print(f"{rec.id} deleted (version {rec.version})")


@app.command()
def forget(
    user: str = UserOpt,
    yes: bool = typer.Option(False, "--yes", help="Do not ask"),
    home: Path | None = HomeOpt,
) -> None:
    """Hard-erase everything memscribe holds about a user."""
    if not yes and not typer.confirm(f"Erase every memory of {user}? This cannot be undone."):
        raise typer.Exit(1)
    with _memory(home) as mem:
        n = _run(lambda: mem.forget(user_id=user))
    console.print(f"erased {n} memories of {user}")


@app.command()
def export(
    out: Path = typer.Option(None, "--out", "-o", help="JSONL file (default stdout)"),
    user: str | None = typer.Option(None, "--user", "-u"),
    home: Path | None = HomeOpt,
) -> None:
    """Export memories (every status, with versions and sealed vault values) and the audit trail as JSONL."""
    with _memory(home) as mem:
        rows = _run(lambda: mem.export(user_id=user))
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    if out is None:
        sys.stdout.write(lines)
    else:
        out.write_text(lines, encoding="utf-8")
        err.print(f"wrote {len(rows)} memories to {out}")


@app.command("import")
def import_(path: Path, home: Path | None = HomeOpt, as_json: bool = JsonOpt) -> None:
    """Import a JSONL export (memories with versions and sealed vault values, audit trail).

    The file is streamed twice: a first pass checks every line, so a bad line writes nothing; the second
    imports in batches. A memory already here unchanged is skipped (not re-embedded), so importing the same
    file again is quick and changes nothing; a local version newer than (or diverged from) the imported one
    is kept and reported as a conflict."""
    from memscribe.interfaces.progress import bar

    def lines():  # type: ignore[no-untyped-def]
        with path.open(encoding="utf-8") as fh:
            for i, line in enumerate(fh):
                if not line.strip():
                    continue
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    err.print(f"[red]error:[/red] line {i + 1} is not JSON: {escape(str(exc))}")
                    raise typer.Exit(2) from exc

    if not path.is_file():
        err.print(f"[red]error:[/red] no file {path}")
        raise typer.Exit(2)
    total = _count_lines(path)
    with _memory(home, create=True) as mem, bar(err) as progress:
        check = progress.add_task("checking ", total=total, unit="lines")
        # every line is checked before anything is written
        _run(lambda: mem.import_(lines(), dry_run=True, on_progress=lambda n: progress.advance(check, n)))
        progress.update(check, completed=total)
        load = progress.add_task("importing", total=total, unit="lines")
        rep = _run(lambda: mem.import_(lines(), on_progress=lambda n: progress.advance(load, n)))
    if as_json:
        _emit(
            {
                "memories": rep.memories,
                "added": rep.added,
                "updated": rep.updated,
                "unchanged": rep.unchanged,
                "embedded": rep.embedded,
                "conflicts": [vars(c) for c in rep.conflicts],
                "sealed_elsewhere": rep.sealed_elsewhere,
            }
        )
    else:
        console.print(rep.summary(), highlight=False)
    for warning in rep.warnings():
        err.print(f"[yellow]warning:[/yellow] {escape(warning)}")


@app.command()
def ingest(
    path: Path = typer.Argument(
        ..., help='JSONL file: one {"role","content","id"?,"at"?,"name"?,"session_id"?} per line'
    ),
    user: str = UserOpt,
    agent: str | None = typer.Option(None, "--agent"),
    batch: int = typer.Option(16, "--batch", help="Messages of one session per add() call"),
    strict: bool = typer.Option(
        False, "--strict", help="Stop at the first invalid line (default: skip, count)"
    ),
    home: Path | None = HomeOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Stream a JSONL conversation file into a user's memory (bounded memory, any file size)."""
    from memscribe.interfaces.ingest import IngestProgress, ingest_jsonl
    from memscribe.interfaces.progress import bar

    total = _count_lines(path)
    with _memory(home, create=True) as mem, bar(err) as progress:
        task = progress.add_task("ingesting", total=total, unit="lines")

        def show(p: IngestProgress) -> None:
            progress.update(task, completed=p.lines)

        rep = _run(
            lambda: ingest_jsonl(
                mem,
                path,
                user_id=user,
                agent_id=agent,
                batch_size=batch,
                strict=strict,
                progress=show,
                progress_every=1,  # after every add() call: the bar moves as the file does
            )
        )
        mem.flush()
    if as_json:
        _emit(rep.as_dict())
        return
    acts = ", ".join(f"{k} {v}" for k, v in sorted(rep.actions.items()))
    console.print(
        f"ingested {rep.messages} messages in {rep.elapsed_s:.1f}s ({rep.as_dict()['messages_per_s'] or 0} msg/s)"
        + (f"; {acts}" if acts else "")
    )
    if rep.skipped:
        err.print(
            f"[yellow]skipped {rep.skipped} invalid lines[/yellow]: " + escape("; ".join(rep.errors[:5]))
        )


@app.command()
def stats(
    user: str | None = typer.Option(None, "--user", "-u"),
    home: Path | None = HomeOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Counts by status, layer and kind, growth per day, filter drops, deferred writes, queue depth."""
    with _memory(home) as mem:
        s = mem.stats(user_id=user)
    if as_json:
        _emit(s)
        return
    t = Table(title="memscribe stats")
    t.add_column("metric")
    t.add_column("value", justify="right")
    for facet in ("status", "layer", "kind"):
        for k, v in sorted(s[f"memories_by_{facet}"].items()):
            t.add_row(f"memories {facet}={k}", str(v))
    for day, n in sorted(s["daily_new"].items())[-7:]:
        t.add_row(f"new on {day}", str(n))
    for k, v in s["counters"].items():
        t.add_row(k, str(v))
    t.add_row("queue depth", str(s["queue_depth"]))
    t.add_row("pending review", str(s["pending_review"]))
    console.print(t)


review_app = typer.Typer(help="The review queue: memories about identity, money or permissions wait here.")
app.add_typer(review_app, name="review")


@review_app.command("list")
def review_list(
    user: str | None = typer.Option(None, "--user", "-u"),
    home: Path | None = HomeOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Memories waiting for approval, oldest first, with the rule that held each back."""
    with _memory(home) as mem:
        recs = _run(lambda: mem.review_queue(user_id=user))
    if as_json:
        _emit([r.model_dump(mode="json") for r in recs])
        return
    t = Table(title=f"review queue ({len(recs)})")
    for col in ("id", "user", "topics", "text"):
        t.add_column(col, overflow="fold")
    for r in recs:
        t.add_row(r.id, r.user_id, ", ".join(r.state.pending.topics if r.state.pending else ()), r.text)
    console.print(t)


@review_app.command("approve")
def review_approve(
    memory_id: str,
    actor: str = typer.Option("reviewer", "--by", help="Who approves (kept in the version history)"),
    home: Path | None = HomeOpt,
) -> None:
    """Let recall use the memory (and apply the change it stands for)."""
    with _memory(home) as mem:
        rec = _run(lambda: mem.approve(memory_id, actor=actor))
    console.print(f"approved {rec.id} (version {rec.version}): {rec.text}")


@review_app.command("reject")
def review_reject(
    memory_id: str,
    reason: str | None = typer.Option(None, "--reason"),
    actor: str = typer.Option("reviewer", "--by"),
    home: Path | None = HomeOpt,
) -> None:
    """Refuse the memory: deleted, kept in history with the reason."""
    with _memory(home) as mem:
        rec = _run(lambda: mem.reject(memory_id, actor=actor, reason=reason))
    console.print(f"rejected {rec.id} (version {rec.version})")


@review_app.command("edit")
def review_edit(
    memory_id: str,
    text: str = typer.Argument(..., help="The corrected canonical sentence"),
    approve: bool = typer.Option(False, "--approve", help="Approve right after the edit"),
    home: Path | None = HomeOpt,
) -> None:
    """Correct a held-back memory's text (a new version), optionally approving it."""
    with _memory(home) as mem:
        rec = _run(lambda: mem.update(memory_id, text=text, reason="edited in review", actor="reviewer"))
        if approve:
            rec = _run(lambda: mem.approve(memory_id))
    console.print(f"{rec.id} is now version {rec.version} ({rec.status.value}): {rec.text}")


@app.command()
def maintain(
    dry_run: bool = typer.Option(False, "--dry-run", help="Report what would change; write nothing"),
    user: str | None = typer.Option(None, "--user", "-u"),
    home: Path | None = HomeOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Expire, archive cold memories, merge near-duplicates, consolidate repeated episodes (versioned)."""
    with _memory(home) as mem:
        rep = _run(lambda: mem.maintain(dry_run=dry_run, user_id=user))
    data = rep.model_dump(mode="json")
    if as_json:
        _emit(data)
        return
    t = Table(title="maintenance" + (" (dry run: nothing written)" if dry_run else ""))
    t.add_column("change")
    t.add_column("count", justify="right")
    for k, v in data.items():
        if isinstance(v, int | float) and not isinstance(v, bool):
            t.add_row(k, str(v))
    console.print(t)


@app.command()
def restore(memory_id: str, home: Path | None = HomeOpt) -> None:
    """Bring an archived (or deleted) memory back to active."""
    with _memory(home) as mem:
        rec = _run(lambda: mem.restore(memory_id))
    console.print(f"{rec.id} is active again (version {rec.version})")


@app.command()
def backup(path: Path, home: Path | None = HomeOpt) -> None:
    """Copy the store while it is in use (SQLite online backup). Restore with `memscribe restore-backup`."""
    with _memory(home) as mem:
        dest = _run(lambda: mem.backup(path))
    console.print(f"backup written to {dest}")


@app.command("restore-backup")
def restore_backup(
    path: Path,
    home: Path | None = HomeOpt,
    yes: bool = typer.Option(False, "--yes", help="Replace the current store without asking"),
) -> None:
    """Replace the store with a backup made by `memscribe backup` (the current one is kept as .bak)."""
    from memscribe.config import Settings
    from memscribe.store.sqlite import SQLiteStore

    s = Settings() if home is None else Settings(home=home)
    target = s.db_path
    check = SQLiteStore(path)
    ok = check.integrity_check()
    check.close()
    if ok != "ok":
        err.print(f"[red]error:[/red] {path} fails the integrity check: {ok}")
        raise typer.Exit(2)
    if target.exists() and not yes and not typer.confirm(f"Replace {target} with {path}?"):
        raise typer.Exit(1)
    import shutil

    if target.exists():
        shutil.copy2(target, target.with_suffix(".db.bak"))
        for suffix in ("-wal", "-shm"):
            Path(str(target) + suffix).unlink(missing_ok=True)
    from memscribe.store.private import private_folder, tighten

    private_folder(target.parent)
    shutil.copy2(path, target)
    tighten(target, target.with_suffix(".db.bak"))
    console.print(f"restored {target} from {path}")


vault_app = typer.Typer(help="The encrypted vault of necessary sensitive values.", no_args_is_help=True)
app.add_typer(vault_app, name="vault")


@vault_app.command("rotate")
def vault_rotate(home: Path | None = HomeOpt) -> None:
    """Re-encrypt every vaulted value under a new key; the old key stops working."""
    with _memory(home) as mem:
        new = _run(mem.rotate_vault_key)
    if new is None:
        console.print("vault key rotated; the new key replaced the key file")
    else:
        console.print("vault key rotated. Set MEMSCRIBE_VAULT_KEY to this value (shown once):")
        sys.stdout.write(new + "\n")


@app.command()
def reindex(home: Path | None = HomeOpt) -> None:
    """Re-embed every memory with the configured embedder (after changing the embedding model)."""
    from memscribe.config import Settings, embedder_endpoint, settings_for
    from memscribe.interfaces.progress import bar
    from memscribe.ledger import Ledger
    from memscribe.providers.embedders import make_embedder
    from memscribe.store import open_store

    s = settings_for(Settings(), home=home, store=None)
    _run(lambda: require_store(s))
    store = open_store(s)
    url, key = embedder_endpoint(s)
    emb = make_embedder(s.embedder, base_url=url, api_key=key)
    ledger = Ledger(store, emb)
    n = 0
    try:
        by_user = {u: store.list_memories(u, statuses=None) for u in store.iter_users()}
        with bar(err) as progress:
            task = progress.add_task("re-embedding", total=sum(map(len, by_user.values())), unit="memories")
            for recs in by_user.values():
                for i in range(0, len(recs), 64):
                    chunk = recs[i : i + 64]
                    n += _run(lambda c=chunk: ledger.reindex(c, emb.embed_passages([r.text for r in c])))
                    progress.advance(task, len(chunk))
        store.check_embedder(emb.name, emb.dim, allow_reset=True)
    finally:
        store.close()
    console.print(f"re-embedded {n} memories with {emb.name}")


@app.command()
def demo(
    home: Path | None = typer.Option(None, "--home", help="Store folder (default: a fresh temp folder)"),
) -> None:
    """Ingest a short bundled zh + en conversation and show what was kept, dropped, merged and why."""
    from memscribe.interfaces.demo import run_demo

    run_demo(console, home)


from memscribe.bench.cli import bench_app  # noqa: E402  (the bench commands live with the benchmarks)

app.add_typer(bench_app, name="bench")

# Command groups that live beside the interface they drive; each module exposes register(app).
from memscribe.interfaces import cli_mcp, cli_server, cli_store  # noqa: E402

for _module in (cli_server, cli_mcp, cli_store):
    _module.register(app)


def main() -> None:
    app()


if __name__ == "__main__":  # pragma: no cover
    main()

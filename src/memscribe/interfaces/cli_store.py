"""`memscribe migrate` and `memscribe copy` (moving a store between engines)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape

from memscribe.errors import MemscribeError

console = Console()
err = Console(stderr=True)

StoreOpt = typer.Option(
    None,
    "--store",
    help="Store URL: sqlite:///path/memscribe.db or postgresql://user@host/db (default: $MEMSCRIBE_STORE)",
)
HomeOpt = typer.Option(None, "--home", help="Store folder (default: $MEMSCRIBE_HOME or ./.memscribe)")


def _fail(exc: Exception) -> typer.Exit:
    err.print(f"[red]error:[/red] {escape(str(exc))}")
    return typer.Exit(2)


def _is_pg(url: str | None) -> bool:
    return bool(url) and url.startswith(("postgresql://", "postgres://"))  # type: ignore[union-attr]


def _redact(url: str) -> str:
    """A store URL fit for output: no password."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = f"{parts.username}:***@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def _sqlite_path(source: str) -> Path:
    """sqlite:///path/memscribe.db, a .db file, or a store folder holding memscribe.db."""
    path = Path(source[len("sqlite:///") :]) if source.startswith("sqlite:///") else Path(source)
    if path.is_dir():
        path = path / "memscribe.db"
    if not path.is_file():
        raise typer.BadParameter(f"no SQLite store at {path}", param_hint="--from")
    return path


def migrate(store: str | None = StoreOpt, home: Path | None = HomeOpt) -> None:
    """Create the store's schema or bring it up to this memscribe's version (safe to run again)."""
    from memscribe.config import Settings
    from memscribe.store import open_store

    updates: dict[str, object] = {}
    if store:
        updates["store"] = store
    if home is not None:
        updates["home"] = home
    settings = Settings(**updates)  # type: ignore[arg-type]
    try:
        st = open_store(settings)
    except MemscribeError as exc:
        raise _fail(exc) from exc
    try:
        version = st.schema_version()
    finally:
        st.close()
    where = _redact(settings.store) if _is_pg(settings.store) else str(settings.db_path)
    console.print(f"store {where}: schema version {version} (up to date)")


def copy(
    source: str = typer.Option(
        ..., "--from", help="SQLite store: sqlite:///path/memscribe.db, the .db file or its folder"
    ),
    target: str = typer.Option(
        ..., "--to", help="Empty PostgreSQL store: postgresql://user@host/db[?schema=name]"
    ),
) -> None:
    """Copy a SQLite store into an empty PostgreSQL store, in one transaction: memories, vectors, keyword
    index, versions, audit, sessions, working memory, queued jobs, vault rows and counters."""
    if not _is_pg(target):
        raise typer.BadParameter("--to must be a postgresql:// URL", param_hint="--to")
    path = _sqlite_path(source)
    from memscribe.store.postgres.copy import copy_sqlite_to_postgres
    from memscribe.store.postgres.store import PostgresStore
    from memscribe.store.sqlite.store import SQLiteStore

    try:
        src = SQLiteStore(path)
        dst = PostgresStore(target)
    except MemscribeError as exc:
        raise _fail(exc) from exc
    from memscribe.interfaces.progress import bar

    try:
        with bar(err) as progress:
            tasks: dict[str, Any] = {}
            done: dict[str, int] = {}

            def note(table: str, n: int) -> None:
                # rows are counted as they stream; a table's total is known when it is done
                if table not in tasks:
                    tasks[table] = progress.add_task(f"{table:>16}", total=None, unit="rows")
                done[table] = n
                progress.update(tasks[table], completed=n)

            counts = copy_sqlite_to_postgres(src, dst, progress=note)
            for table, task in tasks.items():
                progress.update(task, total=done[table], completed=done[table])
    except MemscribeError as exc:
        raise _fail(exc) from exc
    finally:
        src.close()
        dst.close()
    total = ", ".join(f"{t} {n:,}" for t, n in counts.items())
    console.print(f"copied {path} → {_redact(target)}: {total}", highlight=False)
    console.print(
        "The vault key stays where it was: point the new deployment at the same MEMSCRIBE_HOME "
        "(vault.key) or MEMSCRIBE_VAULT_KEY, and set MEMSCRIBE_STORE to the new URL."
    )


def register(app: typer.Typer) -> None:
    """Add this module's commands to the main `memscribe` app."""
    app.command("migrate")(migrate)
    app.command("copy")(copy)

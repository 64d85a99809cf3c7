"""`memscribe serve` (REST API + web UI) and `memscribe keys` (tenant API keys)."""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from memscribe.errors import MemscribeError

console = Console()
err = Console(stderr=True)

keys_app = typer.Typer(help="Tenant API keys for the server (only their SHA-256 digests are stored).")

HomeOpt = typer.Option(None, "--home", help="Store folder (default: $MEMSCRIBE_HOME or ./.memscribe)")


def _settings(home: Path | None):  # type: ignore[no-untyped-def]
    from memscribe.config import Settings

    return Settings() if home is None else Settings(home=home)


def _keystore(home: Path | None):  # type: ignore[no-untyped-def]
    from memscribe.interfaces.server.keys import KeyStore, keys_path

    return KeyStore(keys_path(_settings(home)))


def _server_missing(exc: ImportError) -> typer.Exit:
    err.print(
        f"[red]error:[/red] the server needs the 'server' extra: pip install 'memscribe\\[server]' ({exc})"
    )
    return typer.Exit(2)


def serve(
    host: str | None = typer.Option(
        None, "--host", help="Bind address (default 127.0.0.1: this machine only)"
    ),
    port: int | None = typer.Option(None, "--port", help="Port (default 8765)"),
    home: Path | None = HomeOpt,
    store_url: str | None = typer.Option(
        None, "--store", help="Store URL (postgresql://…); default: $MEMSCRIBE_STORE or SQLite in --home"
    ),
    log_level: str = typer.Option("info", "--log-level"),
) -> None:
    """Run the REST API (/v1, OpenAPI at /openapi.json), the web UI (/ui) and /metrics."""
    try:
        import uvicorn

        from memscribe.interfaces.server import create_app
    except ImportError as exc:
        raise _server_missing(exc) from exc
    s = _settings(home)
    if store_url:
        s = s.model_copy(update={"store": store_url})
    host = host or s.server.host
    port = port or s.server.port
    store = _keystore(home)
    if not store.list():
        err.print("[yellow]no API keys yet:[/yellow] create one with `memscribe keys create --tenant NAME`")
    if host not in ("127.0.0.1", "localhost", "::1"):
        err.print(
            f"[yellow]listening on {host}:[/yellow] serve it behind TLS; keys travel in headers/cookies"
        )
    err.print(f"memscribe on http://{host}:{port}  (UI: /ui/, API: /v1, spec: /openapi.json)")
    from memscribe.interfaces.server.run import uvicorn_config

    server = uvicorn.Server(
        uvicorn_config(create_app(s, keys=store), s, host=host, port=port, log_level=log_level)
    )
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C is how one stops it, as uvicorn.run() treats it
        server.run()


@keys_app.command("create")
def keys_create(
    tenant: str = typer.Option(..., "--tenant", "-t", help="Tenant the key can read and write"),
    name: str = typer.Option("", "--name", help="A label for listings"),
    scope: list[str] | None = typer.Option(
        None,
        "--scope",
        "-s",
        help="read, write, reveal (vaulted values, audited) or admin (/metrics); repeat for several "
        "(default: read and write)",
    ),
    home: Path | None = HomeOpt,
) -> None:
    """Create a key and print it once (it cannot be shown again)."""
    from memscribe.interfaces.server.keys import DEFAULT_SCOPES

    try:
        key, token = _keystore(home).create(tenant, name=name, scopes=scope or DEFAULT_SCOPES)
    except MemscribeError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from exc
    err.print(
        f"key [bold]{key.id}[/bold] for tenant [bold]{key.tenant}[/bold] ({', '.join(key.scopes)}); "
        "store it now, it is not shown again:"
    )
    sys.stdout.write(token + "\n")


@keys_app.command("list")
def keys_list(
    home: Path | None = HomeOpt,
    as_json: bool = typer.Option(False, "--json", help="Machine-readable JSON output"),
) -> None:
    """List keys (id, tenant, name, created, revoked) — never the keys themselves."""
    keys = _keystore(home).list()
    if as_json:
        sys.stdout.write(json.dumps([k.public() for k in keys], indent=1) + "\n")
        return
    t = Table(title=f"{len(keys)} API keys")
    for col in ("id", "tenant", "name", "scopes", "created", "revoked"):
        t.add_column(col)
    for k in keys:
        t.add_row(k.id, k.tenant, k.name, ",".join(k.scopes), k.created_at, k.revoked_at or "")
    console.print(t)


@keys_app.command("revoke")
def keys_revoke(
    key_id: str = typer.Argument(..., help="The key id (from `keys list`)"), home: Path | None = HomeOpt
) -> None:
    """Revoke a key; a running server refuses it from its next request."""
    try:
        key = _keystore(home).revoke(key_id)
    except MemscribeError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(2) from exc
    console.print(f"key {key.id} of tenant {key.tenant} revoked at {key.revoked_at}")


def register(app: typer.Typer) -> None:
    """Add this module's commands to the main `memscribe` app."""
    app.command("serve")(serve)
    app.add_typer(keys_app, name="keys")

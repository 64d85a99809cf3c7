"""`memscribe mcp`: the MCP server over stdio."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from memscribe.errors import MemscribeError


def register(app: typer.Typer) -> None:
    """Add this module's commands to the main `memscribe` app."""

    @app.command("mcp")
    def mcp(
        home: Path | None = typer.Option(
            None,
            "--home",
            help="Store folder (default: $MEMSCRIBE_HOME, else the user data directory, "
            "e.g. ~/.local/share/memscribe)",
        ),
        user: str | None = typer.Option(
            None,
            "--user",
            "-u",
            help="The user this server serves: tools called without a user id act for it, and a call "
            "naming another user is refused",
        ),
        allow_any_user: bool = typer.Option(
            False, "--allow-any-user", help="With --user: let tool calls name other users too"
        ),
        allow_reveal: bool = typer.Option(
            False,
            "--allow-reveal",
            help="Offer the reveal_memory tool: a memory's sealed values (audited); off by default",
        ),
    ) -> None:
        """Serve memory to MCP clients over stdio (tools: remember, recall, get_context, forget_memory,
        memory_history; resource: memscribe://users/{user_id}/profile; prompt: memory_context)."""
        try:
            from memscribe.interfaces.mcp_server import run_stdio
        except ImportError as exc:  # the [server] extra is not installed
            sys.stderr.write(
                f"error: the MCP server needs the 'mcp' package: pip install 'memscribe[server]' ({exc})\n"
            )
            raise typer.Exit(2) from exc
        try:
            run_stdio(home, default_user_id=user, allow_any_user=allow_any_user, allow_reveal=allow_reveal)
        except MemscribeError as exc:
            # stdout belongs to the protocol: errors go to stderr only
            sys.stderr.write(f"error: {exc}\n")
            raise typer.Exit(2) from exc

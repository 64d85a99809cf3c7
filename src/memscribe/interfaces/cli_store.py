"""`memscribe migrate` and `memscribe copy` (moving a store between engines)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to the main `memscribe` app."""

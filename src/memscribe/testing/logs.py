"""Every log record of every logger, captured as text (the privacy tests scan it for sensitive values)."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["captured_logs"]


@contextmanager
def captured_logs() -> Iterator[io.StringIO]:
    """All records at DEBUG and above, from every logger, while the block runs."""
    logs = io.StringIO()
    handler = logging.StreamHandler(logs)
    handler.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    handler.setLevel(logging.DEBUG)
    top = logging.getLogger()
    old_level = top.level
    top.addHandler(handler)
    top.setLevel(logging.DEBUG)
    try:
        yield logs
    finally:
        top.removeHandler(handler)
        top.setLevel(old_level)

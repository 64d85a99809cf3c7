"""Where ``Memory`` reads "now": the wall clock by default, a simulated one when a caller injects it.

Every timestamp the facade stamps (write time, access time, recall's recency, job schedules, versions)
comes from its clock, so a simulation of a year runs in seconds without patching module globals.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol

__all__ = ["Clock", "ManualClock", "system_clock"]


class Clock(Protocol):
    """A zero-argument callable returning the current time, timezone-aware."""

    def __call__(self) -> datetime: ...


def system_clock() -> datetime:
    return datetime.now(UTC)


class ManualClock:
    """A clock that stays where it is set: ``clock.set(t)`` / ``clock.advance(timedelta)``."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("a clock's time must be timezone-aware")
        self._now = start

    def __call__(self) -> datetime:
        return self._now

    def set(self, at: datetime) -> None:
        if at.tzinfo is None:
            raise ValueError("a clock's time must be timezone-aware")
        self._now = at

    def advance(self, by: timedelta) -> None:
        self._now += by

"""Lexical cues the rule encoder reads: a trip's return day, negation-shaped idioms, a cancellation said of a
sentence the kind model calls a fact. Each case is a class of phrasings seen failing in held-out-style scenarios."""

from __future__ import annotations

from datetime import datetime

import pytest

from memscribe.lang.timeparse import primary_time, resolve_times
from memscribe.models import Kind
from memscribe.write.encode_rules import _negated, status_of


@pytest.mark.parametrize(
    ("text", "at", "day"),
    [
        (
            "heading to Lisbon this friday for a long weekend, back monday night",
            "2026-04-07T09:00:00+01:00",
            "2026-04-10",
        ),
        ("Flying to Rome on May 3, returning on the 9th at 6pm", "2026-04-01T10:00:00+00:00", "2026-05-03"),
        ("下周三要去上海出差，周五晚上回来", "2026-06-08T10:00:00+08:00", "2026-06-17"),
    ],
)
def test_a_trips_return_is_not_what_it_is_about(text: str, at: str, day: str) -> None:
    ms = resolve_times(text, datetime.fromisoformat(at))
    p = primary_time(ms, text)
    assert p is not None and p.time_start.date().isoformat() == day


def test_a_lone_return_mention_is_still_the_time() -> None:
    text = "I'll be back monday night"
    ms = resolve_times(text, datetime.fromisoformat("2026-04-07T09:00:00+01:00"))
    p = primary_time(ms, text)
    assert p is not None and p.time_start.date().isoformat() == "2026-04-13"


@pytest.mark.parametrize(
    ("text", "lang", "negated"),
    [
        ("Booked a spa day for Saturday, can't wait", "en", False),
        ("No worries, the dinner is at 8", "en", False),
        ("I can't eat gluten", "en", True),
        ("I don't drink coffee anymore", "en", True),
        ("我迫不及待想去旅行", "zh", False),
        ("我不吃香菜", "zh", True),
    ],
)
def test_negation_shaped_idioms_deny_nothing(text: str, lang: str, negated: bool) -> None:
    assert _negated(text, lang) is negated


@pytest.mark.parametrize(
    ("kind", "text", "status"),
    [
        (Kind.fact, "洗牙取消了，诊所那天不开门", "cancelled"),
        (Kind.fact, "ugh, had to cancel the spa day, work emergency", "cancelled"),
        (Kind.plan, "I'm cancelling the trip to Oslo", "cancelled"),
        (Kind.fact, "I dropped my phone in the lake", None),  # 'dropped' cancels only a plan
        # something dropped is cancelled; something that drops is released or falls
        (Kind.plan, "We dropped the Lisbon trip, too expensive", "cancelled"),
        (Kind.plan, "the offsite was dropped after the budget cut", "cancelled"),
        (Kind.event, "My EP finally dropped on Friday and people love it", None),
        (Kind.event, "the new trailer dropped this morning", None),
        (Kind.fact, "I live in Austin", None),
    ],
)
def test_cancellation_status(kind: Kind, text: str, status: str | None) -> None:
    assert status_of(kind, text) == status

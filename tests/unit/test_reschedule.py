"""A plan moved by an amount ("pushed back a week", 推迟两天, 提前一天) or to a new day "same time" / 时间不变 is
written again at its new time and the plan it moves is superseded (write/reschedule.py), through the public API
with the real encoder and store. A plan another statement does not name, or names with another name, stays."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memscribe import Memory
from memscribe.lang.timeshift import SAME_TIME, shift_of

MOVED = [
    # (first said, the move, the times, the plan's new start)
    (
        "en-week",
        "Sarah's baby shower is this Saturday at noon.",
        "Sarah's baby shower got pushed back a week.",
        ("2026-05-12T18:00:00-05:00", "2026-05-13T09:00:00-05:00"),
        "2026-05-23T12:00",
    ),
    (
        "en-same-time",
        "Our cat Miso's vet checkup is on March 17 at 4pm.",
        "The vet bumped Miso's checkup to March 24, same time.",
        ("2026-03-09T08:00:00-04:00", "2026-03-12T15:00:00-04:00"),
        "2026-03-24T16:00",
    ),
    (
        "en-earlier",
        "Team offsite planning session next Tuesday at 2pm.",
        "The planning session got moved up an hour.",
        ("2026-04-01T09:00:00+01:00", "2026-04-02T09:00:00+01:00"),
        "2026-04-07T13:00",
    ),
    (
        "zh-later",
        "我周四下午三点约了牙医",
        "牙医那边说要推迟两天，时间不变",
        ("2026-03-09T08:00:00+08:00", "2026-03-10T15:00:00+08:00"),
        "2026-03-14T15:00",
    ),
    (
        "zh-earlier-short",
        "下周五晚上七点和老同学聚餐",
        "聚餐提前一天了",
        ("2026-03-09T08:00:00+08:00", "2026-03-10T15:00:00+08:00"),
        "2026-03-19T19:00",
    ),
    (
        "zh-half-hour",
        "周五下午三点和张总开会",
        "开会提前半小时",
        ("2026-03-09T08:00:00+08:00", "2026-03-09T15:00:00+08:00"),
        "2026-03-13T14:30",
    ),
]

STAYS = [
    # (first said, a message that moves nothing of it, the times)
    (
        "en-other-name",
        "The meeting with Acme is Tuesday at 10am.",
        "The Globex meeting got pushed back a day.",
        ("2026-03-09T08:00:00-05:00", "2026-03-09T15:00:00-05:00"),
    ),
    (
        "en-nothing-shared",
        "Dentist appointment Friday at 3pm.",
        "My flight got delayed two hours.",
        ("2026-03-09T08:00:00-05:00", "2026-03-09T15:00:00-05:00"),
    ),
    (
        "zh-other-person",
        "周五下午和张总开会",
        "跟李总的会推迟一天",
        ("2026-03-09T08:00:00+08:00", "2026-03-09T15:00:00+08:00"),
    ),
    (
        "en-duration",
        "My piano recital is on June 5 at 7pm.",
        "I practiced piano for two hours today.",
        ("2026-05-09T08:00:00-05:00", "2026-05-10T15:00:00-05:00"),
    ),
    (
        "zh-remind-early",
        "下周三下午两点面试",
        "面试提前一天提醒我",
        ("2026-03-09T08:00:00+08:00", "2026-03-09T15:00:00+08:00"),
    ),
]


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    m = Memory(home=tmp_path_factory.mktemp("reschedule"))
    yield m
    m.close()


def _write(mem: Memory, uid: str, first: str, second: str, times: tuple[str, str]) -> None:
    for at, text in zip(times, (first, second), strict=True):
        mem.add([{"role": "user", "content": text}], user_id=uid, at=at)
    mem.flush()


@pytest.mark.parametrize(("case", "first", "second", "times", "start"), MOVED, ids=[c[0] for c in MOVED])
def test_a_moved_plan_is_written_at_its_new_time(mem, case, first, second, times, start):
    uid = f"moved-{case}"
    _write(mem, uid, first, second, times)
    plans = [r for r in mem.list(user_id=uid) if r.time_start is not None]
    assert [r.time_start.isoformat()[:16] for r in plans] == [start], [r.text for r in plans]
    assert any(r.status.value == "superseded" for r in mem.list(user_id=uid, status="all"))
    assert start[:10] in plans[0].text  # the sentence says the new day, not only the structured time


@pytest.mark.parametrize(("case", "first", "second", "times"), STAYS, ids=[c[0] for c in STAYS])
def test_a_plan_not_named_stays_where_it_was(mem, case, first, second, times):
    uid = f"stays-{case}"
    _write(mem, uid, first, second, times)
    assert not [r for r in mem.list(user_id=uid, status="all") if r.status.value == "superseded"]


@pytest.mark.parametrize(
    ("text", "shift"),
    [
        ("got pushed back a week", timedelta(weeks=1)),
        ("the flight is delayed by two hours", timedelta(hours=2)),
        ("we moved the standup up 30 minutes, so 9:30", -timedelta(minutes=30)),
        ("brought forward by half an hour", -timedelta(minutes=30)),
        ("postponed a couple of days because of rain", timedelta(days=2)),
        ("聚餐提前一天了", -timedelta(days=1)),
        ("会议往后推半小时", timedelta(minutes=30)),
        ("延后一个星期吧", timedelta(weeks=1)),
        ("remind me a day early", None),
        ("I ran for two hours", None),
        ("提前三天提醒我", None),
        ("我提前一天到北京", None),
        ("我晚了十分钟到", None),
        ("I pushed myself to run a week", None),
    ],
)
def test_the_amount_a_plan_moved_by(text, shift):
    assert shift_of(text) == shift


def test_same_time_is_said_in_both_languages():
    assert SAME_TIME.search("to March 24, same time")
    assert SAME_TIME.search("改到周五，时间不变")
    assert not SAME_TIME.search("at the same place as last time")

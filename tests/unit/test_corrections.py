"""A correction of what was just said rewrites the mistaken memory with the right value and supersedes the
mistaken version (write/correct.py), through the public API with the real encoder and store; a message that
only sounds like one ("I mean, it's 2 hours away", "oops, I dropped my phone") corrects nothing."""

from __future__ import annotations

import pytest

from memscribe import Memory
from memscribe.models import Status

CASES = [
    # (first said, the correction, the times, what the active memory holds, what it no longer holds)
    (
        "zh-day",
        "这周二下午要去银行办房贷手续",
        "我说错了，是周四不是周二",
        ("2026-06-29T09:00:00+08:00", "2026-06-29T09:01:00+08:00"),
        "2026-07-02",
        "2026-06-30",
    ),
    (
        "en-weekday",
        "I'm getting the car inspected on Tuesday at 8am.",
        "sorry, I meant Thursday, not Tuesday",
        ("2026-02-02T09:00:00-05:00", "2026-02-02T09:01:00-05:00"),
        "2026-02-05",
        "2026-02-03",
    ),
    (
        "zh-number",
        "我的会员卡号尾号是4521",
        "不对不对，是4512，刚才记反了",
        ("2026-12-02T22:00:00+08:00", "2026-12-02T22:02:00+08:00"),
        "4512",
        "4521",
    ),
    (
        "en-code",
        "My new flat is unit 4B at Harbour View, moving in on March 14.",
        "wait no, it's 4D, sorry, typo",
        ("2026-03-02T18:00:00+00:00", "2026-03-02T18:01:00+00:00"),
        "4D",
        "4B",
    ),
    (
        "en-name",
        "My new manager's name is Karen Liu.",
        "oops, it's Karin, with an i - Karin Liu.",
        ("2026-04-06T10:00:00+01:00", "2026-04-06T10:02:00+01:00"),
        "Karin Liu",
        "Karen",
    ),
]


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    m = Memory(home=tmp_path_factory.mktemp("corrections"))
    yield m
    m.close()


def _write(mem: Memory, uid: str, first: str, second: str, times: tuple[str, str]) -> list:
    for at, text in zip(times, (first, second), strict=True):
        mem.add([{"role": "user", "content": text}], user_id=uid, at=at)
    mem.flush()
    return mem.list(user_id=uid, status="all")


@pytest.mark.parametrize(
    ("case", "first", "second", "times", "right", "wrong"), CASES, ids=[c[0] for c in CASES]
)
def test_a_correction_rewrites_the_mistaken_memory(mem, case, first, second, times, right, wrong):
    rows = _write(mem, case, first, second, times)
    active = [m for m in rows if m.status == Status.active]
    seen = [(m.text, m.status) for m in rows]
    assert len(active) == 1 and right in active[0].text and wrong not in active[0].text, seen
    assert [m.status for m in rows].count(Status.superseded) == 1, seen
    if right.startswith("20"):
        assert active[0].time_start is not None and active[0].time_start.date().isoformat() == right


@pytest.mark.parametrize(
    ("case", "first", "second"),
    [
        ("en-i-mean", "The drive to the lake is 3 hours.", "I mean, it's 2 hours away if traffic is light."),
        ("en-oops", "My phone number ends in 42.", "Oops, I dropped my phone in the sink."),
        ("zh-not-a-fix", "我的会员卡号尾号是4521", "今天买了2杯咖啡"),
    ],
)
def test_a_message_that_only_sounds_like_a_correction_keeps_both(mem, case, first, second):
    rows = _write(mem, case, first, second, ("2026-03-02T10:00:00+00:00", "2026-03-02T10:05:00+00:00"))
    assert Status.superseded not in {m.status for m in rows}, [(m.text, m.status) for m in rows]


@pytest.mark.parametrize(
    ("case", "message", "at", "right", "wrong"),
    [
        (
            "en-dash",
            "Parent-teacher night is Tuesday at 6:30 - sorry, I meant Thursday, not Tuesday.",
            "2026-10-05T12:00:00-04:00",
            "2026-10-08T18:30",
            "2026-10-06",
        ),
        (
            "en-oops",
            "My daughter's recital is Friday at 5, oops I mean Saturday",
            "2026-10-05T12:00:00-04:00",
            "2026-10-10T17:00",
            "2026-10-09",
        ),
        (
            "zh",
            "我下周二下午去医院体检，说错了，是周三不是周二",
            "2026-10-05T12:00:00+08:00",
            "2026-10-14T12:00",
            "2026-10-13",
        ),
    ],
)
def test_a_correction_inside_the_message_rewrites_its_first_statement(mem, case, message, at, right, wrong):
    uid = f"in-message-{case}"
    mem.add([{"role": "user", "content": message}], user_id=uid, at=at)
    active = mem.list(user_id=uid)
    seen = [(m.text, m.time_start) for m in active]
    assert [m.time_start.isoformat()[:16] for m in active] == [right], seen
    assert right[:10] in active[0].text and wrong not in active[0].text, seen

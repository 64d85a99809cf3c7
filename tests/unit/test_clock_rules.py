"""A clock said in a standing rule is the rule's BYHOUR, and the memory a lasting one (issue #16).

"我晚上十点以后不接电话" is every evening from 22:00, not tonight at 22:00: the time rules give a recurrence (a daily
rule at the clock, or the recurrence said beside it with the clock added), the kind rules a constraint (negated)
or a fact (a routine), never a one-off plan. The same clock said with a day word or a tense stays one occasion.
The phrasings here are not the ones the rules were drafted on, nor the time corpus's ``standing_clock`` rows.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from dateutil.rrule import rrulestr

from memscribe import Memory
from memscribe.lang.timeparse import resolve_times

CN = timezone(timedelta(hours=8))
AT = datetime(2026, 6, 10, 10, 0, tzinfo=CN)  # a Wednesday morning


@pytest.mark.parametrize(
    ("text", "rule", "first"),
    [
        ("我晚上九点半以后不回微信", "FREQ=DAILY;BYHOUR=21;BYMINUTE=30", "2026-06-10T21:30"),
        ("周四下午四点以后别约我", "FREQ=WEEKLY;BYDAY=TH;BYHOUR=16;BYMINUTE=0", "2026-06-11T16:00"),
        ("我平时早上七点出门", "FREQ=DAILY;BYHOUR=7;BYMINUTE=0", "2026-06-11T07:00"),
        ("中午十二点前不要给我打电话", "FREQ=DAILY;BYHOUR=12;BYMINUTE=0", "2026-06-10T12:00"),
        ("I never answer the phone after 9:30pm", "FREQ=DAILY;BYHOUR=21;BYMINUTE=30", "2026-06-10T21:30"),
        (
            "No meetings for me before 11am on Tuesdays",
            "FREQ=WEEKLY;BYDAY=TU;BYHOUR=11;BYMINUTE=0",
            "2026-06-16T11:00",
        ),
        ("I typically leave work at 6pm", "FREQ=DAILY;BYHOUR=18;BYMINUTE=0", "2026-06-10T18:00"),
        (
            "Don't ping me before 8 on weekends",
            "FREQ=WEEKLY;BYDAY=SA,SU;BYHOUR=8;BYMINUTE=0",
            "2026-06-13T08:00",
        ),
    ],
)
def test_a_clock_in_a_standing_rule_is_the_rules_byhour(text, rule, first):
    (m,) = resolve_times(text, AT)
    assert m.recurrence == rule
    rrulestr(m.recurrence, dtstart=datetime(2026, 1, 1))
    assert m.time_start.isoformat()[:16] == first


@pytest.mark.parametrize(
    ("text", "when"),
    [
        ("我今晚九点半去机场接人", "2026-06-10T21:30"),
        ("明天晚上十点前把方案发我", "2026-06-11T22:00"),
        ("我后天早上八点以后不在公司", "2026-06-12T08:00"),  # negated, but of one day
        ("Please call me at 9:30pm tonight", "2026-06-10T21:30"),
        ("Don't ping me before 8am tomorrow, I'm sleeping in", "2026-06-11T08:00"),
        ("I won't be back before 6pm", "2026-06-10T18:00"),  # a tense makes it one evening
        ("Meet me at 5", None),  # a bare "at 5" with no day is no time, and no rule either
    ],
)
def test_the_same_clock_of_one_occasion_stays_one_time(text, when):
    ms = resolve_times(text, AT)
    assert all(m.recurrence is None for m in ms)
    assert [m.time_start.isoformat()[:16] for m in ms] == ([when] if when else [])


def test_a_past_habit_with_a_clock_is_no_rule():
    assert all(m.recurrence is None for m in resolve_times("I never went to bed before 2am last year", AT))


@pytest.mark.parametrize(
    ("said", "kind", "byhour", "keeps"),
    [
        ("我晚上九点半以后不回微信", "constraint", "BYHOUR=21", "晚上九点半"),
        ("周四下午四点以后我不见客户", "constraint", "BYHOUR=16", "周四下午四点"),
        ("我平时早上七点出门", "fact", "BYHOUR=7", "早上七点"),
        ("I never answer the phone after 9:30pm", "constraint", "BYHOUR=21", "9:30pm"),
        ("No meetings for me before 11am on Tuesdays", "constraint", "BYHOUR=11", "11am on Tuesdays"),
        ("I typically leave work at 6pm", "fact", "BYHOUR=18", "6pm"),
    ],
)
def test_a_standing_rule_is_stored_as_a_lasting_memory_not_a_plan(tmp_path, said, kind, byhour, keeps):
    with Memory(home=tmp_path) as mem:
        mem.add([{"role": "user", "content": said}], user_id="u", at="2026-06-10T10:00:00+08:00")
        (rec,) = mem.list(user_id="u")
    assert rec.kind.value == kind
    assert rec.layer.value == "semantic"
    assert rec.facts.recurrence is not None and byhour in rec.facts.recurrence
    assert keeps in rec.text  # the rule as said, never the date of its first occurrence
    assert "2026-06" not in rec.text


@pytest.mark.parametrize(
    ("said", "when"),
    [
        ("我今晚九点半去机场接人", "2026-06-10T21:30"),
        ("明天晚上十点前把方案发我", "2026-06-11T22:00"),
        ("Please call me at 9:30pm tonight", "2026-06-10T21:30"),
        ("I'm seeing the dentist at 4pm on Friday", "2026-06-12T16:00"),
        ("I have a job interview at 11am next Tuesday", "2026-06-16T11:00"),  # "I have a" is no profile here
    ],
)
def test_a_one_off_plan_with_a_clock_stays_a_plan(tmp_path, said, when):
    with Memory(home=tmp_path) as mem:
        mem.add([{"role": "user", "content": said}], user_id="u", at="2026-06-10T10:00:00+08:00")
        (rec,) = mem.list(user_id="u")
    assert rec.kind.value == "plan"
    assert rec.facts.recurrence is None
    assert rec.facts.time == when
    assert rec.facts.slot is None or not rec.facts.slot.endswith("|name")  # "call me at 9:30pm" names no one

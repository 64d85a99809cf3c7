"""The time conventions of docs/time-conventions.md, one test each (product decisions, not accidents)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from dateutil.rrule import rrulestr

from memscribe.decisions import FilterDecision
from memscribe.lang.clauses import split_sentences
from memscribe.lang.timeparse import TimeMention, primary_time, resolve_times, rewrite_with_absolute
from memscribe.write.encode_rules import RuleEncoder
from memscribe.write.trigger import trigger

CN = timezone(timedelta(hours=8))
MON = datetime(2026, 6, 8, 10, 0, tzinfo=CN)  # Monday
SUN = datetime(2026, 6, 14, 21, 30, tzinfo=CN)  # Sunday night
THU = datetime(2026, 3, 5, 10, 0, tzinfo=UTC)  # Thursday


def one(text: str, at: datetime) -> TimeMention:
    ms = resolve_times(text, at)
    assert len(ms) == 1, ms
    return ms[0]


def span(m: TimeMention) -> tuple[str, str, str]:
    return m.time_start.isoformat()[:16], m.time_end.isoformat()[:19], m.grain


def test_weeks_run_monday_to_sunday_and_next_week_on_a_sunday_starts_tomorrow() -> None:
    assert span(one("下周", SUN)) == ("2026-06-15T00:00", "2026-06-21T23:59:59", "week")
    assert span(one("这周", SUN)) == ("2026-06-08T00:00", "2026-06-14T23:59:59", "week")
    assert span(one("next week", SUN)) == ("2026-06-15T00:00", "2026-06-21T23:59:59", "week")


def test_this_weekend_on_a_sunday_is_the_current_one() -> None:
    assert span(one("这周末", SUN))[:2] == ("2026-06-13T00:00", "2026-06-14T23:59:59")
    assert span(one("this weekend", SUN))[:2] == ("2026-06-13T00:00", "2026-06-14T23:59:59")


def test_bare_weekday_is_today_or_next_unless_past_tense() -> None:
    assert one("周一开会", MON).time_start.date().isoformat() == "2026-06-08"
    assert one("Friday", THU).time_start.date().isoformat() == "2026-03-06"
    assert one("我周五去了医院", MON).time_start.date().isoformat() == "2026-06-05"
    assert one("I saw him Thursday", THU).time_start.date().isoformat() == "2026-02-26"


def test_next_and_last_weekday() -> None:
    assert one("next Friday", THU).time_start.date().isoformat() == "2026-03-13"  # next week's, not tomorrow
    assert (
        one("last Friday", SUN).time_start.date().isoformat() == "2026-06-12"
    )  # the latest one before today
    assert one("上周五", SUN).time_start.date().isoformat() == "2026-06-05"  # last week's, as the words say
    assert one("the Friday after next", THU).time_start.date().isoformat() == "2026-03-20"


def test_morning_starts_at_six_and_evening_at_eighteen() -> None:
    assert span(one("tomorrow morning", THU)) == ("2026-03-06T06:00", "2026-03-06T11:59:59", "hour")
    assert span(one("明天下午", MON)) == ("2026-06-09T12:00", "2026-06-09T17:59:59", "hour")
    assert span(one("今晚", MON)) == ("2026-06-08T18:00", "2026-06-08T23:59:59", "hour")


def test_clock_without_am_pm_and_explicit_markers() -> None:
    assert one("明天三点", MON).time_start.hour == 15
    assert one("tomorrow at 7", THU).time_start.hour == 19
    assert one("9:05a", THU).time_start.isoformat()[11:16] == "09:05"
    assert one("4 oclock am", THU).time_start.hour == 4
    assert one("Game night this Friday at 8", THU).time_start.hour == 20  # the sentence is about the evening


def test_relative_hours_never_get_the_afternoon_rule() -> None:
    assert span(one("三小时前", MON)) == ("2026-06-08T07:00", "2026-06-08T07:59:59", "hour")
    assert span(one("three hours ago", THU)) == ("2026-03-05T07:00", "2026-03-05T07:59:59", "hour")


def test_midnight_ends_the_day() -> None:
    assert one("at midnight", THU).time_start.isoformat()[:16] == "2026-03-06T00:00"
    assert one("今晚12点", MON).time_start.isoformat()[:16] == "2026-06-09T00:00"


def test_two_digit_year_pivot_is_ten_years_ahead() -> None:
    assert one("03/15/68", THU).time_start.year == 1968
    assert one("1/2/30", THU).time_start.year == 2030
    assert one("98年", MON).time_start.year == 1998


def test_month_day_without_year_allows_thirty_days_back() -> None:
    assert one("Feb 20", THU).time_start.date().isoformat() == "2026-02-20"  # 13 days ago
    assert one("Jan 3", THU).time_start.date().isoformat() == "2027-01-03"  # 61 days ago -> next year's
    assert one("We met on December 24", THU).time_start.year == 2025  # past tense


def test_bare_month_day_needs_a_date_context() -> None:
    assert one("Dentist 6/12 at 5pm", THU).time_start.isoformat()[:16] == "2026-06-12T17:00"
    assert resolve_times("Add 3/4 cup of flour", THU) == []


def test_prefix_forms_are_ranges_of_whole_units() -> None:
    assert span(one("前三天", MON)) == ("2026-06-05T00:00", "2026-06-07T23:59:59", "day")
    assert span(one("后两个月", MON)) == ("2026-07-01T00:00", "2026-08-31T23:59:59", "month")
    assert span(one("the past 3 days", THU)) == ("2026-03-02T00:00", "2026-03-04T23:59:59", "day")


def test_period_edges_are_days() -> None:
    assert span(one("月底", MON)) == ("2026-06-30T00:00", "2026-06-30T23:59:59", "day")
    assert span(one("季度末", MON))[0] == "2026-06-30T00:00"
    assert span(one("end of the year", THU))[0] == "2026-12-31T00:00"


def test_ranges_are_start_and_end() -> None:
    assert span(one("6月3日到5日", MON)) == ("2026-06-03T00:00", "2026-06-05T23:59:59", "day")
    assert span(one("from 3 to 5 August", THU)) == ("2026-08-03T00:00", "2026-08-05T23:59:59", "day")
    assert span(one("from 9am to 5pm", THU)) == ("2026-03-05T09:00", "2026-03-05T17:00:00", "hour")


def test_holidays_next_occurrence_or_the_year_said() -> None:
    assert one("中秋节", MON).time_start.date().isoformat() == "2026-09-25"
    assert one("春节", MON).time_start.date().isoformat() == "2027-02-06"  # next occurrence
    assert one("春节我们回了老家", MON).time_start.date().isoformat() == "2026-02-17"  # past tense
    assert one("2025年中秋节", MON).time_start.date().isoformat() == "2025-10-06"
    assert one("Thanksgiving", THU).time_start.date().isoformat() == "2026-11-26"
    assert one("Easter", THU).time_start.date().isoformat() == "2026-04-05"


def test_recurrence_first_occurrence_and_valid_rrule() -> None:
    m = one("周末别打扰我", MON)
    assert m.recurrence == "FREQ=WEEKLY;BYDAY=SA,SU"
    assert span(m) == ("2026-06-13T00:00", "2026-06-14T23:59:59", "day")
    assert rewrite_with_absolute("周末别打扰我", [m]) == "周末别打扰我"
    m = one("weekdays at 9", THU)  # 09:00 today has passed
    assert (m.recurrence, m.time_start.isoformat()[:16]) == (
        "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=9;BYMINUTE=0",
        "2026-03-06T09:00",
    )
    assert one("每周一", MON).time_start.date().isoformat() == "2026-06-08"  # today's is still under way
    for text in ("每周四", "every other Friday", "每月1号", "every year on June 1", "Mondays and Wednesdays"):
        rule = one(text, MON).recurrence
        assert rule is not None
        rrulestr(rule, dtstart=datetime(2026, 1, 1))
    # a habit said with a clock is a daily rule at that clock (issue #16), not one morning and not nothing
    assert [m.recurrence for m in resolve_times("I usually wake up at 7am", THU)] == [
        "FREQ=DAILY;BYHOUR=7;BYMINUTE=0"
    ]


def test_traditional_and_cantonese() -> None:
    assert one("下個禮拜三", MON).time_start.date().isoformat() == "2026-06-17"
    assert one("聽日", MON).time_start.date().isoformat() == "2026-06-09"
    assert one("琴日", MON).time_start.date().isoformat() == "2026-06-07"
    assert one("下晝三點", MON).time_start.hour == 15


def test_dst_wall_clock_and_elapsed_time() -> None:
    ny = ZoneInfo("America/New_York")
    at = datetime(2026, 3, 7, 12, tzinfo=ny)  # DST starts 2026-03-08 02:00
    m = one("tomorrow at 9am", at)
    assert m.time_start.hour == 9 and m.time_start.utcoffset() == timedelta(hours=-4)
    at = datetime(2026, 3, 8, 4, 0, tzinfo=ny)  # 08:00 UTC; three real hours earlier is 05:00 UTC = 00:00 EST
    assert one("three hours ago", at).time_start == datetime(2026, 3, 8, 0, 0, tzinfo=ny)


def test_vague_words_are_not_times() -> None:
    for text in (
        "最近怎么样",
        "以前的事",
        "后来呢",
        "at the moment I'm busy",
        "in a minute",
        "四季酒店",
        "第二季",
    ):
        assert resolve_times(text, MON) == [], text


def _encode(text: str, at: datetime):
    return RuleEncoder().encode(
        text,
        at=at,
        speaker=None,
        trig=trigger(text),
        decision=FilterDecision(route="long", importance=0.8, timeliness=0.5, privacy_risk=0.0),
        sentences=split_sentences(text),
        conversational=False,
    )


@pytest.mark.parametrize(
    ("text", "at", "grain", "rule", "canonical"),
    [
        ("周末别打扰我", MON, "day", "FREQ=WEEKLY;BYDAY=SA,SU", "周末别打扰用户"),
        ("I go swimming every Thursday.", THU, "day", "FREQ=WEEKLY;BYDAY=TH", "every Thursday"),
        ("我下周三要去上海出差", MON, "day", None, "2026-06-17"),
        ("The review is tomorrow at 2pm.", THU, "hour", None, "2026-03-06 14:00"),
    ],
)
def test_encoder_structured_grain_and_recurrence(
    text: str, at: datetime, grain: str, rule: str | None, canonical: str
) -> None:
    c = _encode(text, at)
    assert c.facts.grain == grain
    assert c.facts.recurrence == rule
    assert canonical in c.text
    if rule:
        assert c.time_start is not None and c.time_start >= at - timedelta(days=1)


def test_primary_time_of_a_rule_and_a_date() -> None:
    ms = resolve_times("每周四健身，这周四不去", MON)
    assert [m.recurrence for m in ms] == ["FREQ=WEEKLY;BYDAY=TH", None]
    assert primary_time(ms) is ms[0]


def test_seasons_are_month_ranges_and_keep_their_word() -> None:
    m = one("We went camping last summer", THU)
    assert span(m) == ("2025-06-01T00:00", "2025-08-31T23:59:59", "month")
    assert (
        rewrite_with_absolute("We went camping last summer", [m]) == "We went camping in the summer of 2025"
    )
    m = one("我们去年冬天去了哈尔滨", MON)
    assert span(m)[:2] == ("2025-12-01T00:00", "2026-02-28T23:59:59")
    assert rewrite_with_absolute("我们去年冬天去了哈尔滨", [m]) == "我们2025年冬天去了哈尔滨"
    assert resolve_times("夏天很热", MON) == []

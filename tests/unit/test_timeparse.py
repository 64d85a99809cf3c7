"""Time-expression resolution (zh via jionlp + rules, en via regex rules): examples, conventions, invariants."""

from __future__ import annotations

import itertools
import logging
import time
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memscribe.lang.timeparse import (
    TimeMention,
    _calendar_date,
    iso,
    primary_time,
    resolve_times,
    rewrite_with_absolute,
)

CN = timezone(timedelta(hours=8))
BST = timezone(timedelta(hours=1))
AT_ZH = datetime(2026, 6, 8, 10, 0, tzinfo=CN)  # Monday
AT_ZH2 = datetime(2026, 7, 1, 9, 0, tzinfo=CN)  # Wednesday
AT_EN = datetime(2026, 3, 5, 10, 0, tzinfo=UTC)  # Thursday
AT_LOCOMO = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # Monday


def one(text: str, at: datetime, lang: str | None = None) -> TimeMention:
    ms = resolve_times(text, at, lang)  # type: ignore[arg-type]
    assert len(ms) == 1, ms
    return ms[0]


def day(m: TimeMention) -> str:
    assert m.granularity == "day", m
    assert m.time_start.date() == m.time_end.date()
    return iso(m.time_start, "day")


def period(m: TimeMention) -> tuple[str, str, str]:
    return iso(m.time_start, "day"), iso(m.time_end, "day"), m.granularity


# ---------------------------------------------------------------- Chinese: the required examples
def test_zh_next_wednesday_and_friday_in_same_week() -> None:
    text = "我下周三要去上海出差，周五回来"
    ms = resolve_times(text, AT_ZH)
    assert [m.text for m in ms] == ["下周三", "周五"]
    assert day(ms[0]) == "2026-06-17" and ms[0].relative
    assert day(ms[1]) == "2026-06-19"  # a bare 周X after 下周X stays in that week
    assert primary_time(ms) is ms[0]
    assert rewrite_with_absolute(text, ms) == "我2026-06-17要去上海出差，2026-06-19回来"


def test_zh_weekday_with_clock_is_one_hour_mention() -> None:
    m = one("下周二下午三点开评审会", AT_ZH)
    assert m.text == "下周二下午三点" and m.granularity == "hour"
    assert m.time_start == datetime(2026, 6, 16, 15, 0, tzinfo=CN)
    assert m.time_end == datetime(2026, 6, 16, 15, 59, 59, tzinfo=CN)
    assert iso(m.time_start, m.granularity) == "2026-06-16T15:00"
    assert rewrite_with_absolute("下周二下午三点开评审会", [m]) == "2026-06-16T15:00开评审会"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("明天", "2026-06-09"),
        ("三天前", "2026-06-05"),
        ("5天后", "2026-06-13"),
        ("前天", "2026-06-06"),
        ("大前天", "2026-06-05"),
        ("后天", "2026-06-10"),
        ("大后天", "2026-06-11"),
        ("昨天", "2026-06-07"),
        ("今天", "2026-06-08"),
        ("上周三", "2026-06-03"),
        ("周五", "2026-06-12"),  # no tense marker: the next one on/after today
        ("我周五去了医院", "2026-06-05"),  # past tense: the most recent one before today
        ("周五约了老王吃饭", "2026-06-12"),  # a day arranged is ahead, whatever the 了
        ("周五的饭局取消了", "2026-06-12"),  # and so is a day called off
        ("礼拜天去教堂", "2026-06-14"),
    ],
)
def test_zh_days(text: str, expected: str) -> None:
    m = one(text, AT_ZH)
    assert day(m) == expected and m.relative


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("上个月", ("2026-05-01", "2026-05-31", "month")),
        ("下个月", ("2026-07-01", "2026-07-31", "month")),
        ("这个月", ("2026-06-01", "2026-06-30", "month")),
        ("本月", ("2026-06-01", "2026-06-30", "month")),
        ("两个月后", ("2026-08-01", "2026-08-31", "month")),
        ("上周", ("2026-06-01", "2026-06-07", "week")),
        ("下周", ("2026-06-15", "2026-06-21", "week")),
        ("这周", ("2026-06-08", "2026-06-14", "week")),
        ("本周", ("2026-06-08", "2026-06-14", "week")),
        ("去年", ("2025-01-01", "2025-12-31", "year")),
        ("明年", ("2027-01-01", "2027-12-31", "year")),
        ("今年", ("2026-01-01", "2026-12-31", "year")),
        ("一年前", ("2025-01-01", "2025-12-31", "year")),
        ("这周末去爬山", ("2026-06-13", "2026-06-14", "day")),
        ("下周末", ("2026-06-20", "2026-06-21", "day")),
    ],
)
def test_zh_periods(text: str, expected: tuple[str, str, str]) -> None:
    m = one(text, AT_ZH)
    assert period(m) == expected and m.relative
    assert m.time_start.time().isoformat() == "00:00:00" and m.time_end.time().isoformat() == "23:59:59"


def test_zh_parts_of_day_and_clocks() -> None:
    m = one("昨晚我们去吃火锅了", AT_ZH)
    assert (m.text, m.granularity) == ("昨晚", "hour")
    assert (m.time_start, m.time_end) == (
        datetime(2026, 6, 7, 18, tzinfo=CN),
        datetime(2026, 6, 7, 23, 59, 59, tzinfo=CN),
    )
    assert rewrite_with_absolute("昨晚我们去吃火锅了", [m]) == "2026-06-07晚上我们去吃火锅了"
    assert one("今晚", AT_ZH).time_start == datetime(2026, 6, 8, 18, tzinfo=CN)
    m = one("明早八点出发", AT_ZH)  # jionlp alone reads this as "早八点" today
    assert (m.text, m.time_start) == ("明早八点", datetime(2026, 6, 9, 8, tzinfo=CN))
    assert one("明早", AT_ZH).time_start.date().isoformat() == "2026-06-09"
    assert one("明晚八点", AT_ZH).time_start == datetime(2026, 6, 9, 20, tzinfo=CN)
    assert one("明天三点开会", AT_ZH).time_start == datetime(2026, 6, 9, 15, tzinfo=CN)  # 三点 w/o 上午 -> pm
    assert one("凌晨三点", AT_ZH).time_start.hour == 3
    m = one("明天下午开会", AT_ZH)
    assert rewrite_with_absolute("明天下午开会", [m]) == "2026-06-09下午开会"


def test_zh_flight_clock_takes_the_date_of_the_earlier_mention() -> None:
    text = "我订了7月10号去成都的机票，早上八点的航班"
    ms = resolve_times(text, AT_ZH2)
    assert day(ms[0]) == "2026-07-10" and not ms[0].relative
    assert ms[1].text == "早上八点" and ms[1].time_start == datetime(2026, 7, 10, 8, tzinfo=CN)
    p = primary_time(ms)
    assert p is not None and iso(p.time_start, p.granularity) == "2026-07-10T08:00"
    # an explicit date is written in ISO like a resolved one (its year said); the clock stays as written
    assert rewrite_with_absolute(text, ms) == "我订了2026-07-10去成都的机票，早上八点的航班"


def test_zh_explicit_dates() -> None:
    m = one("去成都的航班改签到7月12号了", AT_ZH2)
    assert (m.text, day(m), m.relative) == ("7月12号", "2026-07-12", False)
    m = one("7月10号早上八点", AT_ZH2)
    assert m.time_start == datetime(2026, 7, 10, 8, tzinfo=CN) and not m.relative
    assert period(one("2023年5月", AT_ZH)) == ("2023-05-01", "2023-05-31", "month")
    m = one("会议定在2026-06-05T15:00", AT_ZH)
    assert m.time_start == datetime(2026, 6, 5, 15, tzinfo=CN) and m.granularity == "hour"


@pytest.mark.parametrize(
    "text",
    [
        "我不吃香菜",
        "我有一点累",
        "之前天气很好",
        "然后天气变了",
        "他是我的前任",
        "订单号VIP8823价格¥1999",
        "版本3.11.7",
        "我买了3个苹果",
        "夏天很热",
        "晚上见",
        "现在几点",
        "周围很安静",
        "第三天",
        "座位12号",  # a seat, a room, a parking space: numbers, not days
        "房间8号",
        "车位3号",
    ],
)
def test_zh_no_false_positives(text: str) -> None:
    assert resolve_times(text, AT_ZH) == []


@pytest.mark.parametrize(
    ("text", "at", "rule", "first"),
    [
        # these three were "no time" before #17: a standing rule is kept as a rule (and its first occurrence)
        ("我每天八点起床", AT_ZH, "FREQ=DAILY;BYHOUR=8;BYMINUTE=0", datetime(2026, 6, 9, 8, tzinfo=CN)),
        ("每周五健身", AT_ZH, "FREQ=WEEKLY;BYDAY=FR", datetime(2026, 6, 12, tzinfo=CN)),
        ("Every Friday I swim", AT_EN, "FREQ=WEEKLY;BYDAY=FR", datetime(2026, 3, 6, tzinfo=UTC)),
    ],
)
def test_recurrences_are_rules(text: str, at: datetime, rule: str, first: datetime) -> None:
    m = one(text, at)
    assert (m.recurrence, m.time_start) == (rule, first)
    assert rewrite_with_absolute(text, [m]) == text  # the rule is shown as written, never as one date


def test_zh_mixed_with_english() -> None:
    ms = resolve_times("明天 meeting at 3pm", AT_ZH)
    assert [m.text for m in ms] == ["明天", "at 3pm"]
    assert ms[1].time_start == datetime(2026, 6, 9, 15, tzinfo=CN)


# ---------------------------------------------------------------- English: the required examples
def test_en_tomorrow_at_2pm_is_one_mention() -> None:
    at = datetime(2026, 5, 6, 11, 0, tzinfo=BST)
    text = "Remind me: quarterly review with Dana tomorrow at 2pm."
    m = one(text, at)
    assert m.text == "tomorrow at 2pm" and text[m.start : m.end] == m.text
    assert m.time_start == datetime(2026, 5, 7, 14, 0, tzinfo=BST) and m.granularity == "hour"
    assert m.time_start.utcoffset() == timedelta(hours=1)
    assert iso(m.time_start, m.granularity) == "2026-05-07T14:00"
    assert rewrite_with_absolute(text, [m]) == "Remind me: quarterly review with Dana on 2026-05-07 14:00."


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We moved to Denver last week!", ("2026-02-23", "2026-03-01", "week")),
        ("this week", ("2026-03-02", "2026-03-08", "week")),
        ("next week", ("2026-03-09", "2026-03-15", "week")),
        ("I started 2 weeks ago", ("2026-02-16", "2026-02-22", "week")),
        ("a week from now", ("2026-03-09", "2026-03-15", "week")),  # N weeks: the Mon..Sun week containing it
        ("last month", ("2026-02-01", "2026-02-28", "month")),
        ("next month", ("2026-04-01", "2026-04-30", "month")),
        ("Last year was rough", ("2025-01-01", "2025-12-31", "year")),
        ("3 years ago", ("2023-01-01", "2023-12-31", "year")),
        ("See you this weekend", ("2026-03-07", "2026-03-08", "day")),
        ("next weekend", ("2026-03-14", "2026-03-15", "day")),
        ("last weekend", ("2026-02-28", "2026-03-01", "day")),
        ("I went hiking over the weekend", ("2026-02-28", "2026-03-01", "day")),
    ],
)
def test_en_periods(text: str, expected: tuple[str, str, str]) -> None:
    m = one(text, AT_EN)
    assert period(m) == expected and m.relative


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I saw her yesterday", "2026-03-04"),
        ("today", "2026-03-05"),
        ("the day before yesterday", "2026-03-03"),
        ("the day after tomorrow", "2026-03-07"),
        ("Let's meet next Friday", "2026-03-13"),  # Friday of next Mon..Sun week
        ("next Monday", "2026-03-09"),
        ("this Friday", "2026-03-06"),
        ("last Friday", "2026-02-27"),
        ("this coming Thursday", "2026-03-12"),  # strictly after at
        ("The package arrives in 3 days", "2026-03-08"),
        ("5 days ago", "2026-02-28"),
        ("I have a dentist appointment on Friday", "2026-03-06"),  # bare weekday: upcoming
        ("The meeting is on Thursday", "2026-03-05"),  # ... on or after today
        ("I went to the dentist on Monday", "2026-03-02"),  # past tense: most recent before today
        ("I saw him Thursday", "2026-02-26"),  # ... strictly before today
        # a present progressive of an arrangement is ahead, whatever participle it holds
        ("I'm getting the car inspected on Friday", "2026-03-06"),
        ("Dana is getting married on Saturday", "2026-03-07"),
        ("I'm so tired, we went hiking on Saturday", "2026-02-28"),  # a past verb of its own still wins
    ],
)
def test_en_days(text: str, expected: str) -> None:
    m = one(text, AT_EN)
    assert day(m) == expected and m.relative


@pytest.mark.parametrize(
    ("text", "expected", "gran"),
    [
        ("at 2pm tomorrow", datetime(2026, 3, 6, 14, tzinfo=UTC), "hour"),
        ("tomorrow 14:30", datetime(2026, 3, 6, 14, 30, tzinfo=UTC), "minute"),
        ("next Friday at 10:15 am", datetime(2026, 3, 13, 10, 15, tzinfo=UTC), "minute"),
        ("tonight at 8", datetime(2026, 3, 5, 20, tzinfo=UTC), "hour"),
        ("Call me at 5 tomorrow", datetime(2026, 3, 6, 17, tzinfo=UTC), "hour"),
        ("tomorrow morning at 9", datetime(2026, 3, 6, 9, tzinfo=UTC), "hour"),
        ("on May 20 at noon", datetime(2026, 5, 20, 12, tzinfo=UTC), "hour"),
        ("The store opens at 9am", datetime(2026, 3, 5, 9, tzinfo=UTC), "hour"),
        ("2 hours ago", datetime(2026, 3, 5, 8, tzinfo=UTC), "hour"),
    ],
)
def test_en_clock_times(text: str, expected: datetime, gran: str) -> None:
    m = one(text, AT_EN)
    assert (m.time_start, m.granularity) == (expected, gran)


def test_en_clock_takes_date_of_earlier_mention() -> None:
    ms = resolve_times("Yesterday I overslept. Then at 11am I had coffee.", AT_EN)
    assert [m.text for m in ms] == ["Yesterday", "at 11am"]
    assert ms[1].time_start == datetime(2026, 3, 4, 11, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "mention", "expected", "gran"),
    [
        ("The concert is on May 20", "May 20", "2026-05-20", "day"),
        ("We met on June 5th, 2019", "June 5th, 2019", "2019-06-05", "day"),
        ("born 5 June 2026", "5 June 2026", "2026-06-05", "day"),
        ("Due 2026-06-05", "2026-06-05", "2026-06-05", "day"),
        ("Paid 6/5/2026", "6/5/2026", "2026-06-05", "day"),
        ("Paid 25/12/2025", "25/12/2025", "2025-12-25", "day"),
        ("Back in May 2023", "May 2023", "2023-05-01", "month"),
        ("We moved in 2022", "2022", "2022-01-01", "year"),
        ("in March", "March", "2026-03-01", "month"),
        ("We met on December 24", "December 24", "2025-12-24", "day"),  # past tense, would be in the future
        (
            "I will visit on January 10",
            "January 10",
            "2027-01-10",
            "day",
        ),  # future tense, would be in the past
    ],
)
def test_en_explicit_dates(text: str, mention: str, expected: str, gran: str) -> None:
    m = one(text, AT_EN)
    assert (m.text, iso(m.time_start, "day"), m.granularity, m.relative) == (mention, expected, gran, False)
    rewritten = rewrite_with_absolute(text, [m])
    if gran != "day" or mention == expected:
        assert rewritten == text  # a month, a year and an ISO date stay as written
    else:
        # a day written in words is written in ISO, its year said ("on May 20" -> "on 2026-05-20")
        assert expected in rewritten and mention not in rewritten and " on on " not in rewritten, rewritten


def test_en_locomo_style() -> None:
    m = one("I went to a LGBTQ support group yesterday", AT_LOCOMO)
    assert day(m) == "2023-05-07"
    assert day(one("I painted a sunrise last Saturday", AT_LOCOMO)) == "2023-05-06"
    assert day(one("We adopted a puppy two days ago", AT_LOCOMO)) == "2023-05-06"
    assert period(one("I went camping last week", AT_LOCOMO)) == ("2023-05-01", "2023-05-07", "week")
    assert period(one("She ran a charity race last year", AT_LOCOMO))[2] == "year"


@pytest.mark.parametrize(
    "text",
    [
        "I love it",
        "We did it!",
        "May I ask?",
        "March on",
        "the second one",
        "a 5 star hotel",
        "Python 3.11.7 is out",
        "Order ZX-4471 cost ¥1999",
        "VIP8823",
        "I have 42 apples and 3 pears",
        "I'll be there in a minute",
        "It may 20 times",
        "We sat down; the sun was out and we got wed",
        "the score was 16:9 wide",
    ],
)
def test_en_no_false_positives(text: str) -> None:
    assert resolve_times(text, AT_EN) == []


# ---------------------------------------------------------------- API details
def test_iso_forms() -> None:
    dt = datetime(2026, 6, 16, 15, 7, tzinfo=CN)
    assert iso(dt, "minute") == iso(dt, "hour")[:-2] + "07" == "2026-06-16T15:07"
    assert iso(dt, "hour") == "2026-06-16T15:07"
    assert iso(dt, "day") == iso(dt, "week") == "2026-06-16"
    assert (iso(dt, "month"), iso(dt, "year")) == ("2026-06", "2026")


def test_primary_time_prefers_finest_then_earliest() -> None:
    assert primary_time([]) is None
    ms = resolve_times("Last week was busy; the review is tomorrow at 2pm and on Friday.", AT_EN)
    assert [m.granularity for m in ms] == ["week", "hour", "day"]
    assert primary_time(ms) is ms[1]


def test_rewrite_forms() -> None:
    def rw(text: str, at: datetime = AT_EN) -> str:
        return rewrite_with_absolute(text, resolve_times(text, at))

    assert rw("We moved to Denver last week!") == "We moved to Denver in the week of 2026-02-23!"
    assert rw("Yesterday I ran 5k") == "On 2026-03-04 I ran 5k"
    assert rw("sick since yesterday") == "sick since 2026-03-04"
    assert rw("Last year was rough") == "In 2025 was rough"
    assert rw("see you this weekend :)") == "see you from 2026-03-07 to 2026-03-08 :)"
    assert rw("Dinner on Friday night?") == "Dinner on the night of 2026-03-06?"
    assert rw("我上周去了北京", AT_ZH) == "我2026-06-01至2026-06-07去了北京"
    assert rw("我上个月换了工作", AT_ZH) == "我2026-05换了工作"
    assert rw("nothing here") == "nothing here"
    assert rewrite_with_absolute("abc", []) == "abc"


def test_a_time_of_day_alone_stays_as_said_and_keeps_its_resolved_time() -> None:
    """A clock with no day ("2 to 4 pm", 下午三点) is not rewritten with today's date: the speaker named no day, and
    a standing window written as one date reads as one occasion. With a day word it is rewritten as before."""

    def rw(text: str, at: datetime = AT_EN) -> str:
        return rewrite_with_absolute(text, resolve_times(text, at))

    for text, at in [
        ("From now on I want deliveries in the afternoon, 2 to 4 pm.", AT_EN),
        ("Early, between 6 and 7 am, before we open.", AT_EN),
        ("The meeting is at 9:30.", AT_EN),
        ("下午三点我去接孩子", AT_ZH),
        ("我们10点到12点开会。", AT_ZH),
    ]:
        assert rw(text, at) == text
        (m,) = resolve_times(text, at)
        assert (
            m.granularity in ("hour", "minute") and m.time_start.date() == at.date()
        )  # resolved all the same
    assert rw("See you tomorrow at 2pm.") == "See you on 2026-03-06 14:00."
    assert rw("明天下午三点见", AT_ZH).startswith("2026-06-")
    assert "今晚" not in rw("我今晚十点以后不接电话", AT_ZH)


def test_what_was_booked_for_is_ahead_of_the_booking() -> None:
    # AT_EN is Thursday 2026-03-05: the Wednesday a slot was booked for is the next one, the Monday a booking was
    # made on stays the last one
    assert rewrite_with_absolute(
        "Booked for 6-7 am on Wednesday.", resolve_times("Booked for 6-7 am on Wednesday.", AT_EN)
    ) == ("Booked for 2026-03-11 06:00 to 07:00.")
    assert one("I reserved a table for Saturday at 7.", AT_EN).time_start.date().isoformat() == "2026-03-07"
    assert day(one("I booked the hotel on Monday.", AT_EN)) == "2026-03-02"
    assert day(one("We booked it for last Friday and it was great.", AT_EN)) == "2026-02-27"


def test_naive_at_is_utc_and_results_use_at_tz() -> None:
    m = one("tomorrow", datetime(2026, 3, 5, 23, 30))
    assert m.time_start == datetime(2026, 3, 6, tzinfo=UTC) and m.time_start.utcoffset() == timedelta(0)
    la = timezone(timedelta(hours=-8))
    at = datetime(2026, 3, 5, 23, 30, tzinfo=UTC).astimezone(la)  # still Mar 5 in LA
    assert day(one("tomorrow", at)) == "2026-03-06"
    assert day(one("明天", at)) == "2026-03-06"
    assert one("明天", at).time_start.tzinfo is la


@pytest.mark.parametrize("tz_name", ["UTC", "Asia/Shanghai", "America/Los_Angeles"])
def test_independent_of_process_timezone(monkeypatch: pytest.MonkeyPatch, tz_name: str) -> None:
    monkeypatch.setenv("TZ", tz_name)
    time.tzset()
    try:
        at = datetime(2026, 6, 7, 23, 30, tzinfo=CN)  # Sunday night in Shanghai, Sunday afternoon UTC
        assert day(one("明天", at)) == "2026-06-08"
        assert one("下周二下午三点", at).time_start == datetime(2026, 6, 9, 15, tzinfo=CN)
        assert one("现在出发，明早八点到", at).time_start == datetime(2026, 6, 8, 8, tzinfo=CN)
        assert day(one("tomorrow", at)) == "2026-06-08"
    finally:
        monkeypatch.undo()
        time.tzset()


def test_zoneinfo_tz() -> None:
    zoneinfo = pytest.importorskip("zoneinfo")
    try:
        ny = zoneinfo.ZoneInfo("America/New_York")
    except zoneinfo.ZoneInfoNotFoundError:
        pytest.skip("no tz database")
    m = one("tomorrow at 9am", datetime(2026, 3, 7, 12, tzinfo=ny))  # DST starts on Mar 8
    assert m.time_start.tzinfo is ny and m.time_start.utcoffset() == timedelta(hours=-4)


def test_jionlp_tracebacks_do_not_reach_the_root_logger(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        resolve_times("每月初交房租，每年6.", AT_ZH)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_bad_lang_and_extreme_at() -> None:
    with pytest.raises(ValueError):
        resolve_times("tomorrow", AT_EN, "fr")  # type: ignore[arg-type]
    assert resolve_times("明天 tomorrow", AT_EN, "en")[0].text == "tomorrow"
    for at in (datetime(1, 1, 1, tzinfo=UTC), datetime(9999, 12, 31, 23, 59, tzinfo=UTC)):
        text = (
            "昨天 明天 上个月 下个月 去年 明年 yesterday tomorrow last year next year 999 years ago at 11pm"
        )
        for m in resolve_times(text, at):
            assert m.time_start <= m.time_end


def test_resolution_cost_grows_linearly_with_hostile_input() -> None:
    """A digit or clock-like run 10x longer costs about 10x, not 100x (no quadratic backtracking). Its cost per
    call against the embedder is a benchmark's question: ``memscribe bench components``."""
    from memscribe.bench.components import GROWTH_LIMIT, measure_growth

    rows = [g for g in measure_growth(repeat=3) if g.name.startswith("resolve_times")]
    assert rows and all(g.ratio <= GROWTH_LIMIT for g in rows), rows


# ---------------------------------------------------------------- property: never raises, well-formed output
_FRAGMENTS = [
    "明天", "下周三", "上个月", "三天前", "周五", "早上八点", "下午", "晚上11点到凌晨1点", "7月10号", "2026-06-05",
    "T", "15:00", "at 5", "at 2pm", "tomorrow", "next Friday", "last week", "May 20", "in 3 days", "2 weeks ago",
    "over the weekend", "yesterday", "went", "我", "了", "十", "点", "周", "末", "前", "后", "天", "个", "月", "年",
    " ", "，", ".", "\n", "12:30", "noon", "Sat", "on", "every", "/", "-", "9", "31",
]  # fmt: skip
_TZS = st.sampled_from(
    [UTC, CN, BST, timezone(timedelta(hours=14)), timezone(timedelta(hours=-11, minutes=-30))]
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.one_of(st.text(max_size=60), st.lists(st.sampled_from(_FRAGMENTS), max_size=12).map("".join)),
    at=st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 12, 31), timezones=_TZS),
)
def test_property_well_formed(text: str, at: datetime) -> None:
    ms = resolve_times(text, at)
    assert [(m.start, m.end) for m in ms] == sorted((m.start, m.end) for m in ms)
    for prev, m in itertools.pairwise(ms):
        assert prev.end <= m.start  # no overlaps
    for m in ms:
        assert text[m.start : m.end] == m.text
        assert m.time_start.tzinfo is at.tzinfo and m.time_end.tzinfo is at.tzinfo
        assert m.time_start <= m.time_end
        iso(m.time_start, m.granularity)
    rewritten = rewrite_with_absolute(text, ms)
    if not any(m.relative or _calendar_date(m) for m in ms):
        assert rewritten == text
    assert primary_time(ms) in (ms or [None])


def test_yixia_is_a_verb_particle_not_next_week():
    """一下 after a verb ("约一下", "等一下") is "a little"; the weekday after it is this week's, not 下周's."""
    from datetime import datetime

    from memscribe.lang.timeparse import resolve_times

    monday = datetime(2024, 10, 28, 10)
    (m,) = resolve_times("帮我约一下周五下午的牙医", monday)
    assert m.time_start.date().isoformat() == "2024-11-01"
    (m,) = resolve_times("我下周五要去上海", monday)
    assert m.time_start.date().isoformat() == "2024-11-08"
    assert resolve_times("看一下周报", monday) == []


ET = timezone(timedelta(hours=-4))


@pytest.mark.parametrize(
    ("text", "at", "mention", "expected"),
    [
        # what is got ready is for a day ahead, whatever the 了 (said on a Wednesday)
        (
            "周五晚上《雷雨》的票买好了，在国家大剧院",
            datetime(2026, 11, 18, 12, tzinfo=CN),
            "周五晚上",
            "2026-11-20",
        ),
        # a deadline ahead, though a later clause has a 了 (said on a Thursday)
        (
            "上周买的大衣不合身，得在周日前退掉，过了就不能退了",
            datetime(2026, 11, 12, 12, tzinfo=CN),
            "周日",
            "2026-11-15",
        ),
        # 来不了: cannot come — the day is ahead (said on a Wednesday)
        ("物业说周四来不了，改成周六下午", datetime(2026, 7, 8, 16, tzinfo=CN), "周四", "2026-07-09"),
        # a festival weeks ahead in a past-tense sentence is this year's; one long past stays past
        ("中秋公司发了月饼，居然是五仁的", datetime(2026, 9, 8, 12, tzinfo=CN), "中秋", "2026-09-25"),
        ("中秋我们回了趟老家", datetime(2026, 12, 1, 12, tzinfo=CN), "中秋", "2026-09-25"),
        ("We had a big dinner at Christmas", datetime(2026, 3, 1, 12, tzinfo=ET), "Christmas", "2025-12-25"),
        # "I meant Thursday" says which day, not that it is past (said on a Monday)
        (
            "Parent-teacher night is Tuesday at 6:30 - sorry, I meant Thursday",
            datetime(2026, 10, 5, 12, tzinfo=ET),
            "Thursday",
            "2026-10-08",
        ),
        ("We went to the fair on Tuesday", datetime(2026, 10, 5, 12, tzinfo=ET), "on Tuesday", "2026-09-29"),
    ],
)
def test_tense_of_the_day_said(text: str, at: datetime, mention: str, expected: str) -> None:
    got = {m.text: m.time_start.date().isoformat() for m in resolve_times(text, at)}
    assert got.get(mention) == expected, got


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("I teach yoga on Tuesday and Thursday evenings now", "FREQ=WEEKLY;BYDAY=TU,TH"),
        ("I have choir on Thursday evenings at 7", "FREQ=WEEKLY;BYDAY=TH;BYHOUR=19;BYMINUTE=0"),
        ("Saturday mornings I go hiking", "FREQ=WEEKLY;BYDAY=SA"),
    ],
)
def test_a_weekday_with_a_part_of_the_day_in_the_plural_repeats(text: str, rule: str) -> None:
    assert [m.recurrence for m in resolve_times(text, datetime(2026, 5, 4, 9, tzinfo=ET))] == [rule]


def test_a_weekday_with_a_part_of_the_day_in_the_singular_is_one_day() -> None:
    (m,) = resolve_times("We met on Thursday evening", datetime(2026, 5, 4, 9, tzinfo=ET))
    assert m.recurrence is None and m.time_start.date().isoformat() == "2026-04-30"


def test_a_date_after_a_number_is_set_apart() -> None:
    text = "房东说押金4500下个月15号退给我"
    out = rewrite_with_absolute(text, resolve_times(text, datetime(2026, 6, 9, 21, tzinfo=CN)))
    assert "4500 2026-07-15" in out


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("What did I get up to over Thanksgiving weekend?", "2026-11-26", "2026-11-29"),
        ("what did I do over Labor Day weekend", "2026-09-05", "2026-09-07"),
        ("Memorial Day long weekend at the lake", "2027-05-29", "2027-05-31"),
        ("十一长假我打算怎么过？", "2027-10-01", "2027-10-07"),
        ("五一小长假去哪玩", "2027-05-01", "2027-05-05"),
        ("春节假期我要干嘛", "2027-02-05", "2027-02-11"),
    ],
)
def test_a_holiday_weekend_or_week_is_its_days(text: str, start: str, end: str) -> None:
    at = datetime(2026, 12, 7, 12, tzinfo=timezone(timedelta(hours=-5)))
    (m,) = resolve_times(text, at)
    assert (m.time_start.date().isoformat(), m.time_end.date().isoformat()) == (start, end)


def test_eleven_alone_is_no_national_day() -> None:
    at = datetime(2026, 12, 7, 12, tzinfo=CN)
    assert [m.granularity for m in resolve_times("我十一点下班", at)] == ["hour"]
    assert [m.granularity for m in resolve_times("十一月去北京", at)] == ["month"]


@pytest.mark.parametrize(
    ("text", "rule", "first"),
    [
        ("Book club meets the first Wednesday of every month", "FREQ=MONTHLY;BYDAY=1WE", "2026-04-01"),
        ("the last Friday of each month is pizza night", "FREQ=MONTHLY;BYDAY=-1FR", "2026-03-27"),
        ("每月第一个周三开例会", "FREQ=MONTHLY;BYDAY=1WE", "2026-04-01"),
        ("每个月最后一个周五下午三点团建", "FREQ=MONTHLY;BYDAY=-1FR;BYHOUR=15;BYMINUTE=0", "2026-03-27"),
    ],
)
def test_a_weekday_by_its_place_in_the_month_repeats_monthly(text: str, rule: str, first: str) -> None:
    (m,) = resolve_times(text, datetime(2026, 3, 10, 19, tzinfo=timezone(timedelta(hours=-5))))
    assert (m.recurrence, m.time_start.date().isoformat()) == (rule, first)


def test_a_weekday_by_its_place_in_a_named_month_is_one_day() -> None:
    (m,) = resolve_times("The second Wednesday of March is the deadline", datetime(2026, 3, 1, tzinfo=UTC))
    assert m.recurrence is None and m.time_start.date().isoformat() == "2026-03-11"

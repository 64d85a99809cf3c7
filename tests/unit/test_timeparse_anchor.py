"""Times counted from another time (lang/timeparse_anchor.py); the corpus class `anchored_offset` holds the
main cases, these hold the edges: what must NOT be joined, and that one expression gives one mention."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from memscribe.lang.timeparse import resolve_times, rewrite_with_absolute

EA = datetime(2026, 3, 5, 10, tzinfo=timezone(timedelta(hours=-5)))  # a Thursday
ZA = datetime(2026, 6, 8, 10, tzinfo=timezone(timedelta(hours=8)))  # a Monday


def _days(text, at):
    return [
        (m.text, m.time_start.date().isoformat(), m.time_end.date().isoformat())
        for m in resolve_times(text, at)
    ]


def test_an_offset_and_its_anchor_are_one_mention():
    assert _days("6月20日的三天后出发", ZA) == [("6月20日的三天后", "2026-06-23", "2026-06-23")]
    assert _days("Ruby's science fair is two weeks from this Thursday.", EA) == [
        ("two weeks from this Thursday", "2026-03-19", "2026-03-19")
    ]


def test_a_duration_starting_at_a_day_is_not_an_offset():
    # "2 weeks from March 20 to April 3" is a span of time, not the day two weeks after March 20
    assert _days("It runs 2 weeks from March 20 to April 3", EA) == [
        ("from March 20 to April 3", "2026-03-20", "2026-04-03")
    ]


def test_an_offset_from_now_stays_an_offset_from_now():
    assert _days("三天后见", ZA) == [("三天后", "2026-06-11", "2026-06-11")]
    assert _days("I'll call you in three days", EA) == [("in three days", "2026-03-08", "2026-03-08")]


def test_the_stored_sentence_gets_the_counted_date_in_both_languages():
    assert (
        rewrite_with_absolute("明天再过三天交报告", resolve_times("明天再过三天交报告", ZA))
        == "2026-06-12交报告"
    )
    out = rewrite_with_absolute(
        "We fly the day after Christmas.", resolve_times("We fly the day after Christmas.", EA)
    )
    assert out == "We fly on 2026-12-26."

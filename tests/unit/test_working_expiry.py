"""What working memory (a 24 h TTL) must not hold: an item about a later time, or one that carries an id."""

from __future__ import annotations

from datetime import UTC, datetime

from memscribe import Memory
from memscribe.config import WriteConfig
from memscribe.decisions import Candidate
from memscribe.facts import Facts
from memscribe.models import Kind, Layer
from memscribe.write.filter import outlasts_working

AT = datetime(2024, 9, 30, 10, tzinfo=UTC)


def _cand(time_start=None, ids=(), layer=Layer.working):
    return Candidate(
        text="x", raw="x", kind=Kind.plan, layer=layer, facts=Facts(ids=ids), time_start=time_start
    )


def test_an_item_about_a_later_time_or_with_an_id_is_kept_long_term():
    cfg = WriteConfig()
    # a stay booked for next month would expire before its day
    moved = outlasts_working(_cand(datetime(2024, 11, 6, tzinfo=UTC)), AT, cfg)
    assert moved.layer == Layer.episodic and "expiry" in moved.reasons[-1]
    # a confirmation number is asked about long after the chat that gave it
    assert outlasts_working(_cand(ids=("LS-22871",)), AT, cfg).layer == Layer.episodic
    # what is over within the day stays scratch state; long-term items are left as they are
    assert outlasts_working(_cand(datetime(2024, 9, 30, 18, tzinfo=UTC)), AT, cfg).layer == Layer.working
    assert outlasts_working(_cand(), AT, cfg).layer == Layer.working
    assert outlasts_working(_cand(layer=Layer.semantic), AT, cfg).layer == Layer.semantic


def test_an_assistant_booking_is_still_recalled_a_week_later(tmp_path):
    with Memory(home=tmp_path) as mem:
        mem.add(
            [
                {
                    "role": "user",
                    "content": "And a hotel near the convention center, check in on 6 November.",
                },
                {
                    "role": "assistant",
                    "content": "Booked: Lakeshore Suites, two rooms, 6-9 November, confirmation LS-22871.",
                },
            ],
            user_id="u",
            at="2024-09-30T10:00:00+00:00",
        )
        mem.flush()
        held = [m for m in mem.list(user_id="u") if "LS-22871" in m.text]
        assert held and all(m.layer != Layer.working and m.expire_at is None for m in held), held

"""Working memory holds an agent's task at hand. In a chat with an assistant a "for now" note goes there and
expires; in two people's chat there is no agent task, and "I'm doing keto right now" is what holds of one of
them — a lasting memory the other person's questions find."""

from __future__ import annotations

from memscribe import Memory
from memscribe.models import Layer


def test_a_peer_saying_right_now_is_remembered_past_the_day(tmp_path):
    with Memory(home=tmp_path) as mem:
        mem.add(
            [
                {"role": "user", "name": "Keisha", "content": "I've been vegetarian for about ten years now"},
                {
                    "role": "user",
                    "name": "Carlos",
                    "content": "I could never lol, I'm doing keto right now, basically eggs and steak",
                },
            ],
            user_id="peers",
            at="2026-06-14T13:00:00-05:00",
        )
        mem.flush()
        keto = [m for m in mem.list(user_id="peers") if "keto" in m.text]
        assert keto and all(m.layer != Layer.working and m.expire_at is None for m in keto), [
            (m.text, m.layer, m.expire_at) for m in keto
        ]


def test_a_note_for_now_to_an_assistant_stays_working_memory(tmp_path):
    with Memory(home=tmp_path) as mem:
        mem.add(
            "For now, use my work email for the booking confirmations.",
            user_id="u",
            at="2026-06-14T13:00:00-05:00",
        )
        mem.flush()
        rows = mem.list(user_id="u", status="all")
        assert rows and all(m.layer == Layer.working for m in rows if "email" in m.text), [
            (m.text, m.layer) for m in rows
        ]

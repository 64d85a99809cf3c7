"""The addressee's name is a call, not part of the fact: it leaves the memory; a name that is said about
someone stays."""

import pytest

from memscribe import Memory
from memscribe.lang.address import strip_vocatives

NAMES = ["Caroline", "Melanie", "小明"]


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ("Mel, I went to the park yesterday.", "I went to the park yesterday."),
        ("Hey Caroline! I signed up for a pottery class.", "I signed up for a pottery class."),
        ("That sounds great, Caroline!", "That sounds great!"),
        ("I met Caroline's sister at the fair.", "I met Caroline's sister at the fair."),
        ("Caroline is my best friend.", "Caroline is my best friend."),
        ("小明，我昨天去了上海。", "我昨天去了上海。"),
        ("我下周搬去杭州，小明！", "我下周搬去杭州"),
        ("小明是我同事。", "小明是我同事。"),
    ],
)
def test_a_call_goes_and_a_mention_stays(said: str, kept: str) -> None:
    assert strip_vocatives(said, NAMES).rstrip("！!") == kept.rstrip("！!")


def test_memories_of_a_two_person_chat_do_not_call_the_other_person(tmp_path) -> None:
    with Memory(home=tmp_path) as mem:
        mem.add(
            [
                {"role": "user", "name": "Caroline", "content": "Mel, I finally adopted a dog named Rufus!"},
                {
                    "role": "user",
                    "name": "Melanie",
                    "content": "Caroline, I started a pottery class this week.",
                },
            ],
            user_id="u",
            session_id="s1",
            at="2023-05-08T10:00:00",
        )
        texts = [r.text for r in mem.list(user_id="u")]
    assert any("Rufus" in t for t in texts) and any("pottery" in t for t in texts)
    rufus = next(t for t in texts if "Rufus" in t)
    pottery = next(t for t in texts if "pottery" in t)
    assert not rufus.startswith("Mel") and "Caroline" in rufus  # named subject, no call
    assert not pottery.startswith("Caroline") and "Melanie" in pottery


def test_a_two_person_chat_added_one_message_at_a_time_is_still_a_two_person_chat(tmp_path) -> None:
    # an app that calls add() per message: the session remembers who spoke, so "you" in Caroline's second
    # message is Melanie (the other person), not an assistant nobody in this chat is
    turns = [
        ("Melanie", "I painted a lake sunrise last week."),
        ("Caroline", "Sorry it took me so long to get back to you, I was at my sister's place in Denver."),
    ]
    with Memory(home=tmp_path) as mem:
        for i, (name, text) in enumerate(turns):
            mem.add(
                [{"role": "user", "name": name, "content": text, "id": f"m{i}"}],
                user_id="u",
                session_id="s1",
                at="2023-05-08T10:00:00",
            )
        mem.flush()
        denver = next(r.text for r in mem.list(user_id="u") if "Denver" in r.text)
    assert "Melanie" in denver and "assistant" not in denver

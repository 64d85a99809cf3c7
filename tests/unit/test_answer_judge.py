"""A short reply to the assistant's question is judged with its question (write/judged.py): the statement judge
reads the memory's sentence with the question it answers, so "Three, usually mornings." after "How many times a
week do you swim?" is kept and "Nope, all good, thanks!" after "Anything more I can do for you?" is not. Real
components: the bundled embedder and the shipped weights; the phrasings are not in the labelled corpus."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memscribe import Memory
from memscribe.write.judged import answer_reading

AT = "2026-03-05T10:00:00"


def test_the_reading_of_an_elliptical_answer_carries_its_question():
    at = datetime(2026, 3, 5, 10, tzinfo=UTC)
    got = answer_reading("Three, usually mornings.", "Great. How many times a week do you swim?", at=at)
    assert got is not None and 'answering "How many times a week do you swim?"' in got
    zh = answer_reading("基本不喝", "您平时喝酒吗？", at=at)
    assert zh is not None and "回答“您平时喝酒吗？”" in zh
    # a reply that says enough on its own, or a previous turn that asked nothing, is read without a question
    assert (
        answer_reading("I swim three times a week at the pool near my office.", "How often?", at=at) is None
    )
    assert answer_reading("基本不喝", "我帮您记下了。", at=at) is None


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    with Memory(home=tmp_path_factory.mktemp("answers")) as m:
        yield m


@pytest.mark.parametrize(
    ("question", "reply", "kept"),
    [
        ("How many times a week do you swim?", "Three, usually mornings.", True),
        ("您平时喝酒吗？", "基本不喝", True),
        ("Anything more I can do for you?", "Nope, all good, thanks!", False),
        ("还需要我帮您查别的吗？", "不用啦，就这些", False),
    ],
)
def test_a_short_reply_is_kept_only_when_it_says_something_with_its_question(mem, question, reply, kept):
    user = f"u-{abs(hash(reply))}"
    mem.add(
        [
            {"role": "assistant", "content": question, "id": "a1"},
            {"role": "user", "content": reply, "id": "u1"},
        ],
        user_id=user,
        at=AT,
    )
    mine = [r for r in mem.list(user_id=user) if reply in r.raw]
    assert bool(mine) == kept, mine
    if kept:
        assert question in mine[0].raw  # the memory carries the question it answers

"""A user's message to an assistant that the rule scores leave just under the keep bar gets a second opinion from
the learned statement judge (write/pipeline.py ``_second_opinion``): a delegation or a plan said in few words is
kept, a reaction or a thanks is still dropped. Real components: the bundled embedder and the shipped weights."""

from __future__ import annotations

import pytest

from memscribe import Memory

AT = "2026-03-05T10:00:00"


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    with Memory(home=tmp_path_factory.mktemp("second-opinion")) as m:
        yield m


@pytest.mark.parametrize(
    "text",
    ["Fine, Priya will take care of the invoices.", "行，发票的事交给小陈吧。"],
)
def test_a_short_statement_the_rules_underrate_is_kept(mem, text):
    rep = mem.add([{"role": "user", "content": text, "id": "m1"}], user_id=f"keep-{hash(text)}", at=AT)
    assert [it.action for it in rep.items] != ["drop"], rep.items
    audit = mem.list(user_id=f"keep-{hash(text)}")
    assert audit and all(r.raw == text for r in audit)


@pytest.mark.parametrize("text", ["haha ok", "好的好的", "Thanks, that's helpful!", "嗯嗯，知道了"])
def test_reactions_stay_dropped(mem, text):
    rep = mem.add([{"role": "user", "content": text, "id": "m1"}], user_id=f"drop-{hash(text)}", at=AT)
    assert [it.action for it in rep.items] == ["drop"]


def test_a_peer_chat_turn_gets_no_second_opinion(mem):
    # in a chat between people the rules already keep a first-hand account; a short aside there is left to them
    msgs = [
        {"role": "user", "name": "Ana", "content": "Fine, Priya will take care of the invoices.", "id": "p1"},
        {"role": "user", "name": "Ben", "content": "ok", "id": "p2"},
    ]
    rep = mem.add(msgs, user_id="peer", at=AT)
    first = [it for it in rep.items if it.message_id == "p1"]
    assert all("statement judge" not in " ".join(it.reasons) for it in first)

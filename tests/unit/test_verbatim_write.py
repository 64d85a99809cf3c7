"""``add(..., verbatim=True)``: each message one memory, word for word, privacy still applied; and
``list(filters=...)`` with the keys ``search()`` takes."""

import pytest

from memscribe.errors import InputError


def test_each_message_is_kept_word_for_word(mem):
    msgs = [
        {"role": "user", "content": "ok", "id": "m1"},  # a filler the pipeline would drop
        {"role": "assistant", "content": "How about a thriller tonight?", "id": "m2"},
        {"role": "user", "content": "我不太喜欢恐怖片，但是很喜欢科幻片。", "id": "m3"},
    ]
    rep = mem.add(msgs, user_id="u1", verbatim=True, metadata={"dia_id": "D1"})
    assert [i.action for i in rep.items] == ["add", "add", "add"]
    recs = [mem.get(i) for i in rep.added]
    assert [r.text for r in recs] == [m["content"] for m in msgs]
    assert [r.source_ids for r in recs] == [["m1"], ["m2"], ["m3"]]
    assert all(r.metadata == {"dia_id": "D1"} for r in recs)
    # the audit log says how it was written
    assert any(e.stage == "encode" and e.action == "verbatim" for e in mem.explain(rep.added[0]))


def test_a_repeat_is_stored_again_and_nothing_is_queued_for_verification(mem):
    a = mem.add("I live in Boston.", user_id="u1", verbatim=True)
    b = mem.add("I live in Boston.", user_id="u1", verbatim=True)
    assert a.added != b.added
    assert len(mem.list(user_id="u1")) == 2
    assert mem.flush().done == 0  # no verify job was queued
    assert len(mem.list(user_id="u1")) == 2  # verification never drops a verbatim memory


def test_privacy_still_applies(mem):
    rep = mem.add("My card is 4111 1111 1111 1111, remember it.", user_id="u1", verbatim=True)
    text = mem.get(rep.added[0]).text
    assert "4111" not in text
    assert "remember it" in text
    hits = mem.search("4111 1111 1111 1111", user_id="u1")
    assert all("4111" not in h.memory.text for h in hits)


def test_verbatim_must_be_a_bool(mem):
    with pytest.raises(InputError):
        mem.add("hello there", user_id="u1", verbatim="yes")
    assert mem.list(user_id="u1") == []


def test_list_filters_by_agent_session_and_metadata(mem):
    mem.add("I like tea.", user_id="u1", agent_id="a1", verbatim=True, metadata={"topic": "food"})
    mem.add("I like jazz.", user_id="u1", agent_id="a2", session_id="s9", verbatim=True)
    mem.add("I like rain.", user_id="u1", verbatim=True, metadata={"topic": "weather"})
    texts = lambda **f: [r.text for r in mem.list(user_id="u1", filters=f)]  # noqa: E731
    assert texts(agent_id="a1") == ["I like tea."]
    assert texts(session_id="s9") == ["I like jazz."]
    assert texts(metadata={"topic": "weather"}) == ["I like rain."]
    assert len(mem.list(user_id="u1", filters={"metadata": {"topic": "food"}}, limit=5, offset=1)) == 0
    with pytest.raises(InputError):
        mem.list(user_id="u1", filters={"colour": "red"})


def test_async_twin_writes_verbatim(tmp_path):
    import asyncio

    from memscribe import AsyncMemory

    async def run():
        async with AsyncMemory(home=tmp_path / "s") as am:
            rep = await am.add("ok", user_id="u1", verbatim=True)
            assert [r.text for r in await am.list(user_id="u1", filters={"agent_id": "other"})] == []
            assert [r.text for r in await am.list(user_id="u1")] == ["ok"]
            assert rep.added

    asyncio.run(run())

"""Mem0's documented examples, run against memscribe with only the import changed.

Copied from the mem0ai/mem0 repository's docs (read at the commits named here):
- ``docs/open-source/python-quickstart.mdx`` (00ed618): Store, Retrieve (get_all, get), Search, Update,
  History, Delete, delete_all, Reset — the "Memory API" walk-through of the OSS Python SDK;
- ``docs/core-concepts/memory-operations/add.mdx`` (04e78cc): "Add with Mem0 Open Source", ``infer=False``;
- ``docs/core-concepts/memory-operations/update.mdx`` (0640c55) and ``delete.mdx`` (01adb7c): the OSS blocks;
- mem0ai 2.2.1's own docstrings (``mem0/memory/main.py``): ``filters={"user_id": …}``, ``top_k``, metadata
  operators, ``update(memory_id, text=…, metadata=…)``, history keys ``old_memory`` / ``new_memory`` / ``event``.

The lines marked ``# doc:`` are the documentation's code, unchanged except for the import. What the docs
show as output is checked by shape and by content that must hold for any memory engine (the ids, the
metadata, the texts that were said). Documented differences (docs/mem0-compat.md), at most three:

1. ``infer=True`` runs memscribe's own write pipeline, not an LLM: the memories it keeps are its canonical
   sentences ("The user loves sci-fi movies."), and the assistant's turns are kept only where they carry a
   suggestion or a confirmation — so the number and wording of the results differ from the docs' LLM output.
2. ``search`` returns nothing when nothing stored is relevant to the query (memscribe's relevance gate);
   Mem0 returns its nearest memories whatever their score. ``threshold`` cuts on memscribe's score.
3. ``delete`` and ``delete_all`` are soft (``m.memscribe.restore(id)`` brings a memory back); only ``reset``
   erases.
"""

from __future__ import annotations

import asyncio

import pytest

from memscribe.errors import InputError, MissingScopeError, NotFoundError


@pytest.fixture
def m(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMSCRIBE_HOME", str(tmp_path / "home"))
    from memscribe.compat.mem0 import Memory  # doc: from mem0 import Memory

    mem = Memory()  # doc: m = Memory()
    yield mem
    mem.close()


MESSAGES = [  # doc: python-quickstart.mdx, "Store a Memory"
    {"role": "user", "content": "I'm planning to watch a movie tonight. Any recommendations?"},
    {"role": "assistant", "content": "How about a thriller movies? They can be quite engaging."},
    {"role": "user", "content": "I'm not a big fan of thriller movies but I love sci-fi movies."},
    {
        "role": "assistant",
        "content": "Got it! I'll avoid thriller recommendations and suggest sci-fi movies in the future.",
    },
]


def _check_item(item, *, user="alice"):
    assert isinstance(item["id"], str) and item["id"]
    assert isinstance(item["memory"], str) and item["memory"]
    assert len(item["hash"]) == 32
    assert item["created_at"] and item["user_id"] == user


def test_quickstart_walkthrough(m):
    # doc: Store inferred memories (default behavior)
    result = m.add(MESSAGES, user_id="alice", metadata={"category": "movie_recommendations"})
    assert result["results"], result
    assert {r["event"] for r in result["results"]} == {"ADD"}
    assert all(r["metadata"] == {"category": "movie_recommendations"} for r in result["results"])
    said = " ".join(r["memory"] for r in result["results"]).lower()
    assert "sci-fi" in said and "thriller" in said

    # doc: Get all memories
    all_memories = m.get_all(user_id="alice")
    assert {r["id"] for r in all_memories["results"]} == {r["id"] for r in result["results"]}
    for item in all_memories["results"]:
        _check_item(item)
        assert item["metadata"] == {"category": "movie_recommendations"}
        assert item["updated_at"] is None  # never changed, as in the docs' output

    # doc: Get a single memory by ID
    first = all_memories["results"][0]["id"]
    specific_memory = m.get(first)
    assert specific_memory == next(r for r in all_memories["results"] if r["id"] == first)

    # doc: Search Memories
    related_memories = m.search(query="What do you know about me?", user_id="alice")
    assert related_memories["results"]
    assert all(r["score"] > 0 and r["user_id"] == "alice" for r in related_memories["results"])
    related_memories = m.search(query="What kind of movies do I love?", user_id="alice")
    assert related_memories["results"]
    top = related_memories["results"][0]
    _check_item(top)
    assert "sci-fi" in top["memory"].lower()
    scores = [r["score"] for r in related_memories["results"]]
    assert scores == sorted(scores, reverse=True)

    # doc: Update a Memory
    result = m.update(memory_id=first, data="I love India, it is my favorite country.")
    assert result == {"message": "Memory updated successfully!"}
    assert m.get(first)["memory"] == "I love India, it is my favorite country."
    assert m.get(first)["updated_at"] is not None

    # doc: Memory History
    history = m.history(memory_id=first)
    assert [h["event"] for h in history] == ["ADD", "UPDATE"]
    assert history[1]["old_memory"] == history[0]["new_memory"]
    assert history[1]["new_memory"] == history[1]["new_value"] == "I love India, it is my favorite country."
    assert history[1]["previous_value"] == history[0]["new_value"] and history[1]["action"] == "UPDATE"
    assert all(h["memory_id"] == first and h["is_deleted"] is False for h in history)

    # doc: Delete a memory by id
    m.delete(memory_id=first)
    assert m.get(first) is None
    assert first not in {r["id"] for r in m.get_all(user_id="alice")["results"]}
    assert m.history(memory_id=first)[-1]["event"] == "DELETE"
    # doc: Delete all memories for a user
    m.delete_all(user_id="alice")
    assert m.get_all(user_id="alice")["results"] == []
    # difference 3: soft — memscribe can bring any of them back
    m.memscribe.restore(first)
    assert m.get(first)["memory"] == "I love India, it is my favorite country."

    # doc: Reset all memories
    m.reset()
    assert m.get_all(user_id="alice")["results"] == []
    with pytest.raises(NotFoundError):
        m.memscribe.get(first)


def test_add_raw_messages_without_inference(m):
    # doc: add.mdx, "Optionally store raw messages without inference"
    result = m.add(MESSAGES, user_id="alice", metadata={"category": "movie_recommendations"}, infer=False)
    assert [r["memory"] for r in result["results"]] == [x["content"] for x in MESSAGES]
    assert [r["role"] for r in result["results"]] == ["user", "assistant", "user", "assistant"]
    assert {r["event"] for r in result["results"]} == {"ADD"}
    # duplicates land, as the docs warn for infer=False
    again = m.add(MESSAGES[:1], user_id="alice", infer=False)
    assert len(m.get_all(user_id="alice", top_k=100)["results"]) == 5
    assert again["results"][0]["memory"] == MESSAGES[0]["content"]
    # a system message is not stored raw (Mem0 skips it too)
    assert m.add([{"role": "system", "content": "You are helpful."}], user_id="alice", infer=False) == {
        "results": []
    }


def test_raw_messages_still_pass_the_privacy_stage(m):
    r = m.add("My SSN is 123-45-6789.", user_id="alice", infer=False)["results"][0]
    assert "123-45-6789" not in r["memory"]
    assert "123-45-6789" not in m.get(r["id"])["memory"]


def test_update_and_delete_blocks_of_the_oss_docs(m):
    mid = m.add("Alex prefers coffee.", user_id="alex", infer=False)["results"][0]["id"]
    # doc: update.mdx, "Update with Mem0 OSS" (memory_id="mem_123" there)
    m.update(memory_id=mid, data="Alex now prefers decaf coffee")
    assert m.get(mid)["memory"] == "Alex now prefers decaf coffee"
    # mem0 2.2.1: update(memory_id, text=…, metadata=…) merges the metadata
    m.update(mid, metadata={"category": "drinks"})
    m.update(mid, text="Alex drinks tea now", metadata={"source": "chat", "user_id": "mallory"})
    got = m.get(mid)
    assert got["memory"] == "Alex drinks tea now"
    assert got["metadata"] == {"category": "drinks", "source": "chat"}  # ids are immutable, as in Mem0
    assert got["user_id"] == "alex"
    with pytest.raises(InputError):
        m.update(mid)
    # doc: delete.mdx, "Delete with Mem0 OSS"
    m.delete(memory_id=mid)
    m.delete_all(user_id="alex")
    assert m.get_all(user_id="alex")["results"] == []
    with pytest.raises(NotFoundError):
        m.delete(memory_id="mem_does_not_exist")


def test_mem0_2x_filters_top_k_and_metadata_operators(m):
    for i, (cat, prio) in enumerate([("food", 1), ("food", 5), ("travel", 3)]):
        m.add(
            f"Fact number {i} about {cat}.",
            user_id="u1",
            infer=False,
            metadata={"category": cat, "prio": prio},
        )
    # 2.x: ids inside filters
    assert len(m.get_all(filters={"user_id": "u1"})["results"]) == 3
    assert len(m.get_all(filters={"user_id": "u1"}, top_k=2)["results"]) == 2
    cats = lambda res: sorted(r["metadata"]["category"] for r in res["results"])  # noqa: E731
    assert cats(m.get_all(filters={"user_id": "u1", "category": "food"})) == ["food", "food"]
    assert cats(m.get_all(filters={"user_id": "u1", "prio": {"gte": 3}})) == ["food", "travel"]
    assert cats(m.get_all(filters={"user_id": "u1", "category": {"in": ["travel"]}})) == ["travel"]
    assert cats(m.get_all(filters={"user_id": "u1", "OR": [{"prio": 1}, {"category": "travel"}]})) == [
        "food",
        "travel",
    ]
    assert cats(m.get_all(filters={"user_id": "u1", "NOT": [{"category": "food"}]})) == ["travel"]
    assert len(m.get_all(filters={"user_id": "u1", "category": "*"})["results"]) == 3
    res = m.search("facts about travel", filters={"user_id": "u1", "category": {"ne": "food"}})
    assert [r["metadata"]["category"] for r in res["results"]] == ["travel"]
    with pytest.raises(InputError):
        m.get_all(filters={"user_id": "u1", "prio": {"between": [1, 2]}})
    with pytest.raises(InputError):
        m.search("x", user_id="u1", filters={"user_id": "u2"})  # two different users
    with pytest.raises(MissingScopeError):
        m.get_all()
    with pytest.raises(InputError):
        m.search("x", user_id="u1", rerank_model="big")  # an unknown argument is refused, not ignored


def test_agent_and_run_scopes(m):
    m.add("The support bot answers in English.", agent_id="support-bot", infer=False)
    m.add("Alice asked about refunds.", user_id="alice", run_id="session-xyz", infer=False)
    m.add("Alice likes short answers.", user_id="alice", agent_id="support-bot", infer=False)
    agent = m.get_all(agent_id="support-bot")["results"]
    assert [r["memory"] for r in agent] == ["The support bot answers in English."]
    assert "user_id" not in agent[0] and agent[0]["agent_id"] == "support-bot"
    run = m.get_all(user_id="alice", run_id="session-xyz")["results"]
    assert [(r["memory"], r["run_id"]) for r in run] == [("Alice asked about refunds.", "session-xyz")]
    both = m.get_all(user_id="alice", agent_id="support-bot")["results"]
    assert [r["memory"] for r in both] == ["Alice likes short answers."]
    assert len(m.get_all(user_id="alice")["results"]) == 2
    # doc: delete.mdx — delete all memories for an agent, for a run
    m.delete_all(run_id="session-xyz", user_id="alice")
    assert [r["memory"] for r in m.get_all(user_id="alice")["results"]] == ["Alice likes short answers."]
    m.delete_all(agent_id="support-bot")
    assert m.get_all(agent_id="support-bot")["results"] == []
    assert len(m.get_all(user_id="alice")["results"]) == 1  # the user's own scope is untouched
    with pytest.raises(InputError):
        m.add("x", user_id="agent:support-bot")  # the reserved prefix is not a user id
    with pytest.raises(MissingScopeError):
        m.delete_all()


def test_from_config_maps_a_local_path_and_refuses_nothing_silently(tmp_path, caplog):
    from memscribe.compat.mem0 import Memory

    config = {  # python-quickstart.mdx "Advanced", with a local path as PEERS.md's offline recipe uses
        "vector_store": {"provider": "qdrant", "config": {"path": str(tmp_path / "q"), "on_disk": True}},
        "graph_store": {"provider": "neo4j", "config": {"url": "neo4j+s://---"}},
    }
    with caplog.at_level("WARNING"):
        mem = Memory.from_config(config)
    try:
        assert mem.memscribe.settings.home == tmp_path / "q"
        assert "graph_store" in caplog.text
        mem.add("I like tea.", user_id="u", infer=False)
        assert (tmp_path / "q").is_dir()
    finally:
        mem.close()


def test_async_memory_is_the_same_api(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMSCRIBE_HOME", str(tmp_path / "home"))
    from memscribe.compat.mem0 import AsyncMemory  # doc: from mem0 import AsyncMemory

    async def run():
        m = AsyncMemory()  # doc: m = AsyncMemory()
        try:
            res = await m.add("I love sci-fi movies.", user_id="alice", infer=False)
            mid = res["results"][0]["id"]
            assert (await m.get(mid))["memory"] == "I love sci-fi movies."
            found = await m.search("Which movies do I love?", user_id="alice")
            assert found["results"][0]["id"] == mid
            await m.update(mid, data="I love documentaries.")
            assert [h["event"] for h in await m.history(mid)] == ["ADD", "UPDATE"]
            await m.delete_all(user_id="alice")
            assert (await m.get_all(user_id="alice"))["results"] == []
        finally:
            await m.close()
        m2 = AsyncMemory.from_config({"vector_store": {"config": {"path": str(tmp_path / "q2")}}})
        try:
            assert (await m2.add("ok", user_id="bob", infer=False))["results"][0]["memory"] == "ok"
            assert m2.sync.memscribe.settings.home == tmp_path / "q2"
        finally:
            await m2.close()

    asyncio.run(run())

"""The public API end to end on the real store and the bundled embedder."""

import inspect
import json

import pytest

from memscribe import AsyncMemory, Memory, errors


def test_add_search_context_round_trip(mem):
    rep = mem.add("我不吃香菜，点外卖的时候记得备注。", user_id="u1", at="2026-04-01T12:00:00+08:00")
    assert rep.added and rep.items[0].action == "add"
    hits = mem.search("帮我点一份午饭", user_id="u1", limit=3)
    assert hits and "香菜" in hits[0].memory.text
    ctx = mem.context("帮我点一份午饭", user_id="u1", budget_tokens=100)
    assert "香菜" in ctx.text and ctx.tokens <= 100
    assert ctx.text.startswith("[")  # "[约束 · 2026-04-01] 用户不吃香菜…"
    assert "2026-04-01" in ctx.text
    assert ctx.items[0].memory.sources[0].message_id


def test_sources_keep_caller_message_ids(mem):
    mem.add(
        [
            {
                "role": "user",
                "content": "My order #ZX-4471 arrived damaged, the screen is cracked.",
                "id": "msg-42",
            }
        ],
        user_id="u1",
        at="2026-02-02T10:00:00+00:00",
    )
    rec = mem.list(user_id="u1")[0]
    assert [s.message_id for s in rec.sources] == ["msg-42"]
    assert rec.kind.value == "complaint"


def test_scope_isolation_in_list_search_context(mem):
    mem.add("I deploy on Thursdays.", user_id="alice", at="2026-02-01T10:00:00+00:00")
    mem.add("I deploy on Fridays.", user_id="bob", at="2026-02-01T10:00:00+00:00")
    assert all(r.user_id == "alice" for r in mem.list(user_id="alice"))
    assert all("Friday" not in h.memory.text for h in mem.search("deploy", user_id="alice"))
    assert "Friday" not in mem.context("when do I deploy", user_id="alice", budget_tokens=200).text


@pytest.mark.parametrize(
    ("messages", "kwargs", "exc"),
    [
        ("   ", {}, errors.EmptyMessageError),
        ([], {}, errors.EmptyMessageError),
        ({"role": "wizard", "content": "hi there friend"}, {}, errors.InputError),
        ({"role": "user", "content": 42}, {}, errors.InputError),
        ("x" * 40_000, {}, errors.MessageTooLargeError),
        (b"\xff\xfe\x00binary", {}, errors.InputError),
        ("text with a lone surrogate \ud800", {}, errors.InputError),
        ("fine text", {"at": "next tuesday-ish"}, errors.InvalidTimeError),
        # the calendar's ends: "next year" or "every Sunday" said then is no date
        ("Early next year I move to Oslo.", {"at": "9999-12-31T23:00:00+00:00"}, errors.InvalidTimeError),
        ("明年年初我要搬去奥斯陆。", {"at": "0001-01-01T01:00:00+00:00"}, errors.InvalidTimeError),
        (
            [{"role": "user", "content": "every Sunday I swim", "at": "9999-06-01T00:00:00"}],
            {},
            errors.InvalidTimeError,
        ),
        ("fine text", {"user_id": ""}, errors.MissingScopeError),
        ("fine text", {"user_id": None}, errors.MissingScopeError),
        ("fine text", {"metadata": {"x": object()}}, errors.InputError),
        (42, {}, errors.InputError),
    ],
)
def test_bad_input_is_a_typed_error_and_writes_nothing(mem, messages, kwargs, exc):
    kw = {"user_id": "u1", **kwargs}
    with pytest.raises(exc):
        mem.add(messages, **kw)
    assert mem.list(user_id="u1", status=None) == []
    assert mem.stats()["memories_by_status"] == {}


def test_times_near_the_calendars_ends_still_write(mem):
    for at in ("0002-01-01T00:00:00+00:00", "9998-12-31T23:59:00+00:00"):
        rep = mem.add(
            "Remember: every Sunday I swim, and early next year I move to Oslo.", user_id="edge", at=at
        )
        assert rep.items and all(it.action != "drop" for it in rep.items)


def test_bad_input_in_a_batch_writes_nothing(mem):
    with pytest.raises(errors.InputError):
        mem.add(
            [{"role": "user", "content": "I live in Boston."}, {"role": "user", "content": ""}], user_id="u1"
        )
    assert mem.list(user_id="u1", status=None) == []


def test_update_history_rollback_restore_fields_exactly(mem):
    mem.add("I live in Boston with my partner.", user_id="u1", at="2026-01-05T10:00:00+00:00")
    rec = mem.list(user_id="u1")[0]
    v1 = rec.model_dump(exclude={"version", "updated_at", "access_count", "last_accessed_at"})
    mem.update(rec.id, text="The user lives in Cambridge.", importance=0.95, reason="user corrected it")
    assert mem.get(rec.id).text == "The user lives in Cambridge."
    assert [v.version for v in mem.history(rec.id)] == [1, 2]
    back = mem.rollback(rec.id, 1)
    assert back.version == 3
    assert back.model_dump(exclude={"version", "updated_at", "access_count", "last_accessed_at"}) == v1
    assert mem.search("Boston", user_id="u1")[0].memory.id == rec.id  # the index follows the rollback


def test_soft_delete_vs_forget(mem):
    mem.add("I am allergic to peanuts.", user_id="u1")
    rec = mem.list(user_id="u1")[0]
    mem.delete(rec.id, reason="user asked")
    assert mem.list(user_id="u1") == []
    assert mem.get(rec.id).status.value == "deleted"
    assert mem.search("peanuts", user_id="u1") == []
    assert len(mem.history(rec.id)) == 2
    assert mem.forget(user_id="u1") == 1
    with pytest.raises(errors.NotFoundError):
        mem.get(rec.id)


def test_export_import_round_trip(tmp_path):
    a = Memory(home=tmp_path / "a")
    a.add("我下周三要去上海出差，周五回来。", user_id="u1", at="2026-06-08T10:00:00+08:00")
    a.add("I live in Boston.", user_id="u2", at="2026-01-05T10:00:00+00:00")
    a.flush()
    dump = a.export()
    a.close()
    b = Memory(home=tmp_path / "b")
    assert b.import_(json.loads(json.dumps(dump))).memories == 2
    again = b.export()
    strip = lambda rows: sorted(json.dumps(r, sort_keys=True, ensure_ascii=False) for r in rows)  # noqa: E731
    assert strip(again) == strip(dump)
    assert b.search("上海", user_id="u1")[0].memory.time_start.isoformat().startswith("2026-06-17")
    b.close()


def test_embedder_mismatch_is_refused(tmp_path):
    import numpy as np

    class Other:
        name = "other-model"
        dim = 8

        def embed_passages(self, texts):
            return np.zeros((len(texts), 8), dtype=np.float32)

        def embed_query(self, text):
            return np.zeros(8, dtype=np.float32)

    Memory(home=tmp_path).close()
    with pytest.raises(errors.EmbedderMismatch):
        Memory(home=tmp_path, embedder=Other())


def test_memory_and_async_memory_have_the_same_signatures():
    skip = {"sync"}
    for name, fn in inspect.getmembers(Memory, inspect.isfunction):
        if name.startswith("_") or name in {"session", "working"}:
            continue
        twin = getattr(AsyncMemory, name, None)
        assert twin is not None, f"AsyncMemory lacks {name}"
        assert inspect.signature(twin) == inspect.signature(fn), name
    assert not skip & set(dir(Memory))


def test_async_memory_round_trip(tmp_path):
    import asyncio

    async def go():
        async with AsyncMemory(home=tmp_path) as am:
            await am.add("I deploy on Thursdays.", user_id="u1")
            await am.flush()
            hits = await am.search("when do I deploy?", user_id="u1")
            return hits

    hits = asyncio.run(go())
    assert "Thursday" in hits[0].memory.text


def test_memscribe_home_env_chooses_the_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMSCRIBE_HOME", str(tmp_path / "envhome"))
    m = Memory()
    m.add("I live in Boston.", user_id="u1")
    m.close()
    assert (tmp_path / "envhome" / "memscribe.db").exists()


def test_verify_runs_from_the_durable_queue(mem):
    mem.add("I deploy on Thursdays.", user_id="u1")
    mem.flush()
    rec = mem.list(user_id="u1")[0]
    stages = [(e.stage, e.action) for e in mem.explain(rec.id)]
    assert ("verify", "ok") in stages
    assert ("filter", "long") in stages
    assert mem.stats()["queue_depth"] == 0


def test_richer_restatement_updates_in_place_and_a_retry_is_a_noop(mem):
    first = mem.add(
        [{"role": "user", "id": "c1", "content": "I like coffee in the morning."}],
        user_id="u",
        at="2026-05-01T08:00:00+00:00",
    )
    mid = first.added[0]
    richer = mem.add(
        [
            {
                "role": "user",
                "id": "c2",
                "content": "I like coffee in the morning, especially an Americano from Blue Bottle.",
            }
        ],
        user_id="u",
        at="2026-05-02T08:00:00+00:00",
    )
    assert richer.items[0].action == "update" and richer.items[0].memory_id == mid
    rec = mem.get(mid)
    assert "Blue Bottle" in rec.text and rec.version == 2
    assert [s.message_id for s in rec.sources] == ["c1", "c2"]
    assert len(mem.list(user_id="u")) == 1
    assert mem.search("Blue Bottle", user_id="u")[0].memory.id == mid  # re-indexed with the new text
    assert "Blue Bottle" not in mem.history(mid)[0].record.text  # the poorer version is kept
    # the same message delivered again (a client retry): nothing changes
    again = mem.add(
        [
            {
                "role": "user",
                "id": "c2",
                "content": "I like coffee in the morning, especially an Americano from Blue Bottle.",
            }
        ],
        user_id="u",
        at="2026-05-02T08:00:00+00:00",
    )
    assert again.items[0].action == "noop"
    assert mem.get(mid).version == 2 and mem.get(mid).confidence == rec.confidence


def test_paraphrase_still_merges_without_rewriting(mem):
    a = mem.add("我平时喜欢喝美式咖啡。", user_id="u", at="2026-05-01T08:00:00+08:00").added[0]
    rep = mem.add("我平时就爱喝美式咖啡。", user_id="u", at="2026-05-03T08:00:00+08:00")
    assert rep.items[0].action == "merge" and rep.items[0].memory_id == a
    assert mem.get(a).text.startswith("用户平时喜欢")


def test_slot_values_answer_the_question_words_people_use(mem):
    mem.add("I live in Beijing.", user_id="u", at="2026-01-01T10:00:00Z")
    mem.add("I moved to Shanghai last month.", user_id="u", at="2026-03-01T10:00:00Z")
    mem.add("我去年搬到杭州了。", user_id="z", at="2026-03-02T10:00:00+08:00")
    hits = mem.search("where do I live", user_id="u")
    assert hits and "Shanghai" in hits[0].memory.text and all("Beijing" not in h.memory.text for h in hits)
    zh = mem.search("我住哪", user_id="z")
    assert zh and "杭州" in zh[0].memory.text and "2025年" in zh[0].memory.text


@pytest.mark.parametrize(
    ("said", "canonical"),
    [
        ("I don't eat sushi anymore.", "the user doesn't eat sushi anymore."),
        ("I do not like red.", "the user does not like red."),
        ("I haven’t seen Dana since May.", "the user hasn't seen Dana since May."),
        ("I'm tired and I have a dog.", "the user is tired and the user has a dog."),
        ("My cat and I went home.", "the user's cat and the user went home."),
    ],
)
def test_first_person_is_rewritten_grammatically(said, canonical):
    from memscribe.write.encode_rules import name_subject

    assert name_subject(said, "the user", "en") == canonical

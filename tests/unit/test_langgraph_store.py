"""MemscribeStore through LangGraph's own store API and a compiled StateGraph (real embedder, real SQLite)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypedDict

import pytest

pytest.importorskip("langgraph")

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import BaseStore, GetOp, InvalidNamespaceError, PutOp, SearchOp

from memscribe import AsyncMemory, Memory
from memscribe.errors import InputError
from memscribe.integrations.langgraph import MemscribeStore, memory_id_for

ROOT = Path(__file__).resolve().parents[2]
U1 = ("memories", "u1")


@pytest.fixture
def store(mem):
    return MemscribeStore(mem)


def test_put_get_round_trip_keeps_the_value_and_maps_to_a_scoped_memory(store, mem):
    value = {"text": "User prefers green tea over coffee", "kind": "preference", "tags": ["drink"], "n": 2}
    store.put(U1, "drink", value)
    item = store.get(U1, "drink")
    assert item is not None
    assert item.value == value and item.key == "drink" and item.namespace == U1
    assert item.created_at == item.updated_at

    # the item is a memscribe memory in user u1's scope, under an id derived from (namespace, key)
    rec = mem.get(memory_id_for(U1, "drink"))
    assert rec.user_id == "u1" and rec.kind.value == "preference" and rec.layer.value == "semantic"
    assert rec.text == value["text"]
    assert rec.metadata["langgraph"]["key"] == "drink"
    assert mem.search("what does the user drink", user_id="u1")[0].memory.id == rec.id
    assert mem.list(user_id="u2") == []

    assert store.get(U1, "other") is None
    assert store.get(("memories", "u2"), "drink") is None  # same key, other namespace
    assert store.get(("memories", "u1", "sub"), "drink") is None


def test_values_without_text_are_json_and_index_fields_choose_the_text(store, mem):
    store.put(U1, "job", {"role": "engineer", "company": "Acme"})
    assert mem.get(memory_id_for(U1, "job")).text == '{"company": "Acme", "role": "engineer"}'
    store.put(U1, "trip", {"where": {"city": "Lisbon"}, "note": "x"}, index=["where.city"])
    assert mem.get(memory_id_for(U1, "trip")).text == "Lisbon"
    store.put(U1, "msg", {"content": "Standup moved to 10am"})
    assert mem.get(memory_id_for(U1, "msg")).text == "Standup moved to 10am"
    # index=False: kept and listed, but not found by a query (as LangGraph documents)
    store.put(U1, "secret-plan", {"text": "Surprise party for Lisbon trip"}, index=False)
    assert store.get(U1, "secret-plan") is not None
    assert "secret-plan" in {i.key for i in store.search(U1)}
    assert "secret-plan" not in {i.key for i in store.search(U1, query="Lisbon party")}
    assert "trip" in {i.key for i in store.search(U1, query="Lisbon")}


def test_key_to_id_mapping_is_durable_across_reopen(tmp_path):
    home = tmp_path / "store"
    with MemscribeStore(home=home) as s:
        s.put(U1, "editor", {"text": "User edits code in Vim"})
    with MemscribeStore(home=home) as s:
        item = s.get(U1, "editor")
        assert item is not None and item.value == {"text": "User edits code in Vim"}
        assert [i.key for i in s.search(U1, query="which editor")] == ["editor"]


def test_put_again_is_a_new_version_and_delete_is_soft_and_versioned(store, mem):
    store.put(U1, "editor", {"text": "User edits code in Vim"})
    first = store.get(U1, "editor")
    store.put(U1, "editor", {"text": "User switched to Emacs"})
    second = store.get(U1, "editor")
    assert second.value == {"text": "User switched to Emacs"}
    assert second.created_at == first.created_at and second.updated_at > first.updated_at
    mid = memory_id_for(U1, "editor")
    assert [v.record.text for v in mem.history(mid)] == ["User edits code in Vim", "User switched to Emacs"]
    assert [h.memory.id for h in mem.search("Emacs", user_id="u1")] == [mid]

    store.delete(U1, "editor")
    assert store.get(U1, "editor") is None
    assert store.search(U1, query="Emacs") == [] and store.search(U1) == []
    assert mem.get(mid).status.value == "deleted" and len(mem.history(mid)) == 3
    store.delete(U1, "editor")  # deleting twice, or a key never put, is a no-op
    store.delete(U1, "never")
    assert len(mem.history(mid)) == 3

    store.put(U1, "editor", {"text": "User uses Helix now"})
    assert store.get(U1, "editor").value == {"text": "User uses Helix now"}


def test_search_ranks_by_meaning_within_the_namespace_prefix(store):
    store.put(U1, "drink", {"text": "User prefers green tea over coffee"})
    store.put(U1, "editor", {"text": "User edits code in Vim"})
    store.put(("memories", "u1", "work"), "job", {"text": "User works as a nurse at the city hospital"})
    store.put(("memories", "u2"), "drink", {"text": "User drinks espresso every morning"})
    store.put(("notes", "u1"), "drink", {"text": "Buy more green tea"})

    hits = store.search(U1, query="what does the user like to drink?")
    assert hits[0].key == "drink" and hits[0].namespace == U1
    assert all(h.namespace[:2] == U1 for h in hits)  # sub-namespaces included, siblings not
    assert hits[0].score is not None and hits[0].score >= hits[-1].score
    assert "job" in {h.key for h in store.search(U1, query="hospital job")}

    only_u2 = store.search(("memories", "u2"), query="coffee")
    assert [(h.namespace, h.key) for h in only_u2] == [(("memories", "u2"), "drink")]

    across = store.search(("memories",), query="coffee or tea", limit=10)  # no user in the prefix: all users
    assert {h.namespace for h in across} >= {U1, ("memories", "u2")}
    assert ("notes", "u1") not in {h.namespace for h in across}


def test_search_filters_and_pages(store):
    for i in range(6):
        store.put(
            U1, f"k{i}", {"text": f"Reading note number {i} about history books", "stars": i, "tag": "book"}
        )
    store.put(U1, "film", {"text": "Watched a film about history", "stars": 5, "tag": "film"})

    got = store.search(U1, filter={"stars": {"$gte": 3}, "tag": "book"})
    assert sorted(h.key for h in got) == ["k3", "k4", "k5"]
    assert [h.key for h in store.search(U1, filter={"tag": {"$ne": "book"}})] == ["film"]
    assert store.search(U1, filter={"stars": {"$lt": 0}}) == []

    # without a query: newest first, and pages do not overlap
    page1 = store.search(U1, limit=3)
    page2 = store.search(U1, limit=3, offset=3)
    page3 = store.search(U1, limit=3, offset=6)
    keys = [h.key for h in page1 + page2 + page3]
    assert keys == ["film", "k5", "k4", "k3", "k2", "k1", "k0"]

    q1 = store.search(U1, query="history books", filter={"tag": "book"}, limit=2)
    q2 = store.search(U1, query="history books", filter={"tag": "book"}, limit=2, offset=2)
    assert len(q1) == 2 and len(q2) == 2 and not {h.key for h in q1} & {h.key for h in q2}
    assert "film" not in {h.key for h in q1 + q2}


def test_list_namespaces(store):
    store.put(("memories", "u1"), "a", {"text": "alpha fact"})
    store.put(("memories", "u1", "work"), "b", {"text": "beta fact"})
    store.put(("memories", "u2"), "c", {"text": "gamma fact"})
    store.put(("docs", "u2", "v1"), "d", {"text": "delta fact"})
    assert store.list_namespaces() == [
        ("docs", "u2", "v1"),
        ("memories", "u1"),
        ("memories", "u1", "work"),
        ("memories", "u2"),
    ]
    assert store.list_namespaces(prefix=("memories", "u1")) == [
        ("memories", "u1"),
        ("memories", "u1", "work"),
    ]
    assert store.list_namespaces(suffix=("v1",)) == [("docs", "u2", "v1")]
    assert store.list_namespaces(prefix=("memories", "*")) == [
        ("memories", "u1"),
        ("memories", "u1", "work"),
        ("memories", "u2"),
    ]
    assert store.list_namespaces(max_depth=1) == [("docs",), ("memories",)]
    assert store.list_namespaces(limit=1, offset=1) == [("memories", "u1")]
    store.delete(("docs", "u2", "v1"), "d")
    assert ("docs", "u2", "v1") not in store.list_namespaces()


def test_namespace_to_user_mapping_and_forget(mem):
    s = MemscribeStore(mem)
    s.put(("global",), "motd", {"text": "Office closed on Friday"})  # too short to name a user
    assert mem.get(memory_id_for(("global",), "motd")).user_id == "langgraph"
    s.put(("users", "bob", "prefs"), "drink", {"text": "Bob prefers espresso"})
    assert mem.get(memory_id_for(("users", "bob", "prefs"), "drink")).user_id == "bob"

    # memscribe's hard erase of a user removes that user's LangGraph items too
    mem.forget(user_id="bob")
    assert s.get(("users", "bob", "prefs"), "drink") is None
    assert s.get(("global",), "motd") is not None

    flat = MemscribeStore(mem, user_id_at=None, default_user_id="team")
    flat.put(("users", "carol"), "x", {"text": "Carol likes jazz"})
    assert mem.get(memory_id_for(("users", "carol"), "x")).user_id == "team"
    assert MemscribeStore(mem, user_id_at=0).user_id_for(("dave", "notes")) == "dave"


def test_invalid_input_is_refused_with_typed_errors(store, mem):
    with pytest.raises(InvalidNamespaceError):
        store.put((), "k", {"text": "x"})
    with pytest.raises(InvalidNamespaceError):
        store.put(("a.b", "u1"), "k", {"text": "x"})
    with pytest.raises(InputError):
        store.batch([PutOp(U1, "k", ["not", "a", "dict"])])  # type: ignore[arg-type]
    with pytest.raises(InputError):
        store.batch([PutOp(U1, "k", {"text": "x"}, ttl=-5)])
    with pytest.raises(InputError):
        store.batch([SearchOp(U1, filter={"n": {"$regex": "x"}})])
    store.put(U1, "ok", {"text": "fine"})  # a store that refused bad input still works
    with pytest.raises(InputError):
        store.search(("memories",), query="fine", limit=-1)
    assert mem.list(user_id="u1")[0].id == memory_id_for(U1, "ok")


def test_abatch_runs_off_the_event_loop(mem):
    threads: list[int] = []

    class Probe(MemscribeStore):
        def batch(self, ops):  # type: ignore[no-untyped-def]
            threads.append(threading.get_ident())
            return super().batch(ops)

    store = Probe(mem)

    async def main() -> list[str]:
        loop_thread = threading.get_ident()
        ticks = 0
        done = asyncio.Event()

        async def ticker() -> None:
            nonlocal ticks
            while not done.is_set():
                ticks += 1
                await asyncio.sleep(0)

        t = asyncio.create_task(ticker())
        await store.aput(U1, "city", {"text": "User lives in Lisbon"})
        await store.aput(U1, "pet", {"text": "User has a cat named Miso"})
        got = await store.aget(U1, "city")
        hits = await store.asearch(U1, query="what pet does the user have")
        done.set()
        await t
        assert all(th != loop_thread for th in threads) and len(threads) == 4
        assert ticks > 4  # the loop kept running while the store worked
        assert got is not None and got.value["text"] == "User lives in Lisbon"
        return [h.key for h in hits]

    assert asyncio.run(main())[0] == "pet"


def test_accepts_an_async_memory(tmp_path):
    amem = AsyncMemory(tmp_path / "store")
    try:
        s = MemscribeStore(amem)
        s.put(U1, "k", {"text": "User likes hiking"})
        assert asyncio.run(amem.get(memory_id_for(U1, "k"))).text == "User likes hiking"
    finally:
        amem.sync.close()


# ---------------------------------------------------------------------------------------------- graphs
@dataclass
class Ctx:
    user_id: str


class State(TypedDict, total=False):
    message: str
    recalled: list[str]


def _graph(store: MemscribeStore):  # type: ignore[no-untyped-def]
    def read(state: State, runtime: Runtime[Ctx]) -> State:
        hits = runtime.store.search(("memories", runtime.context.user_id), query=state["message"], limit=3)
        return {"recalled": [h.value["text"] for h in hits]}

    def write(state: State, runtime: Runtime[Ctx], *, store: BaseStore) -> State:  # kwarg injection too
        assert store is runtime.store
        if not state["message"].endswith("?"):
            key = f"m{len(store.search(('memories', runtime.context.user_id), limit=100))}"
            store.put(("memories", runtime.context.user_id), key, {"text": state["message"]})
        return {}

    g = StateGraph(State, context_schema=Ctx)
    g.add_node("read", read)
    g.add_node("write", write)
    g.add_edge(START, "read")
    g.add_edge("read", "write")
    g.add_edge("write", END)
    return g.compile(store=store)


def test_state_graph_reads_and_writes_through_the_store(store):
    graph = _graph(store)
    graph.invoke({"message": "My cat is called Miso"}, context=Ctx("u1"))
    graph.invoke({"message": "I work as a pilot"}, context=Ctx("u1"))
    graph.invoke({"message": "I work as a chef"}, context=Ctx("u2"))

    out = graph.invoke({"message": "What is my job?"}, context=Ctx("u1"))
    assert out["recalled"][0] == "I work as a pilot"
    assert "I work as a chef" not in out["recalled"]  # u2's memories stay in u2's namespace and scope

    async def run_async():  # type: ignore[no-untyped-def]
        return await graph.ainvoke({"message": "What is my pet's name?"}, context=Ctx("u1"))

    assert asyncio.run(run_async())["recalled"][0] == "My cat is called Miso"
    assert {i.key for i in store.search(("memories", "u1"))} == {"m0", "m1"}


def test_example_agent_runs(tmp_path):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "langgraph_agent.py"), "--home", str(tmp_path / "store")],
        capture_output=True,
        text=True,
        timeout=120,
        # a bare environment, except where this test imports memscribe from (a worktree, an install)
        env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin", "PYTHONPATH": os.environ.get("PYTHONPATH", "")},
    )
    assert proc.returncode == 0, proc.stderr
    answers = [line for line in proc.stdout.splitlines() if line.startswith("agent:")]
    assert len(answers) == 5
    drink, city = answers[3], answers[4]
    assert "green tea" in drink
    # the move superseded the old city: it is shown only as the version the move replaced, after it
    assert "Shanghai" in city
    old = [part for part in city.split("|") if "Beijing" in part]
    assert all("superseded" in part for part in old) and city.find("Shanghai") < city.find("Beijing")
    with Memory(tmp_path / "store") as mem:
        texts = [r.text for r in mem.list(user_id="alice")]
    assert any("green tea" in t for t in texts) and not any("Beijing" in t for t in texts)


# ---------------------------------------------------------------------------------------------- TTL
def test_put_with_a_ttl_sets_expire_at_and_a_sweep_expires_it(mem):
    store = MemscribeStore(mem, ttl={"default_ttl": 30})
    assert store.supports_ttl
    store.put(U1, "short", {"text": "the parcel code is 4411"}, ttl=1)
    store.put(U1, "default", {"text": "the user prefers tea"})
    store.put(U1, "forever", {"text": "the user lives in Lyon"}, ttl=None)
    recs = {k: mem.get(memory_id_for(U1, k)) for k in ("short", "default", "forever")}
    now = datetime.now(UTC)
    assert timedelta(seconds=50) < recs["short"].expire_at - now <= timedelta(minutes=1)
    assert timedelta(minutes=29) < recs["default"].expire_at - now <= timedelta(minutes=30)
    assert recs["forever"].expire_at is None
    assert store.sweep_ttl() == 0  # nothing is due yet

    mem.update(recs["short"].id, expire_at=now - timedelta(seconds=1), reason="test: due")
    assert store.get(U1, "short", refresh_ttl=False) is not None  # due but not swept: still there
    assert store.sweep_ttl() == 1
    assert store.get(U1, "short") is None
    assert {i.key for i in store.search(U1)} == {"forever", "default"}
    gone = mem.get(recs["short"].id)
    assert gone.status.value == "expired"  # versioned, kept in history, never returned again
    assert [v.record.status.value for v in mem.history(gone.id)][-1] == "expired"


def test_reads_refresh_the_ttl_and_omit_expired_hides_due_items(mem):
    store = MemscribeStore(mem, ttl={"default_ttl": 10, "omit_expired": True, "refresh_on_read": True})
    store.put(U1, "k", {"text": "the user is vegetarian"})
    mid = memory_id_for(U1, "k")
    early = datetime.now(UTC) + timedelta(minutes=5)
    mem.update(mid, expire_at=early, reason="test: half the ttl gone")
    assert store.get(U1, "k", refresh_ttl=False) is not None
    assert mem.get(mid).expire_at == early
    # without refresh_on_read a read is not use (as LangGraph's SQLite store): no refresh
    assert MemscribeStore(mem, ttl={"default_ttl": 10}).get(U1, "k") is not None
    assert mem.get(mid).expire_at == early
    assert store.get(U1, "k") is not None  # the op's refresh_ttl defaults to True
    assert mem.get(mid).expire_at > early + timedelta(minutes=4)
    versions = len(mem.history(mid))
    store.get(U1, "k")
    store.search(U1)
    assert len(mem.history(mid)) == versions  # a refresh within 1 % of the TTL writes no version
    mem.update(mid, expire_at=early, reason="test: back")
    store.search(U1)  # search refreshes what it returns
    assert mem.get(mid).expire_at > early + timedelta(minutes=4)

    mem.update(mid, expire_at=datetime.now(UTC) - timedelta(seconds=1), reason="test: due")
    assert store.get(U1, "k") is None and store.search(U1) == [] and store.list_namespaces() == []
    assert mem.get(mid).status.value == "active"  # omitted, not yet swept; a refresh never revives it


def test_the_sweeper_thread_expires_due_items(mem):
    store = MemscribeStore(mem, ttl={"default_ttl": 10, "sweep_interval_minutes": 0.005})
    store.put(U1, "k", {"text": "the meeting room is B2"})
    mem.update(memory_id_for(U1, "k"), expire_at=datetime.now(UTC), reason="test: due")
    done = store.start_ttl_sweeper()
    deadline = time.monotonic() + 20
    while store.get(U1, "k", refresh_ttl=False) is not None:
        assert time.monotonic() < deadline, "the sweeper did not expire the item"
        time.sleep(0.1)
    assert store.stop_ttl_sweeper(timeout=10) and done.result(timeout=1) is None


# ---------------------------------------------------------------------------------------------- labels, filters
def test_any_label_is_allowed_and_scoped(mem):
    """Newlines, periods, '*', empty labels: stored as they are; a label that cannot be a user id gets a
    scope of its own (a digest), never another user's."""
    store = MemscribeStore(mem)
    odd = [("users", "alice\n"), ("users", "a.b"), ("users", ""), ("users", "*"), ("users", "x" * 300)]
    store.put(("users", "alice"), "k", {"text": "alice's item"})
    for i, ns in enumerate(
        odd
    ):  # LangGraph's own put()/get() refuse '.' and '': ops reach batch() as they are
        store.batch([PutOp(ns, "k", {"text": f"item {i}"})])
    for i, ns in enumerate(odd):
        got, found = store.batch([GetOp(ns, "k"), SearchOp(ns)])
        assert got.value == {"text": f"item {i}"}
        assert [it.value for it in found] == [{"text": f"item {i}"}]
    assert store.get(("users", "alice\n"), "k").value == {"text": "item 0"}  # a newline is fine even there
    assert store.search(("users", "alice")) == [store.search(("users", "alice"))[0]]
    assert store.search(("users", "alice"))[0].value == {"text": "alice's item"}
    assert set(store.list_namespaces(prefix=("users",))) == {("users", "alice"), *odd}
    alice_scope = {r.id for r in mem.list(user_id="alice")}
    assert alice_scope == {memory_id_for(("users", "alice"), "k")}  # "alice\n" is not alice
    assert store.user_id_for(("users", "alice\n")).startswith("lg-")
    assert store.user_id_for(("users", "a.b")) == "a.b"


def test_dotted_filter_paths_reach_into_nested_values(store):
    store.put(U1, "a", {"user": {"access-level": "admin", "age": 40}, "plain.key": 1})
    store.put(U1, "b", {"user": {"access-level": "guest", "age": 12}})
    assert [i.key for i in store.search(U1, filter={"user.access-level": "admin"})] == ["a"]
    assert [i.key for i in store.search(U1, filter={"user.age": {"$lt": 18}})] == ["b"]
    assert [i.key for i in store.search(U1, filter={"plain.key": 1})] == ["a"]  # a key with a dot, as it is
    assert store.search(U1, filter={"user.missing": "x"}) == []

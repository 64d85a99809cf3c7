"""The MCP server, driven by the official SDK's own clients: in-process, over real stdio and over HTTP.

Real embedder and real SQLite stores in tmp folders; no mocks.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest

mcp = pytest.importorskip("mcp")

from mcp import Client, ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from mcp.types import INVALID_PARAMS  # noqa: E402

from memscribe import AsyncMemory  # noqa: E402
from memscribe.interfaces.mcp_server import create_mcp_server  # noqa: E402

MEMSCRIBE_BIN = Path(sys.executable).parent / "memscribe"


def data(result):  # type: ignore[no-untyped-def]
    assert not result.is_error, result.content[0].text
    return result.structured_content


def error_text(result) -> str:  # type: ignore[no-untyped-def]
    assert result.is_error, f"expected a tool error, got {result.structured_content}"
    return result.content[0].text


@pytest.fixture
def amem(tmp_path):
    m = AsyncMemory(tmp_path / "store")
    yield m
    m.sync.close()


def test_tools_round_trip_in_process(amem):
    """remember -> recall -> get_context -> history (supersede) -> profile resource -> forget."""
    server = create_mcp_server(amem)

    async def main() -> None:
        async with Client(server) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            assert names == {"remember", "recall", "get_context", "forget_memory", "memory_history"}

            first = data(await c.call_tool("remember", {"text": "I live in Beijing", "user_id": "u1"}))
            assert len(first["stored"]) == 1 and first["counts"] == {"add": 1}
            beijing = first["stored"][0]

            moved = data(
                await c.call_tool(
                    "remember",
                    {"messages": [{"role": "user", "content": "I moved to Shanghai"}], "user_id": "u1"},
                )
            )
            assert [i["action"] for i in moved["items"]] == ["supersede"]
            shanghai = moved["changed"][0]
            assert shanghai != beijing

            hits = data(await c.call_tool("recall", {"query": "Shanghai", "user_id": "u1", "limit": 5}))
            assert hits["memories"][0]["id"] == shanghai
            assert "Shanghai" in hits["memories"][0]["text"]
            assert beijing not in {m["id"] for m in hits["memories"]}  # superseded: not recalled
            assert hits["memories"][0]["created_at"]

            ctx = await c.call_tool(
                "get_context", {"query": "Shanghai", "user_id": "u1", "budget_tokens": 200}
            )
            assert not ctx.is_error
            assert "Shanghai" in ctx.content[0].text

            hist = data(await c.call_tool("memory_history", {"memory_id": shanghai, "user_id": "u1"}))
            texts = [v["text"] for v in hist["versions"]]
            assert any("Beijing" in t for t in texts) and "Shanghai" in texts[-1]
            assert {"active", "superseded"} <= {v["status"] for v in hist["versions"]}
            assert texts.index(next(t for t in texts if "Beijing" in t)) < len(texts) - 1  # older first

            pref = data(
                await c.call_tool("remember", {"text": "I prefer green tea over coffee", "user_id": "u1"})
            )
            tea = pref["stored"][0]
            res = await c.read_resource("memscribe://users/u1/profile")
            profile = json.loads(res.contents[0].text)
            assert profile["user_id"] == "u1"
            by_id = {m["id"]: m for m in profile["memories"]}
            assert by_id[tea]["kind"] == "preference" and "green tea" in by_id[tea]["text"]
            assert beijing not in by_id  # only active memories
            other = json.loads((await c.read_resource("memscribe://users/u2/profile")).contents[0].text)
            assert other["memories"] == []

            gone = data(await c.call_tool("forget_memory", {"memory_id": shanghai, "user_id": "u1"}))
            assert gone == {"memory_id": shanghai, "deleted": True, "status": "deleted", "version": 2}
            after = data(await c.call_tool("recall", {"query": "Shanghai", "user_id": "u1"}))
            assert shanghai not in {m["id"] for m in after["memories"]}
            hist = data(await c.call_tool("memory_history", {"memory_id": shanghai}))
            assert hist["versions"][-1]["status"] == "deleted"

    anyio.run(main)


def test_scoped_ids_and_default_user(amem):
    """A memory of another user is refused as not found; the default user applies to calls without one."""
    server = create_mcp_server(amem, default_user_id="alice", allow_any_user=True)

    async def main() -> None:
        async with Client(server) as c:
            mine = data(await c.call_tool("remember", {"text": "My favourite editor is Vim"}))
            assert mine["user_id"] == "alice"
            alice_mem = mine["stored"][0]
            bobs = data(
                await c.call_tool("remember", {"text": "My favourite editor is Emacs", "user_id": "bob"})
            )
            bob_mem = bobs["stored"][0]

            # the default user (alice) may not delete or read bob's memory, nor may an explicit other user;
            # the refusal reads exactly like an unknown id, so ids of other users are not confirmed
            unknown = error_text(await c.call_tool("forget_memory", {"memory_id": "mem_nope"}))
            for args in ({"memory_id": bob_mem}, {"memory_id": alice_mem, "user_id": "bob"}):
                msg = error_text(await c.call_tool("forget_memory", args))
                assert "NotFoundError" in msg
                assert msg.replace(args["memory_id"], "ID") == unknown.replace("mem_nope", "ID").replace(
                    "'alice'", repr(args.get("user_id", "alice"))
                )
                assert "NotFoundError" in error_text(await c.call_tool("memory_history", args))
            assert data(await c.call_tool("recall", {"query": "Emacs", "user_id": "bob"}))["memories"]
            assert data(await c.call_tool("recall", {"query": "Vim"}))["memories"][0]["id"] == alice_mem
            # alice's recall never sees bob's memory
            assert bob_mem not in {
                m["id"] for m in data(await c.call_tool("recall", {"query": "Emacs"}))["memories"]
            }

            assert data(await c.call_tool("forget_memory", {"memory_id": bob_mem, "user_id": "bob"}))[
                "deleted"
            ]

    anyio.run(main)


def test_bad_arguments_are_tool_errors_and_the_server_lives_on(amem):
    server = create_mcp_server(amem)  # no default user

    async def main() -> None:
        async with Client(server) as c:
            cases = [
                ("recall", {"query": "", "user_id": "u1"}, "InputError"),
                ("recall", {"query": "tea", "user_id": "u1", "limit": 0}, "InputError"),
                ("recall", {"query": "tea", "user_id": "u1", "limit": "many"}, "limit"),
                ("recall", {"query": "tea"}, "MissingScopeError"),
                ("remember", {"user_id": "u1"}, "exactly one of"),
                ("remember", {"text": "  ", "user_id": "u1"}, "EmptyMessageError"),
                (
                    "remember",
                    {"text": "hello there", "user_id": "u1", "at": "not a time"},
                    "InvalidTimeError",
                ),
                ("get_context", {"query": "tea", "user_id": "u1", "budget_tokens": -5}, "InputError"),
                ("forget_memory", {"memory_id": "mem_does_not_exist"}, "NotFoundError"),
                ("memory_history", {"memory_id": ""}, "InputError"),
            ]
            for tool, args, expected in cases:
                msg = error_text(await c.call_tool(tool, args))
                assert expected in msg, (tool, args, msg)
            with pytest.raises(MCPError) as bad_uri:
                await c.read_resource("memscribe://users/" + "x" * 300 + "/profile")
            assert bad_uri.value.code == INVALID_PARAMS and "InputError" in bad_uri.value.message
            # still serving, and nothing was written by the failed calls
            ok = data(await c.call_tool("remember", {"text": "I prefer green tea", "user_id": "u1"}))
            assert len(ok["stored"]) == 1
            assert len(amem.sync.list(user_id="u1", status=None)) == 1

    anyio.run(main)


def test_a_default_user_locks_the_scope(amem):
    """`--user alice`: every tool, the profile template and the prompt refuse another user with a clear
    error; nothing is written for that user. `--allow-any-user` lifts the lock (the test above)."""
    server = create_mcp_server(amem, default_user_id="alice")

    async def main() -> None:
        async with Client(server) as c:
            mine = data(await c.call_tool("remember", {"text": "My favourite editor is Vim"}))["stored"][0]
            same = data(await c.call_tool("recall", {"query": "editor", "user_id": "alice"}))
            assert same["memories"][0]["id"] == mine  # naming the server's own user is fine
            for tool, args in [
                ("remember", {"text": "My favourite editor is Emacs", "user_id": "bob"}),
                ("recall", {"query": "editor", "user_id": "bob"}),
                ("get_context", {"query": "editor", "user_id": "bob"}),
                ("forget_memory", {"memory_id": mine, "user_id": "bob"}),
                ("memory_history", {"memory_id": mine, "user_id": "bob"}),
            ]:
                msg = error_text(await c.call_tool(tool, args))
                assert "ScopeLockedError:" in msg, (tool, msg)
                assert "'alice'" in msg and "'bob'" in msg and "--allow-any-user" in msg
            with pytest.raises(MCPError) as other:
                await c.read_resource("memscribe://users/bob/profile")
            assert other.value.code == INVALID_PARAMS and "ScopeLockedError" in other.value.message
            with pytest.raises(MCPError) as prompt:
                await c.get_prompt("memory_context", {"query": "editor", "user_id": "bob"})
            assert "ScopeLockedError" in prompt.value.message
            assert amem.sync.list(user_id="bob", status=None) == []
            assert [r.id for r in amem.sync.list(user_id="alice")] == [mine]  # forget was refused

    anyio.run(main)


def test_remember_lists_each_decision_once(amem):
    """A dropped message is one item with its reasons, not repeated in a second list."""
    server = create_mcp_server(amem, default_user_id="u1")

    async def main() -> None:
        async with Client(server) as c:
            msgs = [
                {"role": "user", "content": "ok thanks"},
                {"role": "user", "content": "I am allergic to peanuts"},
            ]
            out = data(await c.call_tool("remember", {"messages": msgs}))
            assert set(out) == {"user_id", "stored", "changed", "items", "counts"}
            assert [i["action"] for i in out["items"]] == ["drop", "add"]
            assert out["items"][0]["reasons"] and out["counts"] == {"drop": 1, "add": 1}

    anyio.run(main)


def _env() -> dict[str, str]:
    # the SDK starts the server with a minimal environment: pass PYTHONPATH on so that a worktree's
    # source (not whatever the venv has installed) is what runs
    extra = {"PYTHONPATH": os.environ["PYTHONPATH"]} if os.environ.get("PYTHONPATH") else {}
    return {"OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1", **extra}


def test_stdio_round_trip(tmp_path):
    """`memscribe mcp --home <tmp> --user alice` spawned as a real subprocess, spoken to over stdio."""
    params = StdioServerParameters(
        command=str(MEMSCRIBE_BIN),
        args=["mcp", "--home", str(tmp_path / "store"), "--user", "alice"],
        env=_env(),
    )
    errlog = (tmp_path / "stderr.log").open("w")

    async def main() -> None:
        with anyio.fail_after(60):
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as s:
                init = await s.initialize()
                assert init.server_info.name == "memscribe"
                assert {t.name for t in (await s.list_tools()).tools} >= {"remember", "recall"}

                stored = data(await s.call_tool("remember", {"text": "I prefer green tea over coffee"}))
                tea = stored["stored"][0]
                hits = data(await s.call_tool("recall", {"query": "what do I drink", "limit": 3}))
                assert hits["user_id"] == "alice" and hits["memories"][0]["id"] == tea

                bad = await s.call_tool("recall", {"query": "   "})
                assert "InputError" in error_text(bad)

                ctx = await s.call_tool("get_context", {"query": "tea"})
                assert "green tea" in ctx.content[0].text  # the server survived the bad call

                prof = await s.read_resource("memscribe://users/alice/profile")
                assert tea in {m["id"] for m in json.loads(prof.contents[0].text)["memories"]}

                gone = data(await s.call_tool("forget_memory", {"memory_id": tea}))
                assert gone["deleted"]
                assert data(await s.call_tool("recall", {"query": "green tea"}))["memories"] == []

    try:
        anyio.run(main)
    finally:
        errlog.close()
    log = (tmp_path / "stderr.log").read_text()
    assert "Traceback" not in log, log


def test_stdio_client_sees_annotations_profile_and_prompt(tmp_path):
    """The acceptance check of issue 21: the official SDK's stdio client, against `memscribe mcp --user alice`
    run as a real subprocess *without* `--home`, sees annotations on every tool, alice's profile in
    resources/list and the memory_context prompt; the store lands in the user data directory
    ($XDG_DATA_HOME/memscribe here), not in the directory the client started the server in."""
    data_home, cwd = tmp_path / "data", tmp_path / "client-cwd"
    cwd.mkdir()
    env = {**_env(), "HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(data_home)}
    params = StdioServerParameters(
        command=str(MEMSCRIBE_BIN), args=["mcp", "--user", "alice"], env=env, cwd=str(cwd)
    )
    errlog = (tmp_path / "stderr.log").open("w")

    async def main() -> None:
        with anyio.fail_after(60):
            async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                tools = {t.name: t for t in (await s.list_tools()).tools}
                assert set(tools) == {"remember", "recall", "get_context", "forget_memory", "memory_history"}
                for name, tool in tools.items():
                    a = tool.annotations
                    assert a is not None and a.title, name
                    assert None not in (a.read_only_hint, a.destructive_hint, a.idempotent_hint), name
                    assert a.open_world_hint is False, name
                readers = {n for n, t in tools.items() if t.annotations.read_only_hint}
                assert readers == {"recall", "get_context", "memory_history"}
                assert tools["forget_memory"].annotations.destructive_hint is True
                assert tools["remember"].annotations.destructive_hint is False

                stored = data(await s.call_tool("remember", {"text": "I prefer green tea over coffee"}))
                tea = stored["stored"][0]
                listed = {str(r.uri): r for r in (await s.list_resources()).resources}
                assert "memscribe://users/alice/profile" in listed
                assert listed["memscribe://users/alice/profile"].mime_type == "application/json"
                body = await s.read_resource("memscribe://users/alice/profile")
                assert tea in {m["id"] for m in json.loads(body.contents[0].text)["memories"]}
                templates = (await s.list_resource_templates()).resource_templates
                assert [t.uri_template for t in templates] == ["memscribe://users/{user_id}/profile"]

                prompts = {p.name: p for p in (await s.list_prompts()).prompts}
                assert {a.name for a in prompts["memory_context"].arguments} >= {"query"}
                got = await s.get_prompt("memory_context", {"query": "what do I drink"})
                text = got.messages[0].content.text
                assert got.messages[0].role == "user" and "green tea" in text and "what do I drink" in text

                locked = await s.call_tool("recall", {"query": "tea", "user_id": "bob"})
                assert "ScopeLockedError:" in error_text(locked)

    try:
        anyio.run(main)
    finally:
        errlog.close()
    log = (tmp_path / "stderr.log").read_text()
    assert "Traceback" not in log, log
    assert (data_home / "memscribe" / "memscribe.db").is_file()
    assert list(cwd.iterdir()) == []


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http_mounted_under_mcp(amem):
    """The recipe the REST server uses: the streamable-HTTP app mounted at /mcp inside a parent ASGI app
    whose lifespan runs the session manager."""
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Mount, Route

    server = create_mcp_server(amem, default_user_id="carol")
    mcp_app = server.streamable_http_app(streamable_http_path="/")

    @asynccontextmanager
    async def lifespan(app):  # type: ignore[no-untyped-def]
        async with server.session_manager.run():
            yield

    async def health(request):  # type: ignore[no-untyped-def]
        return PlainTextResponse("ok")

    parent = Starlette(routes=[Route("/health", health), Mount("/mcp", app=mcp_app)], lifespan=lifespan)
    port = _free_port()
    uv = uvicorn.Server(uvicorn.Config(parent, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=uv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not uv.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)

    async def main() -> None:
        with anyio.fail_after(30):
            async with Client(f"http://127.0.0.1:{port}/mcp/") as c:
                stored = data(await c.call_tool("remember", {"text": "I prefer oolong tea"}))
                hits = data(await c.call_tool("recall", {"query": "oolong"}))
                assert hits["user_id"] == "carol" and hits["memories"][0]["id"] == stored["stored"][0]
                assert "NotFoundError" in error_text(
                    await c.call_tool("memory_history", {"memory_id": "nope"})
                )

    try:
        anyio.run(main)
    finally:
        uv.should_exit = True
        thread.join(timeout=10)


def test_reveal_is_a_tool_only_when_allowed_and_every_call_is_audited(amem):
    """No MCP tool returns a vaulted value unless the server was built with allow_reveal (``memscribe mcp
    --allow-reveal``); then reveal_memory returns the sealed value to the user it belongs to, and the
    audit trail records the reveal (who, why) without the value."""
    address = "Deliver my parcels to 1600 Amphitheatre Parkway, Mountain View, CA 94043."

    async def main() -> None:
        async with Client(create_mcp_server(amem)) as c:
            assert "reveal_memory" not in {t.name for t in (await c.list_tools()).tools}
            rep = data(await c.call_tool("remember", {"text": address, "user_id": "u1"}))
        mid = next(i["memory_id"] for i in rep["items"] if i["memory_id"])
        rec = await amem.get(mid)
        assert "Amphitheatre" not in rec.text  # sealed at write time
        async with Client(create_mcp_server(amem, allow_reveal=True)) as c:
            tool = {t.name: t for t in (await c.list_tools()).tools}["reveal_memory"]
            assert tool.annotations.read_only_hint is True
            got = data(
                await c.call_tool(
                    "reveal_memory", {"memory_id": mid, "reason": "delivery form", "user_id": "u1"}
                )
            )
            assert any("1600 Amphitheatre Parkway" in v for v in got["values"].values())
            other = await c.call_tool("reveal_memory", {"memory_id": mid, "reason": "x", "user_id": "u2"})
            assert other.is_error  # another user's memory is not found, its values not shown
        events = [e for e in await amem.explain(mid) if e.action == "reveal"]
        assert (
            events
            and "mcp" in str(events[-1].model_dump())
            and "delivery form" in str(events[-1].model_dump())
        )
        assert "Amphitheatre" not in str([e.model_dump() for e in events])

    anyio.run(main)

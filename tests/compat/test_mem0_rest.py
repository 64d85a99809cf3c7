"""Mem0's OSS REST server routes (mem0ai/mem0 ``server/main.py``), served by memscribe, over HTTP.

The requests are those a client of Mem0's server sends (its request models: ``MemoryCreate``,
``SearchRequest``; ``PUT /memories/{id}``; ``DELETE /memories?user_id=``; ``POST /reset``), with the key
as Mem0's platform clients send it: ``Authorization: Token <key>``. Both tenancy modes run.
"""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from memscribe.config import Settings
from memscribe.interfaces.server import create_app
from memscribe.interfaces.server.keys import KeyStore, keys_path

MESSAGES = [
    {"role": "user", "content": "I'm planning to watch a movie tonight. Any recommendations?"},
    {"role": "assistant", "content": "How about a thriller movies? They can be quite engaging."},
    {"role": "user", "content": "I'm not a big fan of thriller movies but I love sci-fi movies."},
]


@pytest.fixture(scope="module", params=["folders", "prefix"])
def server(request, tmp_path_factory):
    home = tmp_path_factory.mktemp(f"mem0-{request.param}")
    s = Settings(home=home)
    s = s.model_copy(update={"server": s.server.model_copy(update={"tenancy": request.param})})
    ks = KeyStore(keys_path(s))
    _, ka = ks.create("acme")
    _, kb = ks.create("globex")
    with TestClient(create_app(s), raise_server_exceptions=False) as c:
        yield c, {"Authorization": f"Token {ka}"}, {"Authorization": f"Token {kb}"}


def test_the_mem0_server_walkthrough(server):
    c, A, _ = server
    r = c.post(
        "/memories", json={"messages": MESSAGES, "user_id": "alice", "metadata": {"cat": "movies"}}, headers=A
    )
    assert r.status_code == 200, r.text
    added = r.json()["results"]
    assert added and {x["event"] for x in added} == {"ADD"}
    assert all(x["metadata"] == {"cat": "movies"} for x in added)

    listed = c.get("/memories", params={"user_id": "alice"}, headers=A).json()["results"]
    assert {x["id"] for x in listed} == {x["id"] for x in added}
    assert all(x["user_id"] == "alice" for x in listed)  # no tenant prefix leaks out

    mid = listed[0]["id"]
    one = c.get(f"/memories/{mid}", headers=A).json()
    assert one["id"] == mid and one["memory"] == listed[0]["memory"]

    found = c.post("/search", json={"query": "Which movies do I love?", "user_id": "alice"}, headers=A).json()
    assert "sci-fi" in found["results"][0]["memory"].lower() and "score" in found["results"][0]
    narrowed = c.post(
        "/search",
        json={"query": "movies", "filters": {"user_id": "alice", "cat": {"ne": "movies"}}},
        headers=A,
    ).json()
    assert narrowed == {"results": []}

    r = c.put(f"/memories/{mid}", json={"text": "I love documentaries."}, headers=A)
    assert r.json() == {"message": "Memory updated successfully!"}
    hist = c.get(f"/memories/{mid}/history", headers=A).json()
    assert [h["event"] for h in hist] == ["ADD", "UPDATE"] and hist[-1][
        "new_memory"
    ] == "I love documentaries."

    assert c.delete(f"/memories/{mid}", headers=A).json() == {"message": "Memory deleted successfully"}
    assert c.get(f"/memories/{mid}", headers=A).status_code == 404
    # soft: the memscribe routes can bring it back
    assert c.post(f"/v1/memories/{mid}/restore", headers=A).status_code == 200
    assert c.get(f"/memories/{mid}", headers=A).json()["memory"] == "I love documentaries."

    assert c.delete("/memories", params={"user_id": "alice"}, headers=A).status_code == 200
    assert c.get("/memories", params={"user_id": "alice"}, headers=A).json() == {"results": []}
    assert c.post("/reset", headers=A).json() == {"message": "All memories reset"}
    assert c.get(f"/v1/memories/{mid}", headers=A).status_code == 404  # reset erases for real


def test_raw_agent_and_run_memories(server):
    c, A, _ = server
    body = {
        "messages": [{"role": "user", "content": "ok"}],
        "agent_id": "bot",
        "run_id": "r1",
        "infer": False,
    }
    added = c.post("/memories", json=body, headers=A).json()["results"]
    assert [(x["memory"], x["role"]) for x in added] == [("ok", "user")]
    got = c.get("/memories", params={"agent_id": "bot", "run_id": "r1"}, headers=A).json()["results"]
    assert [(x["memory"], x["agent_id"], x["run_id"]) for x in got] == [("ok", "bot", "r1")]
    assert "user_id" not in got[0]
    c.delete("/memories", params={"agent_id": "bot"}, headers=A)


def test_tenants_are_isolated_and_errors_are_typed(server):
    c, A, B = server
    mid = c.post(
        "/memories",
        json={"messages": [{"role": "user", "content": "I am Alice."}], "user_id": "u", "infer": False},
        headers=A,
    ).json()["results"][0]["id"]
    assert c.get(f"/memories/{mid}", headers=B).status_code == 404
    assert c.put(f"/memories/{mid}", json={"text": "x"}, headers=B).status_code == 404
    assert c.get(f"/memories/{mid}/history", headers=B).status_code == 404
    assert c.delete(f"/memories/{mid}", headers=B).status_code == 404
    c.post("/reset", headers=B)  # another tenant's reset never reaches this one
    assert c.get(f"/memories/{mid}", headers=A).status_code == 200
    # Mem0's server answers 400 without an id; memscribe's typed error is 422 with its JSON body
    r = c.get("/memories", headers=A)
    assert r.status_code == 422 and r.json()["error"]["type"] == "invalid_input"
    r = c.post(
        "/memories",
        json={"messages": [{"role": "user", "content": "x"}], "user_id": "u", "extra": 1},
        headers=A,
    )
    assert r.status_code == 422
    assert c.get("/memories", params={"user_id": "u", "colour": "red"}, headers=A).status_code == 422
    assert c.post("/configure", json={}, headers=A).status_code in (404, 405)  # the operator configures
    assert c.get("/memories", params={"user_id": "u"}).status_code == 401
    assert (
        c.get("/memories", params={"user_id": "u"}, headers={"Authorization": "Token nope"}).status_code
        == 401
    )


def test_token_scheme_works_on_the_memscribe_routes_too(server):
    c, A, _ = server
    assert c.get("/v1/users", headers=A).status_code == 200
    assert c.get("/v1/users", headers={"Authorization": "Token "}).status_code == 401
    assert c.get("/v1/users", headers={"Authorization": "Basic abc"}).status_code == 401

"""REST parity with the Python API (issue #20): metadata / entities filters, a total and an opaque cursor
for listing, 422 on unknown query parameters, and a /docs page that needs no network."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from memscribe.config import Settings
from memscribe.interfaces.server import create_app
from memscribe.interfaces.server.keys import KeyStore, keys_path


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    home = tmp_path_factory.mktemp("parity")
    s = Settings(home=home)
    _, key = KeyStore(keys_path(s)).create("acme")
    with TestClient(create_app(s), raise_server_exceptions=False) as c:
        H = {"Authorization": f"Bearer {key}"}
        for i, (text, topic, agent) in enumerate(
            [
                ("I moved to Denver in March.", "home", "a1"),
                ("我每周三去游泳。", "sport", "a2"),
                ("My sister Ana lives in Lisbon.", "family", "a1"),
                ("I prefer window seats on flights.", "travel", None),
                ("我对花生过敏。", "health", None),
            ]
        ):
            body = {"messages": text, "user_id": "u1", "metadata": {"topic": topic, "n": i}, "verbatim": True}
            if agent:
                body["agent_id"] = agent
            assert c.post("/v1/memories", json=body, headers=H).status_code == 200
        yield c, H


def test_search_and_context_filter_by_metadata_and_entities(api):
    c, H = api
    hits = c.post(
        "/v1/search",
        json={"query": "where do people live", "user_id": "u1", "filters": {"metadata": {"topic": "family"}}},
        headers=H,
    ).json()["hits"]
    assert [h["memory"]["metadata"]["topic"] for h in hits] == ["family"]
    hits = c.post(
        "/v1/search",
        json={"query": "where did I move", "user_id": "u1", "filters": {"entities": ["Denver"]}},
        headers=H,
    ).json()["hits"]
    assert hits and all("Denver" in h["memory"]["text"] for h in hits)
    ctx = c.post(
        "/v1/context",
        json={"query": "游泳", "user_id": "u1", "filters": {"metadata": {"topic": "health"}}},
        headers=H,
    ).json()
    assert "游泳" not in ctx["text"]
    r = c.post(
        "/v1/search", json={"query": "x", "user_id": "u1", "filters": {"metadata": "topic"}}, headers=H
    )
    assert r.status_code == 422


def test_listing_has_a_total_and_an_opaque_cursor(api):
    c, H = api
    seen, cursor, pages = [], None, 0
    while True:
        params = {"user_id": "u1", "limit": 2, **({"cursor": cursor} if cursor else {})}
        page = c.get("/v1/memories", params=params, headers=H).json()
        assert page["total"] == 5 and page["count"] == len(page["items"]) <= 2
        seen += [m["id"] for m in page["items"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert pages == 3 and len(set(seen)) == 5
    # a cursor is bound to its query
    first = c.get("/v1/memories", params={"user_id": "u1", "limit": 2}, headers=H).json()
    r = c.get(
        "/v1/memories",
        params={"user_id": "u1", "limit": 2, "agent_id": "a1", "cursor": first["next_cursor"]},
        headers=H,
    )
    assert r.status_code == 404  # a cursor of another query names no page of this one
    assert c.get("/v1/memories", params={"user_id": "u1", "cursor": "garbage!"}, headers=H).status_code == 422
    assert (
        c.get("/v1/memories", params={"user_id": "u1", "cursor": "Z2FyYmFnZQ"}, headers=H).status_code == 404
    )


def test_listing_filters_by_agent_session_metadata_and_entities(api):
    c, H = api
    page = c.get("/v1/memories", params={"user_id": "u1", "agent_id": "a1"}, headers=H).json()
    assert page["total"] == 2 and {m["agent_id"] for m in page["items"]} == {"a1"}
    page = c.get("/v1/memories", params={"user_id": "u1", "metadata": '{"topic": "sport"}'}, headers=H).json()
    assert [m["text"] for m in page["items"]] == ["我每周三去游泳。"]
    page = c.get("/v1/memories", params={"user_id": "u1", "entities": ["Lisbon"]}, headers=H).json()
    assert [m["metadata"]["topic"] for m in page["items"]] == ["family"]
    assert c.get("/v1/memories", params={"user_id": "u1", "metadata": "[1]"}, headers=H).status_code == 422


def test_unknown_query_parameters_are_refused(api):
    c, H = api
    r = c.get("/v1/memories", params={"user_id": "u1", "agentid": "nobody"}, headers=H)
    assert r.status_code == 422 and "agentid" in r.json()["error"]["message"]
    assert c.get("/v1/users", params={"page": "2"}, headers=H).status_code == 422
    assert c.get("/v1/stats", params={"user_id": "u1"}, headers=H).status_code == 200


def test_docs_render_with_no_network(api):
    c, _ = api
    r = c.get("/docs")
    assert r.status_code == 200 and "swagger-ui" in r.text.lower()
    assert not re.search(r"(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}", r.text, re.I), (
        "the page references a remote host"
    )
    assets = re.findall(r'(?:src|href)="([^"]+)"', r.text)
    assert {"/docs/static/swagger-ui-bundle.js", "/docs/static/swagger-ui.css"} <= set(assets)
    for url in assets:
        asset = c.get(url)
        assert asset.status_code == 200 and len(asset.content) > 500, url
    js = c.get("/docs/static/swagger-ui-bundle.js")
    assert "javascript" in js.headers["content-type"]
    spec = c.get("/openapi.json").json()
    assert "/memories" in spec["paths"] and "/v1/memories" in spec["paths"] and "/search" in spec["paths"]

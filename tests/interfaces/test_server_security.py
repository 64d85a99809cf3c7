"""Issue #19 over the real app (real SQLite stores, bundled embedder, FastAPI TestClient): key scopes,
/metrics behind a key or token, the audited reveal route, login CSRF, server-side UI sessions, user ids
with '/' in the UI, and typed 422s for lone surrogates and control characters."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from memscribe.config import Settings
from memscribe.interfaces.server import create_app
from memscribe.interfaces.server.keys import KeyStore, keys_path

ADDRESS = "以后下单都寄这个地址：上海市浦东新区张江路123号5栋201室"
STREET = "张江路123号"


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _csrf(html: str) -> str:
    return html.split('name="csrf" value="')[1].split('"')[0]


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    home = tmp_path_factory.mktemp("sec")
    s = Settings(home=home)
    s = s.model_copy(update={"server": s.server.model_copy(update={"metrics_token": "op-secret-token"})})
    ks = KeyStore(keys_path(s))
    keys = {
        "rw": ks.create("acme")[1],  # the default scopes: read, write
        "ro": ks.create("acme", scopes=["read"])[1],
        "reveal": ks.create("acme", scopes=["read", "reveal"])[1],
        "admin": ks.create("acme", scopes=["admin"])[1],
        "other": ks.create("globex")[1],
    }
    with TestClient(create_app(s), raise_server_exceptions=False) as c:
        yield {"c": c, "keys": keys, "store": ks, "home": home}


def _add(c, token, text, user="u1"):
    r = c.post("/v1/memories", json={"messages": text, "user_id": user}, headers=_bearer(token))
    assert r.status_code == 200, r.text
    return r.json()


def _mid(rep) -> str:
    return next(i["memory_id"] for i in rep["items"] if i["memory_id"])


# ---------------------------------------------------------------------- scopes
def test_a_key_file_of_before_scopes_keeps_read_and_write(tmp_path) -> None:
    path = tmp_path / "keys.json"
    ks = KeyStore(path)
    _, token = ks.create("acme")
    data = json.loads(path.read_text())
    for k in data["keys"]:
        del k["scopes"]  # what a key file written before scopes holds
    path.write_text(json.dumps(data))
    old = KeyStore(path).verify(token)
    assert old is not None and old.scopes == ("read", "write") and not old.allows("reveal")


def test_mcp_over_http_needs_read_and_write(srv) -> None:
    """The MCP tools write as well as read: a read-only (or reveal-only) key is refused at /mcp, before any
    tool can run; a read + write key gets through to the MCP app."""
    c, k = srv["c"], srv["keys"]
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    for who in ("ro", "reveal", "admin"):
        r = c.post("/mcp", json=hello, headers={**_bearer(k[who]), **accept})
        assert r.status_code == 403 and r.json()["error"]["type"] == "forbidden", (who, r.text)
    r = c.post("/mcp", json=hello, headers={**_bearer(k["rw"]), **accept})
    assert r.status_code not in (401, 403), r.text


def test_each_route_checks_its_scope(srv) -> None:
    c, k = srv["c"], srv["keys"]
    mid = _mid(_add(c, k["rw"], "I prefer window seats on long flights."))
    ro, adm = _bearer(k["ro"]), _bearer(k["admin"])
    assert c.get(f"/v1/memories/{mid}", headers=ro).status_code == 200
    assert c.post("/v1/search", json={"query": "seat", "user_id": "u1"}, headers=ro).status_code == 200
    for method, path, body in [
        ("POST", "/v1/memories", {"messages": "I like tea.", "user_id": "u1"}),
        ("PATCH", f"/v1/memories/{mid}", {"text": "I prefer aisle seats."}),
        ("DELETE", f"/v1/memories/{mid}", None),
        ("POST", f"/v1/memories/{mid}/archive", None),
        ("DELETE", "/v1/users/u1", None),
        ("POST", "/v1/maintain", {}),
        ("POST", f"/v1/memories/{mid}/reveal", None),
    ]:
        r = c.request(method, path, json=body, headers=ro)
        assert r.status_code == 403 and r.json()["error"]["type"] == "forbidden", (method, path, r.text)
    # an admin-only key (for /metrics) reads no memory
    assert c.get(f"/v1/memories/{mid}", headers=adm).status_code == 403
    assert c.get(f"/v1/memories/{mid}", headers=_bearer(k["rw"])).json()["status"] == "active"


# ---------------------------------------------------------------------- /metrics
def test_metrics_need_a_key_or_the_token_and_show_no_tenant_names_publicly(srv) -> None:
    c, k = srv["c"], srv["keys"]
    _add(c, k["rw"], "I prefer oat milk.")
    _add(c, k["other"], "I prefer soy milk.")
    r = c.get("/metrics")
    assert r.status_code == 401 and "acme" not in r.text and "globex" not in r.text
    assert c.get("/metrics", headers=_bearer(k["rw"])).status_code == 403  # no admin scope
    assert c.get("/metrics", headers=_bearer("op-secret-tokeX")).status_code == 401
    op = c.get("/metrics", headers=_bearer("op-secret-token")).text
    assert 'tenant="acme"' in op and 'tenant="globex"' in op and "memscribe_http_requests_total" in op
    own = c.get("/metrics", headers={"X-API-Key": k["admin"]}).text
    assert 'tenant="acme"' in own and "globex" not in own


# ---------------------------------------------------------------------- reveal
def test_reveal_returns_the_vaulted_value_to_the_reveal_scope_and_audits_it(srv) -> None:
    c, k = srv["c"], srv["keys"]
    mid = _mid(_add(c, k["rw"], ADDRESS, user="buyer"))
    rec = c.get(f"/v1/memories/{mid}", headers=_bearer(k["rw"])).json()
    assert STREET not in rec["text"]  # sealed in the vault, a placeholder in the text
    assert c.post(f"/v1/memories/{mid}/reveal", headers=_bearer(k["rw"])).status_code == 403
    r = c.post(f"/v1/memories/{mid}/reveal", json={"reason": "ship order 77"}, headers=_bearer(k["reveal"]))
    assert r.status_code == 200, r.text
    values = r.json()["values"]
    assert any(STREET in v for v in values.values()), values
    # another tenant's key cannot reach it at all (404, no oracle)
    assert c.post(f"/v1/memories/{mid}/reveal", headers=_bearer(k["other"])).status_code in (403, 404)
    events = c.get(f"/v1/memories/{mid}/explain", headers=_bearer(k["rw"])).json()
    reveals = [e for e in events if e["stage"] == "vault" and e["action"] == "reveal"]
    assert len(reveals) == 1 and reveals[0]["reason"] == "ship order 77"
    assert reveals[0]["detail"]["labels"] == sorted(values) and "api key" in reveals[0]["detail"]["actor"]
    assert STREET not in json.dumps(events, ensure_ascii=False)  # the audit never holds the value


# ---------------------------------------------------------------------- login CSRF and sessions
def _login(c, token, **headers):
    page = c.get("/ui/login")
    return c.post(
        "/ui/login", data={"key": token, "csrf": _csrf(page.text)}, headers=headers, follow_redirects=False
    )


def test_login_needs_the_token_bound_to_the_pre_session_cookie(srv) -> None:
    c, k = srv["c"], srv["keys"]
    c.cookies.clear()
    # another site's page posting the attacker's key: no pre-session cookie / token of this browser
    r = c.post("/ui/login", data={"key": k["other"]}, follow_redirects=False)
    assert r.status_code == 403 and "memscribe_session" not in r.headers.get("set-cookie", "")
    page = c.get("/ui/login")
    token = _csrf(page.text)
    c.cookies.clear()  # a token without its cookie (lifted from another browser) does not work
    r = c.post("/ui/login", data={"key": k["other"], "csrf": token}, follow_redirects=False)
    assert r.status_code == 403
    # the right cookie and token, but posted from another origin
    r = _login(c, k["other"], Origin="https://evil.example")
    assert r.status_code == 403 and "memscribe_session" not in r.headers.get("set-cookie", "")
    r = _login(c, k["other"], **{"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403


def test_the_ui_cookie_is_an_expiring_server_session_never_the_key(srv) -> None:
    c, k = srv["c"], srv["keys"]
    c.cookies.clear()
    r = _login(c, k["rw"])
    assert r.status_code == 303
    cookie = r.headers["set-cookie"]
    sid = c.cookies.get("memscribe_session")
    assert sid and k["rw"] not in cookie and k["rw"].split("_")[2] not in cookie
    low = cookie.lower()
    assert "httponly" in low and "samesite=strict" in low and "max-age=" in low and "path=/ui" in low
    assert "secure" not in low  # plain http here; https below
    assert c.get("/ui/").status_code == 200
    # logout revokes the session on the server: the old id, replayed, is refused
    page = c.get("/ui/")
    assert c.post("/ui/logout", data={"csrf": _csrf(page.text)}, follow_redirects=False).status_code == 303
    r = c.get("/ui/", headers={"Cookie": f"memscribe_session={sid}"}, follow_redirects=False)
    assert r.status_code == 303 and "/ui/login" in r.headers["location"]


def test_sessions_expire_and_die_with_their_key(srv) -> None:
    c, k, store = srv["c"], srv["keys"], srv["store"]
    sessions = c.app.state.memscribe.sessions
    c.cookies.clear()
    key, token = store.create("acme", name="short-lived")
    assert _login(c, token).status_code == 303
    assert c.get("/ui/", follow_redirects=False).status_code == 200
    store.revoke(key.id)
    assert c.get("/ui/", follow_redirects=False).status_code == 303  # revoked key: session over
    c.cookies.clear()
    assert _login(c, k["rw"]).status_code == 303
    sid = c.cookies.get("memscribe_session")
    clock, sessions._clock = sessions._clock, lambda: clock() + sessions.ttl_s + 1
    try:
        assert sessions.get(sid) is None
        assert c.get("/ui/", follow_redirects=False).status_code == 303
    finally:
        sessions._clock = clock


def test_the_session_cookie_is_secure_behind_tls(srv) -> None:
    c, k = srv["c"], srv["keys"]
    tls = TestClient(c.app, base_url="https://testserver")
    page = tls.get("/ui/login")
    assert "secure" in page.headers["set-cookie"].lower()
    r = tls.post("/ui/login", data={"key": k["rw"], "csrf": _csrf(page.text)}, follow_redirects=False)
    assert r.status_code == 303 and "secure" in r.headers["set-cookie"].lower()


def test_a_read_only_key_browses_the_ui_but_cannot_change_memory(srv) -> None:
    c, k = srv["c"], srv["keys"]
    mid = _mid(_add(c, k["rw"], "I prefer jasmine tea in the evening.", user="tea"))
    c.cookies.clear()
    assert _login(c, k["ro"]).status_code == 303
    page = c.get(f"/ui/memories/{mid}")
    assert page.status_code == 200
    r = c.post(f"/ui/memories/{mid}/archive", data={"csrf": _csrf(page.text)}, follow_redirects=False)
    assert r.status_code == 403
    assert c.get(f"/v1/memories/{mid}", headers=_bearer(k["rw"])).json()["status"] == "active"


# ---------------------------------------------------------------------- the UI and its inputs
def test_the_ui_serves_user_ids_with_a_slash_and_caps_edits_like_the_api(srv) -> None:
    c, k = srv["c"], srv["keys"]
    mid = _mid(_add(c, k["rw"], "I prefer the window seat on trains.", user="team/ann"))
    c.cookies.clear()
    assert _login(c, k["rw"]).status_code == 303
    r = c.get("/ui/users/team/ann")
    assert r.status_code == 200 and "window seat" in r.text
    r = c.get("/ui/users/", params={"user": "team/ann"})  # the jump box
    assert r.status_code == 200 and "window seat" in r.text
    page = c.get(f"/ui/memories/{mid}")
    big = "靠窗" * 20_000  # 40000 characters: over the one text cap (the API's and update()'s)
    r = c.post(
        f"/ui/memories/{mid}/edit", data={"csrf": _csrf(page.text), "text": big}, follow_redirects=False
    )
    assert r.status_code == 413
    assert "window seat" in c.get(f"/v1/memories/{mid}", headers=_bearer(k["rw"])).json()["text"]


@pytest.mark.parametrize(
    "body",
    [
        {"messages": "I like tea", "user_id": "u1", "metadata": {"k": "v\ud800"}},  # was a 500
        {"messages": "I like tea", "user_id": "u1", "metadata": {"k\udc00": 1}},
        {"messages": "I like tea", "user_id": "u1", "session_id": "s\u0000"},
        {"messages": "I like tea", "user_id": "u1", "agent_id": "a" * 1_000},
        {"messages": "I like tea\u0007", "user_id": "u1"},
        {"messages": [{"content": "I like tea", "name": "n" * 200}], "user_id": "u1"},
        {"messages": "I like tea", "user_id": "u\ud83d"},
    ],
)
def test_rest_refuses_bad_text_fields_with_a_typed_422(srv, body) -> None:
    c, k = srv["c"], srv["keys"]
    raw = json.dumps(body)  # \\u escapes: lone surrogates travel as JSON allows
    r = c.post("/v1/memories", content=raw, headers={**_bearer(k["rw"]), "Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.json()["error"]["type"] in ("invalid_request", "invalid_input")


def test_integer_valued_floats_are_integers(srv) -> None:
    c, k = srv["c"], srv["keys"]
    r = c.post("/v1/search", json={"query": "tea", "user_id": "u1", "limit": 3.0}, headers=_bearer(k["rw"]))
    assert r.status_code == 200
    r = c.post("/v1/search", json={"query": "tea", "user_id": "u1", "limit": 3.5}, headers=_bearer(k["rw"]))
    assert r.status_code == 422


def test_keys_create_takes_scopes(tmp_path) -> None:
    from typer.testing import CliRunner

    from memscribe.interfaces.cli import app

    runner = CliRunner()
    res = runner.invoke(
        app, ["keys", "create", "-t", "acme", "-s", "read", "-s", "reveal", "--home", str(tmp_path)]
    )
    assert res.exit_code == 0, res.output
    token = res.stdout.strip().splitlines()[-1]
    key = KeyStore(keys_path(Settings(home=tmp_path))).verify(token)
    assert key is not None and key.scopes == ("read", "reveal")
    res = runner.invoke(app, ["keys", "create", "-t", "acme", "-s", "root", "--home", str(tmp_path)])
    assert res.exit_code == 2 and "root" in res.output
    res = runner.invoke(app, ["keys", "list", "--json", "--home", str(tmp_path)])
    assert json.loads(res.stdout)[0]["scopes"] == ["read", "reveal"]

"""The write pipeline with an OpenAI-compatible LLM configured: better encoding when it answers,
the rule encoder (and nothing lost) when it fails — the audit says which."""

from memscribe import Memory
from memscribe.config import LLMConfig, Settings, WriteConfig
from memscribe.testing.llm_server import ScriptedLLMServer


def _settings(tmp_path, url):
    return Settings(
        home=tmp_path,
        write=WriteConfig(verify="inline"),
        llm=LLMConfig(base_url=url, api_key="test", model="scripted", timeout_s=0.5, max_retries=1),
    )


def test_llm_encoding_is_used_when_the_endpoint_answers(tmp_path):
    script = [
        {"json": {"text": "用户将于2026-06-16 15:00参加项目评审会。"}},
        {
            "json": {
                "kind": "plan",
                "subject": "用户",
                "time_start": "2026-06-16T15:00:00+08:00",
                "time_end": "2026-06-16T16:00:00+08:00",
                "entities": ["项目评审会"],
                "status": "pending",
                "negated": False,
                "slot": None,
                "value": None,
            }
        },
    ]
    with ScriptedLLMServer(script) as srv:
        mem = Memory(settings=_settings(tmp_path, srv.base_url))
        mem.add("下周二下午三点开项目评审会，记得提醒我。", user_id="u1", at="2026-06-08T10:00:00+08:00")
        rec = mem.list(user_id="u1")[0]
        assert rec.text == "用户将于2026-06-16 15:00参加项目评审会。"
        assert rec.time_start.isoformat() == "2026-06-16T15:00:00+08:00"
        assert any(e.stage == "encode" and e.action == "llm" for e in mem.explain(rec.id))
        assert len(srv.chat_requests) == 2
        mem.close()


def test_llm_failure_falls_back_to_rules_and_nothing_is_lost(tmp_path):
    with ScriptedLLMServer([{"status": 500}]) as srv:
        mem = Memory(settings=_settings(tmp_path, srv.base_url))
        rep = mem.add("I live in Boston with my partner.", user_id="u1", at="2026-01-05T10:00:00+00:00")
        assert rep.items[0].action == "add"
        rec = mem.list(user_id="u1")[0]
        assert rec.text == "The user lives in Boston with the user's partner."
        enc = next(e for e in mem.explain(rec.id) if e.stage == "encode")
        assert enc.action.startswith("rules(fallback")
        assert "llm failed" in enc.reason
        mem.close()


def test_llm_never_sees_a_sensitive_value(tmp_path):
    with ScriptedLLMServer([{"status": 500}]) as srv:
        mem = Memory(settings=_settings(tmp_path, srv.base_url))
        mem.add("我手机号是13812345678，我喜欢周末去钓鱼。", user_id="u1")
        sent = " ".join(str(r) for r in srv.chat_requests)
        assert "13812345678" not in sent and "钓鱼" in sent
        mem.close()


def test_the_write_report_names_the_encoder_and_the_fallback(tmp_path):
    """Python, REST and MCP write reports say which encoder wrote each memory and, when the configured LLM
    failed, why the rule encoder stood in (issue 21.4) — not only the audit trail and stderr."""
    import anyio
    import pytest

    from memscribe import AsyncMemory

    ok = [
        {"json": {"text": "The user prefers green tea."}},
        {"json": {"kind": "preference", "subject": "the user", "entities": ["green tea"]}},
    ]
    with ScriptedLLMServer([*ok, {"status": 500}]) as srv:
        mem = Memory(settings=_settings(tmp_path / "py", srv.base_url))
        good = mem.add("I prefer green tea.", user_id="u1")
        assert [(i.encoder, i.fallback) for i in good.items] == [("llm", None)] and good.fallbacks == []
        bad = mem.add("I live in Boston with my partner.", user_id="u1")
        item = bad.items[0]
        assert item.action == "add" and item.encoder == "rules"
        assert item.fallback.startswith("LLMError: ") and "500" in item.fallback
        assert bad.fallbacks == [item]
        dropped = mem.add("ok thanks", user_id="u1").items[0]
        assert dropped.action == "drop" and dropped.encoder is None and dropped.fallback is None
        mem.close()

    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from memscribe.interfaces.server import create_app
    from memscribe.interfaces.server.keys import KeyStore, keys_path

    with ScriptedLLMServer([{"status": 500}]) as srv:
        s = _settings(tmp_path / "rest", srv.base_url)
        _, key = KeyStore(keys_path(s)).create("acme")
        with TestClient(create_app(s)) as client:
            r = client.post(
                "/v1/memories",
                json={"messages": "I live in Boston with my partner.", "user_id": "u1"},
                headers={"Authorization": f"Bearer {key}"},
            )
        assert r.status_code == 200, r.text
        rest_item = r.json()["items"][0]
        assert rest_item["encoder"] == "rules" and rest_item["fallback"].startswith("LLMError: ")

    pytest.importorskip("mcp")
    from mcp import Client

    from memscribe.interfaces.mcp_server import create_mcp_server

    with ScriptedLLMServer([{"status": 500}]) as srv:
        amem = AsyncMemory(settings=_settings(tmp_path / "mcp", srv.base_url))

        async def main() -> dict:
            async with Client(create_mcp_server(amem, default_user_id="u1")) as c:
                res = await c.call_tool("remember", {"text": "I live in Boston with my partner."})
                assert not res.is_error, res.content[0].text
                return res.structured_content

        out = anyio.run(main)
        amem.sync.close()
        mcp_item = out["items"][0]
        assert mcp_item["encoder"] == "rules" and mcp_item["fallback"].startswith("LLMError: ")

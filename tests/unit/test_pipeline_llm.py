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

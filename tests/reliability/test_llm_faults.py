"""LLM faults on the write path, end to end through Memory.add: whatever the endpoint does (garbage,
truncated JSON, HTTP 500, a reply slower than the timeout, a reply that dribbles in slower than the
per-call timeout), the rule encoder takes over, nothing is lost, and the audit says why."""

from __future__ import annotations

import pytest

from memscribe import Memory
from memscribe.config import LLMConfig, Settings, WriteConfig
from memscribe.testing.llm_server import ScriptedLLMServer

GOOD = {"text": "LLM: the user lives in Boston with a partner."}
MSG = "I live in Boston with my partner."
RULE_TEXT = "The user lives in Boston with the user's partner."


def _memory(tmp_path, srv: ScriptedLLMServer, timeout_s: float = 0.5) -> Memory:
    return Memory(
        settings=Settings(
            home=tmp_path,
            write=WriteConfig(verify="inline"),
            llm=LLMConfig(
                base_url=srv.base_url, api_key="test", model="scripted", timeout_s=timeout_s, max_retries=1
            ),
        )
    )


FAULTS = {
    "garbage": ({"content": "Sure! Here is what I think about Boston..."}, "LLMError"),
    "truncated JSON": ({"content": '{"text": "The user lives in Bos'}, "LLMError"),
    "HTTP 500": ({"status": 500}, "LLMError"),
    "slower than the timeout": ({"delay": 1.5, "json": GOOD}, "ProviderTimeout"),
    "slow stream": ({"dribble": {"bytes": 4, "every_s": 0.1}, "json": GOOD}, "ProviderTimeout"),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_every_llm_fault_falls_back_to_rules_and_loses_nothing(tmp_path, fault) -> None:
    entry, why = FAULTS[fault]
    with ScriptedLLMServer([entry]) as srv:
        mem = _memory(tmp_path, srv)
        rep = mem.add(
            {"role": "user", "content": MSG, "id": "m1"}, user_id="u1", at="2026-01-05T10:00:00+00:00"
        )
        assert [i.action for i in rep.items] == ["add"]
        rec = mem.list(user_id="u1")[0]
        assert rec.text == RULE_TEXT and rec.source_ids == ["m1"]
        enc = next(e for e in mem.explain(rec.id) if e.stage == "encode")
        assert enc.action.startswith("rules(fallback")
        assert f"llm failed: {why}" in enc.reason, enc.reason  # the error class: timeout or failure
        assert len(srv.chat_requests) == 2  # retried once, then gave up
        assert mem.search("Where does the user live?", user_id="u1")[0].memory.id == rec.id
        mem.close()
        if fault == "slow stream":
            # the client hung up mid-body instead of waiting for the whole slow reply
            assert srv.aborted >= 1 and srv.completed == 0


def test_a_slow_stream_within_the_timeout_is_used(tmp_path) -> None:
    """Dribbling alone is not a fault: a reply that completes inside the per-call timeout is used."""
    script = [{"dribble": {"bytes": 64, "every_s": 0.02}, "json": GOOD}, {"json": {"kind": "fact"}}]
    with ScriptedLLMServer(script) as srv:
        mem = _memory(tmp_path, srv, timeout_s=5.0)
        mem.add(MSG, user_id="u1", at="2026-01-05T10:00:00+00:00")
        rec = mem.list(user_id="u1")[0]
        assert rec.text == GOOD["text"]
        assert any(e.stage == "encode" and e.action == "llm" for e in mem.explain(rec.id))
        mem.close()

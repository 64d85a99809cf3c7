"""Every reveal of vaulted values is audited — who, why, which placeholders — and the audit never holds
the values (issue #19), whichever interface asked (Python here; REST in tests/interfaces)."""

from __future__ import annotations

import json

from memscribe import Memory

ADDRESS = "以后下单都寄这个地址：上海市浦东新区张江路123号5栋201室"


def test_reveal_is_audited_without_the_value(tmp_path) -> None:
    mem = Memory(home=tmp_path)
    rep = mem.add(ADDRESS, user_id="u1")
    mid = next(i.memory_id for i in rep.items if i.memory_id)
    assert mem.explain(mid) and not [e for e in mem.explain(mid) if e.action == "reveal"]
    values = mem.reveal(mid, actor="courier-bot", reason="ship order 77")
    assert any("张江路" in v for v in values.values())
    mem.reveal(mid)
    events = [e for e in mem.explain(mid) if e.stage == "vault" and e.action == "reveal"]
    mem.close()
    assert [(e.reason, e.detail["actor"]) for e in events] == [
        ("ship order 77", "courier-bot"),
        ("vaulted values revealed", "user"),
    ]
    assert all(e.detail["labels"] == sorted(values) for e in events)
    assert "张江路" not in json.dumps([e.model_dump(mode="json") for e in events], ensure_ascii=False)

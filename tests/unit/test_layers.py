"""Session memory (recent turns + rolling summary) and working memory (task state with TTL)."""

from datetime import UTC, datetime, timedelta

from memscribe import Memory


def test_session_summary_keeps_negations_and_ids_across_restart(tmp_path):
    mem = Memory(home=tmp_path)
    turns = []
    for i in range(40):
        if i == 3:
            turns.append("给我推荐外套，但是不要红色的。")
        elif i == 7:
            turns.append("我的订单号是 ZX-88231，帮我查一下物流。")
        elif i % 5 == 0:
            turns.append("好的好的")
        else:
            turns.append(f"我们继续聊第{i}个话题，随便说说今天的天气和心情。")
    for i, t in enumerate(turns):
        mem.add(
            {"role": "user", "content": t, "id": f"t{i}"},
            user_id="u1",
            session_id="s1",
            at=datetime(2026, 5, 1, 9, tzinfo=UTC) + timedelta(minutes=i),
        )
    mem.close()
    again = Memory(home=tmp_path)  # persisted: survives a restart
    sess = again.session("s1", user_id="u1")
    assert len(sess.recent()) == 10
    summary = sess.summary()
    assert "不要红色" in summary
    assert "ZX-88231" in summary
    assert "好的好的" not in summary
    ctx = again.context("推荐一件外套", user_id="u1", session_id="s1", budget_tokens=600)
    assert ctx.tokens <= 600
    assert "session summary" in ctx.blocks and "recent turns" in ctx.blocks
    again.close()


def test_session_summary_in_english_keeps_not_and_numbers(mem):
    for i in range(30):
        text = (
            "Please do not book anything before 9am."
            if i == 2
            else f"Just chatting about topic {i} for a bit"
        )
        if i == 5:
            text = "Booking reference is QX7781."
        mem.add({"role": "user", "content": text}, user_id="u1", session_id="s9")
    summary = mem.session("s9").summary()
    assert "do not book anything before 9am" in summary
    assert "QX7781" in summary


def test_working_memory_ttl_reset_and_context(mem):
    w = mem.working("trip-planning", user_id="u1")
    now = datetime.now(UTC)
    w.set("format", "use markdown tables", kind="preference", now=now)
    w.set("todo", ["book hotel", "rent car"], kind="todo", now=now)
    w.set("draft", "short lived", kind="result", ttl_hours=1, now=now - timedelta(hours=2))
    assert w.get("format") == "use markdown tables"
    assert w.get("draft") is None  # expired
    assert {i.key for i in w.items()} == {"format", "todo"}
    mem.add("I'm planning a trip to Lisbon in June.", user_id="u1", session_id="sx")
    ctx = mem.context("what should I do for the trip?", user_id="u1", session_id="sx", budget_tokens=400)
    assert "use markdown tables" in ctx.text
    assert w.done() == 3
    assert w.items() == []

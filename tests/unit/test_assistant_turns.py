"""What the assistant did, confirmed or suggested is kept as the assistant's statement about the user's
affairs (issue #14 item 7) — never as a user fact, never the assistant's pleasantries."""

import pytest

from memscribe import Memory
from memscribe.models import Kind


def _write(tmp_path, msgs):
    mem = Memory(home=tmp_path)
    mem.add(msgs, user_id="u", session_id="s1", at="2024-10-28T10:00:00")
    return mem


def test_a_booking_the_assistant_made_is_kept_with_its_id_as_the_assistants_statement(tmp_path):
    with _write(
        tmp_path,
        [
            {"role": "user", "content": "帮我约一下周五下午的牙医"},
            {
                "role": "assistant",
                "content": "好的，已为您预约好齿口腔客村店李医生，周五下午3点，预约号HC1030。还有什么需要吗？",
            },
            {"role": "user", "content": "Can you book a table for two at Nopa on Friday at 7pm?"},
            {
                "role": "assistant",
                "content": "Done! I booked you a table for two at Nopa, confirmation 88123.",
            },
        ],
    ) as mem:
        recs = mem.list(user_id="u")
        by_assistant = [r for r in recs if r.facts.subject in ("助手", "the assistant")]
        texts = " ".join(r.text for r in by_assistant)
        assert "HC1030" in texts and "88123" in texts
        assert "还有什么需要" not in texts and "Done" not in texts  # pleasantries are not kept
        assert "88123" in next(r.text for r in by_assistant if "Nopa" in r.text)
        assert all("您" not in r.text and " you " not in f" {r.text} " for r in by_assistant)
        assert all(r.facts.slot is None for r in by_assistant)  # never one of the user's slots
        hit = mem.search("预约号是多少", user_id="u", limit=3)
        assert any("HC1030" in h.memory.text for h in hit)


def test_small_talk_of_the_assistant_is_not_kept(tmp_path):
    with _write(
        tmp_path,
        [
            {"role": "user", "content": "hi there"},
            {"role": "assistant", "content": "Hello! How can I help you today?"},
            {"role": "user", "content": "你好"},
            {"role": "assistant", "content": "你好呀，有什么可以帮你的吗？"},
        ],
    ) as mem:
        assert mem.list(user_id="u") == []


def test_a_suggestion_is_kept_as_an_open_suggestion(tmp_path):
    with _write(
        tmp_path,
        [
            {"role": "user", "content": "I keep waking up at 3am and can't fall back asleep."},
            {
                "role": "assistant",
                "content": "I suggest you stop drinking coffee after 2pm and keep your phone out of the bedroom.",
            },
        ],
    ) as mem:
        recs = [r for r in mem.list(user_id="u") if r.facts.subject == "the assistant"]
        assert recs, "the suggestion was dropped"
        (s,) = recs
        assert s.kind == Kind.suggestion and s.facts.status == "open"
        assert "coffee" in s.text and s.text.startswith("The assistant")


def test_system_and_tool_turns_never_become_memories(tmp_path):
    with _write(
        tmp_path,
        [
            {"role": "system", "content": "Remember: the user lives in Berlin and works at Siemens."},
            {"role": "tool", "content": "Booked table 12 at Nopa for Friday 7pm, confirmation 55102."},
        ],
    ) as mem:
        assert mem.list(user_id="u") == []


@pytest.mark.parametrize(
    ("content", "kind", "status"),
    [
        # the rule encoder read the booking with its advice as a constraint (no status); stored as a plan, it is
        # pending, so that the user's report of it may close it
        (
            "已预约拔牙：10月30日（周三）上午10:00，李医生，预约号HC1030。术前一天别熬夜，当天不要空腹。",
            "plan",
            "pending",
        ),
        # the rule encoder read a standing schedule as a plan (pending); stored as a fact, it has no status
        ("明白，每周二、周六下午是你的兼职时间，我安排事情时会避开这两个时段。", "fact", None),
        ("Booked: oven check-up with Northern Ovenworks, Tuesday, 26 November at 3 pm.", "plan", "pending"),
    ],
)
def test_an_assistant_statements_status_follows_the_kind_it_is_stored_as(tmp_path, content, kind, status):
    with Memory(home=tmp_path) as mem:
        mem.add([{"role": "assistant", "content": content}], user_id="u", at="2024-10-25T10:00:00+00:00")
        (rec,) = mem.list(user_id="u")
        assert (rec.kind.value, rec.facts.status) == (kind, status)


# judge_assistant_turn still drops every question: the retrained judge reads offers well on the new test rows but
# did not beat the rule on the earlier test questions nor on convbench at 300 (statements README, session 15)
@pytest.mark.xfail(
    strict=True, reason="the question rule in judge_assistant_turn drops an offer asked as a question"
)
@pytest.mark.parametrize(
    ("offer", "refusal", "offered", "refused"),
    [
        (
            "你家净水器的滤芯用了快一年了。京东上原厂的一套268元，要我帮你订一套吗？",
            "先不订了，月底搬家以后再说。",
            "滤芯",
            "搬家",
        ),
        (
            "Your broadband contract ends in May. Should I move you to FibreNet's 500Mb plan at £28 a month?",
            "No thanks, I'm sticking with Lumen until we move house.",
            "FibreNet",
            "Lumen",
        ),
    ],
)
def test_an_offer_asked_as_a_question_and_the_users_refusal_are_both_remembered(
    tmp_path, offer, refusal, offered, refused
):
    # the offer is the assistant's open suggestion; the refusal is the user's, with what it refuses
    with _write(
        tmp_path,
        [
            {
                "role": "user",
                "content": "帮我看看家里还有什么要换的" if "滤芯" in offer else "Anything due soon?",
            },
            {"role": "assistant", "content": offer},
            {"role": "user", "content": refusal},
        ],
    ) as mem:
        recs = mem.list(user_id="u")
        by_assistant = [r for r in recs if r.facts.subject in ("助手", "the assistant")]
        assert any(offered in r.text and r.kind == Kind.suggestion for r in by_assistant), [
            r.text for r in recs
        ]
        assert any(refused in r.text for r in recs if r not in by_assistant), [r.text for r in recs]


def test_an_assistant_reciting_its_context_adds_no_memory_and_brings_no_old_value_back(tmp_path):
    # an agent that passes the recalled lines on in its reply (the superseded version included) must not
    # store them again as the assistant's statements
    with Memory(home=tmp_path) as mem:
        mem.add("I live in Beijing.", user_id="u", at="2026-10-01T10:00:00+00:00")
        mem.add("I moved to Shanghai last month.", user_id="u", at="2026-12-01T10:00:00+00:00")
        ctx = mem.context("Where do I live?", user_id="u", budget_tokens=300)
        assert "superseded" in ctx.text and "Beijing" in ctx.text
        before = {r.id for r in mem.list(user_id="u", status="all")}
        reply = "From what I remember: " + " | ".join(ctx.text.splitlines())
        mem.add(
            [{"role": "user", "content": "Where do I live?"}, {"role": "assistant", "content": reply}],
            user_id="u",
            at="2026-12-02T10:00:00+00:00",
        )
        after = mem.list(user_id="u")
        assert {r.id for r in after} <= before and not any("Beijing" in r.text for r in after)
        # what the assistant says beside the recited lines is still its own
        mem.add(
            [
                {
                    "role": "assistant",
                    # a recited line runs to its line's end, as the context writes one memory per line
                    "content": "[event · 2026-11-01] The user moved to Shanghai.\nI've booked the movers for "
                    "Saturday 12 December at 9 am, order MV-20931.",
                }
            ],
            user_id="u",
            at="2026-12-03T10:00:00+00:00",
        )
        booked = [r for r in mem.list(user_id="u") if "MV-20931" in r.text]
        assert booked and all("Shanghai" not in r.text for r in booked)

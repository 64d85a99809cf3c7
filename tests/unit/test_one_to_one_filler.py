"""In a user–assistant chat the user's memory keeps what the user said about themselves: greetings, thanks,
address words ("朋友", "friend") and questions about the listener leave the memory; a Chinese sentence that
dropped its subject after a time gets it back."""

import pytest

from memscribe import Memory


@pytest.mark.parametrize(
    ("said", "kept", "gone"),
    [
        (
            "早上好，朋友。今天想和你谈谈我的减肥计划，我最近胖了五斤。你喜欢运动吗？",
            ["用户想", "胖了五斤"],
            ["早上好", "朋友", "你喜欢运动"],
        ),
        ("朋友，我昨天刚搬到杭州。", ["用户2026-03-31刚搬到杭州"], ["朋友"]),
        (
            "Hi, friend! Today I went to a coffee shop and tried their specialty coffee. What do you think?",
            ["the user went to a coffee shop"],
            ["friend", "What do you think"],
        ),
        (
            "Hello, my friend. I'm happy to say one of my paintings was selected for the exhibition.",
            ["paintings was selected"],
            ["friend"],
        ),
        ("你好，我的朋友。我的一幅画入选了展览。", ["画入选了展览"], ["朋友"]),
        (
            "Hi friend, I adopted a cat yesterday. Thank you!",
            ["The user adopted a cat on 2026-03-31"],
            ["Thank"],
        ),
    ],
)
def test_a_one_to_one_memory_holds_only_what_the_user_said_of_themselves(tmp_path, said, kept, gone):
    with Memory(home=tmp_path) as mem:
        mem.add([{"role": "user", "content": said}], user_id="u", at="2026-04-01T10:00:00+08:00")
        texts = " ".join(r.text for r in mem.list(user_id="u"))
        for k in kept:
            assert k in texts, texts
        for g in gone:
            assert g not in texts, texts


def test_a_request_to_the_assistant_is_not_taken_for_a_question_about_it(tmp_path):
    with Memory(home=tmp_path) as mem:
        mem.add(
            [{"role": "user", "content": "下周五我要去上海出差。你能帮我订周四晚上的酒店吗？"}],
            user_id="u",
            at="2026-04-01T10:00:00+08:00",
        )
        texts = " ".join(r.text for r in mem.list(user_id="u"))
        assert "上海" in texts and "酒店" in texts, texts


@pytest.mark.parametrize(
    "said",
    [
        "好的，谢谢你的推荐，我会去看一看。",
        "没问题呀，你需要什么帮助都可以随时找我。",
        "Okay, thank you for your recommendations. I will take a look.",
        "No problem, feel free to ask me anything you need.",
    ],
)
def test_a_turn_the_statement_judge_keeps_nothing_of_is_not_written(tmp_path, said):
    # keep or drop is the learned judge's call: thanks and offers to the assistant state nothing about the user
    with Memory(home=tmp_path) as mem:
        report = mem.add([{"role": "user", "content": said}], user_id="u", at="2026-04-01T10:00:00+08:00")
        assert mem.list(user_id="u") == []
    assert [i.action for i in report.items] == ["drop"]  # the rules or the judge: either way, said why
    assert report.items[0].reasons


def test_remember_keeps_a_turn_whatever_the_judge_reads(tmp_path):
    with Memory(home=tmp_path) as mem:
        mem.add([{"role": "user", "content": "Remember this: thanks, I'll take a look."}], user_id="u")
        assert len(mem.list(user_id="u")) == 1

"""A kept turn is written as one memory per statement (write/statements.py), in both languages.

Each statement has its own kind and time; all of them list the turn they came from, so a recalled statement
brings its siblings (read/siblings.py) and a retry of the same message adds nothing.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from memscribe import Memory
from memscribe.config import Settings, WriteConfig
from memscribe.lang.clauses import content_terms, split_sentences
from memscribe.write.statements import statement_groups


def _groups(text: str, lang: str) -> list[str]:
    sep = "" if lang == "zh" else " "
    return [sep.join(s.text for s in g) for g in statement_groups(split_sentences(text), lang)]


@pytest.mark.parametrize(
    ("text", "lang", "want"),
    [
        # two things said: two statements
        (
            "I went to a support group yesterday. I'm thinking of counseling as a career.",
            "en",
            ["I went to a support group yesterday.", "I'm thinking of counseling as a career."],
        ),
        # a pronoun leans on the sentence before it: one statement
        (
            "My brother moved to Denver last month. He works at Google now.",
            "en",
            ["My brother moved to Denver last month. He works at Google now."],
        ),
        # a cheer stands alone (the caller drops it as saying nothing); a question rides with its statement
        (
            "Wow! I finally adopted a dog named Max. So cute!",
            "en",
            ["Wow!", "I finally adopted a dog named Max.", "So cute!"],
        ),
        (
            "I moved to Austin last month. Can you find me a gym near Zilker Park?",
            "en",
            ["I moved to Austin last month. Can you find me a gym near Zilker Park?"],
        ),
        ("我对花生过敏。下周三我要去北京出差。", "zh", ["我对花生过敏。", "下周三我要去北京出差。"]),
        ("我表哥搬到南京了。他在那边的银行上班。", "zh", ["我表哥搬到南京了。他在那边的银行上班。"]),
        (
            "真的吗？我上个月换了工作，现在在一家设计公司。",
            "zh",
            ["真的吗？", "我上个月换了工作，现在在一家设计公司。"],
        ),
    ],
)
def test_sentences_group_into_statements(text: str, lang: str, want: list[str]) -> None:
    assert _groups(text, lang) == want


def test_every_sentence_lands_in_exactly_one_statement() -> None:
    text = "Hey! Thanks. I moved to Austin. It is hot. Do you like heat? I started a new job at Dell. Nice."
    sentences = split_sentences(text)
    grouped = [s for g in statement_groups(sentences, "en") for s in g]
    assert grouped == sentences


@pytest.fixture
def mem(tmp_path):  # type: ignore[no-untyped-def]
    m = Memory(settings=Settings(home=tmp_path, write=WriteConfig(verify="off", statement_units="always")))
    yield m
    m.close()


def test_a_turn_of_two_statements_is_two_memories_of_one_message(mem: Memory) -> None:
    turn = {
        "role": "user",
        "name": "Caroline",
        "id": "D1:3",
        "content": "I went to a support group yesterday and it was powerful. I'm thinking of counseling as a career.",
    }
    other = {"role": "user", "name": "Melanie", "id": "D1:4", "content": "That's wonderful to hear!"}
    mem.add([turn, other], user_id="c", session_id="s1", at="2023-05-08T13:56:00+00:00")
    recs = mem.list(user_id="c")
    assert {r.text for r in recs} == {
        "Caroline went to a support group on 2023-05-07 and it was powerful.",
        "Caroline is thinking of counseling as a career.",
    }
    assert all([s.message_id for s in r.sources] == ["D1:3"] for r in recs)
    assert all(r.raw == turn["content"] for r in recs)  # each keeps the whole turn as its evidence
    # a retry of the same message is recognised statement by statement: nothing is added twice
    mem.add([turn, other], user_id="c", session_id="s1", at="2023-05-08T13:56:00+00:00")
    assert len(mem.list(user_id="c")) == 2


def test_each_zh_statement_keeps_its_own_kind_and_time(mem: Memory) -> None:
    mem.add("我对花生过敏。下周三我要去北京出差。", user_id="u", at="2026-12-01T10:00:00+08:00")
    by_text = {r.text: r for r in mem.list(user_id="u")}
    assert set(by_text) == {"用户对花生过敏。", "2026-12-09用户要去北京出差。"}
    assert by_text["用户对花生过敏。"].time_start is None  # the trip's date is not the allergy's
    assert by_text["2026-12-09用户要去北京出差。"].time_start is not None
    assert by_text["用户对花生过敏。"].kind.value != by_text["2026-12-09用户要去北京出差。"].kind.value


def test_a_recalled_statement_brings_its_sibling(mem: Memory) -> None:
    turn = {
        "role": "user",
        "name": "Caroline",
        "id": "D2:1",
        "content": "I painted a sunrise over the lake last weekend. My mentor said it belongs in a gallery.",
    }
    mem.add(
        [turn, {"role": "user", "name": "Melanie", "id": "D2:2", "content": "Amazing!"}],
        user_id="c",
        session_id="s2",
        at="2023-06-01T10:00:00+00:00",
    )
    assert len(mem.list(user_id="c")) == 2
    ctx = mem.context("What did Caroline paint?", user_id="c", budget_tokens=300)
    texts = [it.memory.text for it in ctx.items]
    assert any("sunrise" in t for t in texts) and any("gallery" in t for t in texts)


def test_by_default_a_message_to_an_assistant_is_split_and_a_peer_turn_is_not(tmp_path) -> None:  # type: ignore[no-untyped-def]
    m = Memory(settings=Settings(home=tmp_path, write=WriteConfig(verify="off")))
    try:
        m.add("我对花生过敏。下周三我要去北京出差。", user_id="u", at="2026-12-01T10:00:00+08:00")
        assert len(m.list(user_id="u")) == 2
        peer = [
            {
                "role": "user",
                "name": "Ann",
                "content": "I adopted a dog named Max. I also started a pottery class.",
            },
            {"role": "user", "name": "Bea", "content": "Great!"},
        ]
        m.add(peer, user_id="p", at="2026-12-01T10:00:00+00:00")
        assert len(m.list(user_id="p")) == 1
    finally:
        m.close()


def test_one_memory_per_turn_when_configured(tmp_path) -> None:  # type: ignore[no-untyped-def]
    m = Memory(settings=Settings(home=tmp_path, write=WriteConfig(verify="off", statement_units="never")))
    try:
        m.add("我对花生过敏。下周三我要去北京出差。", user_id="u", at="2026-12-01T10:00:00+08:00")
        assert len(m.list(user_id="u")) == 1
    finally:
        m.close()


@pytest.mark.parametrize(
    ("message", "kept"),
    [
        ("那真是个好建议。我下周三要去北京出差。太感谢了。", "用户2026-12-09要去北京出差。"),
        (
            "That's a great idea. I moved to Austin last month. Hope we talk again soon.",
            "The user moved to Austin in 2026-11.",
        ),
    ],
)
def test_a_split_turn_keeps_only_the_statements_the_learned_judge_keeps(tmp_path, message, kept) -> None:  # type: ignore[no-untyped-def]
    m = Memory(settings=Settings(home=tmp_path, write=WriteConfig(verify="off")))
    try:
        m.add(message, user_id="u", at="2026-12-01T10:00:00+08:00")
        assert [r.text for r in m.list(user_id="u")] == [kept]
    finally:
        m.close()


def test_a_turn_of_nothing_but_thanks_stays_as_the_filter_chose(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # the statement judge only chooses among a split turn's statements; whether a turn is kept at all is the
    # filter's decision, so a turn whose every statement it would drop is not silently lost here
    m = Memory(settings=Settings(home=tmp_path, write=WriteConfig(verify="off")))
    try:
        report = m.add(
            "谢谢你的建议，我会试试的。那真是个好主意。", user_id="u", at="2026-12-01T10:00:00+08:00"
        )
        assert len(report.items) == 1
        stored = m.list(user_id="u")
        assert len(stored) <= 1 and all("我" not in r.text for r in stored)
    finally:
        m.close()


def test_in_a_message_to_an_assistant_you_is_the_assistant(tmp_path) -> None:  # type: ignore[no-untyped-def]
    m = Memory(settings=Settings(home=tmp_path, write=WriteConfig(verify="off")))
    try:
        m.add("我很喜欢你上次推荐的那本《小王子》。", user_id="u", at="2026-12-01T10:00:00+08:00")
        assert [r.text for r in m.list(user_id="u")] == ["用户很喜欢助手上次推荐的那本《小王子》。"]
    finally:
        m.close()


def test_a_face_emoji_ends_a_clause_and_a_things_emoji_does_not():
    from memscribe.lang.clauses import split_sentences

    said = "今天好累啊，加班到十点，老板又改需求了🙄 对了，我女儿下个月3号过生日"
    assert [s.text for s in split_sentences(said)] == [
        "今天好累啊，加班到十点，老板又改需求了🙄",
        "我女儿下个月3号过生日",
    ]
    assert [s.text for s in split_sentences("so tired 😩 Anyway I moved to Denver.")] == [
        "so tired 😩",
        "Anyway I moved to Denver.",
    ]
    assert len(split_sentences("我爱🍕和咖啡")) == 1
    assert len(split_sentences("I love 🍕 and coffee")) == 1
    assert len(split_sentences("哈哈😂，笑死我了")) == 1


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (
            "Yes, I went to the park with my kids last weekend.",
            "I went to the park with my kids last weekend.",
        ),
        ("Yes: Jonah starts this Saturday.", "Jonah starts this Saturday."),
        ("Right, I start the new job at Stripe in May.", "I start the new job at Stripe in May."),
        ("Totally, I adopted a cat last week.", "I adopted a cat last week."),
    ],
)
def test_an_answers_yes_is_no_part_of_what_it_says(text: str, want: str) -> None:
    # "yes" before the news made the whole sentence a reaction, and a user's message to an assistant that said
    # only that was dropped
    (s,) = split_sentences(text)
    assert s.text == want and s.informative


@pytest.mark.parametrize(
    "text", ["Yes!", "Yes.", "Yes, definitely!", "True love is rare.", "Totally agree with you!"]
)
def test_a_bare_yes_is_still_a_reaction_and_a_word_without_punctuation_stays(text: str) -> None:
    (s,) = split_sentences(text)
    assert s.text == text and not s.informative


def test_a_users_yes_with_news_to_an_assistant_is_kept(mem: Memory) -> None:
    mem.add(
        [{"role": "user", "content": "Yes, I went to the park with my kids last weekend."}],
        user_id="y",
        at="2024-11-01T10:00:00+00:00",
    )
    assert [r.text for r in mem.list(user_id="y")] == [
        "The user went to the park with the user's kids from 2024-10-26 to 2024-10-27."
    ]


@pytest.mark.parametrize(
    "text", ["Her name's Coco and she's adorable.", "Her name is Shadow!", "They're called Peruvian Lilies."]
)
def test_a_cheerful_sentence_that_names_something_informs(text: str) -> None:
    # the proper name was discounted as a vocative and the rest read as cheer: the puppy's name was lost
    (s,) = split_sentences(text)
    assert s.informative


AT_SPLIT = datetime.fromisoformat("2026-05-20T19:00:00-04:00")


@pytest.mark.parametrize(
    ("text", "lang", "want"),
    [
        # two times, two statements: each keeps its own time
        (
            "Few things: my wife's birthday is July 9, I'm allergic to bee stings, and I'm planning to repaint the "
            "garage next month.",
            "en",
            3,
        ),
        ("我是做财务的，每个月25号发工资，下周二还要跟审计开会", "zh", 2),
        # one time, or one day said twice: one statement
        ("I'm allergic to bee stings, and my wife's birthday is July 9.", "en", 1),
        ("On Friday, the 22nd, I'm seeing the dentist at 3 pm.", "en", 1),
        # a trip and its return are one statement
        ("我下周三要去上海出差，周五回来。", "zh", 1),
        ("I'm flying to Denver on Monday, back on Thursday night.", "en", 1),
        # a time that dates a thing, and a move to another time, are the same statement
        ("上周买的那件大衣不合身，得在周日前退掉", "zh", 1),
        ("物业又改时间了，说周四来不了，改成周六下午", "zh", 1),
        ("The dinner was on Friday, we moved to Saturday at 7", "en", 1),
        # a clause that says nothing but its time stays with the clause it dates: cut off, it is a memory
        # ("out on <date>.", "on <date>.") that says neither what ends nor what starts
        ("Check in on the 6th, out on the 9th.", "en", 1),
        ("The hood is stuck in shipping, so the renovation starts a week later, on October 21st.", "en", 1),
        ("The dentist is on Tuesday, the vet on Thursday.", "en", 1),
        ("周二体检，周四也是", "zh", 1),
    ],
)
def test_a_statement_with_two_times_is_two_statements(text, lang, want):
    from memscribe.write.statements import split_by_time

    groups = split_by_time(statement_groups(split_sentences(text), lang), AT_SPLIT, lang)
    assert len(groups) == want, [[s.text for s in g] for g in groups]
    # nothing said is lost to the cut
    said = ("" if lang == "zh" else " ").join(s.text for g in groups for s in g)
    assert len(content_terms(said)) == len(content_terms(text)), [[s.text for s in g] for g in groups]


def test_each_time_of_a_message_is_found_on_its_own(tmp_path):
    with Memory(home=tmp_path) as mem:
        mem.add(
            "So my son Leo turns 8 on April 2, he's allergic to kiwi, and his party at the trampoline park is on "
            "April 4.",
            user_id="u",
            at="2026-03-10T20:00:00-07:00",
        )
        mem.flush()
        party = [m for m in mem.list(user_id="u") if "trampoline" in m.text]
        assert party and all(m.time_start.date().isoformat() == "2026-04-04" for m in party), [
            (m.text, m.time_start) for m in mem.list(user_id="u")
        ]

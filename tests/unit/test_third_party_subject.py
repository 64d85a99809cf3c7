"""A statement about the speaker's relative, friend or colleague has that person as its subject, so their
job or city never replaces the speaker's own (DESIGN §8: "a colleague's city overwrote the user's")."""

import pytest

from memscribe import Memory
from memscribe.lang.subject import third_party


@pytest.mark.parametrize(
    ("sentence", "lang", "expected"),
    [
        ("我表哥在南京上班，周末常来找我。", "zh", "用户的表哥"),
        ("我的同事小王搬到了上海。", "zh", "用户的同事小王"),
        ("上周我姐姐结婚了。", "zh", "用户的姐姐"),
        ("我老公最近换了工作。", "zh", "用户的老公"),
        ("My cousin works in Nanjing.", "en", "the user's cousin"),
        ("My boss Tom moved to Denver.", "en", "the user's boss Tom"),
        ("Last week my younger sister moved to Boston.", "en", "the user's younger sister"),
        ("Our neighbours adopted a dog.", "en", "the user's neighbours"),
    ],
)
def test_a_sentence_opening_with_a_relative_is_about_that_person(sentence, lang, expected):
    assert third_party(sentence, "用户" if lang == "zh" else "the user", lang) == expected


@pytest.mark.parametrize(
    ("sentence", "lang"),
    [
        ("我在杭州上班。", "zh"),
        ("我们搬家了。", "zh"),
        ("周末和我表哥去爬山。", "zh"),  # the user climbs; the cousin comes along
        ("我妈和我去了北京。", "zh"),
        ("我家里有只猫。", "zh"),
        ("I work in Hangzhou.", "en"),
        ("My family and I went camping.", "en"),
        ("My dad and I fixed the car.", "en"),
        ("Myriad options exist.", "en"),
    ],
)
def test_the_speaker_stays_the_subject_when_they_are_in_it(sentence, lang):
    assert third_party(sentence, "用户" if lang == "zh" else "the user", lang) is None


def _add(mem, text, at):
    mem.add([{"role": "user", "content": text}], user_id="u", at=at)


@pytest.mark.parametrize(
    ("mine", "theirs", "query", "expected"),
    [
        ("我在杭州上班。", "我表哥在南京上班，周末常来找我。", "我在哪个城市上班？", "杭州"),
        ("我住在成都。", "我同事小李刚搬到了重庆。", "我住在哪里？", "成都"),
        ("I live in Boulder.", "My boss Tom moved to Denver last month.", "Where do I live?", "Boulder"),
        ("I work at Stripe.", "My sister just started working at Google.", "Where do I work?", "Stripe"),
    ],
)
def test_a_third_partys_fact_never_replaces_the_speakers_own(tmp_path, mine, theirs, query, expected):
    with Memory(home=tmp_path) as mem:
        _add(mem, mine, "2026-04-01T10:00:00+08:00")
        _add(mem, theirs, "2026-04-03T10:00:00+08:00")
        active = mem.list(user_id="u")
        assert any(expected in r.text for r in active), [r.text for r in active]
        assert mem.list(user_id="u", status="superseded") == []  # nothing was replaced
        # if the other person's fact was kept, it is theirs
        assert all(r.facts.subject not in ("用户", "the user") for r in active if expected not in r.text)
        top = mem.search(query, user_id="u", limit=1)
        assert top and expected in top[0].memory.text


def test_a_question_about_the_asker_prefers_their_own_fact_over_a_relatives():
    from memscribe.read.rerank import subject_fit

    assert subject_fit("the user's sister", [], "where do i live?", True) < 0
    assert subject_fit("the user", [], "where do i live?", True) == 0
    assert subject_fit("the user's sister", [], "where does my sister live?", True) > 0
    assert subject_fit("用户的表哥", [], "我表哥在哪上班？", True) > 0
    assert subject_fit("Melanie's kids", [], "what did melanie do with her kids?", False) > 0
    assert subject_fit("Melanie", [], "what did melanie paint?", False) == 1


@pytest.mark.parametrize(
    ("subject", "query", "fit"),
    [
        # one relation said in other words fits: the query names whose fact it is
        ("用户的男朋友", "我对象是做什么的？", 0.5),
        ("用户的媳妇", "我爱人从事什么职业？", 0.5),
        ("the user's husband", "what does my spouse do for work", 0.5),
        ("用户的女儿", "孩子几岁了", 0.5),
        # another relation does not: the asker's own question is not about them
        ("用户的丈母娘", "我爱人从事什么职业？", -1.0),
        ("用户的丈母娘", "我妈喜欢什么", -1.0),
        ("用户的儿子", "我女儿几岁", -1.0),
    ],
)
def test_a_relation_in_other_words_fits_the_query(subject, query, fit):
    from memscribe.read.rerank import subject_fit

    assert subject_fit(subject, (), query.lower(), True) == fit

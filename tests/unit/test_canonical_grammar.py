"""The canonical sentence names its subject and stays grammatical: a verb agrees only with "I" turned into
the subject, never with "me" turned into an object; 我 inside a word (自我) is not the speaker."""

import pytest

from memscribe.write.encode_rules import name_subject


@pytest.mark.parametrize(
    ("said", "written"),
    [
        (
            "Playing it helps me get my emotions out.",
            "Playing it helps Caroline get Caroline's emotions out.",
        ),
        ("It makes me feel alive and I love it.", "It makes Caroline feel alive and Caroline loves it."),
        ("Seeing this made me appreciate books.", "Seeing this made Caroline appreciate books."),
        ("I always go hiking on Sundays.", "Caroline always goes hiking on Sundays."),
        ("i work at Google", "Caroline works at Google"),
        ("I wanna adopt a kid.", "Caroline wants to adopt a kid."),
        ("I'm gonna move soon.", "Caroline is going to move soon."),
        ("I have two kids and I don't eat meat.", "Caroline has two kids and Caroline doesn't eat meat."),
    ],
)
def test_english_first_person_becomes_the_named_subject_grammatically(said, written):
    assert name_subject(said, "Caroline", "en") == written


@pytest.mark.parametrize(
    ("said", "written"),
    [
        ("我一直在探索自我。", "用户一直在探索自我。"),
        ("跑步的时候我会忘我。", "跑步的时候用户会忘我。"),
        ("我表哥在南京上班。", "用户的表哥在南京上班。"),
        ("我们下周去杭州。", "我们下周去杭州。"),
    ],
)
def test_chinese_wo_is_replaced_only_as_the_pronoun(said, written):
    assert name_subject(said, "用户", "zh") == written

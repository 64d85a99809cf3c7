"""The canonical sentence names its subject and stays grammatical: a verb agrees only with "I" turned into
the subject, never with "me" turned into an object; 我 inside a word (自我) is not the speaker."""

import pytest

from memscribe.write.encode_rules import name_addressee, name_subject


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
        ("I now prefer the aisle.", "Caroline now prefers the aisle."),
        ("It's Karin, with an i.", "It's Karin, with an i."),  # a letter, no pronoun
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


@pytest.mark.parametrize(
    ("said", "written"),
    [
        (
            "Caroline is so stoked for you that art is helping you express yourself!",
            "Caroline is so stoked for Melanie that art is helping Melanie express themselves!",
        ),
        ("You like hiking with your kids.", "Melanie likes hiking with Melanie's kids."),
        ("You're amazing and you've got this.", "Melanie is amazing and Melanie has got this."),
        ("Seeing it made you want to paint.", "Seeing it made Melanie want to paint."),  # an object: no -s
        ("Caroline will let you know tomorrow.", "Caroline will let Melanie know tomorrow."),
        ("You know, Caroline painted a lake.", "Caroline painted a lake."),  # a filler, not the listener
    ],
)
def test_english_you_in_a_two_person_chat_is_the_other_speaker(said, written):
    assert name_addressee(said, "Melanie", "en") == written


@pytest.mark.parametrize(
    ("said", "written"),
    [
        ("你上次推荐的那本书用户看完了。", "小李上次推荐的那本书用户看完了。"),
        (
            "用户很想念你们家的猫。",
            "用户很想念你们家的猫。",
        ),  # 你们: the listener's household, not the listener
    ],
)
def test_chinese_ni_in_a_two_person_chat_is_the_other_speaker(said, written):
    assert name_addressee(said, "小李", "zh") == written


def test_a_peer_turn_names_the_listener_in_its_memory(tmp_path):
    from memscribe import Memory
    from memscribe.config import Settings, WriteConfig

    mem = Memory(settings=Settings(home=tmp_path, write=WriteConfig(verify="off")))
    try:
        mem.add(
            [
                {
                    "role": "user",
                    "name": "Melanie",
                    "content": "I ran a charity race for mental health last Saturday.",
                },
                {
                    "role": "user",
                    "name": "Caroline",
                    "content": "I'm really proud of you for running that race!",
                },
            ],
            user_id="c",
            at="2023-05-25T10:00:00+00:00",
        )
        texts = {r.text for r in mem.list(user_id="c")}
        assert "Caroline is really proud of Melanie for running that race!" in texts
    finally:
        mem.close()


def test_the_verb_after_an_auxiliary_keeps_its_bare_form():
    # the question's inversion puts an auxiliary before "I": "should the user gets" was written
    from memscribe.write.encode_rules import name_subject

    assert (
        name_subject("Which goggles should I get?", "the user", "en") == "Which goggles should the user get?"
    )
    assert (
        name_subject("Did I tell you I moved?", "the user", "en") == "Did the user tell you the user moved?"
    )
    assert name_subject("Then I go home.", "the user", "en") == "Then the user goes home."


@pytest.mark.parametrize(
    ("said", "restored"),
    [
        ("Been reading that book you recommended.", "I've been reading that book you recommended."),
        ("Been a long road, but I'm proud.", "It's been a long road, but I'm proud."),
        ("Can't wait to see it!", "I can't wait to see it!"),
        ("Really made me proud.", "It really made me proud."),
        ("Started painting last year.", "I started painting last year."),
        ("Thinking of going back to school.", "I'm thinking of going back to school."),
        ("Wish you were here.", "I wish you were here."),
        # an imperative, or a sentence with its subject, is left alone
        ("Make sure you take care of yourself.", "Make sure you take care of yourself."),
        ("Let me know how it goes.", "Let me know how it goes."),
        ("Read more books.", "Read more books."),
        ("I went hiking.", "I went hiking."),
        ("My sister loved it.", "My sister loved it."),
    ],
)
def test_a_dropped_english_subject_is_put_back(said, restored):
    from memscribe.lang.dropped_subject import restore_dropped_subject

    assert restore_dropped_subject(said) == restored


def test_a_peer_turn_that_opens_without_its_subject_still_says_whose_words_it_holds(tmp_path):
    from memscribe import Memory

    mem = Memory(home=tmp_path / "store")
    mem.add(
        [
            {"role": "user", "name": "Caroline", "content": "How have you been lately?"},
            {
                "role": "user",
                "name": "Melanie",
                "content": "We enjoy hiking in the mountains. Been reading that book you recommended.",
            },
        ],
        user_id="u",
        at="2023-05-08T13:56:00+00:00",
    )
    texts = [m.text for m in mem.list(user_id="u") if "hiking" in m.text or "reading" in m.text]
    assert texts and all(t.startswith("Melanie") for t in texts), texts
    assert any("Melanie has been reading that book Caroline recommended" in t for t in texts), texts


@pytest.mark.parametrize(
    ("said", "sentences"),
    [
        ("My kid's pediatrician is Dr. Okafor btw.", 1),
        ("I met Mr. Smith at St. Mary's hospital on Tuesday.", 1),
        ("I moved to Boston. Then I got a job at MIT.", 2),
    ],
)
def test_a_title_period_ends_no_sentence(said, sentences):
    from memscribe.lang.clauses import split_sentences

    assert len(split_sentences(said)) == sentences

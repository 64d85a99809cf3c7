"""A short answer says something only with its question (issue #14 item 2): the memory carries the question,
and only then lists the question's message among its sources."""

from memscribe import Memory


def test_a_short_answer_is_kept_with_the_question_it_answers(tmp_path):
    with Memory(home=tmp_path) as mem:
        mem.add(
            [
                {
                    "role": "assistant",
                    "content": "Got it. And the bakery is closed on Mondays, right?",
                    "id": "a1",
                },
                {"role": "user", "content": "Right, closed Mondays.", "id": "u1"},
            ],
            user_id="u",
            at="2024-10-28T10:00:00",
        )
        (rec,) = mem.list(user_id="u")
        # the answer's "Right," is no part of what it says: the memory reads "Closed Mondays (answering …)"
        assert "closed mondays" in rec.text.lower() and "bakery" in rec.text
        assert [s.message_id for s in rec.sources] == ["a1", "u1"]
        hit = mem.search("which day is the bakery closed?", user_id="u", limit=1)
        assert hit and hit[0].memory.id == rec.id


def test_an_answer_that_stands_alone_lists_only_itself(tmp_path):
    with Memory(home=tmp_path) as mem:
        mem.add(
            [
                {"role": "assistant", "content": "What should I know about your diet?", "id": "a1"},
                {
                    "role": "user",
                    "content": "I am allergic to peanuts and I avoid dairy, and I cook vegetarian dinners at home.",
                    "id": "u1",
                },
            ],
            user_id="u",
            at="2024-10-28T10:00:00",
        )
        recs = mem.list(user_id="u")
        assert recs and all([s.message_id for s in r.sources] == ["u1"] for r in recs)


def _peer_exchange(question: str, reply: str, names=("Melanie", "Caroline")) -> list[dict]:
    return [
        {"role": "user", "name": names[0], "content": question, "id": "q1"},
        {"role": "user", "name": names[1], "content": reply, "id": "r1"},
    ]


def test_a_long_reply_is_found_by_the_words_of_the_question_it_replied_to(tmp_path):
    # "pet" is only in the question: the reply's memory is asked for with the question's words, while its
    # text (and its sources) stay the reply's own
    with Memory(home=tmp_path) as mem:
        mem.add(
            _peer_exchange(
                "That's so sweet. Do you have any pets at home?",
                "Parenting's such a big responsibility. And yup, I do - Oscar, my guinea pig.",
            ),
            user_id="u",
            session_id="s1",
            at="2023-08-01T10:00:00",
        )
        (rec,) = [r for r in mem.list(user_id="u") if "guinea pig" in r.text]
        assert rec.facts.replies_to == "Do you have any pets at home?"  # the question, not the whole turn
        assert "pets" not in rec.text.lower() and "answering" not in rec.text
        assert [s.message_id for s in rec.sources] == ["r1"]
        assert rec.structured["replies_to"] == rec.facts.replies_to  # shown where the facts are shown
        hits = mem.search("What pets does Caroline have?", user_id="u")
        assert hits and hits[0].memory.id == rec.id and float(hits[0].why["keyword"]) > 0


def test_a_chinese_reply_carries_its_question_as_a_cue_and_a_statement_of_ones_own_does_not(tmp_path):
    with Memory(home=tmp_path) as mem:
        mem.add(
            [
                {"role": "assistant", "content": "您平时早上一般几点出门上班？", "id": "a1"},
                {
                    "role": "user",
                    "content": "一般七点半左右就出门了，公司在浦东那边，路上要一个小时。",
                    "id": "u1",
                },
                {"role": "user", "content": "我下周三要去北京出差。", "id": "u2"},
            ],
            user_id="u",
            at="2024-10-28T10:00:00",
        )
        recs = mem.list(user_id="u")
        cued = [r for r in recs if r.facts.replies_to]
        assert cued and all(r.facts.replies_to == "您平时早上一般几点出门上班？" for r in cued)
        assert all(s.message_id == "u1" for r in cued for s in r.sources)
        # the trip follows the user's own message, not a question: it has no cue
        trip = [r for r in recs if "北京" in r.text]
        assert trip and all(r.facts.replies_to is None for r in trip)


def test_a_reply_to_ones_own_question_has_no_cue(tmp_path):
    with Memory(home=tmp_path) as mem:
        mem.add(
            [
                {"role": "user", "content": "Guess what happened at work?", "id": "u1"},
                {
                    "role": "user",
                    "content": "I got promoted to assistant manager at the bank last Friday.",
                    "id": "u2",
                },
            ],
            user_id="u",
            at="2024-10-28T10:00:00",
        )
        recs = [r for r in mem.list(user_id="u") if "manager" in r.text]
        assert recs and all(r.facts.replies_to is None for r in recs)


def test_a_yes_or_no_to_an_offer_carries_the_offer_whatever_its_length(tmp_path):
    # the offer need not end its message (its price follows it); the reply opens with its decision and goes on
    with Memory(home=tmp_path) as mem:
        mem.add(
            [
                {
                    "role": "assistant",
                    "content": "Great! Do you want me to book a booth to show your breads? An exhibitor booth is $2,400.",
                    "id": "a1",
                },
                {
                    "role": "user",
                    "content": "No, too expensive. Just two attendee passes for me and Theo.",
                    "id": "u1",
                },
                {"role": "assistant", "content": "有一款399元的冲牙器口碑不错，要我下单吗？", "id": "a2"},
                {"role": "user", "content": "算了，先不买，等看完牙再说。", "id": "u2"},
                {
                    "role": "assistant",
                    "content": "Shall I move the oven check to Friday? The technician is free.",
                    "id": "a3",
                },
                # the leading "Yes," is no part of the statement, but it is what makes the reply an answer
                {"role": "user", "content": "Yes, at 3 pm, and tell Theo he will let him in.", "id": "u3"},
            ],
            user_id="u",
            at="2024-10-15T10:00:00",
        )
        recs = mem.list(user_id="u")
        (booth,) = [r for r in recs if "attendee passes" in r.text]
        assert "book a booth" in booth.text and [s.message_id for s in booth.sources] == ["a1", "u1"]
        (toothbrush,) = [r for r in recs if "先不买" in r.text]
        assert "冲牙器" in toothbrush.text and [s.message_id for s in toothbrush.sources] == ["a2", "u2"]
        (oven,) = [r for r in recs if "3 pm" in r.text or "15:00" in r.text]
        assert "oven check" in oven.text and [s.message_id for s in oven.sources] == ["a3", "u3"]
        # a later question about it finds what was turned down, with the words it was offered in
        hits = mem.search("Did they book a booth at the expo?", user_id="u", limit=3)
        assert any(h.memory.id == booth.id for h in hits)


def test_a_long_reply_to_an_open_question_or_without_a_decision_stays_its_own(tmp_path):
    with Memory(home=tmp_path) as mem:
        mem.add(
            [
                # an open question: "No" does not answer it, and the reply is long enough to stand alone
                {
                    "role": "assistant",
                    "content": "Which supplier do you use for flour these days?",
                    "id": "a1",
                },
                {
                    "role": "user",
                    "content": "No idea why you ask, but Northstar Mills delivers our flour every Wednesday morning.",
                    "id": "u1",
                },
                # a yes/no question answered without a yes or no up front
                {
                    "role": "assistant",
                    "content": "Should I move the oven check to Friday? It's free then.",
                    "id": "a2",
                },
                {
                    "role": "user",
                    "content": "Theo handles the oven check, he will call the technician himself next week.",
                    "id": "u2",
                },
            ],
            user_id="u",
            at="2024-10-15T10:00:00",
        )
        recs = mem.list(user_id="u")
        assert recs and not any("answering" in r.text for r in recs)
        assert all(len(r.sources) == 1 for r in recs)


def test_which_questions_ask_for_a_decision_and_which_replies_give_one():
    from memscribe.lang.clauses import split_sentences
    from memscribe.models import Message
    from memscribe.write.answers import asked_in, is_polar, opens_with_decision

    assert is_polar("Want me to switch all your butter to Alpine now?") and is_polar("要不要改到第二天？")
    assert is_polar("需要我帮你约复查吗？") and not is_polar("Which one?") and not is_polar("想买什么样的？")
    assert opens_with_decision("No, Two Rivers is local.") and opens_with_decision("先不约了，我自己补补维D")
    assert opens_with_decision("行吧") and not opens_with_decision("好久没见了")
    assert not opens_with_decision("Noted, thanks.") and not opens_with_decision("Nobody told me.")
    offer = "Do you want me to book a booth? An exhibitor booth is $2,400."
    asked = asked_in("a1", Message(role="assistant", content=offer), split_sentences(offer))
    assert asked is not None and asked.question == "Do you want me to book a booth?"
    assert asked.polar and not asked.trailing
    # an open question followed by a statement is not what the next message answers
    said = "What's first on the list? I have the afternoon free."
    assert asked_in("a2", Message(role="assistant", content=said), split_sentences(said)) is None

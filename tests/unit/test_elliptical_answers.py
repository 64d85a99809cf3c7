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

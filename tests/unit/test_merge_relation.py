"""The learned relation model in the merge (issue #15): when no rule decides, a confident P(update) supersedes
only if identity holds — the same subject, a thing both statements name in their own sentences, and no guard
(another person, other ids, a question). zh + en, the pure decision, plus the write path's probabilities
from the shipped models."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from memscribe.config import WriteConfig
from memscribe.decisions import Add, Candidate, Close, Link, Supersede
from memscribe.facts import Facts
from memscribe.models import Kind, Layer, MemoryRecord
from memscribe.write.merge import Neighbour, decide_merge
from memscribe.write.relation_judge import supersede_threshold, update_probabilities

OLD_AT = datetime(2026, 3, 2, 10, tzinfo=UTC)
NEW_AT = datetime(2026, 4, 6, 10, tzinfo=UTC)
CFG = WriteConfig()


def _record(
    text: str, subject: str, lang: str, *, raw: str = "", kind: Kind = Kind.fact, **facts
) -> MemoryRecord:
    return MemoryRecord(
        id="old",
        user_id="u",
        text=text,
        raw=raw or text,
        kind=kind,
        facts=Facts(subject=subject, lang=lang, **facts),
        created_at=OLD_AT,
        updated_at=OLD_AT,
    )


def _candidate(
    text: str, subject: str, lang: str, *, raw: str = "", kind: Kind = Kind.fact, **facts
) -> Candidate:
    return Candidate(
        text=text,
        raw=raw or text,
        kind=kind,
        layer=Layer.episodic,
        facts=Facts(subject=subject, lang=lang, **facts),
        time_start=facts.pop("time_start", None) if "time_start" in facts else None,
    )


def _decide(old: MemoryRecord, new: Candidate, p: float, similarity: float = 0.5):
    # a similarity below the slot threshold: no paraphrase or stated-change rule reads the pair, only the model
    return decide_merge(
        new, [Neighbour(old, similarity)], CFG, at=NEW_AT, update_p={old.id: p}, update_threshold=0.76
    )


# a positively stated change of the same thing: the model's update, identity holds
CHANGES = [
    ("en", "Andrew", "Andrew is thinking about getting a puppy.", "Andrew adopted a puppy named Toby."),
    (
        "en",
        "user",
        "The user is researching adoption agencies.",
        "The user applied to two adoption agencies.",
    ),
    ("zh", "用户", "用户在考虑报一个陶艺课。", "用户上周报名了陶艺课，每周六上午上。"),
    ("zh", "用户", "用户在一家面包店做兼职。", "用户辞掉了面包店的兼职，去咖啡馆上班了。"),
]


@pytest.mark.parametrize(("lang", "subject", "old", "new"), CHANGES)
def test_a_confident_update_of_the_same_thing_supersedes(lang, subject, old, new):
    d = _decide(_record(old, subject, lang), _candidate(new, subject, lang), p=0.9)
    assert isinstance(d, Supersede) and d.target == "old", d


@pytest.mark.parametrize(("lang", "subject", "old", "new"), CHANGES)
def test_below_the_threshold_both_are_kept(lang, subject, old, new):
    assert isinstance(_decide(_record(old, subject, lang), _candidate(new, subject, lang), p=0.6), Add)


@pytest.mark.parametrize(
    ("lang", "subject", "old", "new", "raw_old", "raw_new"),
    [
        # same topic, different fact: the statements name no thing in common, only the chat around them did
        ("en", "user", "The user likes jazz.", "The user's dog is called Max.", "", ""),
        ("zh", "用户", "用户喜欢爵士乐。", "用户家的狗叫旺财。", "", ""),
        # a vocative in both raw turns is no shared topic
        (
            "en",
            "user",
            "The user is feeling really down today.",
            "A painting of the user's was selected for an exhibition.",
            "Friend, I'm feeling really down today.",
            "Friend! A painting of mine was selected for an exhibition.",
        ),
    ],
)
def test_without_a_thing_both_statements_name_nothing_is_superseded(
    lang, subject, old, new, raw_old, raw_new
):
    d = _decide(_record(old, subject, lang, raw=raw_old), _candidate(new, subject, lang, raw=raw_new), p=0.95)
    assert isinstance(d, Add), d


@pytest.mark.parametrize(
    ("lang", "subject", "old", "new"),
    [
        # a third party's fact on one side only: the user's own job stays
        (
            "en",
            "user",
            "The user works at a bakery on Main Street.",
            "My sister just started at a bakery in Austin.",
        ),
        ("zh", "用户", "用户在一家面包店上班。", "我表姐刚去了一家面包店上班。"),
        # two ids: two orders, whatever words they share
        (
            "en",
            "user",
            "Order A12345 of a blue kettle ships Friday.",
            "Order B67890 of a blue kettle ships Monday.",
        ),
        # a question states nothing
        ("zh", "用户", "用户在考虑报一个陶艺课。", "你觉得陶艺课值得报吗？"),
    ],
)
def test_a_guard_keeps_both_and_links_them(lang, subject, old, new):
    d = _decide(_record(old, subject, lang), _candidate(new, subject, lang), p=0.95)
    assert isinstance(d, Link) and d.type == "related" and d.target == "old", d


def test_another_subject_is_never_superseded_by_the_model():
    old = _record("Caroline is researching adoption agencies.", "Caroline", "en")
    new = _candidate("Melanie applied to two adoption agencies.", "Melanie", "en")
    assert isinstance(_decide(old, new, p=0.99), Add)


def test_a_plan_report_shares_words_of_the_statements_not_of_the_raw_turns():
    # the planned day's report closes a plan only through a thing both statements name: the vocative "friend"
    # in both raw turns made a present feeling's day read as a plan the later news completed
    day = datetime(2023, 4, 29, 10, tzinfo=UTC)
    old = _record(
        "The user is feeling really down on 2023-04-29.",
        "user",
        "en",
        raw="Friend, I'm feeling really down today.",
        kind=Kind.plan,
        status="pending",
    ).model_copy(update={"time_start": day})
    new = Candidate(
        text="The user's painting was selected for 2023-04-29's exhibition.",
        raw="Friend! One of my paintings was selected for today's exhibition.",
        kind=Kind.event,
        layer=Layer.episodic,
        facts=Facts(subject="user", lang="en"),
        time_start=day,
    )
    assert not isinstance(decide_merge(new, [Neighbour(old, 0.8)], CFG, at=day), Supersede)


def test_the_write_path_reads_p_update_from_the_shipped_models():
    rng = np.random.default_rng(0)
    v_old, v_new = rng.normal(size=384).astype(np.float32), rng.normal(size=384).astype(np.float32)
    old = _record("The user lives in Boston.", "user", "en")
    other = _record("Tom lives in Austin.", "Tom", "en").model_copy(update={"id": "tom"})
    cand = _candidate("The user moved to Denver last month.", "user", "en")
    p = update_probabilities(cand, v_new, [(old, 0.9), (other, 0.9)], {"old": v_old, "tom": v_old}, NEW_AT)
    assert set(p) == {"old"} and 0.0 <= p["old"] <= 1.0
    assert 0.3 <= supersede_threshold() <= 0.99


# --- the model's reading that a pending plan or task is closed (done or cancelled) -------------------------

PLAN_AT = datetime(2026, 3, 30, 9, tzinfo=UTC)  # the plan's day: before NEW_AT, within the report window


def _plan(text: str, subject: str, lang: str, when: datetime = PLAN_AT) -> MemoryRecord:
    rec = _record(text, subject, lang, kind=Kind.plan, status="pending")
    return rec.model_copy(update={"time_start": when})


def _close(old: MemoryRecord, new: Candidate, p: float, at: datetime = NEW_AT):
    # a similarity below the slot threshold, and no done cue the rules know: only the model reads the pair
    return decide_merge(new, [Neighbour(old, 0.5)], CFG, at=at, close_p={old.id: p}, close_threshold=0.9)


CLOSES = [
    (
        "en",
        "user",
        "The kitchen renovation with Greg's crew starts on 2026-03-30.",
        "The user's kitchen renovation wrapped before the weekend; the new oven is in.",
    ),
    ("zh", "用户", "用户2026-03-30带女儿去打疫苗。", "女儿的疫苗打过了，没发烧。"),
]


@pytest.mark.parametrize(("lang", "subject", "old", "new"), CLOSES)
def test_a_confident_close_of_a_plan_whose_time_has_come_closes_it(lang, subject, old, new):
    # the plan happened: it is closed as done (it stays, a status change), not superseded
    d = _close(_plan(old, subject, lang), _candidate(new, subject, lang, kind=Kind.event), p=0.95)
    # (or the rules first, when the report says the plan's own verb done: 打疫苗 then 疫苗打过了)
    assert isinstance(d, Close) and d.target == "old" and ("closed" in d.why or "said done" in d.why), d
    # a report of its cancellation voids it: superseded
    cancelled = _candidate(new, subject, lang, kind=Kind.event, status="cancelled")
    d = _close(_plan(old, subject, lang), cancelled, p=0.95)
    assert isinstance(d, Supersede) and d.target == "old", d


@pytest.mark.parametrize(("lang", "subject", "old", "new"), CLOSES)
def test_the_model_closes_nothing_below_its_threshold_before_the_plan_or_long_after(lang, subject, old, new):
    cand = _candidate(new, subject, lang, kind=Kind.event)
    below = _close(_plan(old, subject, lang), cand, p=0.85)
    # (the rules may still read the plan's own verb said done on its day: 打疫苗 then 疫苗打过了)
    assert isinstance(below, Add) or "said done" in below.why, below
    # the plan's time has not come: "done" of a thing not yet due is another thing
    assert isinstance(
        _close(_plan(old, subject, lang, when=datetime(2026, 5, 1, tzinfo=UTC)), cand, p=0.95), Add
    )
    # months after the plan: another outing of the same kind, not its report
    assert isinstance(
        _close(_plan(old, subject, lang), cand, p=0.95, at=datetime(2026, 7, 1, tzinfo=UTC)), Add
    )


@pytest.mark.parametrize(("lang", "subject", "old", "new"), CLOSES)
def test_a_new_plan_or_a_plan_of_other_things_is_not_closed_by_the_model(lang, subject, old, new):
    # a plan again (the new memory is itself a plan) closes nothing
    assert isinstance(
        _close(_plan(old, subject, lang), _candidate(new, subject, lang, kind=Kind.plan), 0.95), Add
    )
    # same subject, no thing both name (hard negative: the same week, another errand)
    other = "The user's passport renewal went through." if lang == "en" else "用户的护照续签办好了。"
    assert isinstance(
        _close(_plan(old, subject, lang), _candidate(other, subject, lang, kind=Kind.event), 0.95), Add
    )


def test_a_question_about_the_plan_closes_nothing():
    old = _plan("The user's dentist appointment is on 2026-03-30.", "user", "en")
    new = _candidate("Did the dentist appointment go fine?", "user", "en", kind=Kind.event)
    d = _close(old, new, p=0.95)
    assert not isinstance(d, Supersede), d


def test_the_write_path_reads_p_close_only_for_pending_plans_and_tasks():
    from memscribe.write.relation_judge import CLOSE_THRESHOLD, close_probabilities

    rng = np.random.default_rng(1)
    v_old, v_new = rng.normal(size=384).astype(np.float32), rng.normal(size=384).astype(np.float32)
    plan = _plan("The user sees the dentist on 2026-03-30.", "user", "en")
    fact = _record("The user lives in Boston.", "user", "en").model_copy(update={"id": "fact"})
    cand = _candidate("The user went to the dentist.", "user", "en", kind=Kind.event)
    p = close_probabilities(cand, v_new, [(plan, 0.9), (fact, 0.9)], {"old": v_old, "fact": v_old}, NEW_AT)
    assert set(p) == {"old"} and 0.0 <= p["old"] <= 1.0
    assert 0.5 <= CLOSE_THRESHOLD < 1.0

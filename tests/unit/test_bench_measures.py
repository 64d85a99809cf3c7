"""The judge's S / A / P / R as the bench computes them, checked against values worked out by hand on a
ten-turn LoCoMo-format conversation with three questions (plus one real run of ``bench locomo`` on it)."""

import json

import pytest
from rich.console import Console

from memscribe.bench.locomo import Question, QuestionResult, aggregate, packed_observation, run_locomo
from memscribe.bench.measures import (
    ContextPiece,
    Observation,
    answer_hit,
    carries,
    content_words,
    holds,
    score,
)

S1_DATE = "1:56 pm on 8 May, 2023"
S2_DATE = "10:00 am on 20 May, 2023"
TURNS = {
    "D1:1": ("Caroline", "I adopted a golden retriever named Biscuit last week."),
    "D1:2": ("Melanie", "That's wonderful! How is Biscuit settling in?"),
    "D1:3": ("Caroline", "Great, he loves the park near my flat in Lisbon."),
    "D1:4": ("Melanie", "I started pottery classes on Tuesdays."),
    "D1:5": ("Caroline", "Pottery sounds relaxing."),
    "D2:1": ("Caroline", "I'm training for the Porto marathon in October."),
    "D2:2": ("Melanie", "Good luck with the marathon!"),
    "D2:3": ("Melanie", "My sister Ana visited us from Madrid."),
    "D2:4": ("Caroline", "Did she like the food?"),
    "D2:5": ("Melanie", "She loved the grilled sardines."),
}
TURN_TEXT = {d: text for d, (_, text) in TURNS.items()}
QA = [
    ("What is the name of Caroline's dog?", "Biscuit", ["D1:1"], 4),
    (
        "Where does Caroline live and what race is she training for?",
        "Lisbon; Porto marathon",
        ["D1:3", "D2:1"],
        1,
    ),
    ("When did Melanie's sister visit?", "20 May 2023", ["D2:3"], 2),
]


def _conv() -> dict:
    def sess(prefix: str) -> list[dict]:
        return [{"speaker": s, "dia_id": d, "text": t} for d, (s, t) in TURNS.items() if d.startswith(prefix)]

    return {
        "sample_id": "conv-measures",
        "conversation": {
            "speaker_a": "Caroline",
            "speaker_b": "Melanie",
            "session_1_date_time": S1_DATE,
            "session_1": sess("D1:"),
            "session_2_date_time": S2_DATE,
            "session_2": sess("D2:"),
        },
        "qa": [{"question": q, "answer": a, "evidence": ev, "category": c} for q, a, ev, c in QA],
    }


def _questions() -> list[Question]:
    return [
        Question("conv-measures", i, q, c, frozenset(ev), frozenset(ev), answer=a)
        for i, (q, a, ev, c) in enumerate(QA)
    ]


# A memscribe context made by hand. D1:3 is split over two atomic memories, neither of which holds half of
# its words alone; the pottery memory also lists D2:1 (the marathon turn) whose words it does not carry.
MEMORIES = (
    ContextPiece(
        "Caroline adopted a golden retriever named Biscuit in the week before 2023-05-08.",
        frozenset({"D1:1"}),
    ),
    ContextPiece("Caroline loves the park.", frozenset({"D1:3"})),
    ContextPiece("Caroline lives in a flat in Lisbon.", frozenset({"D1:3"})),
    ContextPiece("Melanie started pottery classes.", frozenset({"D1:4", "D2:1"})),
    ContextPiece("Melanie's sister Ana visited from Madrid on 2023-05-20.", frozenset({"D2:3"})),
)
CONTEXT = Observation(MEMORIES, "\n".join(m.text for m in MEMORIES))


def test_the_word_arithmetic_the_hand_values_rest_on():
    # D1:3's content words (stop words out, light stems): great, lov, park, near, flat, lisbon
    assert content_words(TURN_TEXT["D1:3"]) == {"great", "lov", "park", "near", "flat", "lisbon"}
    # each half-memory carries 2 of the 6 (not a ghost), holds neither alone (2/6 < 1/2), both together 4/6
    assert carries(MEMORIES[1].text, TURN_TEXT["D1:3"]) and carries(MEMORIES[2].text, TURN_TEXT["D1:3"])
    assert not holds(MEMORIES[1].text, TURN_TEXT["D1:3"]) and not holds(MEMORIES[2].text, TURN_TEXT["D1:3"])
    assert holds(MEMORIES[1].text + " " + MEMORIES[2].text, TURN_TEXT["D1:3"])
    # the pottery memory shares no word with the marathon turn it lists: a ghost source
    assert content_words(TURN_TEXT["D2:1"]) == {"m", "train", "porto", "marathon", "10"}  # October -> 10
    assert not carries(MEMORIES[3].text, TURN_TEXT["D2:1"])
    # answers: an ISO date in the context matches "20 May 2023"; a month or a day alone does not
    assert answer_hit("20 May 2023", "visited on 2023-05-20") == 1.0
    assert answer_hit("20 May 2023", "visited on 2023-05-21") == 0.0
    assert answer_hit("May 2023", "visited on 2023-05-21") == 1.0
    assert answer_hit("Lisbon; Porto marathon", "lives in Lisbon") == 0.0  # 1 of 3 words < 60%
    assert answer_hit("Lisbon; Porto marathon", "Lisbon, the Porto marathon") == 1.0
    assert answer_hit("the", "anything") is None  # no content words: not scored for A


def test_memscribe_context_scores_by_hand():
    q1, q2, q3 = (score(CONTEXT, ev, a, TURN_TEXT) for _, a, ev, _ in QA)
    # q1: D1:1 held by the Biscuit memory (6 of its 7 words); "Biscuit" in the text; 1 of 5 items holds it
    assert (q1.strict, q1.loose, q1.answer, q1.precision) == (1.0, 1.0, 1.0, pytest.approx(1 / 5))
    # q2: both evidence turns are listed (R = 1), but only D1:3 is carried — by two memories together; the
    # ghost-listed D2:1 does not count (S = 1/2). A: only "Lisbon" of 3 answer words -> 0. P: the two D1:3
    # memories hold evidence, the ghost-listing pottery memory does not -> 2/5.
    assert q2.loose == 1.0 and q2.strict == 0.5 and q2.strict_ids == frozenset({"D1:3"})
    assert q2.answer == 0.0 and q2.precision == pytest.approx(2 / 5)
    # q3: D2:3 held (4 of 5 words); the ISO date answers "20 May 2023"; 1 of 5 items
    assert (q3.strict, q3.answer, q3.precision) == (1.0, 1.0, pytest.approx(1 / 5))
    # without the Lisbon memory, D1:3 is only listed, no longer held
    without = Observation(MEMORIES[:2] + MEMORIES[3:], CONTEXT.text)
    assert score(without, QA[1][2], QA[1][1], TURN_TEXT).strict == 0.0


def test_raw_turn_baseline_scores_by_hand_and_the_aggregate():
    order = list(TURNS)
    pieces = [ContextPiece(f"{TURNS[d][0]}: {TURNS[d][1]}", frozenset({d})) for d in order]
    dated = [
        f"[{S1_DATE if d.startswith('D1') else S2_DATE}] {p.text}" for d, p in zip(order, pieces, strict=True)
    ]
    last_three = packed_observation([9, 8, 7], pieces, dated)  # D2:5, D2:4, D2:3
    results = []
    for q in _questions():
        r = QuestionResult(q, TURN_TEXT)
        r.seen = {"memscribe": {100: CONTEXT}, "recent": {100: last_three}}
        results.append(r)
    agg = aggregate(results, "original")
    ms, rc = (lambda m, s="memscribe": agg[m][s]["100"]), (lambda m: agg[m]["recent"]["100"])
    # memscribe: S (1 + 1/2 + 1)/3, A (1 + 0 + 1)/3, P (1/5 + 2/5 + 1/5)/3, R 1
    assert ms("S")["overall"] == pytest.approx(2.5 / 3)
    assert ms("A")["overall"] == pytest.approx(2 / 3)
    assert ms("P")["overall"] == pytest.approx(0.8 / 3)
    assert ms("R")["overall"] == 1.0
    assert ms("S")["multi-hop"] == 0.5 and ms("S")["n"] == {
        "single-hop": 1,
        "multi-hop": 1,
        "temporal": 1,
        "overall": 3,
    }
    # the last three turns hold only q3's evidence; their session date answers q3; 1 of 3 turns is evidence
    assert rc("S")["overall"] == pytest.approx(1 / 3) and rc("R")["overall"] == pytest.approx(1 / 3)
    assert rc("A")["temporal"] == 1.0 and rc("A")["overall"] == pytest.approx(1 / 3)
    assert rc("P")["temporal"] == pytest.approx(1 / 3) and rc("P")["single-hop"] == 0.0


def test_bench_locomo_reports_s_a_p_for_memscribe_and_the_baselines(tmp_path):
    data = tmp_path / "conv.json"
    data.write_text(json.dumps([_conv()]), encoding="utf-8")
    # recent turns cost (4 bytes a token, rounded up, + 1 newline): "Melanie: She loved the grilled sardines."
    # 40 bytes -> 11, "Caroline: Did she like the food?" 32 -> 9, "Melanie: My sister Ana visited us from
    # Madrid." 46 -> 13: 33 tokens = exactly the last three (the next, D2:2, costs 11)
    res = run_locomo(data, [33], console=Console(quiet=True))
    orig = res["measures"]["original"]
    rc = {m: orig[m]["recent/full"]["33"] for m in ("S", "A", "P", "R")}
    assert rc["S"]["overall"] == pytest.approx(1 / 3) and rc["R"]["overall"] == pytest.approx(1 / 3)
    assert rc["A"]["temporal"] == 1.0 and rc["A"]["single-hop"] == 0.0
    assert rc["P"]["overall"] == pytest.approx((0 + 0 + 1 / 3) / 3)
    # memscribe: every measure is reported, S never exceeds R, and the aggregate is the per-question mean
    per_q = [q["scores"]["memscribe"]["33"] for q in res["per_question"]]
    for m in ("S", "R"):
        assert orig[m]["memscribe"]["33"]["overall"] == pytest.approx(sum(p[m] for p in per_q) / 3)
    assert all(p["S"] <= p["R"] for p in per_q)
    tok = res["memscribe"]["tokens_used"]["33"]
    assert tok["fill"] == pytest.approx(tok["median"] / 33) and tok["underfilled"] == (tok["fill"] < 0.8)

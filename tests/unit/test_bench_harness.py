"""The benchmark harness's own arithmetic: recall, packing, BM25, RRF and the audit (benchmarks themselves are
not timed tests; one tiny real ingestion checks the LoCoMo runner end to end)."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console

from memscribe.bench.locomo import (
    BM25,
    Question,
    QuestionResult,
    aggregate,
    apply_audit,
    evidence_recall,
    norm_ev,
    ntok,
    pack,
    questions_for,
    rrf_order,
    run_locomo,
)
from memscribe.bench.measures import ContextPiece, Observation

# ---------------------------------------------------------------------------------------------------
# a hand-made two-session conversation

TURNS_S1 = [
    ("Caroline", "D1:1", "I adopted a golden retriever named Biscuit last week."),
    ("Melanie", "D1:2", "That's wonderful! How is Biscuit settling in?"),
    ("Caroline", "D1:3", "Great, he loves the park near my flat in Lisbon."),
]
TURNS_S2 = [
    ("Melanie", "D2:1", "I started pottery classes on Tuesdays."),
    ("Caroline", "D2:2", "Nice! I'm training for the Porto marathon in October."),
    ("Melanie", "D2:3", "Good luck with the marathon!"),
]


def _conv() -> dict:
    def sess(turns):
        return [{"speaker": s, "dia_id": d, "text": t} for s, d, t in turns]

    return {
        "sample_id": "conv-test",
        "conversation": {
            "speaker_a": "Caroline",
            "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": sess(TURNS_S1),
            "session_2_date_time": "10:00 am on 20 May, 2023",
            "session_2": sess(TURNS_S2),
        },
        "qa": [
            {
                "question": "What is the name of Caroline's dog?",
                "answer": "Biscuit",
                "evidence": ["D1:1"],
                "category": 4,
            },
            {
                "question": "Where does Caroline live and what race is she training for?",
                "answer": "Lisbon; the Porto marathon",
                "evidence": ["D1:3; D2:02"],  # malformed on purpose: normalised to D1:3, D2:2
                "category": 1,
            },
            {
                "question": "When did Melanie start pottery?",
                "answer": "May 2023",
                "evidence": ["D2:1"],
                "category": 2,
            },
            {"question": "What is Melanie's cat called?", "answer": "n/a", "evidence": [], "category": 5},
            {"question": "What car does Caroline drive?", "answer": "?", "evidence": ["D9:9"], "category": 4},
        ],
    }


def test_hand_made_conversation_recall_matches_hand_computation(tmp_path):
    # Token costs by hand (4 bytes per token, rounded up, + 1 for the newline):
    # "Melanie: Good luck with the marathon!" = 37 bytes -> 10 (+1 = 11);
    # "Caroline: Nice! I'm training for the Porto marathon in October." = 63 bytes -> 16 (+1 = 17).
    assert ntok("Melanie: Good luck with the marathon!") == 10
    assert ntok("Caroline: Nice! I'm training for the Porto marathon in October.") == 16
    budget = 28  # exactly the last two turns
    data = tmp_path / "conv.json"
    data.write_text(json.dumps([_conv()]), encoding="utf-8")
    res = run_locomo(data, [budget], out_dir=tmp_path / "out", console=Console(quiet=True))

    # the unanswerable category-5 question and the one whose evidence names no turn are not scored
    assert res["questions"]["original"] == 3
    rec = res["measures"]["original"]["R"]
    # most recent turns, full budget: D2:3 and D2:2 -> q0 (D1:1) 0, q1 (D1:3, D2:2) 1/2, q2 (D2:1) 0
    recent = rec["recent/full"][str(budget)]
    assert recent["single-hop"] == 0.0
    assert recent["multi-hop"] == pytest.approx(0.5)
    assert recent["temporal"] == 0.0
    assert recent["overall"] == pytest.approx((0 + 0.5 + 0) / 3)
    # BM25, full budget: "pottery" only in D2:1 (13 tokens) -> the temporal question is fully recalled
    assert rec["bm25/full"][str(budget)]["temporal"] == 1.0
    # memscribe's aggregate is the mean of its per-question recalls
    per_q = [q["scores"]["memscribe"][str(budget)]["R"] for q in res["per_question"] if q["scores"]]
    assert rec["memscribe"][str(budget)]["overall"] == pytest.approx(sum(per_q) / len(per_q))
    assert all(0.0 <= r <= 1.0 for r in per_q)
    # memscribe's context (the "same tokens" allowance of the baselines) stays within the budget
    for q in res["per_question"]:
        assert q["tokens"][str(budget)] <= budget
    out = tmp_path / "out"
    assert (out / "results.json").exists() and (out / "report.md").exists()
    assert (out / "locomo_recall.png").stat().st_size > 1000
    assert json.loads((out / "results.json").read_text())["locomo"]["meta"]["machine"]["cpu_count"]


def _listing(*ids: str) -> Observation:
    """A context whose items list these turn ids (their text does not matter to the loose recall R)."""
    return Observation(tuple(ContextPiece("", frozenset({i})) for i in ids), "")


def test_evidence_recall_and_aggregate_by_hand():
    assert evidence_recall({"D1:1", "D1:2"}, {"D1:2", "D3:3"}) == 0.5
    with pytest.raises(ValueError):
        evidence_recall(set(), {"D1:1"})
    q1 = Question("c", 0, "a?", 1, frozenset({"D1:1", "D1:2"}), frozenset({"D1:1", "D1:2"}))
    q2 = Question("c", 1, "b?", 4, frozenset({"D2:1"}), frozenset({"D2:1"}))
    r1 = QuestionResult(q1, {}, seen={"memscribe": {500: _listing("D1:1")}})
    r2 = QuestionResult(q2, {}, seen={"memscribe": {500: _listing("D2:1", "D2:2")}})
    agg = aggregate([r1, r2], "original")["R"]["memscribe"]["500"]
    assert agg["multi-hop"] == 0.5 and agg["single-hop"] == 1.0
    assert agg["overall"] == 0.75 and agg["n"] == {"multi-hop": 1, "single-hop": 1, "overall": 2}


def test_norm_ev_matches_the_judge():
    assert norm_ev(["D8:6; D9:17", "D:11:26", "D30:05", "junk"]) == ["D8:6", "D9:17", "D11:26", "D30:5"]


# ---------------------------------------------------------------------------------------------------
# packing


@settings(max_examples=200, deadline=None)
@given(
    costs=st.lists(st.integers(min_value=0, max_value=400), min_size=0, max_size=60),
    allow=st.integers(min_value=0, max_value=3000),
    seed=st.randoms(use_true_random=False),
)
def test_pack_never_exceeds_the_allowance(costs, allow, seed):
    order = list(range(len(costs)))
    seed.shuffle(order)
    chosen = pack(order, costs, allow)
    used = sum(costs[i] + 1 for i in chosen)
    assert used <= allow
    assert chosen == order[: len(chosen)]  # rank order, a prefix
    if len(chosen) < len(order):  # it stopped because the next one did not fit
        assert used + costs[order[len(chosen)]] + 1 > allow


def test_pack_by_hand():
    assert pack([2, 0, 1], [5, 5, 3], 10) == [2, 0]  # 4 + 6 = 10 fits exactly; the next (6) does not
    assert pack([0, 1], [100, 1], 50) == []  # stops at the first misfit, like the judge


# ---------------------------------------------------------------------------------------------------
# BM25 and RRF


def test_bm25_ranks_the_exact_term_turn_first():
    docs = [
        "Caroline: I went to the beach with the kids.",
        "Melanie: The beach was lovely, the kids loved it.",
        "Caroline: I finally bought a kayak for the lake.",
        "Melanie: We had pizza after the beach.",
    ]
    bm = BM25(docs)
    assert bm.rank("When did Caroline buy a kayak?")[0] == 2
    assert bm.rank("kayak", matched_only=True) == [2]
    assert bm.rank("zebra", matched_only=True) == []
    assert sorted(bm.rank("zebra")) == [0, 1, 2, 3]


def test_rrf_order_by_hand():
    # k=60: doc0 1/61+1/62, doc2 1/63+1/61, doc1 1/62, doc3 1/63
    assert rrf_order([[0, 1, 2], [2, 0, 3]]) == [0, 2, 1, 3]
    # k=1: doc5 1/2+1/3 = .833, doc7 1/3+1/2 = .833 (tie -> smaller index), doc9 1/4
    assert rrf_order([[5, 7, 9], [7, 5]], k=1) == [5, 7, 9]
    assert rrf_order([[], [4, 3]]) == [4, 3]


# ---------------------------------------------------------------------------------------------------
# the audit


def test_audit_corrects_citations_and_drops_wrong_answers():
    conv = _conv()
    turn_ids = {d for _, d, _ in TURNS_S1 + TURNS_S2}
    qs = questions_for(conv, turn_ids)
    assert [q.index for q in qs] == [0, 1, 2, 4]  # category 5 left out
    audit = [
        {  # wrong citation: the answer is right, the evidence moves to D1:3
            "question_id": "locomo_0_qa0",
            "sample_id": "conv-test",
            "question": "What is the name of Caroline's dog?",
            "error_type": "WRONG_CITATION",
            "cited_evidence": ["D1:1"],
            "correct_evidence": ["D1:1", "D1:02"],
        },
        {  # the golden answer is wrong: dropped from the audited variant
            "question_id": "locomo_0_qa2",
            "sample_id": "conv-test",
            "question": "When did Melanie start pottery?",
            "error_type": "TEMPORAL_ERROR",
            "cited_evidence": ["D2:1"],
            "correct_evidence": ["D2:1"],
        },
        {  # another conversation: ignored
            "question_id": "locomo_1_qa1",
            "sample_id": "conv-other",
            "question": "Where does Caroline live and what race is she training for?",
            "error_type": "HALLUCINATION",
            "cited_evidence": [],
            "correct_evidence": [],
        },
    ]
    audited, counts = apply_audit(qs, audit, turn_ids)
    by = {q.index: q for q in audited}
    assert by[0].audit_action == "corrected" and by[0].audited == {"D1:1", "D1:2"}
    assert by[0].evidence == {"D1:1"}  # the original variant is untouched
    assert by[2].audit_action == "dropped" and by[2].evidence_for("audited") is None
    assert by[2].evidence_for("original") == {"D2:1"}
    assert by[1].audit_action == "unchanged" and by[1].audited == {"D1:3", "D2:2"}
    assert counts == {"corrected": 1, "dropped": 1, "unchanged": 2, "audit_entries_matched": 2}

    # recall in each variant, by hand: the system found D1:1 and D2:1
    results = [
        QuestionResult(q, {}, seen={"s": {100: _listing("D1:1", "D2:1")}}) for q in audited if q.evidence
    ]
    orig = aggregate(results, "original")["R"]["s"]["100"]
    aud = aggregate(results, "audited")["R"]["s"]["100"]
    assert orig["n"]["overall"] == 3 and orig["overall"] == pytest.approx((1 + 0 + 1) / 3)
    assert aud["n"]["overall"] == 2 and aud["overall"] == pytest.approx((0.5 + 0) / 2)
    assert "temporal" not in aud


def test_audit_matches_by_question_text_when_the_index_is_off():
    conv = _conv()
    turn_ids = {d for _, d, _ in TURNS_S1 + TURNS_S2}
    qs = questions_for(conv, turn_ids)
    audit = [
        {
            "question_id": "locomo_0_qa99",
            "sample_id": "conv-test",
            "question": "What is the name of Caroline's dog?",
            "error_type": "ATTRIBUTION_ERROR",
        }
    ]
    audited, counts = apply_audit(qs, audit, turn_ids)
    assert [q.audit_action for q in audited] == ["dropped", "unchanged", "unchanged", "unchanged"]
    assert counts["dropped"] == 1


def test_bench_cli_has_the_commands():
    from typer.testing import CliRunner

    from memscribe.bench.cli import bench_app

    out = CliRunner().invoke(bench_app, ["--help"])
    assert out.exit_code == 0
    for cmd in ("scenarios", "locomo", "speed", "audit"):
        assert cmd in out.output


def test_user_assistant_turns_keep_their_role_as_the_judge_sends_them():
    from memscribe.bench.locomo import conversation_sessions

    conv = {
        "sample_id": "ua",
        "conversation": {
            "session_1_date_time": "9:00 am on 3 June, 2023",
            "session_1": [
                {"speaker": "Lin", "dia_id": "D1:1", "text": "帮我订周五的餐厅。", "role": "user"},
                {
                    "speaker": "assistant",
                    "dia_id": "D1:2",
                    "text": "已订好周五晚上七点。",
                    "role": "assistant",
                },
            ],
        },
    }
    (session,), turns = conversation_sessions(conv)
    assert session["messages"] == [
        {"role": "user", "name": "Lin", "content": "帮我订周五的餐厅。", "id": "D1:1"},
        {"role": "assistant", "content": "已订好周五晚上七点。", "id": "D1:2"},
    ]
    assert session["date"] == "9:00 am on 3 June, 2023" and session["at"] == "2023-06-03T09:00:00+00:00"
    assert turns[1] == ("D1:2", "assistant: 已订好周五晚上七点。", 1)


def test_bench_scenarios_writes_a_markdown_report_with_the_failed_check(tmp_path):
    """`memscribe bench scenarios` writes report.md like the other benches: the pass count and, for a
    failed check, the scenario, the check type and why."""
    import json

    from typer.testing import CliRunner

    from memscribe.interfaces.cli import app

    data = {
        "scenarios": [
            {
                "id": "en-tea",
                "user": "u-tea",
                "steps": [
                    {
                        "at": "2026-04-01T09:00:00+00:00",
                        "messages": [{"role": "user", "content": "I drink green tea every morning."}],
                    }
                ],
                "checks": [
                    {
                        "type": "search_top1_contains",
                        "query": "What do I drink in the morning?",
                        "expect_any": ["green tea"],
                    },
                    {
                        "type": "search_top1_contains",
                        "query": "What do I drink in the morning?",
                        "expect_any": ["espresso"],
                    },
                ],
            }
        ]
    }
    path = tmp_path / "sc.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["bench", "scenarios", "--data", str(path), "--out", str(out)])
    assert res.exit_code == 0, res.output
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "## Scenarios" in report and "**1 / 2**" in report
    assert "| en-tea | 1 / 2 |" in report
    assert "en-tea · search_top1_contains" in report  # the failed check is listed with its reason
    assert json.loads((out / "results.json").read_text())["scenarios"]["passed"] == 1

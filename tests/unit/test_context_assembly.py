"""read/context.py: the context text for a query, pure over the session texts and the recall function
it is handed (here: real records, recalled in a fixed order)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memscribe.lang.text import count_tokens
from memscribe.read.assemble import format_line
from memscribe.read.context import BLOCK_SHARES, SessionTexts, assemble_context, packing_order, recall_depth
from memscribe.read.rerank import Scored
from memscribe.testing.store_contract import make_record

TEXTS = [
    "用户不吃香菜，也不吃辣",
    "The user prefers window seats on flights",
    "用户下周三飞成都出差",
    "The user's manager is Priya; 1:1s are on Fridays",
    "用户对花生过敏",
] * 8


def _recall(asked: list[int]):
    def recall(k: int) -> list[Scored]:
        asked.append(k)
        return [
            Scored(record=make_record(f"m{i}", text=t), score=1.0 - i / 100, why={})
            for i, t in enumerate(TEXTS)
        ][:k]

    return recall


def test_without_a_session_the_memories_fill_the_budget_best_first():
    asked: list[int] = []
    ctx = assemble_context(budget_tokens=60, max_items=10, recall=_recall(asked))
    assert asked == [recall_depth(60)] == [20]
    assert ctx.blocks == {} and not ctx.text.startswith("## ")
    assert ctx.tokens == count_tokens(ctx.text) <= 60
    assert [h.memory.id for h in ctx.items] == [f"m{i}" for i in range(len(ctx.items))]  # in recall order
    assert ctx.text.splitlines()[0].endswith(TEXTS[0])


def test_session_blocks_come_first_each_within_its_share():
    session = SessionTexts(
        task_state="- booking: 成都 flight, window seat",
        summary="- user: 我下周三飞成都\n- user: 帮我订酒店" * 20,  # far over its share: truncated
        recent_turns="user: 订好了吗？\nassistant: 还在查航班",
    )
    ctx = assemble_context(budget_tokens=400, max_items=5, recall=_recall([]), session=session)
    assert list(ctx.blocks) == ["task state", "session summary", "recent turns"]
    for title, block in ctx.blocks.items():
        assert count_tokens(block) <= int(400 * BLOCK_SHARES[title])
    assert (
        ctx.text.index("## task state") < ctx.text.index("## session summary") < ctx.text.index("## memories")
    )
    assert len(ctx.items) == 5 and ctx.tokens <= 400


def test_empty_session_texts_add_no_block_and_no_memories_add_no_header():
    ctx = assemble_context(
        budget_tokens=100, max_items=5, recall=lambda k: [], session=SessionTexts("", "  ", "")
    )
    assert ctx.text == "" and ctx.items == [] and ctx.blocks == {}


def test_recall_depth_is_bounded():
    assert recall_depth(0) == 20 and recall_depth(1200) == 100 and recall_depth(100_000) == 200


@settings(max_examples=60, deadline=None)
@given(budget=st.integers(min_value=1, max_value=600), max_items=st.integers(min_value=0, max_value=12))
def test_never_over_budget_or_over_max_items(budget, max_items):
    session = SessionTexts("- step 1 done", "- user: 明天上午开会", "user: hi")
    ctx = assemble_context(budget_tokens=budget, max_items=max_items, recall=_recall([]), session=session)
    assert ctx.tokens == count_tokens(ctx.text) <= budget
    assert len(ctx.items) <= max_items


def _ranked(*memories: tuple[str, float | None]) -> list[Scored]:
    """Recalled memories best first; a None P(evidence) is a standing fact placed after the best one."""
    return [
        Scored(
            record=make_record(f"r{i}", text=t),
            score=p if p is not None else 1.0,
            why={"p_evidence": p} if p is not None else {"standing": "diet"},
        )
        for i, (t, p) in enumerate(memories)
    ]


LONG = (
    "Caroline said that the support group she went to last week was really welcoming, that the stories people "
    "told there were moving, and that it made her think a lot about what she wants to do for a living."
)


def test_a_short_line_takes_the_room_of_a_long_one_that_is_not_as_likely_per_token():
    ranked = _ranked(
        ("The user is allergic to peanuts.", 0.60),
        (LONG, 0.30),  # more likely than the next, but ~4x its length
        ("The user adopted a guinea pig named Oscar.", 0.20),
        ("The user's sister lives in Austin.", 0.02),
    )
    # room for the best line and the long one: in ranked order they would fill it; by P per token the guinea pig
    # and the sister's city come before the long line, which then no longer fits
    budget = count_tokens(format_line(ranked[0].record)) + count_tokens(format_line(ranked[1].record)) + 1
    ctx = assemble_context(budget_tokens=budget, max_items=10, recall=lambda k: list(ranked))
    assert [h.memory.id for h in ctx.items] == ["r0", "r2", "r3"]
    # with room for everything, all are shown in the ranked order, whatever order claimed the budget
    ctx = assemble_context(budget_tokens=1000, max_items=10, recall=lambda k: list(ranked))
    assert [h.memory.id for h in ctx.items] == ["r0", "r1", "r2", "r3"]


def test_packing_order_keeps_the_best_and_the_standing_facts_first_and_without_p_keeps_the_ranking():
    ranked = _ranked(
        (LONG, 0.50),
        ("The user does not eat pork.", None),  # a standing fact placed after the best one
        (LONG, 0.40),
        ("The user lives in Denver.", 0.10),
    )
    tokens = [count_tokens(format_line(s.record)) for s in ranked]
    assert packing_order(ranked, tokens) == [0, 1, 3, 2]
    hand = [Scored(record=s.record, score=s.score, why={}) for s in ranked]  # recall.ranker = "weights"
    assert packing_order(hand, tokens) == [0, 1, 2, 3]

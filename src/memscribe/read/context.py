"""Context assembly: the text an agent puts in its prompt, within a token budget.

With a session, three blocks come first, each capped at a share of the budget (task state 10 %, session
summary 15 %, recent turns 25 %); the memories recalled for the query fill what is left, best first,
whole lines only. Pure over its inputs: the caller hands in the session texts and a recall function.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from memscribe.lang.text import count_tokens
from memscribe.models import Context, Hit
from memscribe.read.assemble import fit_block, format_line, pack_lines

if TYPE_CHECKING:
    from memscribe.read.rerank import Scored

__all__ = ["BLOCK_SHARES", "SessionTexts", "assemble_context", "recall_depth"]

# block title -> share of the budget it may take at most
BLOCK_SHARES = {"task state": 0.10, "session summary": 0.15, "recent turns": 0.25}
_MEMORIES_HEADER = "## memories\n"


@dataclass(frozen=True)
class SessionTexts:
    """What the session layers say, rendered: the working items, the rolling summary, the last turns."""

    task_state: str
    summary: str
    recent_turns: str


def recall_depth(memory_budget: int) -> int:
    """How many memories to recall for a budget: about one per 12 tokens, between 20 and 200."""
    return max(20, min(200, memory_budget // 12))


def _blocks(session: SessionTexts, budget_tokens: int) -> dict[str, str]:
    bodies = {
        "task state": session.task_state,
        "session summary": session.summary,
        "recent turns": session.recent_turns,
    }
    blocks: dict[str, str] = {}
    for title, body in bodies.items():
        block = fit_block(f"## {title}", body, int(budget_tokens * BLOCK_SHARES[title]))
        if block:
            blocks[title] = block
    return blocks


def assemble_context(
    *,
    budget_tokens: int,
    max_items: int,
    recall: Callable[[int], list[Scored]],
    session: SessionTexts | None = None,
    expand: Callable[[list[Scored]], list[Scored]] | None = None,
) -> Context:
    """The context for one query; ``recall(k)`` returns the ``k`` best memories for it, best first.

    ``expand`` (the statements said with each memory, :mod:`memscribe.read.siblings`) is asked only about
    the memories that fit the budget; what it adds goes right after them, ahead of the rest."""
    blocks = _blocks(session, budget_tokens) if session is not None else {}
    mem_budget = budget_tokens - sum(count_tokens(b) + 2 for b in blocks.values())
    scored = recall(recall_depth(mem_budget))
    header = _MEMORIES_HEADER if blocks else ""
    budget = mem_budget - count_tokens(header)
    lines = [format_line(s.record) for s in scored]
    groups = [[i] for i in range(len(scored))]
    if expand is not None and scored:
        fit, _ = pack_lines(lines, budget, max_items=max_items)
        head = expand([scored[i] for i in fit])
        placed = {s.record.id for s in head}
        scored = head + [s for s in scored if s.record.id not in placed]
        groups = _message_groups(scored)
        # the statements said together are one line under one label: they were one message
        lines = [format_line(scored[g[0]].record, *(scored[i].record.text for i in g[1:])) for g in groups]
    fitted, _ = pack_lines(lines, budget, max_items=max_items)
    chosen = [i for g in fitted for i in groups[g]]
    items = [Hit(memory=scored[i].record, score=scored[i].score, why=scored[i].why) for i in chosen]
    parts = list(blocks.values())
    if chosen:
        parts.append(header + "\n".join(lines[g] for g in fitted))
    text = "\n\n".join(parts)
    tokens = count_tokens(text)
    assert tokens <= budget_tokens, "context assembly exceeded its budget"
    return Context(text=text, items=items, tokens=tokens, budget_tokens=budget_tokens, blocks=blocks)


def _message_groups(scored: list[Scored]) -> list[list[int]]:
    """Indices of ``scored`` grouped as lines: a memory with the siblings placed right after it."""
    groups: list[list[int]] = []
    for i, s in enumerate(scored):
        lead = s.why.get("sibling_of")
        if groups and lead is not None and lead in {scored[j].record.id for j in groups[-1]}:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups

"""A LangGraph agent loop with memscribe as its long-term memory — runs offline.

    recall (memory.context)  ->  model  ->  remember (memory.add)

Each turn the agent first asks memscribe for the memories relevant to the user's message (packed into a
token budget), calls the model with them, and then hands the turn to memscribe, which decides what is
worth keeping (and updates what changed: "I moved to Shanghai" supersedes "I live in Beijing").
The graph is also compiled with ``store=MemscribeStore(memory)``: nodes (and LangGraph tools) can use
``runtime.store`` to put / get / search explicit items, kept in the same per-user memory.

The "model" is a stand-in so this runs without a network or an API key; the comment in ``call_model``
shows where a real chat model goes.

    python examples/langgraph_agent.py [--home PATH]
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import dataclass
from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from memscribe import Memory
from memscribe.integrations.langgraph import MemscribeStore


@dataclass
class UserContext:
    user_id: str


class Turn(TypedDict, total=False):
    message: str  # what the user said
    memories: str  # what memscribe recalled for it
    answer: str  # what the model replied


def build_agent(memory: Memory):  # type: ignore[no-untyped-def]
    def recall(state: Turn, runtime: Runtime[UserContext]) -> Turn:
        ctx = memory.context(state["message"], user_id=runtime.context.user_id, budget_tokens=300)
        return {"memories": ctx.text}

    def call_model(state: Turn) -> Turn:
        system = "You are a helpful assistant. What you know about the user:\n" + (
            state["memories"] or "(nothing)"
        )
        # A real model goes here, e.g.:
        #   from langchain_openai import ChatOpenAI
        #   reply = ChatOpenAI(model="gpt-4o-mini").invoke([("system", system), ("user", state["message"])])
        #   return {"answer": reply.content}
        return {"answer": fake_model(system, state["message"])}

    def remember(state: Turn, runtime: Runtime[UserContext]) -> Turn:
        user_id = runtime.context.user_id
        memory.add(
            [
                {"role": "user", "content": state["message"]},
                {"role": "assistant", "content": state["answer"]},
            ],
            user_id=user_id,
        )
        return {}

    graph = StateGraph(Turn, context_schema=UserContext)
    graph.add_node("recall", recall)
    graph.add_node("model", call_model)
    graph.add_node("remember", remember)
    graph.add_edge(START, "recall")
    graph.add_edge("recall", "model")
    graph.add_edge("model", "remember")
    graph.add_edge("remember", END)
    return graph.compile(store=MemscribeStore(memory))


def fake_model(system: str, message: str) -> str:
    """Answers from the recalled memories only, so the output shows what memory contributed."""
    known = [line for line in system.splitlines()[1:] if line and line != "(nothing)"]
    if message.rstrip().endswith("?"):
        return "From what I remember: " + " | ".join(known) if known else "I don't know that yet."
    return "Noted."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", help="memscribe store folder (default: a new temporary folder)")
    args = parser.parse_args()
    home = args.home or tempfile.mkdtemp(prefix="memscribe-langgraph-")

    with Memory(home) as memory:
        agent = build_agent(memory)
        me = UserContext(user_id="alice")
        conversation = [
            "I live in Beijing.",
            "I prefer green tea over coffee.",
            "I moved to Shanghai last month.",
            "What should I drink?",
            "Which city do I live in now?",
        ]
        for message in conversation:
            out = agent.invoke({"message": message}, context=me)
            print(f"user:  {message}\nagent: {out['answer']}\n")
        print("alice's memories:")
        for rec in memory.list(user_id="alice"):
            print(f"  [{rec.kind.value}] {rec.text}")


if __name__ == "__main__":
    main()

"""`memscribe demo`: a short bundled zh + en conversation, what was kept / dropped / merged and why,
then a few queries answered with the assembled context. Offline, a few seconds."""

from __future__ import annotations

import json
import tempfile
import time
from importlib import resources
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

__all__ = ["run_demo"]

_STYLE = {
    "add": "green",
    "merge": "cyan",
    "supersede": "magenta",
    "close": "magenta",
    "link": "blue",
    "drop": "red",
    "working": "yellow",
}


def run_demo(console: Console, home: Path | None = None) -> None:
    from memscribe import Memory

    data = json.loads(resources.files("memscribe").joinpath("data/demo.json").read_text(encoding="utf-8"))
    home = home or Path(tempfile.mkdtemp(prefix="memscribe-demo-"))
    t0 = time.perf_counter()
    mem = Memory(home=home)
    uid = data["user"]
    table = Table(title="What memscribe did with each message", show_lines=True)
    for col in ("message", "action", "memory (canonical text)", "why"):
        table.add_column(col, overflow="fold")
    for step in data["steps"]:
        msgs = step["messages"]
        rep = mem.add(msgs, user_id=uid, session_id=step["session"], at=step["at"])
        by_msg = {}
        for it in rep.items:
            by_msg.setdefault(it.message_id, it)
        sent = mem.session(step["session"]).turns(last=len(msgs))
        for m, row in zip(msgs, sent, strict=True):
            it = by_msg.get(row.message_id)
            shown = escape(row.content if m["role"] == "user" else f"({m['role']}) {row.content}")
            if it is None:
                table.add_row(
                    shown, "[dim]context[/dim]", "", "attached to a neighbouring memory or assistant turn"
                )
                continue
            style = _STYLE.get(it.action, "white")
            table.add_row(
                shown, f"[{style}]{it.action}[/{style}]", escape(it.text or ""), escape("; ".join(it.reasons))
            )
    mem.flush()
    console.print(table)
    console.print(
        "[dim]Sensitive values (the phone number, the API key) were cut out before encoding: "
        "they are in no memory, index, embedding or log.[/dim]"
    )
    console.print(_state_table(mem, uid))
    for q in data["queries"]:
        ctx = mem.context(q["q"], user_id=uid, budget_tokens=q["budget"])
        console.rule(f"[bold]context for[/bold] {q['q']}  [dim]({ctx.tokens}/{q['budget']} tokens)[/dim]")
        console.print(escape(ctx.text) if ctx.text else "[dim](nothing relevant)[/dim]")
    mem.close()
    console.print(
        f"\n[dim]store: {home} · {time.perf_counter() - t0:.1f}s · try `memscribe list -u {uid} --home {home}`[/dim]"
    )


def _state_table(mem, uid: str) -> Table:  # type: ignore[no-untyped-def]
    t = Table(title="Memory after the conversation (all versions kept)")
    for col in ("status", "kind", "layer", "time", "text"):
        t.add_column(col, overflow="fold")
    for r in mem.list(user_id=uid, status=None):
        when = r.time_start.isoformat(timespec="minutes") if r.time_start else ""
        style = "dim" if r.status.value != "active" else ""
        t.add_row(r.status.value, r.kind.value, r.layer.value, when, escape(r.text), style=style)
    return t

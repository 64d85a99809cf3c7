"""The CLI is a thin shell over the API: every command runs, --json is machine-readable."""

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from memscribe.interfaces.cli import app

runner = CliRunner()
README = Path(__file__).parents[2] / "README.md"


def run(*args):
    res = runner.invoke(app, [str(a) for a in args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.output


def test_cli_end_to_end(tmp_path):
    home = ["--home", tmp_path]
    out = json.loads(
        run(
            "add",
            "I live in Boston with my partner.",
            "-u",
            "u1",
            "--at",
            "2026-01-05T10:00:00+00:00",
            "--json",
            *home,
        )
    )
    mid = out["items"][0]["memory_id"]
    run("add", "We moved to Denver last week!", "-u", "u1", "--at", "2026-03-05T10:00:00+00:00", *home)
    hits = json.loads(run("search", "Which city do I live in?", "-u", "u1", "--json", *home))
    assert "Denver" in hits[0]["memory"]["text"]
    assert "Denver" in run("context", "where do I live", "-u", "u1", "--budget", "200", *home)
    listed = json.loads(run("list", "-u", "u1", "--status", "all", "--json", *home))
    assert {r["status"] for r in listed} == {"active", "superseded"}
    assert json.loads(run("show", mid, "--json", *home))["status"] == "superseded"
    assert len(json.loads(run("history", mid, "--json", *home))) == 2
    assert any(e["stage"] == "filter" for e in json.loads(run("why", mid, "--json", *home)))
    run("rollback", mid, "1", *home)
    run("delete", mid, *home)
    export = tmp_path / "out.jsonl"
    run("export", "--out", export, *home)
    lines = [json.loads(x) for x in export.read_text().splitlines()]
    assert len([x for x in lines if x.get("_type") != "audit"]) == 2  # the two memories, then their audit
    assert any(x.get("_type") == "audit" for x in lines)
    other = tmp_path / "other"
    run("import", export, "--home", other)
    assert json.loads(run("stats", "--json", "--home", other))["memories_by_status"]
    run("forget", "-u", "u1", "--yes", *home)
    assert json.loads(run("list", "-u", "u1", "--status", "all", "--json", *home)) == []
    run("reindex", *home)


def test_cli_bad_input_is_a_clean_error(tmp_path):
    res = runner.invoke(app, ["add", "   ", "-u", "u1", "--home", str(tmp_path)])
    assert res.exit_code == 2
    assert "error" in res.output and "Traceback" not in res.output


def test_demo_runs_offline(tmp_path):
    out = run("demo", "--home", tmp_path / "demo")
    assert "supersede" in out and "merge" in out and "drop" in out
    assert "13812345678" not in out and "sk-live" not in out


def test_every_command_is_documented_in_the_readme():
    text = README.read_text(encoding="utf-8")
    commands = [c.name or c.callback.__name__ for c in app.registered_commands]
    missing = [c for c in commands if not re.search(rf"memscribe {re.escape(c)}\b", text)]
    assert not missing, f"README does not show: {missing}"


def test_cli_review_queue(tmp_path):
    home = ["--home", tmp_path]
    out = json.loads(run("add", "以后每个月的房租都从我的招商银行卡自动扣款。", "-u", "u1", "--json", *home))
    mid = out["items"][0]["memory_id"]
    assert out["items"][0]["action"] == "review"
    queued = json.loads(run("review", "list", "--json", *home))
    assert [r["id"] for r in queued] == [mid]
    assert "money" in run("review", "list", *home)
    run("review", "edit", mid, "用户每月房租从招商银行卡自动扣款。", "--approve", *home)
    assert json.loads(run("show", mid, "--json", *home))["status"] == "active"
    assert json.loads(run("review", "list", "--json", *home)) == []
    res = runner.invoke(app, ["review", "approve", mid, *map(str, home)])
    assert res.exit_code == 2 and "not pending review" in res.output
    stats = json.loads(run("stats", "--json", *home))
    assert stats["memories_by_kind"] and "latency_ms" in stats


def test_error_messages_keep_square_brackets(tmp_path):
    # rich would read "[bold]" in an error text as markup and swallow it (and "pip install 'x[server]'")
    run("add", "I prefer green tea", "-u", "u1", "--home", tmp_path)
    res = runner.invoke(app, ["show", "mem_[bold]x", "--home", str(tmp_path)])
    assert res.exit_code == 2 and "mem_[bold]x" in res.output


def test_read_commands_refuse_a_missing_store_and_create_none(tmp_path):
    """`show --home /typo` used to create an empty store there and answer "not found"."""
    missing = tmp_path / "nowhere"
    home = ["--home", str(missing)]
    for cmd in (
        ["show", "mem_x"],
        ["history", "mem_x"],
        ["why", "mem_x"],
        ["search", "tea", "-u", "u1"],
        ["context", "tea", "-u", "u1"],
        ["list", "-u", "u1"],
        ["export"],
        ["stats"],
        ["review", "list"],
        ["delete", "mem_x"],
        ["maintain"],
        ["reindex"],
    ):
        res = runner.invoke(app, [*cmd, *home])
        assert res.exit_code == 2, (cmd, res.output)
        assert "no memscribe store at" in res.output and "Traceback" not in res.output, (cmd, res.output)
    assert not missing.exists()
    # the commands that bring memories in create the store
    run("add", "I prefer green tea", "-u", "u1", *home)
    assert json.loads(run("list", "-u", "u1", "--json", *home))


def test_ingest_shows_a_progress_bar(tmp_path):
    path = tmp_path / "chat.jsonl"
    turns = ["I live in Boston.", "ok", "I prefer green tea over coffee.", "My sister is called Ann."]
    path.write_text("".join(json.dumps({"role": "user", "content": t}) + "\n" for t in turns))
    res = runner.invoke(app, ["ingest", str(path), "-u", "u1", "--batch", "1", "--home", str(tmp_path / "s")])
    assert res.exit_code == 0, res.output
    assert re.search(r"ingesting .*4/4 lines .*/s", res.stderr), res.stderr
    assert "ingested 4 messages" in res.stdout


def test_python_dash_m_runs_the_same_command(tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    res = subprocess.run(
        [sys.executable, "-m", "memscribe", "--help"], capture_output=True, text=True, env=env, timeout=120
    )
    assert res.returncode == 0, res.stderr
    assert "bench" in res.stdout and "add" in res.stdout

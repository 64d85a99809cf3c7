"""The Mem0 baseline of ``memscribe bench`` is opt-in and says clearly when Mem0 is missing.

(Mem0 itself is never installed in this environment: it needs torch. It was run for real in a separate
venv, numbers in the README; this file checks the behaviour when it is not there.)"""

from __future__ import annotations

import json
import sys

from rich.console import Console
from test_bench_harness import _conv

from memscribe.bench import mem0_baseline
from memscribe.bench.locomo import baseline_systems, run_locomo


def test_missing_mem0_is_reported_not_an_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "mem0", None)  # import mem0 -> ImportError, whatever is installed
    ok, why = mem0_baseline.mem0_available()
    assert not ok and why == mem0_baseline.MEM0_MISSING
    assert "pip install mem0ai" in why and "PEERS.md" in why


def test_locomo_runs_mem0_only_when_asked_and_says_why_it_did_not(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "mem0", None)
    data = tmp_path / "conv.json"
    data.write_text(json.dumps([_conv()]), encoding="utf-8")
    quiet = Console(quiet=True)
    plain = run_locomo(data, [28], console=quiet)
    assert plain["mem0"] == mem0_baseline.MEM0_NOT_REQUESTED
    asked = run_locomo(data, [28], console=quiet, with_mem0=True)
    assert asked["mem0"] == mem0_baseline.MEM0_MISSING
    assert not any(s.startswith("mem0") for s in asked["systems"])
    assert "mem0/same" in baseline_systems(True) and "mem0/same" not in baseline_systems(False)


def test_the_bench_cli_has_the_flag():
    from typer.testing import CliRunner

    from memscribe.interfaces.cli import app

    for cmd in ("locomo", "speed"):
        out = CliRunner().invoke(app, ["bench", cmd, "--help"], env={"COLUMNS": "200"}).output
        assert "--mem0" in out, cmd

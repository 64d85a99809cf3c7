import os
import shutil
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest

from memscribe import Memory

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "datasets"

# Which optional tiers this run can start, filled in by pytest_configure: (tier, started, how / what to install).
_TIERS: list[tuple[str, bool, str]] = []
_CLUSTER = None


def pytest_configure(config):
    """Start what the optional tiers need before any test module reads its environment: a throwaway
    PostgreSQL when the binaries and pgvector are installed and no server was given."""
    global _CLUSTER
    _TIERS.clear()
    if os.environ.get("MEMSCRIBE_TEST_PG_DSN"):
        _TIERS.append(("postgres", True, f"server given: {os.environ['MEMSCRIBE_TEST_PG_DSN']}"))
    elif os.environ.get("MEMSCRIBE_TEST_NO_PG"):
        _TIERS.append(("postgres", False, "MEMSCRIBE_TEST_NO_PG is set"))
    else:
        import pg_cluster

        bindir, why_not = pg_cluster.find_server()
        if bindir is None:
            _TIERS.append(("postgres", False, why_not))
        else:
            try:
                _CLUSTER = pg_cluster.start(bindir)
            except RuntimeError as exc:
                _TIERS.append(("postgres", False, f"could not start a throwaway server: {exc}"))
            else:
                os.environ["MEMSCRIBE_TEST_PG_DSN"] = _CLUSTER.dsn
                _TIERS.append(("postgres", True, f"throwaway server {_CLUSTER.dsn} from {bindir}"))
    chromium = os.environ.get("MEMSCRIBE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    try:
        import playwright.sync_api  # noqa: F401

        has_playwright = True
    except ImportError:
        has_playwright = False
    if not has_playwright:
        _TIERS.append(("browser (web UI)", False, "playwright is not installed: pip install -e '.[dev]'"))
    elif not Path(chromium).exists():
        _TIERS.append(
            ("browser (web UI)", False, "no chromium: apt-get install chromium (.ci/setup-chromium.sh)")
        )
    else:
        _TIERS.append(("browser (web UI)", True, chromium))
    if SHARED.exists():
        _TIERS.append(("shared dev datasets", True, str(SHARED)))
    else:
        _TIERS.append(("shared dev datasets", False, f"{SHARED} not found (the dev scenario check)"))


def pytest_unconfigure(config):
    global _CLUSTER
    if _CLUSTER is not None:
        _CLUSTER.stop()
        os.environ.pop("MEMSCRIBE_TEST_PG_DSN", None)
        _CLUSTER = None


def _tier_lines() -> list[str]:
    return [f"tier {name}: {'runs' if ok else 'SKIPPED'} — {how}" for name, ok, how in _TIERS]


def pytest_report_header(config):
    return _tier_lines()


def pytest_terminal_summary(terminalreporter):
    skipped = [line for line in _tier_lines() if "SKIPPED" in line]
    if skipped:
        terminalreporter.section("optional tiers skipped")
        for line in skipped:
            terminalreporter.write_line(line)


@pytest.fixture
def mem(tmp_path):
    m = Memory(home=tmp_path / "store")
    yield m
    m.close()

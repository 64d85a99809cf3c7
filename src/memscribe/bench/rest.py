"""A served write against the library's own: ``POST /v1/memories`` on a warm server vs ``Memory.add()``.

The server is ``memscribe serve`` in a subprocess (its own process, embedder and store, as deployed),
listening on 127.0.0.1 on a free port, with an API key made for the run and its rate limit lifted (one
client sending one request at a time must not be throttled). The library baseline is a ``Memory`` in this
process over its own store. Both take the same message stream, turn by turn alternately (message i to the
library, then to the server), so machine load falls on both alike; the first ``WARMUP`` messages of each
are not timed. The ratio of the two p50s is the cost of serving: HTTP, JSON, auth, the tenant's store
lookup and the event loop's hop to the worker thread.

The request loop is bounded (``n`` messages) and only ever talks to the loopback address it started.
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memscribe.bench.speed import SEED, message_stream
from memscribe.errors import MemscribeError

__all__ = ["RestWriteResult", "run_rest_write"]

WARMUP = 5
START_TIMEOUT_S = 120.0


class RestBenchError(MemscribeError):
    """The bench server did not start or a served write failed."""


@dataclass(frozen=True)
class RestWriteResult:
    messages: int
    library_ms: list[float]
    rest_ms: list[float]
    # what each side decided over the whole stream (action -> items): the same pipeline, so the same
    library_actions: dict[str, int]
    rest_actions: dict[str, int]

    @staticmethod
    def _pct(xs: list[float], q: float) -> float:
        s = sorted(xs)
        return s[min(len(s) - 1, int(q * len(s)))]

    def summary(self) -> dict[str, Any]:
        lib50, rest50 = statistics.median(self.library_ms), statistics.median(self.rest_ms)
        lib95, rest95 = self._pct(self.library_ms, 0.95), self._pct(self.rest_ms, 0.95)
        return {
            "messages_timed": len(self.rest_ms),
            "library_add_ms": {"p50": lib50, "p95": lib95},
            "rest_post_ms": {"p50": rest50, "p95": rest95},
            "rest_vs_library": {"p50": rest50 / lib50, "p95": rest95 / lib95},
            "library_actions": self.library_actions,
            "rest_actions": self.rest_actions,
        }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_ready(client: Any, proc: subprocess.Popen[bytes], log: Path) -> None:
    import httpx

    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RestBenchError(f"the bench server exited ({proc.returncode}): {log.read_text()[-2000:]}")
        try:
            if client.get("/healthz").status_code < 500:
                return
        except httpx.TransportError:  # not listening yet
            pass
        time.sleep(0.2)
    raise RestBenchError(f"the bench server did not answer within {START_TIMEOUT_S:.0f} s")


def run_rest_write(n: int = 60, *, workdir: Path | None = None) -> RestWriteResult:
    """Time ``n`` messages through a served ``POST /v1/memories`` and through ``Memory.add()``."""
    import httpx

    from memscribe import Memory, Settings
    from memscribe.interfaces.server.keys import KeyStore, keys_path

    if n <= WARMUP:
        raise ValueError(f"n must exceed the {WARMUP} warm-up messages")
    own_tmp = tempfile.TemporaryDirectory(prefix="memscribe-rest-bench-") if workdir is None else None
    root = Path(own_tmp.name) if own_tmp else workdir
    assert root is not None
    served_home, lib_home = root / "served", root / "library"
    served_home.mkdir(parents=True, exist_ok=True)
    _, key = KeyStore(keys_path(Settings(home=served_home))).create("bench")
    port = _free_port()
    env = {
        **os.environ,
        "MEMSCRIBE_HOME": str(served_home),
        "MEMSCRIBE_SERVER__RATE_PER_S": "100000",
        "MEMSCRIBE_SERVER__RATE_BURST": "100000",
    }
    log = root / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "memscribe", "serve", "--host", "127.0.0.1", "--port", str(port),
             "--home", str(served_home), "--log-level", "warning"],
            env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    msgs = message_stream(n, seed=SEED + 5)
    start = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    lib_ms: list[float] = []
    rest_ms: list[float] = []
    lib_actions: dict[str, int] = {}
    rest_actions: dict[str, int] = {}
    try:
        with httpx.Client(
            base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {key}"}, timeout=60.0
        ) as client:
            _wait_ready(client, proc, log)
            mem = Memory(home=lib_home)
            try:
                for i, text in enumerate(msgs):
                    at = start + timedelta(minutes=3 * i)
                    msg = {"role": "user", "content": text, "id": f"rest-{i}"}
                    t0 = time.perf_counter()
                    rep = mem.add([msg], user_id="bench-lib", session_id=f"s{i // 20}", at=at)
                    t1 = time.perf_counter()
                    body = {
                        "messages": [msg],
                        "user_id": "bench-rest",
                        "session_id": f"s{i // 20}",
                        "at": at.isoformat(),
                    }
                    r = client.post("/v1/memories", json=body)
                    t2 = time.perf_counter()
                    if r.status_code != 200:
                        raise RestBenchError(f"POST /v1/memories answered {r.status_code}: {r.text[:500]}")
                    for action, count in rep.counts().items():
                        lib_actions[action] = lib_actions.get(action, 0) + count
                    for item in r.json()["items"]:
                        rest_actions[item["action"]] = rest_actions.get(item["action"], 0) + 1
                    if i >= WARMUP:
                        lib_ms.append((t1 - t0) * 1000)
                        rest_ms.append((t2 - t1) * 1000)
            finally:
                mem.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if own_tmp is not None:
            own_tmp.cleanup()
    return RestWriteResult(n, lib_ms, rest_ms, lib_actions, rest_actions)

"""A scripted OpenAI-compatible HTTP server for tests (stdlib only, bound to 127.0.0.1 on a free port).

    script = [
        {"content": '{"text": "trunc'},           # raw assistant content (truncated JSON, garbage ...)
        {"status": 500},                          # an HTTP error ("error": "message" optional)
        {"delay": 2.0, "json": {"text": "..."}},  # sleep first (client timeouts), then answer
        {"dribble": {"bytes": 8, "every_s": 0.1},  # a slow stream: headers at once, then the body 8 bytes
         "json": {"text": "..."}},                 # every 0.1 s (each gap under a read timeout)
        {"json": {"text": "用户..."}},            # a JSON object, sent JSON-encoded as the content
        lambda body: {"json": {...}},             # decide from the request body
    ]
    with ScriptedLLMServer(script) as srv:
        cfg = LLMConfig(base_url=srv.base_url, timeout_s=0.5)
        ...
        srv.requests  # the JSON bodies received, in order

Chat completions consume the script in order; after the last entry, the last one repeats. A response
may also carry ``"finish_reason"`` (default ``"stop"``). ``srv.completed`` / ``srv.aborted`` count the
responses written in full / cut off by the client hanging up (it timed out). ``POST /v1/embeddings`` answers deterministic
pseudo-embeddings (a hash of the text, unit length, ``embedding_dim`` or the request's ``dimensions``)
and does not consume the script. ``GET /v1/models`` lists one model.
"""

from __future__ import annotations

import hashlib
import json
import math
import struct
import threading
import time
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["ScriptedLLMServer", "pseudo_embedding"]

Response = dict[str, Any]
ScriptEntry = Response | Callable[[dict[str, Any]], Response]


def pseudo_embedding(text: str, dim: int = 16) -> list[float]:
    """A deterministic unit vector derived from sha256(text) (same text -> same vector)."""
    values: list[float] = []
    counter = 0
    while len(values) < dim:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        for (n,) in struct.iter_unpack(">I", digest):
            values.append(n / 0xFFFFFFFF * 2.0 - 1.0)
        counter += 1
    values = values[:dim]
    norm = math.sqrt(sum(v * v for v in values)) or 1.0
    return [v / norm for v in values]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a handler sleeping on a "delay" must not hold up close()
    owner: ScriptedLLMServer


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as separate writes: no 40 ms delayed-ACK stall

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send(self, status: int, payload: dict[str, Any], *, dribble: dict[str, Any] | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.flush()
            if dribble:
                # a slow stream: the headers at once, then the body a few bytes at a time, each gap shorter
                # than a client's read timeout, the whole longer than its per-call timeout
                size, every = int(dribble.get("bytes", 8)), float(dribble.get("every_s", 0.1))
                for i in range(0, len(data), size):
                    self.wfile.write(data[i : i + size])
                    self.wfile.flush()
                    if i + size < len(data):
                        time.sleep(every)
            else:
                self.wfile.write(data)
                self.wfile.flush()
            self.server.owner._finished(complete=True)
        except OSError:  # the client gave up (timeout) and closed the connection
            self.close_connection = True
            self.server.owner._finished(complete=False)

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw.decode("utf-8")) if raw else {}
        except ValueError:
            body = {"_invalid_json": raw.decode("utf-8", "replace")}
        return body if isinstance(body, dict) else {"_body": body}

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            self._send(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
        else:
            self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})

    def do_POST(self) -> None:
        body = self._body()
        owner = self.server.owner
        path = self.path.split("?", 1)[0].rstrip("/")
        owner._record(path, body)
        if path.endswith("/chat/completions"):
            self._chat(body, owner._next(body))
        elif path.endswith("/embeddings"):
            self._embeddings(body, owner.embedding_dim)
        else:
            self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})

    def _chat(self, body: dict[str, Any], resp: Response) -> None:
        if resp.get("delay"):
            time.sleep(float(resp["delay"]))
        status = int(resp.get("status", 200))
        if status >= 400:
            self._send(
                status,
                {
                    "error": {
                        "message": str(resp.get("error", f"scripted error {status}")),
                        "type": "server_error" if status >= 500 else "invalid_request_error",
                        "code": status,
                    }
                },
            )
            return
        if "json" in resp:
            content = json.dumps(resp["json"], ensure_ascii=False)
        else:
            content = str(resp.get("content", "{}"))
        prompt_tokens = sum(len(str(m.get("content", ""))) for m in body.get("messages", []) or []) // 4
        completion_tokens = len(content) // 4
        self._send(
            200,
            {
                "id": f"chatcmpl-scripted-{len(self.server.owner.requests)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "scripted"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": resp.get("finish_reason", "stop"),
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            },
            dribble=resp.get("dribble"),
        )

    def _embeddings(self, body: dict[str, Any], default_dim: int) -> None:
        inputs = body.get("input", [])
        texts = [inputs] if isinstance(inputs, str) else [str(t) for t in inputs]
        dim = int(body.get("dimensions") or default_dim)
        tokens = sum(len(t) for t in texts) // 4
        self._send(
            200,
            {
                "object": "list",
                "data": [
                    {"object": "embedding", "index": i, "embedding": pseudo_embedding(t, dim)}
                    for i, t in enumerate(texts)
                ],
                "model": body.get("model", "scripted"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )


class ScriptedLLMServer:
    """Context manager running the scripted server in a background thread."""

    def __init__(self, script: Sequence[ScriptEntry] = (), *, embedding_dim: int = 16) -> None:
        self.script: list[ScriptEntry] = list(script) or [{"json": {}}]
        self.embedding_dim = embedding_dim
        self.requests: list[dict[str, Any]] = []  # every JSON body received, in order
        self.paths: list[str] = []  # the path of each request, parallel to .requests
        self.completed = 0  # responses written in full
        self.aborted = 0  # responses the client hung up on before the last byte (it timed out)
        self._pos = 0
        self._lock = threading.Lock()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._port: int | None = None

    # ------------------------------------------------------------------ script
    def _record(self, path: str, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(body)
            self.paths.append(path)

    def _finished(self, *, complete: bool) -> None:
        with self._lock:
            if complete:
                self.completed += 1
            else:
                self.aborted += 1

    def _next(self, body: dict[str, Any]) -> Response:
        with self._lock:
            entry = self.script[min(self._pos, len(self.script) - 1)]
            self._pos += 1
        return entry(body) if callable(entry) else entry

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return [
                b for b, p in zip(self.requests, self.paths, strict=True) if p.endswith("/chat/completions")
            ]

    # ------------------------------------------------------------------ lifecycle
    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("server not started")
        return self._port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> ScriptedLLMServer:
        httpd = _Server(("127.0.0.1", 0), _Handler)
        httpd.owner = self
        self._httpd = httpd
        self._port = int(httpd.server_address[1])
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="scripted-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

"""A JSON-answering chat client for any OpenAI-compatible /v1/chat/completions endpoint.

``ChatClient.complete_json(messages, Model, prompt_version=...)`` asks for a JSON object
(``response_format={"type": "json_object"}``; servers that ignore it are fine: the JSON is also found
inside ```json fences or surrounding prose; servers that reject it with a 400 are asked again without it),
validates it with the pydantic ``Model`` and returns the instance.

Retries: timeouts, connection errors, 429, 5xx and invalid / truncated JSON are retried up to
``LLMConfig.max_retries`` times with exponential backoff (0.2 s, 0.4 s, ... capped at 2 s). The SDK's own
retries are off so there is one retry policy. Every failure is translated at one boundary
(``_translate``) into ``ProviderTimeout`` (the call timed out) or ``LLMError`` (anything else), raised
``from`` the original exception.

Logging: only the prompt version, the attempt number and the error class — never message contents,
replies or exception texts (which may echo them).
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from memscribe.config import LLMConfig
from memscribe.errors import LLMError, ProviderError, ProviderTimeout

__all__ = ["ChatClient", "InvalidOutput", "extract_json"]

_log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


class InvalidOutput(Exception):
    """The server answered, but not with a valid JSON object for the expected model (retryable)."""

    def __init__(self, why: str) -> None:  # `why` never contains the reply itself
        super().__init__(why)
        self.why = why


def extract_json(content: str | None) -> dict[str, Any]:
    """The JSON object in a reply: the whole reply, a ```json fence, or the outermost {...} in prose."""
    if content is None or not content.strip():
        raise InvalidOutput("empty reply")
    text = content.strip()
    candidates = [text]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    first, last = text.find("{"), text.rfind("}")
    if 0 <= first < last:
        candidates.append(text[first : last + 1])
    for cand in candidates:
        try:
            obj = json.loads(cand)
        except ValueError:
            continue
        if isinstance(obj, dict):
            return obj
    raise InvalidOutput("reply is not a JSON object (invalid or truncated)")


class ChatClient:
    """Chat completions that must answer with JSON, over the ``openai`` SDK."""

    base_delay_s = 0.2
    max_delay_s = 2.0

    def __init__(self, cfg: LLMConfig, *, sleep: Callable[[float], None] = time.sleep) -> None:
        try:
            import openai
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise LLMError("the LLM encoder needs `pip install memscribe[llm]`") from exc
        self._openai = openai
        self.cfg = cfg
        self.model = cfg.model
        self._sleep = sleep
        self._json_mode = True  # cleared when the server rejects response_format
        self._client = openai.OpenAI(
            base_url=cfg.base_url,
            api_key=cfg.api_key or "unused",
            timeout=cfg.timeout_s,
            max_retries=0,
        )

    # ------------------------------------------------------------------ public
    def complete_json(
        self, messages: Sequence[dict[str, str]], model_cls: type[M], *, prompt_version: str
    ) -> M:
        attempts = max(0, self.cfg.max_retries) + 1
        attempt = 0
        while True:
            attempt += 1
            try:
                return self._once(messages, model_cls)
            except Exception as exc:
                if self._rejects_json_mode(exc):
                    self._json_mode = False
                    _log.warning(
                        "llm: server rejected response_format; asking without it (prompt=%s attempt=%d)",
                        prompt_version,
                        attempt,
                    )
                    attempt -= 1  # a protocol negotiation, not a failed attempt
                    continue
                if attempt >= attempts or not self._retryable(exc):
                    _log.warning(
                        "llm: call failed (prompt=%s attempt=%d/%d error=%s)",
                        prompt_version,
                        attempt,
                        attempts,
                        type(exc).__name__,
                    )
                    raise self._translate(exc, prompt_version, attempt) from exc
                delay = min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1))
                _log.info(
                    "llm: retrying in %.1fs (prompt=%s attempt=%d/%d error=%s)",
                    delay,
                    prompt_version,
                    attempt,
                    attempts,
                    type(exc).__name__,
                )
                self._sleep(delay)

    def close(self) -> None:
        self._client.close()

    # ------------------------------------------------------------------ internals
    def _once(self, messages: Sequence[dict[str, str]], model_cls: type[M]) -> M:
        kwargs: dict[str, Any] = {"model": self.model, "messages": list(messages), "temperature": 0}
        if self._json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        # ``timeout_s`` bounds the whole call, not only each read: the SDK's (httpx's) timeout is per
        # operation, so a server dribbling its reply a few bytes at a time would hold add() indefinitely.
        # The body is read in chunks against a deadline; past it the call is a timeout like any other.
        deadline = time.monotonic() + self.cfg.timeout_s
        with self._client.chat.completions.with_streaming_response.create(**kwargs) as raw:
            body = bytearray()
            for chunk in raw.iter_bytes():
                body += chunk
                if time.monotonic() > deadline:
                    raise self._openai.APITimeoutError(request=raw.http_response.request)
        try:
            data = json.loads(bytes(body))
        except ValueError as exc:
            raise InvalidOutput("response body is not JSON") from exc
        choices = data.get("choices") if isinstance(data, dict) else None
        if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
            raise InvalidOutput("reply has no choices")
        choice = choices[0]
        message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
        content = message.get("content")
        obj = extract_json(content if isinstance(content, str) else None)
        try:
            return model_cls.model_validate(obj)
        except ValidationError as exc:
            fields = sorted({".".join(str(p) for p in e["loc"]) or "<root>" for e in exc.errors()})
            truncated = " (reply was cut off)" if choice.get("finish_reason") == "length" else ""
            raise InvalidOutput(f"reply does not fit {model_cls.__name__}: {fields}{truncated}") from exc

    def _retryable(self, exc: BaseException) -> bool:
        o = self._openai
        if isinstance(exc, InvalidOutput | o.APIConnectionError):  # APITimeoutError is a connection error
            return True
        if isinstance(exc, o.APIStatusError):
            return exc.status_code == 429 or exc.status_code >= 500
        return False

    def _rejects_json_mode(self, exc: BaseException) -> bool:
        o = self._openai
        return (
            self._json_mode
            and isinstance(exc, o.BadRequestError)
            and "response_format" in str(getattr(exc, "body", "") or exc)
        )

    def _translate(self, exc: BaseException, prompt_version: str, attempts: int) -> ProviderError:
        """The one boundary where foreign failures become memscribe errors (no reply text included)."""
        o = self._openai
        where = f"{prompt_version} ({self.model}), {attempts} attempt(s)"
        if isinstance(exc, ProviderError):
            return exc
        if isinstance(exc, o.APITimeoutError):
            return ProviderTimeout(f"LLM call timed out after {self.cfg.timeout_s}s: {where}")
        if isinstance(exc, o.APIStatusError):
            return LLMError(f"LLM server answered HTTP {exc.status_code}: {where}")
        if isinstance(exc, o.APIConnectionError):
            return LLMError(f"LLM server unreachable: {where}")
        if isinstance(exc, InvalidOutput):
            return LLMError(f"LLM reply invalid: {exc.why}: {where}")
        return LLMError(f"LLM call failed with {type(exc).__name__}: {where}")

"""Any OpenAI-compatible /v1/embeddings endpoint (OpenAI, DashScope, vLLM, Ollama, ...)."""

from __future__ import annotations

import numpy as np

from memscribe.errors import ProviderError, ProviderTimeout

__all__ = ["OpenAIEmbedder"]


class OpenAIEmbedder:
    def __init__(
        self, model: str, dim: int | None = None, base_url: str | None = None, api_key: str | None = None
    ) -> None:
        try:
            import openai
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ProviderError("the OpenAI embedder needs `pip install memscribe[llm]`") from exc
        self._openai = openai
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or "unused", timeout=30.0)
        self.model = model
        self.name = f"openai/{model}"
        self.dim = dim or self._probe_dim()

    def _call(self, texts: list[str]) -> np.ndarray:
        try:
            resp = self._client.embeddings.create(model=self.model, input=texts)
        except self._openai.APITimeoutError as exc:
            raise ProviderTimeout(f"embeddings call timed out: {exc}") from exc
        except self._openai.OpenAIError as exc:
            raise ProviderError(f"embeddings call failed: {exc}") from exc
        arr = np.asarray([d.embedding for d in resp.data], dtype=np.float32)
        norms = np.linalg.norm(arr, axis=1, keepdims=True)
        return arr / np.where(norms == 0, 1, norms)

    def _probe_dim(self) -> int:
        return int(self._call(["dimension probe"]).shape[1])

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._call(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self._call([text])[0]

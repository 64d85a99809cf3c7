"""Keyword search on SQLite against the exact BM25 ranking (every match scored, as the store did before
the candidate budget): identical below the budget; over it, every score still exact and a rare term's
old document still found."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memscribe.bench.speed import synth_memories, synth_queries
from memscribe.index import keyword_text_for
from memscribe.lang.text import keyword_terms
from memscribe.models import MemoryRecord, Source, Status
from memscribe.store.codec import scope_token
from memscribe.store.sqlite import SQLiteStore
from memscribe.store.sqlite import search as sqlite_search
from memscribe.testing.store_contract import T0, unit_vector


def _put(store: SQLiteStore, mid: str, user: str, text: str, *, status: Status = Status.active) -> None:
    rec = MemoryRecord(
        id=mid,
        user_id=user,
        text=text,
        raw=text,
        status=status,
        sources=[Source(message_id=f"m-{mid}")],
        created_at=T0 + timedelta(minutes=len(mid)),
        updated_at=T0,
    )
    store.put_memory(rec, vector=unit_vector(hash(mid) % 300), keyword_text=keyword_text_for(rec))


def _exact(store: SQLiteStore, user: str, terms: list[str], k: int) -> list[tuple[str, float]]:
    """The reference: the user's scope intersected in the index, every match scored, the k best."""
    terms = SQLiteStore._selective(
        terms, store._term_docs(terms)[0], store._read("SELECT max(pk) FROM memories")[0][0]
    )
    words = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
    rows = store._read(
        "SELECT m.id, bm25(memories_fts, 0.0, 1.0) AS s FROM memories_fts f JOIN memories m ON m.pk = f.rowid "
        "WHERE memories_fts MATCH ? AND m.user_id = ? AND m.status = 'active' ORDER BY s",
        (f'scope : "{scope_token(user)}" AND terms : ({words})', user),
    )
    return [(r[0], -float(r[1])) for r in rows[:k]] if k else [(r[0], -float(r[1])) for r in rows]


def _same_ranking(got: list[tuple[str, float]], want: list[tuple[str, float]]) -> None:
    """Equal score lists; equal ids above the k-th score (documents tied at the cut may be either)."""
    assert [round(s, 9) for _, s in got] == [round(s, 9) for _, s in want]
    if want:
        cut = want[-1][1]
        assert {i for i, s in got if s > cut + 1e-9} == {i for i, s in want if s > cut + 1e-9}


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "m.db")
    yield s
    s.close()


def test_below_the_budget_the_top_k_is_the_exact_bm25_top_k(store):
    mems = synth_memories(1200, seed=11)
    with store.atomic():
        for i, m in enumerate(mems):  # a store of two users, one of them a tenth of it; a few archived
            user = "minor" if i % 10 == 3 else "major"
            _put(store, f"k{i}", user, m.text, status=Status.archived if i % 97 == 5 else Status.active)
    queries = synth_queries(mems, 40, seed=12)
    answered = 0
    for user in ("major", "minor"):
        for q in queries:
            terms = keyword_terms(q)
            got = store.keyword_search(user, terms, k=10)
            _same_ranking(got, _exact(store, user, terms, 10))
            answered += bool(got)
    assert answered >= 60  # the queries ask about stored memories: the comparison is not of empty lists


def test_over_the_budget_scores_stay_exact_and_an_old_rare_term_is_found(store, monkeypatch):
    with store.atomic():
        for i in range(2000):  # the query's words in under a quarter of the documents: none is dropped
            _put(
                store,
                f"f{i:04d}",
                "u1",
                f"The user drank green tea on day {i}" + (" near parking" if i % 40 == 0 else ""),
            )
        for i in range(600):
            _put(store, f"t{i:04d}", "u1", f"The user booked hotel room zq{i:04d} for the Lisbon trip")
            if i % 20 == 0:  # another user's documents among them
                _put(
                    store, f"o{i:04d}", "u2", f"The other user booked a hotel for the Lisbon trip number {i}"
                )
    monkeypatch.setattr(sqlite_search, "KEYWORD_CANDIDATES", 40)
    exact_all = dict(_exact(store, "u1", ["hotel", "lisbon", "zq0007"], 0))
    got = store.keyword_search("u1", ["hotel", "lisbon", "zq0007"], k=5)
    # 601 documents match: only the newest window and the rare term's documents are scored, yet the
    # oldest-but-one document, the only one holding the room number, comes first with its exact score
    assert got[0][0] == "t0007"
    for mid, score in got:
        assert score == pytest.approx(exact_all[mid], abs=1e-9)
    assert len(got) == 5
    # with a word the room's document lacks, no document holds every term: the rare one still finds it
    exact_all = dict(_exact(store, "u1", ["hotel", "lisbon", "zq0007", "parking"], 0))
    got = store.keyword_search("u1", ["hotel", "lisbon", "zq0007", "parking"], k=5)
    assert got[0][0] == "t0007" and got[0][1] == pytest.approx(exact_all["t0007"], abs=1e-9)
    # a user holding a twentieth of the matches is searched inside its own scope
    other = store.keyword_search("u2", ["hotel", "lisbon"], k=5)
    assert len(other) == 5 and all(mid.startswith("o") for mid, _ in other)
    _same_ranking(other, _exact(store, "u2", ["hotel", "lisbon"], 5))


def test_keyword_search_while_the_writer_connection_is_busy_in_another_thread(tmp_path):
    """Keyword search runs in pool threads beside writes: the index's tokenizer must not touch a connection
    another thread is using (apsw raised ThreadingViolationError from a REST search in CI)."""
    import threading
    import time

    store = SQLiteStore(tmp_path / "kw.db")
    try:
        for i in range(20):
            _put(store, f"a{i:03d}", "u", f"allergies to peanuts and cycling on day {i}")
        started = threading.Event()

        def busy_writer() -> None:  # the writer's connection runs a long statement meanwhile
            started.set()
            store._exec(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000) "
                "SELECT count(*) FROM n"
            )

        t = threading.Thread(target=busy_writer)
        t.start()
        started.wait()
        time.sleep(0.05)
        try:
            hits = store.keyword_search("u", ["allergies", "cycling"], k=5)
        finally:
            t.join()
        assert len(hits) == 5
    finally:
        store.close()

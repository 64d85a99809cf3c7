"""Privacy at rest over a generated corpus of 1,000 Chinese and English sensitive values.

Every value goes in through ``Memory.add`` inside a natural message; afterwards not one of them (nor its
digit-only spelling, nor its JSON-escaped form, nor its lower-cased form) may be found in the bytes of the
database, its WAL, the logs, the write reports or an export file, and the keyword index must not match it
as a phrase. Values the user asked to keep for a task are sealed in the vault: absent from the bytes too,
but ``reveal()`` returns them.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from memscribe import Memory
from memscribe.lang.text import segment
from memscribe.testing.logs import captured_logs
from memscribe.testing.pii_corpus import PiiSample, cn_resident_id, generate, luhn_card
from memscribe.write.privacy import _cn_id_valid, _luhn, detect_pii

N = 1000


@pytest.fixture(scope="module")
def corpus() -> list[PiiSample]:
    return generate(N, seed=7)


def _forms(s: PiiSample) -> set[bytes]:
    """Every byte spelling of a sensitive value that must not be found at rest."""
    out: set[bytes] = set()
    for v in s.forbidden:
        out.add(v.encode())
        out.add(json.dumps(v)[1:-1].encode())  # \\uXXXX-escaped, as an ensure_ascii JSON writer stores it
        if s.kind == "cn_id":
            out.update({v.upper().encode(), v.lower().encode()})
    return out


def _scan(blobs: dict[str, bytes], corpus: list[PiiSample]) -> list[str]:
    lowered = {name: b.lower() for name, b in blobs.items()}
    leaks = []
    for s in corpus:
        for form in _forms(s):
            for name, data in blobs.items():
                if form in data:
                    leaks.append(f"{s.kind} {s.value!r} in {name}")
            if form.isascii() and len(form) >= 6:
                for name, data in lowered.items():
                    if form.lower() in data and form not in blobs[name]:
                        leaks.append(f"{s.kind} {s.value!r} (other case) in {name}")
    return leaks


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_corpus_is_deterministic_and_well_formed(corpus) -> None:
    assert [s.text for s in generate(N, seed=7)] == [s.text for s in corpus]
    assert [s.text for s in generate(N, seed=8)] != [s.text for s in corpus]
    assert len(corpus) == N and len({s.text for s in corpus}) == N
    kinds = Counter(s.kind for s in corpus)
    assert set(kinds) == {
        "cn_id",
        "bank_card",
        "phone",
        "email",
        "ssn",
        "passport",
        "address",
        "medical",
        "secret",
    }
    assert min(kinds.values()) >= 50
    assert {s.lang for s in corpus} == {"zh", "en"}
    assert 80 <= sum(s.necessary for s in corpus) <= 200
    for s in corpus:
        assert s.value in s.text
        if s.kind == "cn_id":
            assert _cn_id_valid(s.value)
        if s.kind == "bank_card":
            assert _luhn("".join(c for c in s.value if c.isdigit()))
    import random

    rng = random.Random(1)
    assert all(_cn_id_valid(cn_resident_id(rng)) for _ in range(200))
    assert all(_luhn(luhn_card(rng, "622202", 19)) for _ in range(200))


def test_every_value_is_detected_whole(corpus) -> None:
    """The detectors find each value entirely (a value split over adjacent findings is still covered)."""
    misses = []
    for s in corpus:
        start = s.text.index(s.value)
        covered: set[int] = set()
        for f in detect_pii(s.text):
            covered.update(range(f.start, f.end))
        if not set(range(start, start + len(s.value))) <= covered:
            misses.append((s.kind, s.text))
    assert misses == [], f"{len(misses)} detector misses, e.g. {misses[:5]}"


@pytest.fixture(scope="module")
def ingested(tmp_path_factory, corpus):  # type: ignore[no-untyped-def]
    """The corpus ingested once through Memory.add, with every log record of every logger captured."""
    root = tmp_path_factory.mktemp("pii")
    reports = []
    with captured_logs() as logs, Memory(home=root / "store") as mem:
        for i, s in enumerate(corpus):
            rep = mem.add(
                {"role": "user", "content": s.text, "id": f"pii-{i}"},
                user_id="u1",
                session_id=f"s{i // 50}",
                at="2026-03-01T10:00:00+08:00",
            )
            reports.append(rep)
        mem.flush()
        (root / "export.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in mem.export()), encoding="utf-8"
        )
        yield SimpleNamespace(mem=mem, root=root, reports=reports, logs=logs)


@pytest.mark.slow
def test_no_value_of_the_corpus_is_found_at_rest(ingested, corpus) -> None:
    mem, root = ingested.mem, ingested.root
    # the keyword index never matches a value as a phrase (the index holds stemmed, segmented terms)
    fts_hits = []
    for s in corpus:
        phrase = segment(s.value) if s.lang == "zh" else s.value
        q = 'terms : "' + phrase.replace('"', '""') + '"'
        if mem._store._exec("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?", (q,))[0][0]:
            fts_hits.append(s.value)
    assert fts_hits == [], f"keyword index matches {fts_hits[:5]}"

    # the ordinary content around the values was kept: privacy removes values, not memories
    kept_text = " ".join(r.text for r in mem.list(user_id="u1"))
    assert "钓鱼" in kept_text and "jazz" in kept_text

    blobs = _files(root)  # the database, its WAL (the store is still open), the key file, the export
    assert any(name.endswith("-wal") and data for name, data in blobs.items())
    assert blobs["export.jsonl"]
    blobs["logs"] = ingested.logs.getvalue().encode()
    blobs["write reports"] = "\n".join(r.model_dump_json() for r in ingested.reports).encode()
    assert _scan(blobs, corpus) == []
    mem._store.checkpoint()  # the WAL folded into the main file: still nothing
    assert _scan(_files(root), corpus) == []


@pytest.mark.slow
def test_vaulted_values_are_exactly_the_necessary_ones_and_reveal_returns_them(ingested, corpus) -> None:
    mem = ingested.mem
    recs = mem.list(user_id="u1", status=None)
    by_source = {sid: r for r in recs for sid in r.source_ids}
    revealed = [v for r in recs for v in mem.reveal(r.id).values()]
    necessary = {s.value for s in corpus if s.necessary}
    assert revealed and set(revealed) <= necessary, "a value nobody asked to keep was vaulted"
    assert len(mem._store.all_secrets()) == len(revealed)  # every sealed row opens with the key
    stored = 0
    for i, s in enumerate(corpus):
        rec = by_source.get(f"pii-{i}")
        if s.necessary and rec is not None and f"pii-{i}" == rec.source_ids[0]:
            assert s.value in " ".join(mem.reveal(rec.id).values()), s.text
            stored += 1
    assert stored >= 60


@pytest.mark.slow
def test_every_necessary_value_survives_ingest(ingested, corpus) -> None:
    mem = ingested.mem
    by_source = {sid: r for r in mem.list(user_id="u1", status=None) for sid in r.source_ids}
    lost = []
    for i, s in enumerate(corpus):
        if not s.necessary:
            continue
        rec = by_source.get(f"pii-{i}")
        got = " ".join(mem.reveal(rec.id).values()) if rec is not None else ""
        if s.value not in got:
            lost.append(s.text)
    assert lost == [], f"{len(lost)} necessary values lost, e.g. {lost[:3]}"


def test_the_scan_finds_every_spelling_of_a_value() -> None:
    card = PiiSample(
        "bank_card",
        "6222 0212 3456 7890 128",
        "卡号6222 0212 3456 7890 128",
        "zh",
        False,
        ("6222021234567890128",),
    )
    addr = PiiSample("address", "上海市浦东新区张江路123号", "寄到上海市浦东新区张江路123号", "zh", True)
    med = PiiSample("medical", "Metformin", "I take Metformin daily", "en", False)
    assert _scan({"db": b"x6222021234567890128y"}, [card]) == ["bank_card '6222 0212 3456 7890 128' in db"]
    assert _scan({"wal": json.dumps({"t": addr.value}).encode()}, [addr]) != []  # \\u-escaped JSON
    assert _scan({"log": b"took metformin"}, [med]) != []  # another case
    assert _scan({"db": b"nothing to see"}, [card, addr, med]) == []

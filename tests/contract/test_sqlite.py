import pytest

from memscribe.store.sqlite import SQLiteStore
from memscribe.testing.store_contract import StoreContractTests, make_record, unit_vector


class TestSQLiteStore(StoreContractTests):
    @pytest.fixture
    def store(self, tmp_path):
        s = SQLiteStore(tmp_path / "m.db")
        yield s
        s.close()


def test_forget_leaves_no_bytes_in_the_files(tmp_path):
    """After forget + checkpoint, no byte of the forgotten text remains in the database or WAL."""
    s = SQLiteStore(tmp_path / "m.db")
    secret_text = "Zanzibar-Quokka-Marmalade plan 7781"
    for i in range(30):
        rec = make_record(
            f"a{i}",
            user="alice",
            text=f"{secret_text} number {i}",
            raw=secret_text,
            entities=["Zanzibar-Quokka-Marmalade"],
        )
        with s.atomic():
            s.put_memory(rec, vector=unit_vector(i), keyword_text=rec.text)
            s.add_version(rec, reason="add", actor="t", at=rec.created_at)
    keep = make_record("b1", user="bob", text="bob keeps a harmless note")
    with s.atomic():
        s.put_memory(keep, vector=unit_vector(99), keyword_text=keep.text)
    s.forget_user("alice")
    s.close()
    for p in tmp_path.iterdir():
        data = p.read_bytes()
        for needle in (b"Zanzibar", b"zanzibar", b"Quokka", b"quokka", b"Marmalade", b"marmalade"):
            assert needle not in data, f"{needle!r} left in {p.name}"
    s2 = SQLiteStore(tmp_path / "m.db")
    assert s2.get_memory("b1") is not None
    assert s2.integrity_check() == "ok"
    s2.close()


def test_reopen_keeps_data_and_schema_version(tmp_path):
    s = SQLiteStore(tmp_path / "m.db")
    rec = make_record("m1")
    with s.atomic():
        s.put_memory(rec, vector=unit_vector(1), keyword_text=rec.text)
    s.close()
    s2 = SQLiteStore(tmp_path / "m.db")
    assert s2.get_memory("m1").model_dump() == rec.model_dump()
    s2.close()


def test_newer_schema_is_refused(tmp_path):
    from memscribe.errors import MigrationError

    s = SQLiteStore(tmp_path / "m.db")
    s._exec("INSERT INTO schema_migrations VALUES (999, 'future', 'x')")
    s.close()
    with pytest.raises(MigrationError):
        SQLiteStore(tmp_path / "m.db")

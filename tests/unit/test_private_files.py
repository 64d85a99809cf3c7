"""The store is owner-only (issue #19): its folder 0700, the database, WAL, SHM, vault key, backups and the
server's key file 0600, whatever the umask; an older store's world-readable files are tightened on open."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from memscribe import Memory
from memscribe.config import Settings
from memscribe.interfaces.server.keys import KeyStore, keys_path

ADDRESS = "以后下单都寄这个地址：上海市浦东新区张江路123号5栋201室"


def _mode(p: Path) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


@pytest.fixture
def loose_umask():
    old = os.umask(0o022)  # the common default: new files world-readable
    yield
    os.umask(old)


def test_a_new_store_is_owner_only(tmp_path, loose_umask) -> None:
    home = tmp_path / "a" / "home"
    mem = Memory(home=home)
    rep = mem.add(ADDRESS, user_id="u1")
    rec = mem.get(next(i.memory_id for i in rep.items if i.memory_id))
    assert mem.reveal(rec.id)  # the address went to the vault: the key file exists now
    backup = mem.backup(tmp_path / "b" / "copy.db")
    files = {p.name: _mode(p) for p in home.iterdir()}
    mem.close()
    assert {"memscribe.db", "memscribe.db-wal", "memscribe.db-shm", "vault.key"} <= set(files), files
    assert all(m == 0o600 for m in files.values()), {n: oct(m) for n, m in files.items()}
    assert _mode(home) == 0o700 and _mode(home.parent) == 0o700
    assert _mode(backup) == 0o600 and _mode(backup.parent) == 0o700


def test_an_older_world_readable_store_is_tightened_on_open(tmp_path, loose_umask) -> None:
    home = tmp_path / "old"
    Memory(home=home).close()
    for p in home.iterdir():
        os.chmod(p, 0o644)
    mem = Memory(home=home)
    mem.add("I prefer window seats.", user_id="u1")
    assert {p.name: oct(_mode(p)) for p in home.glob("memscribe.db*")} == {
        n: "0o600" for n in ("memscribe.db", "memscribe.db-wal", "memscribe.db-shm")
    }
    mem.close()


def test_an_existing_folder_is_not_changed(tmp_path, loose_umask) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o755)
    os.chmod(shared, 0o755)
    Memory(settings=Settings(home=tmp_path / "h", store=f"sqlite:///{shared}/m.db")).close()
    assert _mode(shared) == 0o755  # the user's own folder: only the files in it are ours
    assert _mode(shared / "m.db") == 0o600


def test_server_keys_and_tenant_folders_are_owner_only(tmp_path, loose_umask) -> None:
    from memscribe.interfaces.server.tenants import TenantRegistry

    s = Settings(home=tmp_path / "srv")
    ks = KeyStore(keys_path(s))
    ks.create("acme")
    assert _mode(ks.path) == 0o600 and _mode(ks.path.parent) == 0o700
    mem = TenantRegistry(s)._open("acme")
    assert _mode(tmp_path / "srv" / "tenants") == 0o700
    assert _mode(tmp_path / "srv" / "tenants" / "acme") == 0o700
    assert _mode(tmp_path / "srv" / "tenants" / "acme" / "memscribe.db") == 0o600
    import asyncio

    asyncio.run(mem.close())

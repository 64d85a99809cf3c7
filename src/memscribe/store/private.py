"""Owner-only files: the store folder is created 0700 and every file of the store (database, its WAL and
SHM, backups, the vault key) is 0600, whatever the process umask.

A memory store holds people's words and a vault key beside them; on a shared machine the default umask
(022) would make both world-readable. SQLite gives the WAL and SHM files the permissions of the database
file, so creating the database 0600 before SQLite opens it covers them; files of an older store are
tightened on open. A folder that already exists is not changed (it may be the user's own, e.g. ``/tmp``
for ``sqlite:////tmp/m.db``): only folders memscribe creates are made 0700.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

__all__ = ["FILE_MODE", "FOLDER_MODE", "private_file", "private_folder", "tighten"]

FOLDER_MODE = 0o700
FILE_MODE = 0o600


def private_folder(path: str | Path) -> Path:
    """``path`` as a folder: made (with any missing parents) owner-only; an existing folder is left as is."""
    path = Path(path)
    missing = []
    p = path
    while not p.exists():
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):  # another process made it first
            folder.mkdir(mode=FOLDER_MODE)
            os.chmod(folder, FOLDER_MODE)  # mkdir's mode is masked by the umask
    return path


def private_file(path: str | Path) -> Path:
    """Make ``path`` exist as an owner-only file (created empty if missing, tightened if not), in a
    private folder. An empty file is a valid new SQLite database."""
    path = Path(path)
    private_folder(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        with contextlib.suppress(
            PermissionError
        ):  # someone else's file (opened read-only): not ours to change
            os.chmod(path, FILE_MODE)
        return path
    try:
        os.fchmod(fd, FILE_MODE)  # the mode given to open() is masked by the umask
    finally:
        os.close(fd)
    return path


def tighten(*paths: str | Path) -> None:
    """Owner-only modes for those of ``paths`` that exist (a store's -wal/-shm left by an older version)."""
    for p in paths:
        with contextlib.suppress(FileNotFoundError, PermissionError):
            os.chmod(p, FILE_MODE)

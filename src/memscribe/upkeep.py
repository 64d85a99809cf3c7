"""Operations on a whole store, or on all of one user, rather than on one memory: the lifecycle
maintenance run, an online backup, export and import (:mod:`memscribe.portability`), the rotation of the
vault key, and the hard erase of a user. Each first settles what the background still holds — pending
access statistics are written (maintenance reads them to tell what is cold; a backup should carry them)
or dropped for a user being erased, and writes queued under the old vault key run before it goes — so
it works on the store as it really is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memscribe import boundary
from memscribe.portability import ImportReport, export_records, import_records
from memscribe.store.private import private_folder

if TYPE_CHECKING:
    from memscribe.background import Background
    from memscribe.clock import Clock
    from memscribe.config import Settings
    from memscribe.keyring import KeyRing
    from memscribe.ledger import Ledger
    from memscribe.lifecycle.maintain import MaintenanceReport
    from memscribe.providers.embedders import Embedder
    from memscribe.store.base import Store

__all__ = ["Upkeep"]


def _optional_user(user_id: str | None) -> str | None:
    return boundary.require_user(user_id) if user_id is not None else None


class Upkeep:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        settings: Settings,
        ledger: Ledger,
        background: Background,
        keys: KeyRing,
        *,
        clock: Clock,
    ) -> None:
        self._keys = keys
        self._store = store
        self._embedder = embedder
        self._settings = settings
        self._ledger = ledger
        self._background = background
        self._clock = clock

    def maintain(self, *, now: datetime | None, dry_run: bool, user_id: str | None) -> MaintenanceReport:
        """A maintenance run as of ``now`` (default: the clock's); see :mod:`memscribe.lifecycle.maintain`."""
        from memscribe.lifecycle.maintain import run_maintenance

        self._background.flush()  # access statistics decide what is cold
        return run_maintenance(
            self._store,
            self._embedder,
            self._settings,
            now=now or self._clock(),
            dry_run=dry_run,
            user_id=_optional_user(user_id),
            ledger=self._ledger,
        )

    def backup(self, path: str | Path) -> Path:
        """A consistent copy of the store at ``path`` (its folder made), queued work run first."""
        dest = boundary.backup_path(path)
        private_folder(dest.parent)
        self._background.flush()
        self._store.backup_to(dest)
        return dest

    def export(self, *, user_id: str | None) -> list[dict[str, Any]]:
        return export_records(self._store, user_id=_optional_user(user_id))

    def import_(
        self,
        records: Iterable[Mapping[str, Any]],
        *,
        batch_size: int,
        dry_run: bool,
        on_progress: Callable[[int], None] | None = None,
    ) -> ImportReport:
        return import_records(
            self._store,
            self._embedder,
            self._ledger,
            records,
            batch_size=boundary.batch_size(batch_size),
            dry_run=dry_run,
            key_id=lambda: self._keys.vault().key_id,
            on_progress=on_progress,
        )

    def rotate_vault_key(self) -> str | None:
        """A fresh vault key (see :meth:`memscribe.keyring.KeyRing.rotate`), the deferred writes run first."""
        # writes waiting for their rate slot are sealed with the current key: run them before it goes
        self._background.flush(deferred=True)
        return self._keys.rotate()

    def forget(self, *, user_id: str) -> int:
        """Hard erase of the user (see :meth:`memscribe.ledger.Ledger.erase_user`)."""
        user_id = boundary.require_user(user_id)
        self._background.access.clear()
        return self._ledger.erase_user(user_id)

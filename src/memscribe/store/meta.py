"""What both engines decide the same way over their own meta table: the embedder a store was built with."""

from __future__ import annotations

from memscribe.errors import EmbedderMismatch

__all__ = ["EmbedderRecord"]


class EmbedderRecord:
    """``check_embedder`` over the engine's ``get_meta`` / ``set_meta`` / ``atomic`` (a mixin placed last
    among a store's bases); an engine whose vector column has a fixed dimension sets it in
    ``_record_dim``, in the same transaction as the record."""

    def _record_dim(self, dim: int, *, reset: bool) -> None:
        """Nothing to do where a vector column takes any dimension."""

    def _describe(self) -> str:
        return "store"

    def check_embedder(self, name: str, dim: int, *, allow_reset: bool = False) -> None:
        """Record the embedder on first use (or on a reindex: ``allow_reset``); refuse another one later."""
        have_name, have_dim = self.get_meta("embedder"), self.get_meta("embedder_dim")
        if have_name is None or allow_reset:
            with self.atomic():
                self._record_dim(dim, reset=allow_reset)
                self.set_meta("embedder", name)
                self.set_meta("embedder_dim", str(dim))
            return
        if have_name != name or int(have_dim or 0) != dim:
            raise EmbedderMismatch(
                f"{self._describe()} was built with embedder {have_name} ({have_dim}-d) but {name} ({dim}-d) "
                "is configured; mixing them silently ruins recall. Run `memscribe reindex` to re-embed."
            )

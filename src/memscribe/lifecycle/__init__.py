"""Lifecycle: decay, expiry, archive and restore, consolidation (``Memory.maintain``)."""

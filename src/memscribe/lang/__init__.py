"""The language floor under ``write/`` and ``read/``: segmentation and language detection (``text``),
sentences and clauses (``clauses``), word lists (``lexicon``), entities (``entities``) and time
expressions (``timeparse`` for Chinese and the shared resolver, ``timeparse_en`` for English).

Nothing here imports from ``write/``, ``read/``, ``layers/`` or ``lifecycle/``."""

"""Forward-only schema migrations. Each is applied together with the row that records it."""

from __future__ import annotations

MIGRATIONS: list[tuple[int, str, str]] = [
    (
        1,
        "initial",
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE memories (
            pk INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            user_id TEXT NOT NULL,
            agent_id TEXT,
            session_id TEXT,
            layer TEXT NOT NULL,
            kind TEXT NOT NULL,
            status TEXT NOT NULL,
            text TEXT NOT NULL,
            raw TEXT NOT NULL,
            structured TEXT NOT NULL,
            entities TEXT NOT NULL,
            links TEXT NOT NULL,
            sources TEXT NOT NULL,
            metadata TEXT NOT NULL,
            time_start TEXT, time_end TEXT, time_start_ts REAL, time_end_ts REAL,
            importance REAL NOT NULL, timeliness REAL NOT NULL, confidence REAL NOT NULL,
            superseded_by TEXT,
            created_at TEXT NOT NULL, updated_at TEXT NOT NULL, created_ts REAL NOT NULL,
            last_accessed_at TEXT, access_count INTEGER NOT NULL DEFAULT 0,
            expire_at TEXT, version INTEGER NOT NULL,
            -- store-wide write sequence: lets an in-process vector cache catch up with changed rows only
            vseq INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX memories_scope ON memories (user_id, status);
        CREATE INDEX memories_time ON memories (user_id, time_start_ts);
        CREATE INDEX memories_vseq ON memories (user_id, vseq);
        -- the vector of a memory, keyed by memories.pk; user_id kept here so a scope scan never joins
        CREATE TABLE memory_vectors (pk INTEGER PRIMARY KEY, user_id TEXT NOT NULL, embedding BLOB NOT NULL);
        CREATE INDEX memory_vectors_user ON memory_vectors (user_id);
        -- keyword index: jieba-segmented text, porter stemming for English, rowid = memories.pk
        -- scope is a token derived from user_id: MATCH intersects it in the index, so a common word in a
        -- store of many users never makes FTS5 score every user's documents
        CREATE VIRTUAL TABLE memories_fts USING fts5 (scope, terms, tokenize = 'porter unicode61 remove_diacritics 2');
        CREATE VIRTUAL TABLE memories_vocab USING fts5vocab (memories_fts, 'row');
        CREATE TABLE versions (
            memory_id TEXT NOT NULL, version INTEGER NOT NULL, record TEXT NOT NULL,
            reason TEXT NOT NULL, actor TEXT NOT NULL, created_at TEXT NOT NULL, user_id TEXT NOT NULL,
            PRIMARY KEY (memory_id, version)
        );
        CREATE INDEX versions_user ON versions (user_id);
        CREATE TABLE links (
            src TEXT NOT NULL, dst TEXT NOT NULL, type TEXT NOT NULL, user_id TEXT NOT NULL,
            PRIMARY KEY (src, dst, type)
        );
        CREATE INDEX links_dst ON links (dst);
        CREATE TABLE audit (
            id INTEGER PRIMARY KEY AUTOINCREMENT, ts TEXT NOT NULL, user_id TEXT NOT NULL,
            memory_id TEXT, message_id TEXT, stage TEXT NOT NULL, action TEXT NOT NULL,
            reason TEXT NOT NULL, scores TEXT NOT NULL, detail TEXT NOT NULL
        );
        CREATE INDEX audit_memory ON audit (memory_id);
        CREATE INDEX audit_user ON audit (user_id);
        CREATE TABLE counters (user_id TEXT NOT NULL, name TEXT NOT NULL, value INTEGER NOT NULL,
            PRIMARY KEY (user_id, name));
        CREATE TABLE sessions (
            session_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, summary TEXT NOT NULL DEFAULT '',
            summarized_upto INTEGER NOT NULL DEFAULT 0, updated_at TEXT NOT NULL
        );
        CREATE INDEX sessions_user ON sessions (user_id);
        CREATE TABLE session_messages (
            seq INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, user_id TEXT NOT NULL,
            role TEXT NOT NULL, name TEXT, content TEXT NOT NULL, message_id TEXT, at TEXT
        );
        CREATE INDEX session_messages_session ON session_messages (session_id, seq);
        CREATE INDEX session_messages_user ON session_messages (user_id);
        CREATE TABLE working_items (
            user_id TEXT NOT NULL, task_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
            kind TEXT NOT NULL, expire_at TEXT, expire_ts REAL, updated_at TEXT NOT NULL,
            PRIMARY KEY (user_id, task_id, key)
        );
        CREATE TABLE jobs (
            id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, payload TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0,
            run_after_ts REAL NOT NULL, error TEXT, created_at TEXT NOT NULL
        );
        CREATE INDEX jobs_pending ON jobs (status, run_after_ts);
        CREATE TABLE vault (
            id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT NOT NULL, memory_id TEXT NOT NULL,
            label TEXT NOT NULL, kind TEXT NOT NULL, ciphertext BLOB NOT NULL, key_id TEXT NOT NULL
        );
        CREATE INDEX vault_memory ON vault (memory_id);
        CREATE INDEX vault_user ON vault (user_id);
        INSERT INTO meta VALUES ('vseq', '0');
        """,
    ),
    (
        2,
        "memory slot keys",
        # the (subject, slot) identity of a fact, for merge to find the records holding a slot's value;
        # existing rows take it from their structured JSON (string values only, as put_memory does)
        """
        ALTER TABLE memories ADD COLUMN subject_key TEXT;
        ALTER TABLE memories ADD COLUMN slot_key TEXT;
        UPDATE memories SET
            subject_key = CASE WHEN json_type(structured, '$.subject') = 'text'
                               THEN json_extract(structured, '$.subject') END,
            slot_key = CASE WHEN json_type(structured, '$.slot') = 'text'
                            THEN json_extract(structured, '$.slot') END
        WHERE json_type(structured, '$.subject') = 'text' OR json_type(structured, '$.slot') = 'text';
        CREATE INDEX memories_slot ON memories (user_id, subject_key, slot_key);
        """,
    ),
    (
        3,
        "memory origin message",
        # the message a memory was first said in: the statements of one message are read together
        """
        ALTER TABLE memories ADD COLUMN origin_message TEXT;
        UPDATE memories SET origin_message = json_extract(sources, '$[0].message_id')
        WHERE json_array_length(sources) > 0;
        CREATE INDEX memories_origin ON memories (user_id, origin_message);
        """,
    ),
    (
        4,
        "time spans by length",
        # An overlap query "starts before the window's end and ends after its start" cannot stop early on
        # (user_id, time_start_ts): it walked every older memory (170 ms at 100k). Spans up to a day are
        # found from time_start_ts >= window start - 1 day; these partial indexes hold the longer ones,
        # up to 32 days (weeks, months) and beyond (years, "since 2019"), each scanned within its bound.
        # The WHERE clauses are repeated verbatim in search.py: SQLite uses a partial index only then.
        """
        CREATE INDEX memories_time_weeks ON memories (user_id, time_start_ts)
            WHERE time_end_ts - time_start_ts > 86400 AND time_end_ts - time_start_ts <= 2764800;
        CREATE INDEX memories_time_long ON memories (user_id, time_start_ts)
            WHERE time_end_ts - time_start_ts > 2764800;
        """,
    ),
]

LATEST = MIGRATIONS[-1][0]

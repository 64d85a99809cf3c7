"""Forward-only schema migrations for the PostgreSQL store (append-only, like the SQLite ones).

Each migration runs in one transaction together with the ``schema_migrations`` row that records it,
under an advisory lock, so several processes opening a new store at once apply it exactly once.
The vector column has no dimension here: it is fixed (``vector(dim)`` + HNSW index) when the first
embedder is recorded, see ``PostgresMemories._ensure_dim``.
"""

from __future__ import annotations

MIGRATIONS: list[tuple[int, str, str]] = [
    (
        1,
        "initial",
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE memories (
            pk BIGSERIAL PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            user_id TEXT NOT NULL,
            agent_id TEXT,
            session_id TEXT,
            layer TEXT NOT NULL,
            kind TEXT NOT NULL,
            status TEXT NOT NULL,
            text TEXT NOT NULL,
            raw TEXT NOT NULL,
            structured JSON NOT NULL,
            entities JSON NOT NULL,
            links JSON NOT NULL,
            sources JSON NOT NULL,
            metadata JSON NOT NULL,
            -- ISO 8601 text keeps the caller's UTC offset; the *_ts columns are for range queries
            time_start TEXT, time_end TEXT, time_start_ts TIMESTAMPTZ, time_end_ts TIMESTAMPTZ,
            importance DOUBLE PRECISION NOT NULL, timeliness DOUBLE PRECISION NOT NULL,
            confidence DOUBLE PRECISION NOT NULL,
            superseded_by TEXT,
            created_at TEXT NOT NULL, updated_at TEXT NOT NULL, created_ts TIMESTAMPTZ NOT NULL,
            last_accessed_at TEXT, access_count INTEGER NOT NULL DEFAULT 0,
            expire_at TEXT, version INTEGER NOT NULL
        );
        CREATE INDEX memories_scope ON memories (user_id, status);
        CREATE INDEX memories_time ON memories (user_id, time_start_ts);
        -- the vector of a memory; user_id and status are copied here so a filtered HNSW scan never joins
        CREATE TABLE memory_vectors (
            pk BIGINT PRIMARY KEY REFERENCES memories (pk) ON DELETE CASCADE,
            user_id TEXT NOT NULL,
            status TEXT NOT NULL,
            embedding vector NOT NULL
        );
        CREATE INDEX memory_vectors_scope ON memory_vectors (user_id, status);
        -- keyword index: the jieba-segmented text the SQLite store gets, plus one position-less scope
        -- lexeme derived from user_id, so the GIN index intersects a term with the scope (as FTS5 does);
        -- status is copied here too, so ranking never joins memories
        CREATE TEXT SEARCH DICTIONARY memscribe_stem (TEMPLATE = snowball, Language = english);
        CREATE TEXT SEARCH CONFIGURATION memscribe_kw (COPY = simple);
        ALTER TEXT SEARCH CONFIGURATION memscribe_kw
            ALTER MAPPING FOR asciiword, asciihword, hword_asciipart WITH memscribe_stem;
        CREATE TABLE memory_terms (
            pk BIGINT PRIMARY KEY REFERENCES memories (pk) ON DELETE CASCADE,
            user_id TEXT NOT NULL,
            status TEXT NOT NULL,
            terms TEXT NOT NULL,
            tsv TSVECTOR NOT NULL
        );
        CREATE INDEX memory_terms_tsv ON memory_terms USING gin (tsv);
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
            id BIGSERIAL PRIMARY KEY, ts TEXT NOT NULL, user_id TEXT NOT NULL,
            memory_id TEXT, message_id TEXT, stage TEXT NOT NULL, action TEXT NOT NULL,
            reason TEXT NOT NULL, scores TEXT NOT NULL, detail TEXT NOT NULL
        );
        CREATE INDEX audit_memory ON audit (memory_id);
        CREATE INDEX audit_user ON audit (user_id);
        CREATE TABLE counters (user_id TEXT NOT NULL, name TEXT NOT NULL, value BIGINT NOT NULL,
            PRIMARY KEY (user_id, name));
        CREATE TABLE sessions (
            session_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, summary TEXT NOT NULL DEFAULT '',
            summarized_upto INTEGER NOT NULL DEFAULT 0, updated_at TEXT NOT NULL
        );
        CREATE INDEX sessions_user ON sessions (user_id);
        CREATE TABLE session_messages (
            seq BIGSERIAL PRIMARY KEY, session_id TEXT NOT NULL, user_id TEXT NOT NULL,
            role TEXT NOT NULL, name TEXT, content TEXT NOT NULL, message_id TEXT, at TEXT
        );
        CREATE INDEX session_messages_session ON session_messages (session_id, seq);
        CREATE INDEX session_messages_user ON session_messages (user_id);
        CREATE TABLE working_items (
            user_id TEXT NOT NULL, task_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
            kind TEXT NOT NULL, expire_at TEXT, expire_ts TIMESTAMPTZ, updated_at TEXT NOT NULL,
            PRIMARY KEY (user_id, task_id, key)
        );
        -- claimed_by names the store instance (application_name of its connections) running a job, so a
        -- restarted worker requeues only jobs whose owner is gone, never those of a live worker
        CREATE TABLE jobs (
            id BIGSERIAL PRIMARY KEY, kind TEXT NOT NULL, payload JSONB NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending', attempts INTEGER NOT NULL DEFAULT 0,
            run_after TIMESTAMPTZ NOT NULL DEFAULT '-infinity', error TEXT, created_at TEXT NOT NULL,
            claimed_by TEXT
        );
        CREATE INDEX jobs_pending ON jobs (status, run_after);
        CREATE TABLE vault (
            id BIGSERIAL PRIMARY KEY, user_id TEXT NOT NULL, memory_id TEXT NOT NULL,
            label TEXT NOT NULL, kind TEXT NOT NULL, ciphertext BYTEA NOT NULL, key_id TEXT NOT NULL
        );
        CREATE INDEX vault_memory ON vault (memory_id);
        CREATE INDEX vault_user ON vault (user_id);
        """,
    ),
    (
        2,
        "memory slot keys",
        # the (subject, slot) identity of a fact, for merge to find the records holding a slot's value;
        # existing rows take it from their structured JSON (string values only, as put_memory does)
        """
        ALTER TABLE memories ADD COLUMN subject_key TEXT, ADD COLUMN slot_key TEXT;
        UPDATE memories SET
            subject_key = CASE WHEN json_typeof(structured -> 'subject') = 'string'
                               THEN structured ->> 'subject' END,
            slot_key = CASE WHEN json_typeof(structured -> 'slot') = 'string' THEN structured ->> 'slot' END
        WHERE json_typeof(structured -> 'subject') = 'string' OR json_typeof(structured -> 'slot') = 'string';
        CREATE INDEX memories_slot ON memories (user_id, subject_key, slot_key);
        """,
    ),
    (
        3,
        "memory origin message",
        # the message a memory was first said in: the statements of one message are read together
        """
        ALTER TABLE memories ADD COLUMN origin_message TEXT;
        UPDATE memories SET origin_message = sources -> 0 ->> 'message_id'
        WHERE json_array_length(sources) > 0;
        CREATE INDEX memories_origin ON memories (user_id, origin_message);
        """,
    ),
]

LATEST = MIGRATIONS[-1][0]

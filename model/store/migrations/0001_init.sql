-- Schema version 1: datasets, bank snapshots, judges, requests, responses.

CREATE TABLE datasets (
    id       INTEGER PRIMARY KEY,
    name     TEXT NOT NULL UNIQUE,
    format   TEXT NOT NULL,
    task     TEXT NOT NULL,
    metric   TEXT NOT NULL,
    criteria TEXT NOT NULL,            -- JSON array of criterion names
    created  TEXT NOT NULL
) STRICT;

CREATE TABLE contexts (
    id         INTEGER PRIMARY KEY,
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    pos        INTEGER NOT NULL,       -- order in the file
    ext_id     TEXT NOT NULL,          -- the context id from the file
    source     TEXT NOT NULL,
    extra      TEXT,                   -- JSON object, NULL when empty
    UNIQUE (dataset_id, ext_id)
) STRICT;

CREATE TABLE candidates (
    id         INTEGER PRIMARY KEY,
    context_id INTEGER NOT NULL REFERENCES contexts(id) ON DELETE CASCADE,
    pos        INTEGER NOT NULL,
    ext_id     TEXT NOT NULL,
    text       TEXT NOT NULL,
    human      REAL,                   -- NULL when the target is missing (NaN)
    scores     TEXT,                   -- JSON object criterion -> number|null
    extra      TEXT,
    UNIQUE (context_id, ext_id)
) STRICT;

CREATE TABLE banks (
    hash    TEXT PRIMARY KEY,          -- content hash of the exact wording
    name    TEXT NOT NULL,
    source  TEXT NOT NULL,             -- "builtin:NAME" or the file it came from
    text    TEXT NOT NULL,             -- the bank file (TOML) as written
    created TEXT NOT NULL
) STRICT;

CREATE TABLE judges (
    id       INTEGER PRIMARY KEY,
    name     TEXT NOT NULL UNIQUE,
    backend  TEXT NOT NULL,
    model    TEXT NOT NULL,
    base_url TEXT NOT NULL,
    params   TEXT NOT NULL,            -- JSON object, secrets stripped
    created  TEXT NOT NULL
) STRICT;

-- One row per study coordinate. key is the content hash of what was sent
-- (RequestKey); run tells repeats of the same messages apart.
CREATE TABLE requests (
    id         INTEGER PRIMARY KEY,
    key        TEXT NOT NULL,
    judge_id   INTEGER NOT NULL REFERENCES judges(id) ON DELETE CASCADE,
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    context    TEXT NOT NULL,
    candidate  TEXT NOT NULL,
    bank_hash  TEXT NOT NULL,
    probe      TEXT NOT NULL,
    wording    TEXT NOT NULL,
    run        TEXT NOT NULL,
    UNIQUE (judge_id, dataset_id, bank_hash, context, candidate, probe, wording, run)
) STRICT;

-- Every attempt. ok = 1 marks an answer; failures (ok = 0) are kept for
-- counting by kind but never count as answers.
CREATE TABLE responses (
    id                INTEGER PRIMARY KEY,
    request_id        INTEGER NOT NULL REFERENCES requests(id) ON DELETE CASCADE,
    ok                INTEGER NOT NULL CHECK (ok IN (0, 1)),
    raw               TEXT NOT NULL,
    score             REAL,            -- NULL when no score was parsed
    logprobs          TEXT,            -- JSON, NULL when absent
    prompt_tokens     INTEGER NOT NULL,
    cached_tokens     INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_ns        INTEGER NOT NULL,
    error_kind        TEXT NOT NULL,   -- "" for an answer
    error             TEXT NOT NULL,
    created           TEXT NOT NULL
) STRICT;

-- At most one answer per request: an answered request is never re-sent.
CREATE UNIQUE INDEX responses_answer ON responses(request_id) WHERE ok = 1;
CREATE INDEX responses_request ON responses(request_id);

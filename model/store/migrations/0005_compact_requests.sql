-- Schema version 5: compact requests (docs/store.md, docs/performance.md).
--
-- Version 4 kept each request's 64-character bank hash and 64-character
-- hex key in its row, its coordinates index and its key index: 80% of a
-- workspace. Now a study (judge × dataset × bank hash) is a row of its own
-- and a request names it by id; the key is its 32 bytes (a BLOB) when it
-- is a RequestKey (64 lower-case hex digits), else the text as given, and
-- is indexed by its first 8 bytes. A
-- request also carries what the readers of a study need without touching
-- the responses: its answer's score (as text, Go's shortest form that
-- parses back exactly; NULL before it is answered) and its count of
-- failed attempts.
-- The view requests keeps the columns of versions 1–4 for every query
-- that does not need the speed.
--
-- The answer column of a score other than a small integer is filled by
-- the Go step of this migration (migrate.go, fillAnswers): SQL's float →
-- text is not Go's shortest exact form.

CREATE TABLE studies (
    id         INTEGER PRIMARY KEY,
    judge_id   INTEGER NOT NULL REFERENCES judges(id) ON DELETE CASCADE,
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    bank_hash  TEXT NOT NULL,
    -- Bounds on the ids of the study's requests (NULL: none yet), so a
    -- reader scans that id range of study_requests in table order. They
    -- only widen; rows of other studies inside the range are skipped.
    first_id   INTEGER,
    last_id    INTEGER,
    -- Bumped by every transaction that writes a request or response of
    -- the study: a score snapshot of another generation is stale.
    generation INTEGER NOT NULL DEFAULT 0,
    UNIQUE (judge_id, dataset_id, bank_hash)
) STRICT;

-- A study's answers packed in a few values (snapshot.go: parts of at most
-- 65,536 answers), written when a run ends, so that prism fit reads a few
-- rows instead of a row per request. It is used only while the generation
-- of every part is the study's.
CREATE TABLE score_snapshots (
    study_id   INTEGER NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
    part       INTEGER NOT NULL,
    generation INTEGER NOT NULL,
    body       BLOB NOT NULL,
    PRIMARY KEY (study_id, part)
) STRICT;

CREATE TABLE study_requests (
    id        INTEGER PRIMARY KEY,
    study_id  INTEGER NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
    key       ANY NOT NULL,             -- 32-byte BLOB for a RequestKey, else TEXT
    context   TEXT NOT NULL,
    candidate TEXT NOT NULL,
    probe     TEXT NOT NULL,
    wording   TEXT NOT NULL,
    run       TEXT NOT NULL,
    answer    TEXT,                     -- the answer's score, exact; NULL = no answer; '' = answered, no score
    failures  INTEGER NOT NULL DEFAULT 0, -- failed attempts (responses with ok = 0)
    UNIQUE (study_id, context, candidate, probe, wording, run)
) STRICT;

INSERT INTO studies(judge_id, dataset_id, bank_hash, first_id, last_id)
SELECT judge_id, dataset_id, bank_hash, min(id), max(id)
FROM requests GROUP BY judge_id, dataset_id, bank_hash ORDER BY judge_id, dataset_id, bank_hash;

INSERT INTO study_requests(id, study_id, key, context, candidate, probe, wording, run, answer, failures)
SELECT r.id, s.id,
       CASE WHEN length(r.key) = 64 AND r.key NOT GLOB '*[^0-9a-f]*' THEN unhex(r.key) ELSE r.key END,
       r.context, r.candidate, r.probe, r.wording, r.run,
       -- answerText in SQL where it is plain: no score, or an integer
       -- below 1e6 in magnitude (Go spells those as SQLite does, "-0" as
       -- "0"); the other scores are left to the Go step.
       (SELECT CASE WHEN p.score IS NULL THEN ''
                    WHEN p.score = CAST(p.score AS INTEGER) AND abs(p.score) < 1e6 THEN CAST(CAST(p.score AS INTEGER) AS TEXT)
                    END
        FROM responses p WHERE p.request_id = r.id AND p.ok = 1),
       (SELECT count(*) FROM responses p WHERE p.request_id = r.id AND p.ok = 0)
FROM requests r
JOIN studies s ON s.judge_id = r.judge_id AND s.dataset_id = r.dataset_id AND s.bank_hash = r.bank_hash
ORDER BY r.id;

-- responses referenced requests(id): rebuilt to reference study_requests.
-- The at-most-one-answer rule of the responses_answer index is now kept
-- by study_requests.answer (the writer adds an answer only to a request
-- without one), so that index goes: one B-tree fewer per answer.
CREATE TABLE responses_v5 (
    id                INTEGER PRIMARY KEY,
    request_id        INTEGER NOT NULL REFERENCES study_requests(id) ON DELETE CASCADE,
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

INSERT INTO responses_v5 SELECT id, request_id, ok, raw, score, logprobs, prompt_tokens, cached_tokens,
       completion_tokens, latency_ns, error_kind, error, created FROM responses ORDER BY id;

DROP TABLE responses;
DROP TABLE requests;
ALTER TABLE responses_v5 RENAME TO responses;
CREATE INDEX responses_request ON responses(request_id);
-- Look-ups by key go through the first 8 bytes of the key (a hash's: as
-- selective as the whole key for a workspace's requests) and compare the
-- whole key on the rows found: entries a third of a whole key's size, in
-- an index that, keyed by a hash, every commit writes at random.
CREATE INDEX study_requests_key ON study_requests(substr(CAST(key AS BLOB), 1, 8), run);

CREATE VIEW requests AS
SELECT q.id AS id,
       CASE WHEN typeof(q.key) = 'blob' THEN lower(hex(q.key)) ELSE q.key END AS key,
       s.judge_id AS judge_id, s.dataset_id AS dataset_id,
       q.context AS context, q.candidate AS candidate, s.bank_hash AS bank_hash,
       q.probe AS probe, q.wording AS wording, q.run AS run
FROM study_requests q JOIN studies s ON s.id = q.study_id;

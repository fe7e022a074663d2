-- Schema version 10: the batches prism batch submit sent to a provider
-- (docs/engine.md, "prism batch submit, status, fetch").
--
-- A job is recorded before its batch is created (state 'creating', no
-- batch_id yet), so the requests it carries are held even if prism stops
-- before the provider's answer is recorded: a later submit never sends
-- a held request again (it would be paid twice). endpoint is the base
-- URL without credentials; files is a JSON object of the provider's file
-- ids and URLs; counts the request counts last seen (JSON). No key or
-- secret is kept.
CREATE TABLE batch_jobs (
    id        INTEGER PRIMARY KEY,
    provider  TEXT NOT NULL,
    batch_id  TEXT UNIQUE,
    tag       TEXT NOT NULL UNIQUE,
    endpoint  TEXT NOT NULL,
    state     TEXT NOT NULL,
    status    TEXT NOT NULL DEFAULT '',
    files     TEXT NOT NULL DEFAULT '{}',
    counts    TEXT NOT NULL DEFAULT '{}',
    requests  INTEGER NOT NULL,
    created   TEXT NOT NULL,
    updated   TEXT NOT NULL
) STRICT;

-- The custom_ids (prism's, before any Anthropic short id) a job carries.
CREATE TABLE batch_job_requests (
    job       INTEGER NOT NULL REFERENCES batch_jobs(id),
    custom_id TEXT NOT NULL,
    PRIMARY KEY (job, custom_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX batch_job_requests_custom_id ON batch_job_requests(custom_id);

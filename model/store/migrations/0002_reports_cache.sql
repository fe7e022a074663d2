-- Schema version 2: fit reports, and the index that finds a stored answer
-- by content key so identical messages are never sent twice.

CREATE TABLE reports (
    id         INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL,          -- e.g. "fit"
    dataset    TEXT NOT NULL,
    judge      TEXT NOT NULL,
    bank_hash  TEXT NOT NULL,
    body       TEXT NOT NULL,          -- the report as JSON
    created    TEXT NOT NULL
) STRICT;

CREATE INDEX reports_dataset ON reports(dataset, created);
CREATE INDEX requests_key ON requests(key, run);

-- Schema version 3: the runs acquiring a study right now. A row is a lease:
-- one run per (dataset, judge, bank) at a time, and a dataset with a live
-- lease is neither replaced nor deleted. The holder refreshes heartbeat
-- while it runs and deletes the row when it ends; a row whose process is
-- gone (kill -9) is stale and taken over.

CREATE TABLE runs (
    id         INTEGER PRIMARY KEY,
    dataset_id INTEGER NOT NULL REFERENCES datasets(id),
    judge      TEXT NOT NULL,
    bank_hash  TEXT NOT NULL,
    token      TEXT NOT NULL,          -- the holder's random id
    pid        INTEGER NOT NULL,
    host       TEXT NOT NULL,
    started    TEXT NOT NULL,
    heartbeat  TEXT NOT NULL,
    UNIQUE (dataset_id, judge, bank_hash)
) STRICT;

-- A dataset's revision changes whenever it is replaced (its row id may be
-- reused), so a run can tell the texts it planned from are still stored.
ALTER TABLE datasets ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
UPDATE datasets SET revision = id;

-- Schema version 7: the request-key index is a table of its own, written
-- in bulk (docs/store.md, "Request keys"; docs/performance.md, "Request
-- keys in bulk").
--
-- Version 5's study_requests_key was an index on study_requests, so every
-- fold of a run wrote its answers' keys into it. Keyed by a hash, those
-- entries fell on its pages at random: each fold's commit rewrote
-- hundreds of them (406 MB written to disk for a 121,600-request run),
-- and keeping it was a tenth of a run's CPU. Now the keys of the rows
-- up to request_keys_state.through are in request_keys; the rows above it
-- (the last runs') are the tail, which a look-up scans by row id, and the
-- next look-up by a process that can write indexes the tail first, in key
-- order, writing each page of request_keys once.
CREATE TABLE request_keys (
    prefix BLOB NOT NULL,    -- substr(CAST(key AS BLOB), 1, 8) of the row
    run    TEXT NOT NULL,
    id     INTEGER NOT NULL, -- study_requests.id
    PRIMARY KEY (prefix, run, id)
) STRICT, WITHOUT ROWID;

-- through: every study_requests row with an id up to it has its entry in
-- request_keys. A new row's id is above every row's there is, and so
-- above through (request_keys_forget keeps that true when the rows at the
-- top are deleted).
CREATE TABLE request_keys_state (
    one     INTEGER PRIMARY KEY CHECK (one = 1),
    through INTEGER NOT NULL
) STRICT;

INSERT INTO request_keys(prefix, run, id)
SELECT substr(CAST(key AS BLOB), 1, 8), run, id FROM study_requests ORDER BY 1, 2, 3;
INSERT INTO request_keys_state(one, through) SELECT 1, coalesce(max(id), 0) FROM study_requests;
DROP INDEX study_requests_key;

-- A deleted request takes its entry with it, and when it was at the top
-- of the table, through comes down to the highest id left: SQLite gives a
-- new row the id after the highest, which may be one deleted here, and
-- that row must be in the tail, not taken as indexed.
CREATE TRIGGER request_keys_forget AFTER DELETE ON study_requests BEGIN
    DELETE FROM request_keys
    WHERE prefix = substr(CAST(old.key AS BLOB), 1, 8) AND run = old.run AND id = old.id;
    UPDATE request_keys_state SET through = (SELECT coalesce(max(id), 0) FROM study_requests)
    WHERE through > (SELECT coalesce(max(id), 0) FROM study_requests);
END;

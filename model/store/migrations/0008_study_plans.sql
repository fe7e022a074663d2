-- Schema version 8: a study's plan, and stored reports (docs/store.md,
-- "Studies").
--
-- A study (judge × dataset × bank version) is acquired by its own
-- command (prism run, the TUI's Run tab, prism score, prism import scores)
-- and may also be touched by diagnostics (prism screen, prism diagnose):
-- extra runs under the same bank, or studies of their own under other
-- banks and scales. planned_runs and planned are what the study's own
-- acquisition planned (NULL: none has; every answer then belongs to
-- diagnostics), so an analysis reads the planned runs only and prism ls
-- shows progress against the plan. diagnostics names the diagnostics that
-- sent requests in the study, comma-separated, for prism ls.
ALTER TABLE studies ADD COLUMN planned_runs INTEGER;
ALTER TABLE studies ADD COLUMN planned INTEGER;
ALTER TABLE studies ADD COLUMN diagnostics TEXT NOT NULL DEFAULT '';

-- Every fit is kept with what went in: the study's key, the runs read,
-- the study's generation when it was read, and a hash of the options and
-- inputs, so the TUI reopens on the latest fit and can tell it is stale.
CREATE TABLE reports (
    id         INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL,          -- "fit"
    dataset    TEXT NOT NULL,
    judge      TEXT NOT NULL,
    bank_hash  TEXT NOT NULL,
    runs       TEXT NOT NULL,          -- "planned", "all" or a count
    generation INTEGER NOT NULL,       -- studies.generation when read
    inputs     TEXT NOT NULL,          -- hash of the study read and the options
    body       TEXT NOT NULL,          -- the report as JSON
    created    TEXT NOT NULL
) STRICT;

CREATE INDEX reports_study ON reports(dataset, judge, bank_hash, kind, id);

-- The requests that failed and have no answer, by study: a partial index
-- of the few rows it names, so a study's failures are counted without
-- reading its answered requests (store.FailedRuns).
CREATE INDEX study_requests_failed ON study_requests(study_id, run) WHERE answer IS NULL AND failures > 0;

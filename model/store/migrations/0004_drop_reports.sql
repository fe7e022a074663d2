-- Schema version 4: drop the reports table of version 2. Nothing ever wrote
-- or read it: fit commands open the workspace read-only and print or export
-- their report, so a fit is recomputed from the stored scores, never stored.
-- The requests_key index of version 2 stays; runs use it.

DROP INDEX IF EXISTS reports_dataset;
DROP TABLE IF EXISTS reports;

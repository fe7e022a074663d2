-- Schema version 11: each dataset's layout (its contexts and candidates by
-- id in file order, with the candidates' human targets) packed in one
-- BLOB, written with the dataset (docs/store.md, "Dataset layouts"). A
-- dataset is never changed in place (replacing one deletes it and writes
-- a new row), so the layout never goes stale; NULL where it is not
-- written, and readers then read the tables. The migration's Go step
-- writes it for the datasets already stored.
ALTER TABLE datasets ADD COLUMN layout BLOB;

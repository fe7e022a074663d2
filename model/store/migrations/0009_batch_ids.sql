-- Schema version 9: what batch exports leave behind
-- (docs/engine.md, "prism batch").
--
-- batch_ids maps the short ids of an Anthropic Message Batches file
-- (custom_id must match ^[a-zA-Z0-9_-]{1,64}$) to the custom_id prism
-- names the call with (KEY, KEY:RUN, saja:KEY:RUN, geval:KEY:RUN:S/N), so
-- an import reads the results back at the coordinates they were exported
-- with. A short id is a hash of the custom_id: an export written twice
-- maps it the same way.
CREATE TABLE batch_ids (
    short     TEXT PRIMARY KEY,
    custom_id TEXT NOT NULL
) STRICT, WITHOUT ROWID;

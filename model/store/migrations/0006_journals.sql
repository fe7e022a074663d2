-- Schema version 6: answer journals (docs/store.md, "Answer journals").
--
-- A server judge's run appends its answers to a file beside the workspace
-- (WORKSPACE.answers-TOKEN, TOKEN being its lease's runs.token) and tells
-- a worker its answer is kept once the append returns; it folds the file
-- into the tables in large transactions. A row here says such a file may
-- hold answers the tables lack: the first folded bytes are in the tables
-- already. The fold that reaches the end of the file deletes the row in
-- its transaction, then the file. Opening a workspace folds the files of
-- runs that are no longer alive (killed, crashed), so their answers are
-- never paid for again.
CREATE TABLE journals (
    token  TEXT PRIMARY KEY,
    folded INTEGER NOT NULL DEFAULT 0
) STRICT;

// Package store owns the prism workspace: one SQLite file per study holding
// its datasets, probe-bank snapshots, judge configurations, every judge
// request with its responses, and the packed score snapshot of each study
// (snapshot.go). Since schema version 5 requests are stored compactly
// (compact.go, docs/store.md "Schema").
//
// The file is a real SQLite database (pure-Go modernc.org/sqlite) in WAL
// mode whose schema is versioned by PRAGMA user_version and upgraded by the
// embedded migrations in migrations/. A *Store is safe for concurrent use by
// several goroutines: all writes go through one connection (so writers
// queue in Go instead of failing with SQLITE_BUSY) and reads use a separate
// pool of read-only connections, which WAL lets run beside the writer.
//
// Where things are:
//   - store.go, open.go: opening (read-write, read-only, migrations on
//     open), the writer/reader split and why an open failed.
//   - migrate.go and migrations/: the schema versions; journal_legacy.go
//     folds the answer journals schema 6 left behind.
//   - datasets.go, banks.go, judges.go: a study's inputs.
//   - responses.go, request_upsert.go, writer_fast.go: recording requests
//     and responses (PutResponses, PutRequests, ResponseWriter);
//     requestkey.go: the key of a request, its index and RequestsByKey.
//   - compact.go: the compact request rows (schema 5 on).
//   - answered.go, answered_snapshot.go: what is already answered
//     (Pending, AnsweredSet, CachedAnswers).
//   - scores.go, scores_compact.go, study_rows.go, snapshot.go,
//     run_snapshot.go: reading a study's scores (Scores, FitInput,
//     ImportScores) and its packed snapshot.
//   - counts.go: counting replies and a study's work (Tally, Progress,
//     Failures); studies.go: listing studies (StudyInfo) and reads for
//     inspection (Replies, Usage); studyplan.go: plans and reports.
//   - leases.go, batchjobs.go: who runs on a study; provider batch jobs.
//   - redact/ (a package of its own): removing credentials from what is
//     written.
package store

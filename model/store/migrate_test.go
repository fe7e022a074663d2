package store

import (
	"context"
	"path/filepath"
	"testing"
)

// version1Workspace builds a workspace at schema version 1 (the first
// migration only) holding the tiny dataset, judge j and one answer.
func version1Workspace(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := open(ctx, path, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := old.Version(ctx); v != 1 {
		t.Fatalf("old workspace at version %d, want 1", v)
	}
	// Today's PutDataset writes a revision (schema 3): lend the column for
	// the seed and take it back, leaving a true version-1 table.
	if _, err := old.w.ExecContext(ctx, "ALTER TABLE datasets ADD COLUMN revision INTEGER NOT NULL DEFAULT 0"); err != nil {
		t.Fatal(err)
	}
	seedJudgeAndDataset(t, old)
	if _, err := old.w.ExecContext(ctx, "ALTER TABLE datasets DROP COLUMN revision"); err != nil {
		t.Fatal(err)
	}
	legacyPut(t, old, []Response{answer("c1", "x", "baseline", "0", 3)})
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMigrateFromVersion1 opens a version-1 workspace with the current
// code: it must be upgraded with the data kept and the later schema usable.
func TestMigrateFromVersion1(t *testing.T) {
	ctx := context.Background()
	path := version1Workspace(t)
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.Version(ctx); v != SchemaVersion() {
		t.Fatalf("upgraded workspace at version %d, want %d", v, SchemaVersion())
	}
	got, err := s.Dataset(ctx, "tiny")
	if err != nil {
		t.Fatal(err)
	}
	equalDatasets(t, got, tinyDataset("tiny"))
	// The v2 index serves CachedAnswer.
	if _, ok, err := s.CachedAnswer(ctx, keyOf("c1", "x", "baseline"), "0"); err != nil || !ok {
		t.Fatalf("CachedAnswer after upgrade: ok = %v, err = %v", ok, err)
	}
	// Version 4 dropped the reports table of version 2; version 8 made
	// the one of stored reports.
	if !newReports(t, s) {
		t.Errorf("upgraded workspace has not the reports table of version 8")
	}
	// The v3 column: the old dataset got a revision, and leases work.
	if rev, err := s.DatasetRevision(ctx, "tiny"); err != nil || rev == 0 {
		t.Fatalf("DatasetRevision after upgrade = %d, %v; want a non-zero revision", rev, err)
	}
	l, err := s.AcquireStudy(ctx, "tiny", 0, "j", "bank")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestMigrateDropsReports upgrades a version-2 workspace, which has the
// reports table and its index, and checks version 4 removed both.
func TestMigrateDropsReports(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "v2.db")
	old, err := open(ctx, path, 2)
	if err != nil {
		t.Fatal(err)
	}
	if n := countSchema(t, old, "reports"); n != 2 {
		t.Fatalf("version-2 workspace has %d reports objects, want the table and its index", n)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !newReports(t, s) {
		t.Errorf("upgraded workspace has not the reports table of version 8")
	}
}

// TestOpenReadOnlyVersion1 reads a version-1 workspace without upgrading
// it: what the read-only commands read lives in version-1 tables.
func TestOpenReadOnlyVersion1(t *testing.T) {
	ctx := context.Background()
	path := version1Workspace(t)
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if v, _ := ro.Version(ctx); v != 1 {
		t.Fatalf("read-only open changed the version to %d", v)
	}
	if infos, err := ro.Datasets(ctx); err != nil || len(infos) != 1 {
		t.Fatalf("Datasets = %v, %v", infos, err)
	}
	if _, err := ro.Judge(ctx, "j"); err != nil {
		t.Fatal(err)
	}
	rows, labels, err := ro.FitInput(ctx, "tiny", "j", "")
	if err != nil || len(rows) != 1 || len(labels) == 0 {
		t.Fatalf("FitInput = %d rows, %d labels, %v", len(rows), len(labels), err)
	}
	if p, err := ro.Progress(ctx, "tiny", "j", ""); err != nil || p.Answered != 1 {
		t.Fatalf("Progress = %+v, %v", p, err)
	}
}

// countSchema counts the tables and indexes whose name starts with prefix.
// newReports reports whether s has version 8's reports table (with its
// inputs column) and its one index, and no other reports object.
func newReports(t *testing.T, s *Store) bool {
	t.Helper()
	var n int
	if err := s.r.QueryRowContext(context.Background(), "SELECT count(*) FROM pragma_table_info('reports') WHERE name = 'inputs'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n == 1 && countSchema(t, s, "reports") == 2
}

func countSchema(t *testing.T, s *Store, prefix string) int {
	t.Helper()
	var n int
	if err := s.r.QueryRowContext(context.Background(), "SELECT count(*) FROM sqlite_schema WHERE name LIKE ? || '%'", prefix).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestMigrationsAreNumberedInOrder(t *testing.T) {
	if len(migrations) < 2 {
		t.Fatalf("%d migrations, want at least 2", len(migrations))
	}
	for i, m := range migrations {
		if m.version != i+1 || m.sql == "" {
			t.Errorf("migration %d: version %d, %d bytes", i, m.version, len(m.sql))
		}
	}
}

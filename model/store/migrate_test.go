package store

import (
	"context"
	"path/filepath"
	"testing"
)

// TestMigrateFromVersion1 builds a workspace at schema version 1 (the
// first migration only), stores data in it, and opens it with the current
// code: it must be upgraded with the data kept and the v2 tables usable.
func TestMigrateFromVersion1(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := open(ctx, path, 1)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := old.Version(ctx); v != 1 {
		t.Fatalf("old workspace at version %d, want 1", v)
	}
	var n int
	if err := old.r.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE name = 'reports'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("a version-1 workspace has a reports table (n=%d, err=%v)", n, err)
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
	if err := old.PutResponses(ctx, []Response{answer("c1", "x", "baseline", "0", 3)}); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

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
	// The v2 index serves CachedAnswer; the v2 table takes reports.
	if _, ok, err := s.CachedAnswer(ctx, keyOf("c1", "x", "baseline"), "0"); err != nil || !ok {
		t.Fatalf("CachedAnswer after upgrade: ok = %v, err = %v", ok, err)
	}
	if _, err := s.PutReport(ctx, Report{Kind: "fit", Dataset: "tiny", Body: []byte(`{}`)}); err != nil {
		t.Fatal(err)
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

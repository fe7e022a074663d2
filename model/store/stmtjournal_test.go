package store

import (
	"context"
	"strings"
	"testing"
)

// TestWriterStatementJournalInMemory: the writer keeps its statement
// journals in memory (temp_store=MEMORY; docs/performance.md, "Statement
// journals in memory"), and a statement that fails part-way through a
// transaction is still undone alone: an UPDATE of 3,000 rows of 1 KB (far
// past the 64 KiB at which SQLite would spill the journal to a file)
// failing on its last row leaves every row as it was, while the
// transaction's earlier statement commits.
func TestWriterStatementJournalInMemory(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	var mode int
	if err := s.w.QueryRowContext(ctx, "PRAGMA temp_store").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != 2 {
		t.Fatalf("writer's temp_store = %d, want 2 (MEMORY)", mode)
	}
	const n = 3000
	for _, q := range []string{
		"CREATE TABLE scratch (id INTEGER PRIMARY KEY, body TEXT NOT NULL) STRICT",
		`WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 3000)
		 INSERT INTO scratch SELECT i, printf('%.1000c', 'x') FROM k`,
	} {
		if _, err := s.w.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE scratch SET body = 'first' WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	_, err = tx.ExecContext(ctx, "UPDATE scratch SET body = CASE WHEN id = ? THEN NULL ELSE body || 'y' END", n)
	if err == nil || !strings.Contains(err.Error(), "NOT NULL") {
		t.Fatalf("failing UPDATE: err = %v, want a NOT NULL constraint error", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var rows, changed int
	var first string
	if err := s.r.QueryRowContext(ctx, `SELECT count(*), sum(body LIKE '%y'), (SELECT body FROM scratch WHERE id = 1) FROM scratch`).
		Scan(&rows, &changed, &first); err != nil {
		t.Fatal(err)
	}
	if rows != n || changed != 0 || first != "first" {
		t.Fatalf("after the failed statement: %d rows, %d changed by it, row 1 %q; want %d, 0, \"first\"", rows, changed, first, n)
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

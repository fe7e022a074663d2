package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An existing empty file, or a SQLite database with no tables, is not a
// workspace: it is refused and left as it was.
func TestOpenRefusesEmptyFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	empty := filepath.Join(dir, "notes.txt")
	os.WriteFile(empty, nil, 0o644)
	_, err := Open(ctx, empty)
	if !errors.Is(err, ErrNotWorkspace) || !strings.Contains(err.Error(), empty) || !strings.Contains(err.Error(), "empty file") {
		t.Fatalf("empty file: err = %v, want ErrNotWorkspace naming the file", err)
	}
	if st, _ := os.Stat(empty); st.Size() != 0 {
		t.Fatalf("the empty file now holds %d bytes", st.Size())
	}

	bare := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite", bare)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 0; VACUUM"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if st, _ := os.Stat(bare); st.Size() == 0 {
		t.Skip("SQLite left the database file empty")
	}
	if _, err := Open(ctx, bare); !errors.Is(err, ErrNotWorkspace) {
		t.Fatalf("SQLite file with no tables: err = %v, want ErrNotWorkspace", err)
	}
	// A path with no file is still a new workspace.
	s, err := Open(ctx, filepath.Join(dir, "new.db"))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// A write that waits out another process's lock says which file is
// locked and who holds it, not just "database is locked".
func TestWriteLockedNamesFile(t *testing.T) {
	defer func(d time.Duration) { busyTimeout = d }(busyTimeout)
	busyTimeout = 50 * time.Millisecond
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ws.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	other, err := sql.Open("sqlite", path) // the other process
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK")
	err = s.DeleteDataset(ctx, "absent")
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "another program") {
		t.Fatalf("err = %v, want ErrLocked naming %s and the holder", err, path)
	}
}

// SQLite's read-only error reads as a file prism may not write, never as
// "not a prism workspace".
func TestExplainReadOnly(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ws.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	ro, err := sql.Open("sqlite", roDSN(path, false))
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	_, werr := ro.Exec("CREATE TABLE t(x)")
	if werr == nil {
		t.Fatal("a write on a read-only connection succeeded")
	}
	err = explain(path, werr, nil)
	if errors.Is(err, ErrNotWorkspace) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "cannot be written") {
		t.Fatalf("err = %v, want a read-only error naming %s", err, path)
	}
}

// End to end, for a user the file's mode binds (root bypasses it).
func TestOpenReadOnlyFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes read-only files")
	}
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "ws.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	os.Chmod(path, 0o444)
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	_, err = Open(ctx, path)
	if err == nil || errors.Is(err, ErrNotWorkspace) || !strings.Contains(err.Error(), "cannot be written") {
		t.Fatalf("err = %v, want a read-only error", err)
	}
}

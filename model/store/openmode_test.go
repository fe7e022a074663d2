package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// foreignDB writes another program's SQLite file (rollback journal, one
// table) and returns its path and bytes.
func foreignDB(t *testing.T, appID int) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "other.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"PRAGMA journal_mode = DELETE", "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)",
		"INSERT INTO notes(body) VALUES ('keep me')", "PRAGMA application_id = " + strconv.Itoa(appID)} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

func TestOpenRefusesForeignDatabase(t *testing.T) {
	ctx := context.Background()
	for _, app := range []int{0, 123} {
		path, before := foreignDB(t, app)
		for name, open := range map[string]func(context.Context, string) (*Store, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
			s, err := open(ctx, path)
			if err == nil {
				s.Close()
				t.Fatalf("%s (application_id %d): opened another program's database", name, app)
			}
			if !errors.Is(err, ErrNotWorkspace) || !strings.Contains(err.Error(), path) {
				t.Errorf("%s (application_id %d): err = %v, want ErrNotWorkspace naming the file", name, app, err)
			}
		}
		after, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(before, after) {
			t.Errorf("application_id %d: the foreign file changed (its header byte 18 is %d; 2 would be WAL)", app, after[18])
		}
		if _, err := os.Stat(path + "-wal"); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("application_id %d: a -wal file was created", app)
		}
	}
	text := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(text, []byte("just text, not a database at all\n"), 0o644)
	if _, err := Open(ctx, text); !errors.Is(err, ErrNotWorkspace) {
		t.Errorf("text file: err = %v, want ErrNotWorkspace", err)
	}
}

func TestOpenStampsWorkspace(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	var app int64
	if err := s.r.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil || app != ApplicationID {
		t.Fatalf("application_id = %#x, %v; want %#x", app, err, ApplicationID)
	}
	// A workspace from before the stamp (id 0, prism's tables) is accepted
	// and stamped.
	seedJudgeAndDataset(t, s)
	if _, err := s.w.ExecContext(ctx, "PRAGMA application_id = 0"); err != nil {
		t.Fatal(err)
	}
	path := s.Path()
	s.Close()
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("legacy workspace: %v", err)
	}
	defer s2.Close()
	if err := s2.r.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil || app != ApplicationID {
		t.Errorf("legacy workspace not stamped: %#x, %v", app, err)
	}
}

func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	if err := s.PutResponses(ctx, []Response{answer("c1", "x", "baseline", "0", 3)}); err != nil {
		t.Fatal(err)
	}
	path := s.Path()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if !ro.ReadOnly() {
		t.Error("ReadOnly() = false")
	}
	infos, err := ro.Datasets(ctx)
	if err != nil || len(infos) != 1 {
		t.Fatalf("Datasets = %v, %v", infos, err)
	}
	if p, err := ro.Progress(ctx, "tiny", "j", ""); err != nil || p.Answered != 1 {
		t.Fatalf("Progress = %+v, %v", p, err)
	}
	err = ro.PutDataset(ctx, tinyDataset("new"), false)
	if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("write to a read-only workspace: err = %v, want ErrReadOnly", err)
	}
	if _, err := ro.AcquireStudy(ctx, "tiny", 0, "j", "b"); !errors.Is(err, ErrReadOnly) {
		t.Errorf("lease on a read-only workspace: err = %v", err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("a read-only open changed the workspace file")
	}
	if _, err := OpenReadOnly(ctx, filepath.Join(t.TempDir(), "absent.db")); err == nil {
		t.Error("OpenReadOnly created a workspace")
	}
}

package store

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prism-eval/prism/model"
)

// openTemp opens a fresh workspace in the test's temporary directory.
func openTemp(t testing.TB) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "study.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// tinyDataset has two contexts, a missing target (NaN), a missing
// criterion score, extras and criteria, so a round trip exercises every
// column.
func tinyDataset(name string) *model.Dataset {
	return &model.Dataset{
		Name: name, Format: "csv", Task: model.TaskNewsSummary, Metric: model.MetricSpearman,
		Criteria: []string{"coherence", "fluency"},
		Contexts: []model.Context{
			{ID: "c2", Source: "Article two.", Extra: map[string]string{"url": "http://x"}, Candidates: []model.Candidate{
				{ID: "b", Text: "Second, b.", Human: 4.5, Scores: map[string]float64{"coherence": 4, "fluency": 5}},
				{ID: "a", Text: "Second, a.", Human: 2, Scores: map[string]float64{"coherence": 1, "fluency": math.NaN()},
					Extra: map[string]string{"system": "M8"}},
			}},
			{ID: "c1", Source: "Article one — ünïcode.", Candidates: []model.Candidate{
				{ID: "x", Text: "One, x.", Human: math.NaN()},
			}},
		},
	}
}

func TestOpenCreatesWALWorkspace(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	var mode string
	if err := s.r.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode = %q, want wal", mode)
	}
	var fk int
	if err := s.w.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
		t.Fatal(err)
	}
	if fk != 1 {
		t.Errorf("foreign_keys = %d, want 1", fk)
	}
	v, err := s.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v != SchemaVersion() || v < 2 {
		t.Errorf("schema version = %d, want %d (>= 2)", v, SchemaVersion())
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Error(err)
	}
	// Reads go through query-only connections.
	if _, err := s.r.ExecContext(ctx, "INSERT INTO banks(hash, name, source, text, created) VALUES ('h','n','s','t','c')"); err == nil {
		t.Error("insert through the read pool succeeded; want query_only to refuse it")
	}
}

func TestOpenRejectsBadFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("this is not a database\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{notDB, "notes.txt"},
		{"", "empty"},
		{filepath.Join(dir, "a?b.db"), "'?'"},
		{"file:x.db", "URI"},
		{filepath.Join(dir, "missing-dir", "x.db"), "missing-dir"},
	} {
		s, err := Open(ctx, tc.path)
		if err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded, want an error", tc.path)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Open(%q) error %q does not mention %q", tc.path, err, tc.want)
		}
	}
}

func TestOpenRejectsNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "future.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.ExecContext(ctx, "PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(ctx, path)
	if err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("Open of a version-99 workspace: err = %v, want a 'newer' error", err)
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv(EnvWorkspace, "")
	if got := DefaultPath(); got != "prism.db" {
		t.Errorf("DefaultPath() without $%s = %q, want prism.db", EnvWorkspace, got)
	}
	t.Setenv(EnvWorkspace, "/tmp/elsewhere.db")
	if got := DefaultPath(); got != "/tmp/elsewhere.db" {
		t.Errorf("DefaultPath() with $%s = %q", EnvWorkspace, got)
	}
}

func TestNotFoundErrors(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	if _, err := s.Dataset(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Dataset: err = %v, want ErrNotFound", err)
	}
	if _, err := s.Judge(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Judge: err = %v, want ErrNotFound", err)
	}
	if _, err := s.Bank(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Bank: err = %v, want ErrNotFound", err)
	}
	if err := s.DeleteDataset(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("DeleteDataset: err = %v, want ErrNotFound", err)
	}
}

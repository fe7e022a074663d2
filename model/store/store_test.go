package store

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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

const (
	crashEnvPath  = "PRISM_STORE_CRASH_WRITER"
	crashBatches  = 10000 // far more than the writer gets through before the kill
	crashPerBatch = 100
)

// TestHelperWriter is not a test on its own: TestCrashLosesNoCommittedBatch
// runs the test binary again with only this function and the workspace
// path in the environment. It writes batches of responses and prints the
// number of rows committed after each commit.
func TestHelperWriter(t *testing.T) {
	path := os.Getenv(crashEnvPath)
	if path == "" {
		t.Skip("helper process for TestCrashLosesNoCommittedBatch")
	}
	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(3)
	}
	seedJudgeAndDataset(t, s)
	fmt.Println("ready")
	batch := make([]Response, crashPerBatch)
	for b := 0; b < crashBatches; b++ {
		for i := range batch {
			batch[i] = answer("c2", "b", "baseline", strconv.Itoa(b*crashPerBatch+i), float64(i%5))
			batch[i].Raw = fmt.Sprintf("%0200d", b) // bulk, so checkpoints happen mid-run
		}
		if err := s.PutResponses(ctx, batch); err != nil {
			fmt.Println("put:", err)
			os.Exit(4)
		}
		fmt.Println((b + 1) * crashPerBatch)
	}
	os.Exit(0)
}

// TestCrashLosesNoCommittedBatch kills a writer process with SIGKILL in
// the middle of a long write loop, then checks that the file opens cleanly,
// passes PRAGMA integrity_check, and holds every row the writer reported
// committed (and only whole batches).
// startHelper runs this test binary's test named helper in a child
// process with env added, and returns the process and a scanner of its
// standard output (its standard error is the test's).
func startHelper(t *testing.T, helper, env string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+helper+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewScanner(out)
}

func TestCrashLosesNoCommittedBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a writer process")
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	cmd, lines := startHelper(t, "TestHelperWriter", crashEnvPath+"="+path)
	committed := 0
	deadline := time.Now().Add(60 * time.Second)
	const killAfter = 6 // commits seen before the kill
	seen := 0
	for lines.Scan() {
		line := lines.Text()
		if line == "ready" {
			continue
		}
		n, err := strconv.Atoi(line)
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("writer said %q", line)
		}
		committed, seen = n, seen+1
		if seen == killAfter || time.Now().After(deadline) {
			// Kill while the writer is inside its next batch.
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	for lines.Scan() { // commits that raced the kill still count
		if n, err := strconv.Atoi(lines.Text()); err == nil {
			committed = n
		}
	}
	err := cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("writer was not killed by SIGKILL (wait: %v); it may have finished before the kill", err)
	}
	if committed < killAfter*crashPerBatch {
		t.Fatalf("writer reported only %d committed rows", committed)
	}

	ctx := context.Background()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("reopening after SIGKILL: %v", err)
	}
	defer s.Close()
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Scores(ctx, "tiny", "j", testBank)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < committed {
		t.Fatalf("%d rows survive, but the writer reported %d committed", len(rows), committed)
	}
	if len(rows)%crashPerBatch != 0 {
		t.Fatalf("%d rows survive: not a whole number of %d-row batches", len(rows), crashPerBatch)
	}
	t.Logf("writer reported %d rows committed; %d found after SIGKILL", committed, len(rows))
}

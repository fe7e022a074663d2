package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// ErrNotFound is returned (wrapped) when a named item is not in the store.
var ErrNotFound = errors.New("not found")

// ErrExists is returned (wrapped) when an item with that name is already
// stored and replacing it was not asked for.
var ErrExists = errors.New("already exists")

// Store is an open workspace file.
type Store struct {
	path string
	w    *sql.DB // the single writer connection
	r    *sql.DB // read-only connections

	mu      sync.RWMutex
	secrets []string // exact strings scrubbed from everything written

	readOnly bool // opened with OpenReadOnly: every write fails with ErrReadOnly
	version  int  // the schema version at open (compact requests from 5)
}

// EnvWorkspace names the environment variable that overrides the default
// workspace path.
const EnvWorkspace = "PRISM_WORKSPACE"

// DefaultPath is the workspace every command uses without --workspace:
// $PRISM_WORKSPACE when set and non-empty, else prism.db in the current
// directory.
func DefaultPath() string {
	if p := os.Getenv(EnvWorkspace); p != "" {
		return p
	}
	return "prism.db"
}

// dsn builds the connection string. The pragmas are applied by the driver
// on every new connection:
//
//   - journal_mode=WAL lets readers run while the writer commits.
//   - synchronous=NORMAL: in WAL mode a commit appends to the WAL file and
//     returns without fsync; fsync happens at checkpoints. A committed
//     transaction therefore survives a crash or SIGKILL of the process (the
//     bytes are in the operating system's cache) and can only be lost on
//     power loss or a kernel crash, in which case the file still opens
//     consistently at an earlier commit. That is the durability a study
//     needs, at a fraction of FULL's cost per batch.
//   - busy_timeout covers a second process (another prism) holding the
//     write lock; inside one process writes are already serialised.
//   - foreign_keys enforces the references between tables.
//   - _txlock=immediate takes the write lock at BEGIN, so a transaction
//     never fails half-way on lock upgrade.
//   - temp_store=MEMORY, on the writer only: a statement that writes many
//     rows keeps the pages it may have to undo in a statement journal,
//     which SQLite otherwise spills to a temporary file past 64 KiB; the
//     chunked inserts of a run spent a quarter of the offline run's CPU
//     writing that file (docs/performance.md, "Statement journals in
//     memory"). The journal is bounded by one statement's pages. It also
//     keeps the writer's sorts in memory, so migrations, which sort whole
//     tables, switch it off while they run (migrate); readers keep the
//     default.
func dsn(path string, readOnly bool) string {
	q := fmt.Sprintf("_pragma=busy_timeout(%d)", busyTimeout.Milliseconds()) + "&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)"
	if readOnly {
		q += "&_pragma=query_only(1)"
	} else {
		q += "&_txlock=immediate&_pragma=temp_store(MEMORY)"
	}
	return path + "?" + q
}

// Open opens the workspace at path, creating it when absent, and upgrades
// its schema to the current version. A file that is not a prism workspace
// (another program's SQLite database, or not SQLite at all) is refused
// before anything is written to it. The caller must Close it.
func Open(ctx context.Context, path string) (*Store, error) {
	return open(ctx, path, len(migrations))
}

// open opens path and migrates it up to schema version upto; tests use a
// lower upto to build an older workspace.
func open(ctx context.Context, path string, upto int) (*Store, error) {
	if path == "" {
		return nil, errors.New("workspace path is empty")
	}
	// The driver reads everything after '?' as connection options.
	if strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("workspace %s: path may not contain '?'", path)
	}
	if strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("workspace %s: give a file path, not a URI", path)
	}
	// Look before touching: connecting with the pragmas below would switch
	// a foreign database to WAL before we could tell it is not ours.
	created, err := inspect(ctx, path)
	if err != nil {
		return nil, explainOpen(ctx, path, err)
	}
	w, v, err := openWriterDB(ctx, path, upto)
	if err != nil {
		if created { // a failed first open leaves no file to refuse later
			removeWorkspaceFiles(path)
		}
		return nil, explainOpen(ctx, path, err)
	}
	r, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("workspace %s: %w", path, err)
	}
	r.SetMaxOpenConns(4)
	s := &Store{path: path, w: w, r: r, version: v}
	// Answers a run of an older prism kept only in its journal when it
	// was killed join the tables before anything reads them
	// (journal_legacy.go).
	if err := s.recoverJournals(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("workspace %s: %w", path, err)
	}
	return s, nil
}

// openWriterDB opens the writer connection of path, checks it and brings
// its schema up to version upto, returning the version it has.
func openWriterDB(ctx context.Context, path string, upto int) (*sql.DB, int, error) {
	w, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		return nil, 0, err
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	err = w.PingContext(ctx)
	if err == nil {
		err = checkHealthy(ctx, w)
	}
	if err == nil {
		err = migrate(ctx, w, upto)
	}
	if err == nil {
		err = stamp(ctx, w)
	}
	var v int
	if err == nil {
		v, err = schemaVersion(ctx, w)
	}
	if err != nil {
		w.Close()
		return nil, 0, err
	}
	return w, v, nil
}

// explainOpen is explain for a failed open, listing the runs the file's
// lease table shows when it is locked.
func explainOpen(ctx context.Context, path string, err error) error {
	if e := explain(path, err, func() []Holder { return runsAt(ctx, path) }); e != err {
		return e
	}
	return fmt.Errorf("workspace %s: %w", path, err)
}

// checkHealthy fails when the file could not be switched to WAL mode (a
// file that is not a SQLite database fails here too, as the driver opens
// files lazily; explain names it).
func checkHealthy(ctx context.Context, db *sql.DB) error {
	var mode string
	if err := db.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal mode is %q, want wal", mode)
	}
	return nil
}

// Path reports the file the store was opened from.
func (s *Store) Path() string { return s.path }

// Close checkpoints and closes the workspace.
func (s *Store) Close() error {
	if s.readOnly { // one pool serves both
		return s.r.Close()
	}
	errR := s.r.Close()
	errW := s.w.Close()
	return errors.Join(errW, errR)
}

// IntegrityCheck runs SQLite's PRAGMA integrity_check and returns nil when
// it reports "ok".
func (s *Store) IntegrityCheck(ctx context.Context) error {
	rows, err := s.w.QueryContext(ctx, "PRAGMA integrity_check")
	if err != nil {
		return err
	}
	defer rows.Close()
	var msgs []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return err
		}
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(msgs) == 1 && msgs[0] == "ok" {
		return nil
	}
	return fmt.Errorf("integrity check: %s", strings.Join(msgs, "; "))
}

// tx runs fn in one write transaction, committing when it returns nil.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	if s.readOnly {
		return fmt.Errorf("workspace %s: %w", s.path, ErrReadOnly)
	}
	t, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return s.explainTx(ctx, err)
	}
	if err := fn(t); err != nil {
		t.Rollback()
		return s.explainTx(ctx, err)
	}
	if err := t.Commit(); err != nil {
		return s.explainTx(ctx, err)
	}
	return nil
}

// timeFormat is how times are kept in TEXT columns: UTC, sortable.
const timeFormat = "2006-01-02T15:04:05.000000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

func parseTime(s string) time.Time {
	t, err := time.Parse(timeFormat, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// AddSecret registers an exact credential (an API key the caller holds) so
// that it is scrubbed from every judge configuration, response and error
// the store writes afterwards. The store never writes the secret itself.
func (s *Store) AddSecret(secret string) {
	if len(secret) < 4 { // scrubbing tiny strings would mangle ordinary text
		return
	}
	s.mu.Lock()
	s.secrets = append(s.secrets, secret)
	s.mu.Unlock()
}

func (s *Store) knownSecrets() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]string(nil), s.secrets...)
}

// querier is what *sql.DB and *sql.Tx share for reading.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

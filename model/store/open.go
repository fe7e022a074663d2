package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
)

// ApplicationID marks a SQLite file as a prism workspace (PRAGMA
// application_id, bytes 68–71 of the file header): "PRIS" in ASCII.
const ApplicationID = 0x50524953

// ErrNotWorkspace is returned (wrapped) when a file is a SQLite database of
// another program, or not a SQLite database at all. Nothing is written to
// such a file.
var ErrNotWorkspace = errors.New("not a prism workspace")

// ErrReadOnly is returned (wrapped) by every write to a workspace opened
// with OpenReadOnly.
var ErrReadOnly = errors.New("opened read-only; this command needs to write")

// minReadVersion is the oldest schema a read-only open accepts. What the
// read-only commands read (datasets, banks, judges, requests, responses)
// is all in version 1; later versions add only what runs use: the
// requests_key index (2) that finds cached answers, the runs table and
// dataset revisions (3) behind leases, and nothing at all (4, which drops
// the unused reports table). Version 5 moved requests into compact
// tables and keeps their old columns as the requests view, so a reader
// of an older file uses its requests table directly (Store.compact).
// Version 6 adds the journals of runs' answers not yet folded into the
// tables (older prism versions wrote them), which only a writable open
// folds (journal_legacy.go).
const minReadVersion = 1

// inspect looks at an existing file without changing it (no WAL switch, no
// -wal file) and refuses one that is not a prism workspace: a foreign
// application_id, or tables of another program in a file without one. An
// absent path is a new workspace (created true); an existing file that is
// not a workspace is refused, empty or not, since the user named it for
// something else.
func inspect(ctx context.Context, path string) (created bool, err error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() {
		return false, fmt.Errorf("%w: not a regular file (%s)", ErrNotWorkspace, fi.Mode().Type())
	}
	if fi.Size() == 0 {
		return false, fmt.Errorf("%w: an empty file, not created by prism; remove it or give another path to create a workspace", ErrNotWorkspace)
	}
	db, err := sql.Open("sqlite", roDSN(path, false))
	if err != nil {
		return false, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	return false, checkOwner(ctx, db)
}

// removeWorkspaceFiles removes a workspace this process created and failed
// to open, with SQLite's side files.
func removeWorkspaceFiles(path string) {
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		os.Remove(p)
	}
}

// runsAt lists the live runs in the lease table of the workspace at path,
// read without a lock (nil when it cannot be read).
func runsAt(ctx context.Context, path string) []Holder {
	db, err := sql.Open("sqlite", roDSN(path, false))
	if err != nil {
		return nil
	}
	defer db.Close()
	s := &Store{path: path, r: db}
	hs, _ := s.Runs(ctx)
	return hs
}

// checkOwner reads the application id, schema version and table names of
// an open database and says whether prism may use it.
func checkOwner(ctx context.Context, db *sql.DB) error {
	var app int64
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		if c := sqliteCode(err); c != 0 && c != sqliteNotADB {
			return err // a read-only or locked file: explain says which
		}
		return fmt.Errorf("%w: %v", ErrNotWorkspace, err)
	}
	if app == ApplicationID {
		return nil
	}
	if app != 0 {
		return fmt.Errorf("%w: a SQLite database of another program (application_id 0x%08x); prism will not write to it", ErrNotWorkspace, uint32(app))
	}
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotWorkspace, err)
	}
	defer rows.Close()
	have := map[string]bool{}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return err
		}
		have[n] = true
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if len(names) == 0 {
		return fmt.Errorf("%w: a SQLite database with no tables, not created by prism; remove it or give another path to create a workspace", ErrNotWorkspace)
	}
	v, err := schemaVersion(ctx, db)
	if err != nil {
		return err
	}
	// A workspace from before prism stamped its files: version ≥ 1 and the
	// tables of migration 1 (requests became study_requests in version 5).
	if v >= 1 && have["datasets"] && have["candidates"] && have["judges"] && (have["requests"] || have["study_requests"]) && have["responses"] && have["banks"] {
		return nil
	}
	if len(names) > 5 {
		names = append(names[:5], "…")
	}
	return fmt.Errorf("%w: a SQLite database of another program (tables %s); prism will not write to it", ErrNotWorkspace, strings.Join(names, ", "))
}

// stamp writes prism's application id into a workspace that lacks it.
func stamp(ctx context.Context, db *sql.DB) error {
	var app int64
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return err
	}
	if app == ApplicationID {
		return nil
	}
	// PRAGMA takes no bound parameters; the id is our constant.
	_, err := db.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", ApplicationID))
	return err
}

// roDSN is a read-only connection string: SQLite's own mode=ro (a file
// URI, so the driver passes it through), query_only as a second guard, and
// no journal-mode pragma, which would be a write. immutable also skips
// locking and the -shm file, for a file on a read-only filesystem.
func roDSN(path string, immutable bool) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	q := fmt.Sprintf("mode=ro&_pragma=busy_timeout(%d)&", busyTimeout.Milliseconds()) + "_pragma=query_only(1)&_pragma=foreign_keys(1)"
	if immutable {
		q += "&immutable=1"
	}
	return u.String() + "?" + q
}

// OpenReadOnly opens an existing workspace for reading only: nothing is
// written to the file (no schema upgrade, no WAL switch, no stamp), so a
// workspace on a read-only filesystem can still be listed and fitted.
// Every write method returns an error wrapping ErrReadOnly.
func OpenReadOnly(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("workspace path is empty")
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() || fi.Size() == 0 {
		return nil, fmt.Errorf("workspace %s: %w", path, ErrNotWorkspace)
	}
	db, err := openRO(ctx, path, false)
	if err != nil {
		// A WAL file on a read-only filesystem cannot get its -shm file;
		// immutable reads it without one.
		db2, err2 := openRO(ctx, path, true)
		if err2 != nil {
			return nil, fmt.Errorf("workspace %s: %w", path, err)
		}
		db = db2
	}
	v, err := schemaVersion(ctx, db)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("workspace %s: %w", path, err)
	}
	switch {
	case v > len(migrations):
		db.Close()
		return nil, fmt.Errorf("workspace %s: schema version %d is newer than this prism understands (%d); upgrade prism", path, v, len(migrations))
	case v < minReadVersion:
		db.Close()
		return nil, fmt.Errorf("workspace %s: schema version %d is older than this prism reads without upgrading (%d); open it once with a command that writes (prism run, prism data import) to upgrade it", path, v, minReadVersion)
	}
	s := &Store{path: path, w: db, r: db, readOnly: true, version: v}
	s.foldOrphans(ctx)
	return s, nil
}

// foldOrphans completes, for a read-only store, the writes of runs (of an
// older prism) that died with answers only in their journals: as SQLite itself rolls a hot
// journal back for a reader, the answers join the tables through a
// writable open (Open folds them), so a reader sees everything a killed
// run kept. Where the workspace cannot be written (a read-only
// filesystem) the reader goes on without them.
func (s *Store) foldOrphans(ctx context.Context) {
	if s.version < journalsVersion {
		return
	}
	if o, err := orphanJournals(ctx, s.r); err != nil || len(o) == 0 {
		return
	}
	if w, err := Open(ctx, s.path); err == nil {
		w.Close()
	}
}

func openRO(ctx context.Context, path string, immutable bool) (*sql.DB, error) {
	db, err := sql.Open("sqlite", roDSN(path, immutable))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	if err := checkOwner(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// ReadOnly reports whether the store was opened with OpenReadOnly.
func (s *Store) ReadOnly() bool { return s.readOnly }

// busyTimeout is how long a connection waits for another process's lock
// (busy_timeout) before SQLite gives up with SQLITE_BUSY; tests shorten it.
var busyTimeout = 10 * time.Second

// SQLite's primary result codes (the low byte of an extended code) that
// deserve their own message.
const (
	sqliteBusy     = 5
	sqliteLocked   = 6
	sqliteReadOnly = 8
	sqliteCantOpen = 14
	sqliteNotADB   = 26
)

// sqliteCode is the primary result code of a SQLite error in err's chain,
// 0 for any other error.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}

// ErrLocked is wrapped by the error of a write that waited longer than the
// busy timeout for another process's lock on the workspace.
var ErrLocked = errors.New("locked by another process")

// explain turns a SQLite error met while opening or writing the workspace
// at path into one that says what happened: a file prism may not write (a
// read-only file, directory or filesystem), a lock another process holds
// (with the prism runs that hold a claim, when runs lists them), or a file
// that is not a SQLite database. Other errors come back as they are.
func explain(path string, err error, runs func() []Holder) error {
	switch sqliteCode(err) {
	case sqliteReadOnly, sqliteCantOpen:
		return fmt.Errorf("workspace %s cannot be written: the file, its directory or its filesystem is read-only for this user (%v); commands that only read it (prism ls, export, fit) still work", path, err)
	case sqliteBusy, sqliteLocked:
		holders := "no prism run holds a claim on it; another program (sqlite3, a backup, a second prism command) has it open"
		if runs != nil {
			if hs := runs(); len(hs) > 0 {
				names := make([]string, len(hs))
				for i, h := range hs {
					names[i] = fmt.Sprintf("judge %q on %q (%s)", h.Judge, h.Dataset, h)
				}
				holders = "prism runs holding it: " + strings.Join(names, "; ")
			}
		}
		return fmt.Errorf("workspace %s: %w for over %v (%v); %s", path, ErrLocked, busyTimeout, err, holders)
	case sqliteNotADB:
		return fmt.Errorf("workspace %s: %w: not a SQLite database (%v)", path, ErrNotWorkspace, err)
	}
	return err
}

// explainTx is explain for an open store's write, listing its live runs.
func (s *Store) explainTx(ctx context.Context, err error) error {
	return explain(s.path, err, func() []Holder {
		hs, _ := s.Runs(ctx)
		return hs
	})
}

package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"modernc.org/sqlite"
)

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

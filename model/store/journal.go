package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// Answer journals (docs/store.md, "Answer journals"). A server judge's
// worker may send its next request only once its answer is kept, so that
// a kill -9 loses no more answers than there are workers. Keeping it in
// the tables made each worker wait for a transaction (five B-tree inserts
// per answer plus its pages' WAL frames): at concurrency 128 against a
// 20 ms server, 3 ms of its 26 ms cycle (docs/performance.md). A journal
// keeps it with one write(2) per batch instead: after write returns, the
// kernel holds the bytes, which a killed process cannot take back. The
// run folds the journal into the tables in large transactions off the
// workers' path, and whoever opens the workspace next folds what a killed
// run left.

// ErrJournalTaken is returned (wrapped) by Journal.Fold when another
// process folded the journal: it took the run for dead (a lease whose
// heartbeat stopped for LeaseTTL), and the run must stop writing.
var ErrJournalTaken = errors.New("this run's answer journal was folded by another process")

// Journal is a run's answer journal: Append keeps answers in the file,
// Fold moves them into the tables, Close ends it. Append and Fold may run
// in two goroutines at once (the file is the appender's, the folded
// offset the folder's); each alone is not safe for concurrent use.
type Journal struct {
	s     *Store
	token string
	path  string
	f     *os.File
	size  int64 // bytes appended; the appender's
	buf   []byte
	w     *ResponseWriter // the folder's
	fmu   sync.Mutex      // orders Fold and Close
	fold  int64           // bytes folded; under fmu
	fails int             // folds that failed; under fmu
}

// journalsVersion is the schema version that added the journals table.
const journalsVersion = 6

// JournalPath is where the journal of the run holding the lease token is
// kept: beside the workspace, like SQLite's -wal file.
func JournalPath(workspace, token string) string {
	return workspace + ".answers-" + token
}

// OpenJournal starts the answer journal of the run holding l: a row in
// the journals table, then its empty file (mode 0600). The caller must
// Close it.
func (s *Store) OpenJournal(ctx context.Context, l *Lease) (*Journal, error) {
	if s.readOnly {
		return nil, fmt.Errorf("workspace %s: %w", s.path, ErrReadOnly)
	}
	j := &Journal{s: s, token: l.token, path: JournalPath(s.path, l.token)}
	// The row first: a file without a row would never be folded.
	err := s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO journals(token, folded) VALUES (?, 0)", j.token)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("answer journal: %w", err)
	}
	j.f, err = os.OpenFile(j.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err == nil {
		j.w, err = s.NewRunWriter(ctx, l)
	}
	if err != nil {
		if j.f != nil {
			j.f.Close()
			os.Remove(j.path)
		}
		s.tx(context.WithoutCancel(ctx), func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, "DELETE FROM journals WHERE token = ?", j.token)
			return err
		})
		return nil, fmt.Errorf("answer journal: %w", err)
	}
	return j, nil
}

// Append keeps rs in the journal with one write and returns the journal's
// length after them, which Fold takes. It checks each response as the
// tables would and removes credentials before writing, so the file holds
// nothing the tables would refuse or must not hold. When it returns nil,
// rs survive the process being killed. On an error nothing of rs is kept
// (a partial write is cut off again); when even that fails the journal
// refuses every later Append.
func (j *Journal) Append(rs []Response) (int64, error) {
	if j.f == nil {
		return j.size, fmt.Errorf("answer journal %s: closed after a failed write", j.path)
	}
	secrets := j.s.knownSecrets()
	b := j.buf[:0]
	for i := range rs {
		r := rs[i] // a copy: the caller's responses keep their text
		if err := checkJournaled(&r); err != nil {
			return j.size, responseErr(i, &r, err)
		}
		r.Raw = redactRaw(r.Raw, secrets)
		r.Err = Redact(r.Err, secrets...)
		b = appendJournalRecord(b, &r)
	}
	j.buf = b
	if _, err := j.f.Write(b); err != nil {
		// Cut what was written of b, so the next record follows the last
		// whole one; a file that cannot be cut takes no more.
		if terr := j.f.Truncate(j.size); terr != nil {
			j.f.Close()
			j.f = nil
		}
		return j.size, fmt.Errorf("answer journal %s: %w", j.path, err)
	}
	j.size += int64(len(b))
	return j.size, nil
}

// checkJournaled is what putResponsesOrdered refuses before touching the
// tables, checked before a response enters the journal: a journal that
// holds one would fail every fold.
func checkJournaled(r *Response) error {
	if err := checkRequest(&r.Request); err != nil {
		return err
	}
	if err := checkResponse(r); err != nil {
		return err
	}
	if len(r.Logprobs) > 0 && !json.Valid(r.Logprobs) {
		return errors.New("logprobs are not valid JSON")
	}
	return checkJournalRecord(r)
}

// Fold writes rs into the tables in one transaction that also records
// the journal folded up to upto: rs must be, in order, every response
// appended after the last Fold's upto and up to this upto. It fails,
// wrapping ErrJournalTaken, when another process folded the journal.
func (j *Journal) Fold(ctx context.Context, rs []Response, upto int64) error {
	j.fmu.Lock()
	defer j.fmu.Unlock()
	if len(rs) == 0 {
		return nil
	}
	from := j.fold
	err := j.w.PutWith(ctx, rs, func(tx *sql.Tx) error {
		return advanceJournal(ctx, tx, j.token, from, upto)
	})
	if err != nil {
		j.fails++
		return err
	}
	j.fold = upto
	return nil
}

// advanceJournal moves token's folded offset from from to upto (upto < 0:
// deletes its row), failing with ErrJournalTaken when the row is not at
// from any more.
func advanceJournal(ctx context.Context, tx *sql.Tx, token string, from, upto int64) error {
	var res sql.Result
	var err error
	if upto < 0 {
		res, err = tx.ExecContext(ctx, "DELETE FROM journals WHERE token = ? AND folded = ?", token, from)
	} else {
		res, err = tx.ExecContext(ctx, "UPDATE journals SET folded = ? WHERE token = ? AND folded = ?", upto, token, from)
	}
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n != 1 {
		return ErrJournalTaken
	}
	return nil
}

// Close ends the journal. When every appended answer was folded it
// deletes the journal's row, then its file; otherwise both stay, and the
// next open of the workspace folds what the file holds beyond the row's
// offset (so a fold that failed loses nothing).
func (j *Journal) Close(ctx context.Context) error {
	j.fmu.Lock()
	defer j.fmu.Unlock()
	var errs []error
	if j.f != nil {
		errs = append(errs, j.f.Close())
		j.f = nil
	}
	if j.w != nil {
		if j.fold != j.size || j.fails > 0 {
			// Answers the tables lack: the release reads the study.
			j.w.dropSnapshot()
		}
		errs = append(errs, j.w.Close())
		j.w = nil
	}
	if j.fold == j.size && j.fails == 0 {
		err := j.s.tx(ctx, func(tx *sql.Tx) error { return advanceJournal(ctx, tx, j.token, j.fold, -1) })
		if err == nil {
			err = os.Remove(j.path)
		}
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("answer journal %s: %w", j.path, err)
	}
	return nil
}

// RecoverJournals folds the journals of runs that are no longer alive
// (killed, crashed, or their fold failed) into the tables, then deletes
// them. Open calls it, and so do planning and taking a study over, which a
// long-open workspace needs. A journal's torn last record (the process
// died inside its write) was never acknowledged and is dropped.
func (s *Store) RecoverJournals(ctx context.Context) error {
	if s.readOnly || s.version < journalsVersion {
		return nil
	}
	orphans, err := orphanJournals(ctx, s.w)
	if err != nil {
		return err
	}
	var errs []error
	for _, o := range orphans {
		if err := s.recoverJournal(ctx, o.token, o.folded); err != nil && !errors.Is(err, ErrJournalTaken) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// orphan is a journal whose run is not alive.
type orphan struct {
	token  string
	folded int64
}

// orphanJournals lists the journals of runs that are not alive.
func orphanJournals(ctx context.Context, q querier) ([]orphan, error) {
	rows, err := q.QueryContext(ctx, `SELECT j.token, j.folded, r.pid, r.host, r.heartbeat
		FROM journals j LEFT JOIN runs r ON r.token = j.token`)
	if err != nil {
		return nil, fmt.Errorf("answer journals: %w", err)
	}
	defer rows.Close()
	now := time.Now()
	var out []orphan
	for rows.Next() {
		var o orphan
		var pid sql.NullInt64
		var host, beat sql.NullString
		if err := rows.Scan(&o.token, &o.folded, &pid, &host, &beat); err != nil {
			return nil, fmt.Errorf("answer journals: %w", err)
		}
		if pid.Valid && live(Holder{PID: int(pid.Int64), Host: host.String, Heartbeat: parseTime(beat.String)}, o.token, now) {
			continue // its run is going and folds it
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("answer journals: %w", err)
	}
	return out, nil
}

// recoverJournal folds what the journal token holds beyond folded and
// deletes it. Should the fold fail as a whole (a response the tables
// refuse), each response is folded alone and those refused are dropped,
// as a run's writer would have refused them.
func (s *Store) recoverJournal(ctx context.Context, token string, folded int64) error {
	path := JournalPath(s.path, token)
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("answer journal %s: %w", path, err)
	}
	var rs []Response
	if int64(len(data)) > folded {
		rs, _, _ = decodeJournal(data[folded:]) // a torn tail ends it
	}
	w, err := s.NewResponseWriter(ctx)
	if err != nil {
		return err
	}
	defer w.Close()
	done := func(tx *sql.Tx) error { return advanceJournal(ctx, tx, token, folded, -1) }
	err = w.PutWith(ctx, rs, done)
	if err != nil && !errors.Is(err, ErrJournalTaken) && len(rs) > 0 {
		// Each alone, while the journal is still ours to fold.
		ours := func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM journals WHERE token = ? AND folded = ?", token, folded).Scan(&n); err != nil {
				return err
			}
			if n != 1 {
				return ErrJournalTaken
			}
			return nil
		}
		for i := range rs {
			err := w.PutWith(ctx, rs[i:i+1], ours)
			if errors.Is(err, ErrJournalTaken) || ctx.Err() != nil {
				return err
			}
		}
		err = s.tx(ctx, done)
	}
	if err != nil {
		return fmt.Errorf("answer journal %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("answer journal %s: %w", path, err)
	}
	return nil
}

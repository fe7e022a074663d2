package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"sync"
	"time"

	"github.com/prism-eval/prism/model"
)

// A study (dataset, judge, bank) is acquired by one run at a time, so no
// request is paid for twice, and its dataset cannot change under it, so no
// answer is stored against texts it did not answer. The claim is a row of
// the runs table (a lease) that the run refreshes while it works and
// deletes when it ends; after a crash or kill -9 the row is stale and the
// next run takes it over.

// LeaseTTL is how old a lease's heartbeat may be before the lease is stale
// even though a process with its pid exists (a reused pid, a process
// stopped with ctrl+z, another host that went away).
const LeaseTTL = 30 * time.Second

// LeaseRefresh is how often a holder refreshes its lease's heartbeat.
const LeaseRefresh = 5 * time.Second

// ErrBusy is wrapped by a BusyError.
var ErrBusy = errors.New("in use by a running acquisition")

// ErrLeaseLost is returned by Refresh when the run's lease row is gone or
// was taken over (the run was stalled longer than LeaseTTL).
var ErrLeaseLost = errors.New("this run's claim on its study was lost")

// ErrDatasetChanged is returned (wrapped) when a dataset was replaced or
// removed after a run read it.
var ErrDatasetChanged = errors.New("the dataset was replaced or removed")

// Holder describes the run holding a lease.
type Holder struct {
	Dataset, Judge, BankHash string
	PID                      int
	Host                     string
	Started, Heartbeat       time.Time
}

func (h Holder) String() string {
	return fmt.Sprintf("pid %d on %s, running since %s", h.PID, h.Host, h.Started.Local().Format("2006-01-02 15:04:05"))
}

// BusyError says which run holds what the caller wanted.
type BusyError struct {
	What   string // "study" or "dataset"
	Holder Holder
}

func (e *BusyError) Error() string {
	h := e.Holder
	bank := h.BankHash
	if len(bank) > 12 {
		bank = bank[:12]
	}
	if e.What == "dataset" {
		return fmt.Sprintf("dataset %q is being acquired by a prism run (judge %q, bank %s; %s); stop that run before replacing or removing it",
			h.Dataset, h.Judge, bank, h)
	}
	return fmt.Sprintf("judge %q on dataset %q (bank %s) is being acquired by another prism run (%s); wait for it to end or stop it",
		h.Judge, h.Dataset, bank, h)
}

func (e *BusyError) Unwrap() error { return ErrBusy }

// held is the set of lease tokens this process holds. It is process-wide
// because two Stores in one process may open the same file.
var held = struct {
	sync.Mutex
	m map[string]bool
}{m: map[string]bool{}}

func holding(token string) bool {
	held.Lock()
	defer held.Unlock()
	return held.m[token]
}

var hostName = sync.OnceValue(func() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "localhost"
	}
	return h
})

// live reports whether the lease row (h, token) belongs to a run that is
// still going.
func live(h Holder, token string, now time.Time) bool {
	if now.Sub(h.Heartbeat) > LeaseTTL {
		return false
	}
	if h.Host != hostName() {
		return true
	}
	if h.PID == os.Getpid() {
		return holding(token)
	}
	return processAlive(h.PID)
}

// Lease is a run's claim on a study; see AcquireStudy.
type Lease struct {
	s     *Store
	id    int64
	token string
	Holder

	// built is the study's snapshot as the run's writer built it
	// (NewRunWriter; its Close hands it over), which Release uses when it
	// still holds; used says it did.
	built *builtSnapshot
	used  bool
}

// AcquireStudy claims the study (dataset, judge, bankHash) for one run.
// rev is the dataset revision the run was planned from (DatasetRevision);
// when the stored dataset is another one the error wraps
// ErrDatasetChanged (0 skips the check). When a live run holds the study
// the error is a *BusyError naming it. The caller must Release the lease
// and should Refresh it every LeaseRefresh.
func (s *Store) AcquireStudy(ctx context.Context, dataset string, rev int64, judge, bankHash string) (*Lease, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	now := time.Now()
	l := &Lease{s: s, token: hex.EncodeToString(b[:]), Holder: Holder{Dataset: dataset, Judge: judge, BankHash: bankHash,
		PID: os.Getpid(), Host: hostName(), Started: now, Heartbeat: now}}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var dsID, dsRev int64
		err := tx.QueryRowContext(ctx, "SELECT id, revision FROM datasets WHERE name = ?", dataset).Scan(&dsID, &dsRev)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("dataset %q: %w", dataset, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if rev != 0 && dsRev != rev {
			return fmt.Errorf("dataset %q: %w since this run was planned; start it again", dataset, ErrDatasetChanged)
		}
		holders, err := holdersTx(ctx, tx, "r.dataset_id = ? AND r.judge = ? AND r.bank_hash = ?", dsID, judge, bankHash)
		if err != nil {
			return err
		}
		for _, h := range holders {
			if live(h.Holder, h.token, now) {
				return &BusyError{What: "study", Holder: h.Holder}
			}
			if _, err := tx.ExecContext(ctx, "DELETE FROM runs WHERE id = ?", h.id); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO runs(dataset_id, judge, bank_hash, token, pid, host, started, heartbeat)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, dsID, judge, bankHash, l.token, l.PID, l.Host, formatTime(now), formatTime(now))
		if err != nil {
			return err
		}
		l.id, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return nil, err
	}
	held.Lock()
	held.m[l.token] = true
	held.Unlock()
	return l, nil
}

// Refresh renews the lease's heartbeat. It returns an error wrapping
// ErrLeaseLost when the lease was taken over or removed, after which the
// run must stop writing.
func (l *Lease) Refresh(ctx context.Context) error {
	now := time.Now()
	var n int64
	err := l.s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE runs SET heartbeat = ? WHERE id = ? AND token = ?", formatTime(now), l.id, l.token)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("judge %q on dataset %q: %w", l.Judge, l.Dataset, ErrLeaseLost)
	}
	l.Heartbeat = now
	return nil
}

// Release ends the lease and writes the study's score snapshot (a run
// releases its lease when its writes are done), so that the study is read
// back from one row (SnapshotScores). It is safe to call more than once.
func (l *Lease) Release(ctx context.Context) error {
	held.Lock()
	delete(held.m, l.token)
	held.Unlock()
	err := l.s.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "DELETE FROM runs WHERE id = ? AND token = ?", l.id, l.token)
		return err
	})
	if err != nil {
		return err
	}
	l.used, err = l.s.snapshotScores(ctx, l.Dataset, l.Judge, l.BankHash, l.built)
	if l.built != nil {
		l.built.rest = nil // written, or not to be
	}
	return err
}

// Built says whether the run's writer built the study's snapshot (a run
// that started on a study without request rows, whose every transaction
// created rows of its own): Release then checks that it still holds and
// uses it without reading the study.
func (l *Lease) Built() bool { return l.built != nil }

// StudyProgress is the study's progress as Release found it, counted by
// the run's writer from the rows it created; ok only when Release used
// the writer's snapshot, having found that nothing else wrote to the
// study. Otherwise count it with Store.Progress.
func (l *Lease) StudyProgress() (p Progress, ok bool) {
	if !l.used {
		return Progress{}, false
	}
	return l.built.prog, true
}

// Runs lists the live runs of the workspace (stale leases are left out).
func (s *Store) Runs(ctx context.Context) ([]Holder, error) {
	hs, err := holdersTx(ctx, s.r, "1 = 1")
	if err != nil {
		return nil, err
	}
	now := time.Now()
	var out []Holder
	for _, h := range hs {
		if live(h.Holder, h.token, now) {
			out = append(out, h.Holder)
		}
	}
	return out, nil
}

type leaseRow struct {
	Holder
	id    int64
	token string
}

// holdersTx reads the lease rows matching where (a constant condition
// with bound args).
func holdersTx(ctx context.Context, q querier, where string, args ...any) ([]leaseRow, error) {
	rows, err := q.QueryContext(ctx, `SELECT r.id, r.token, d.name, r.judge, r.bank_hash, r.pid, r.host, r.started, r.heartbeat
		FROM runs r JOIN datasets d ON d.id = r.dataset_id WHERE `+where+` ORDER BY r.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []leaseRow
	for rows.Next() {
		var h leaseRow
		var started, beat string
		if err := rows.Scan(&h.id, &h.token, &h.Dataset, &h.Judge, &h.BankHash, &h.PID, &h.Host, &started, &beat); err != nil {
			return nil, err
		}
		h.Started, h.Heartbeat = parseTime(started), parseTime(beat)
		out = append(out, h)
	}
	return out, rows.Err()
}

// checkDatasetFree fails with a *BusyError when a live run holds a study
// of dataset id dsID, and clears stale leases (which would otherwise block
// the dataset's deletion by foreign key).
func checkDatasetFree(ctx context.Context, tx *sql.Tx, dsID int64) error {
	holders, err := holdersTx(ctx, tx, "r.dataset_id = ?", dsID)
	if err != nil {
		return err
	}
	now := time.Now()
	for _, h := range holders {
		if live(h.Holder, h.token, now) {
			return &BusyError{What: "dataset", Holder: h.Holder}
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM runs WHERE id = ?", h.id); err != nil {
			return err
		}
	}
	return nil
}

// DatasetRevision returns the stored revision of the named dataset: a
// random number drawn whenever the dataset is stored or replaced, so a run can tell that the
// texts it planned from are still the stored ones.
func (s *Store) DatasetRevision(ctx context.Context, name string) (int64, error) {
	var rev int64
	err := s.r.QueryRowContext(ctx, "SELECT revision FROM datasets WHERE name = ?", name).Scan(&rev)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("dataset %q: %w", name, ErrNotFound)
	}
	return rev, err
}

// DatasetAt reads the named dataset with its revision, consistently: when
// the dataset is replaced while it is being read, the error wraps
// ErrDatasetChanged.
func (s *Store) DatasetAt(ctx context.Context, name string) (*model.Dataset, int64, error) {
	return s.atRevision(ctx, name, s.Dataset)
}

// atRevision reads the named dataset with read and returns it with its
// revision, failing when the dataset changed while it was read.
func (s *Store) atRevision(ctx context.Context, name string, read func(context.Context, string) (*model.Dataset, error)) (*model.Dataset, int64, error) {
	rev, err := s.DatasetRevision(ctx, name)
	if err != nil {
		return nil, 0, err
	}
	d, err := read(ctx, name)
	if err != nil {
		return nil, 0, err
	}
	after, err := s.DatasetRevision(ctx, name)
	if err != nil || after != rev {
		return nil, 0, fmt.Errorf("dataset %q: %w while it was being read; try again", name, ErrDatasetChanged)
	}
	return d, rev, nil
}

// DatasetIDsAt is DatasetAt without the texts: the dataset's fields, its
// contexts' and candidates' ids in file order and the candidates' human
// scores, for a reader that needs nothing more (prism score of an
// answered study: half the time of the whole read at 16,000 candidates).
// A text, source, score or extra it holds is empty.
func (s *Store) DatasetIDsAt(ctx context.Context, name string) (*model.Dataset, int64, error) {
	return s.atRevision(ctx, name, s.datasetIDs)
}

// datasetIDs is Dataset without the texts (DatasetIDsAt).
func (s *Store) datasetIDs(ctx context.Context, name string) (*model.Dataset, error) {
	d, id, err := s.datasetFields(ctx, name)
	if err != nil {
		return nil, err
	}
	layout, err := s.datasetLayout(ctx, id)
	if err != nil {
		return nil, err
	}
	d.Contexts = make([]model.Context, len(layout))
	for i, c := range layout {
		ks := make([]model.Candidate, len(c.candidates))
		for j, k := range c.candidates {
			ks[j] = model.Candidate{ID: k.id, Human: math.NaN()}
			if k.human.Valid {
				ks[j].Human = k.human.Float64
			}
		}
		d.Contexts[i] = model.Context{ID: c.id, Candidates: ks}
	}
	return d, nil
}

// newRevision draws a dataset revision: positive, random, so that a
// replaced dataset never has its predecessor's.
func newRevision() (int64, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, err
	}
	v := int64(uint64(b[0])<<56|uint64(b[1])<<48|uint64(b[2])<<40|uint64(b[3])<<32|
		uint64(b[4])<<24|uint64(b[5])<<16|uint64(b[6])<<8|uint64(b[7])) & (1<<62 - 1)
	return v + 1, nil
}

package store

import (
	"context"
	"database/sql"
)

// A run's own score snapshot (docs/store.md, "A run's own snapshot"). When a
// run ends, Lease.Release writes the snapshot of its study, and reading
// the study back for it took 20–30 ms after the last answer of a 19,456-
// answer run (with the progress count, 7–12 ms, beside it;
// docs/performance.md). When a run starts on a study without request
// rows, the rows its writer creates are all the rows the study has, as
// long as nothing else writes to it: so the writer builds the snapshot
// and counts the study's progress from those rows as it commits them
// (runSnapshot), and the release uses that snapshot, without reading the
// study, when the study's generation shows that nothing else wrote to it.
// Otherwise the release reads the study as before.
//
// The snapshot's parts are written as they fill, each in the writer's
// next transaction, under generation -1, which no study has, so nothing
// reads them; the release gives them the study's generation and writes
// the last part. A run's memory then holds one part, not the study.

// provisional is the generation of the parts a run writes before its
// release: no study's (they start at 0), so no reader uses them.
const provisional = -1

// foldLog is what one transaction did to request rows: the rows it
// created, in the order it created them, and whether it touched a row
// that was there before.
type foldLog struct {
	fresh   []freshRow
	touched bool
}

// freshRow is a request row created by the transaction, with the
// response it was created for.
type freshRow struct {
	r     *Response
	id    int64
	study int64
}

// note records what putChunk did to the rows of ps; a nil log records
// nothing.
func (l *foldLog) note(ps []pendingRequest) {
	if l == nil {
		return
	}
	for i := range ps {
		p := &ps[i]
		if p.fresh {
			l.fresh = append(l.fresh, freshRow{r: p.r, id: p.id, study: p.st.id})
		} else {
			l.touched = true
		}
	}
}

func (l *foldLog) reset() {
	clear(l.fresh) // the responses are the fold's, not the log's
	l.fresh, l.touched = l.fresh[:0], false
}

// runSnapshot builds a study's score snapshot and progress from the rows
// a run writer's transactions ("folds": a journal's, or the offline
// writer's batches) create: it holds while the first fold created the
// study's first rows and every fold after it was the next transaction to
// write to the study (its generation one past the previous fold's).
type runSnapshot struct {
	ok      bool  // no fold so far ruled it out
	started bool  // a fold was kept: study and gen are set
	study   int64 // the study's id
	gen     int64 // the study's generation after the last fold
	pending int64 // the generation the fold being committed leaves
	w       *snapshotWriter
	tally   Tally   // the replies of the rows created, one a row
	log     foldLog // the fold being committed

	queued    [][]byte // parts made, not in the table yet
	written   int      // parts in the table, generation provisional
	inserting int      // of queued, those the fold being committed writes
}

func newRunSnapshot() *runSnapshot {
	b := &runSnapshot{ok: true}
	b.w = newSnapshotWriter(func(body []byte) error {
		b.queued = append(b.queued, body)
		return nil
	})
	return b
}

// check runs in a fold's transaction after its writes (b.log holds
// them). It keeps the snapshot only when the fold created rows of one
// study and touched none that was there, and either this is its first
// fold and the study's first request id is the fold's (the study had no
// rows), or the study's generation is one past the last fold's; it then
// writes the parts made since the last fold. A failed statement rules
// the snapshot out rather than fail the fold.
func (b *runSnapshot) check(ctx context.Context, tx *sql.Tx, pre *writeStmts) {
	b.inserting = 0
	l := &b.log
	if !b.ok {
		return
	}
	if l.touched || len(l.fresh) == 0 {
		b.ok = false
		return
	}
	study, lo := l.fresh[0].study, l.fresh[0].id
	for _, f := range l.fresh {
		if f.study != study {
			b.ok = false
			return
		}
		lo = min(lo, f.id)
	}
	var first sql.NullInt64
	var gen int64
	if err := pre.queryRow(ctx, tx, pre.get((*writeStmts).firstGenStmt), sqlStudyFirstGen, []any{study}, &first, &gen); err != nil {
		b.ok = false
		return
	}
	if b.started {
		b.ok = study == b.study && gen == b.gen+1
	} else {
		b.ok = first.Valid && first.Int64 == lo
	}
	b.study, b.pending = study, gen
	if b.ok && len(b.queued) > 0 {
		b.ok = b.writeParts(ctx, tx) == nil
	}
}

// writeParts writes the queued parts after those written, under the
// provisional generation; the first time, it clears whatever the table
// held for the study (a study the run found empty has no snapshot of its
// own).
func (b *runSnapshot) writeParts(ctx context.Context, tx *sql.Tx) error {
	if b.written == 0 {
		if err := deleteSnapshot(ctx, tx, b.study); err != nil {
			return err
		}
	}
	for i, body := range b.queued {
		if err := insertSnapshotPart(ctx, tx, b.study, b.written+i, provisional, body); err != nil {
			return err
		}
	}
	b.inserting = len(b.queued)
	return nil
}

// committed adds the rows of the fold just committed: each answered one
// to the snapshot, as the scan of the study would read it, and each to
// the progress, as the count of the study would.
func (b *runSnapshot) committed() {
	if !b.ok {
		return
	}
	b.started, b.gen = true, b.pending
	clear(b.queued[:b.inserting]) // in the table now
	b.queued, b.written = b.queued[b.inserting:], b.written+b.inserting
	b.inserting = 0
	for _, f := range b.log.fresh {
		b.tally.CountResponse(f.r)
		if !f.r.Answered() {
			continue
		}
		row := [6]string{f.r.Context, f.r.Candidate, f.r.Probe, f.r.Wording, f.r.Run, responseAnswer(f.r.Score)}
		if err := b.w.add(&row); err != nil {
			b.ok = false
			return
		}
	}
	b.log.reset()
}

// builtSnapshot is a run's snapshot of its study, valid while the study's
// generation is gen: written parts in the table under the provisional
// generation, then the parts in rest.
type builtSnapshot struct {
	study, gen int64
	written    int
	rest       [][]byte
	prog       Progress
}

// finish ends the snapshot; nil when it does not hold.
func (b *runSnapshot) finish() *builtSnapshot {
	if !b.ok || !b.started {
		return nil
	}
	if err := b.w.close(); err != nil {
		return nil
	}
	return &builtSnapshot{study: b.study, gen: b.gen, written: b.written, rest: b.queued, prog: b.tally.newRequests()}
}

// release makes built the study's snapshot in tx, st being the study as
// the release read it: false, with nothing changed, when the study's
// generation is not built's any more or the table does not hold exactly
// the parts the run wrote.
func (built *builtSnapshot) release(ctx context.Context, tx *sql.Tx, st studyRef) (bool, error) {
	if built == nil || built.study != st.id || built.gen != st.generation {
		return false, nil
	}
	var all, mine int
	if err := tx.QueryRowContext(ctx, `SELECT count(*), count(CASE WHEN generation = ? AND part < ? THEN 1 END)
		FROM score_snapshots WHERE study_id = ?`, provisional, built.written, st.id).Scan(&all, &mine); err != nil {
		return false, err
	}
	if all != built.written || mine != built.written {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE score_snapshots SET generation = ? WHERE study_id = ?`, st.generation, st.id); err != nil {
		return false, err
	}
	for i, body := range built.rest {
		if err := insertSnapshotPart(ctx, tx, st.id, built.written+i, st.generation, body); err != nil {
			return false, err
		}
	}
	return true, nil
}

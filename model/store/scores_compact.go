package store

import (
	"context"
	"database/sql"
	"strings"
	"sync"
)

// compactChunk is how many request ids one packed query of
// scanStudyCompact covers: one row crosses the driver per chunk.
const compactChunk = 1 << 14

// scanPacked packs the answered requests of a study with ids in [lo, hi]
// into one row: their count, then per column the values joined by \x01,
// in id order (the table read in order, rows of other studies skipped).
// A column per aggregate, rather than a row's columns joined first, is
// what costs SQLite least: each value is appended once.
const scanPacked = `
	SELECT count(*), group_concat(context, char(1)), group_concat(candidate, char(1)),
	       group_concat(probe, char(1)), group_concat(wording, char(1)), group_concat(run, char(1)),
	       group_concat(answer, char(1))
	FROM study_requests NOT INDEXED
	WHERE id BETWEEN ? AND ? AND study_id = ? AND answer IS NOT NULL`

// scanStudyCompact reads the answers of one study of a compact workspace
// (schema 5) into sr.
func scanStudyCompact(ctx context.Context, tx *sql.Tx, sr *studyRows, st studyRef) error {
	pairOf := map[[2]string]int32{}
	condOf := map[[3]string]int32{}
	return scanStudyRows(ctx, tx, st, func(row *[6]string) error {
		pk := [2]string{row[0], row[1]}
		pair, ok := pairOf[pk]
		if !ok {
			pk = [2]string{strings.Clone(pk[0]), strings.Clone(pk[1])} // not the chunk's string
			pair = sr.pair(pk[0], pk[1])
			pairOf[pk] = pair
		}
		ck := [3]string{row[2], row[3], row[4]}
		cond, ok := condOf[ck]
		if !ok {
			ck = [3]string{strings.Clone(ck[0]), strings.Clone(ck[1]), strings.Clone(ck[2])}
			cond = sr.cond(ck[0], ck[1], ck[2], st.bank)
			condOf[ck] = cond
		}
		return sr.addAnswer(pair, cond, row[5])
	})
}

// scanStudyRows calls fn with each answered request of a study (context,
// candidate, probe, wording, run, answer), a chunk of ids per query
// (scanPacked), in id order. The strings are parts of the chunk's: fn
// copies what it keeps. A chunk whose separators do not count right (an
// id holding \x01) is read again one request per row. The answer column
// holds the score exactly, so no response row is read.
func scanStudyRows(ctx context.Context, tx *sql.Tx, st studyRef, fn func(row *[6]string) error) error {
	if !st.ok {
		return nil
	}
	for lo := st.lo; lo <= st.hi; lo += compactChunk {
		c := fetchPacked(ctx, tx, st, lo, min(lo+compactChunk-1, st.hi))
		if err := c.emit(ctx, tx, st, fn); err != nil {
			return err
		}
	}
	return nil
}

// scanReaders is how many connections scanStudyRowsParallel reads
// chunks on at once.
const scanReaders = 2

// scanParallelFrom is the smallest span of ids scanStudyRowsParallel
// splits between readers. Below it a scan takes a fraction of a second
// and the readers' own page caches cost more than it saves: at 121,600
// answers they raised a run's peak from 56–58 to 62–64 MB for no time
// measurably saved (docs/performance.md). Tests lower it.
var scanParallelFrom int64 = 1 << 18

// parallelChunk is the most ids of one of scanStudyRowsParallel's
// queries (compactChunk; tests make it smaller, for many chunks).
var parallelChunk int64 = compactChunk

// scanStudyRowsParallel is scanStudyRows with the chunks' queries run on
// scanReaders connections of readers at once, each at most a chunk ahead
// of fn, which still sees the rows in id order. SQLite's query is most of
// a scan's time (75% of a snapshot's), so on two cores a snapshot takes
// little more than half as long. Only a caller holding the write lock
// may use it: the chunks are read in separate transactions, which agree
// only because nothing can commit between them.
func scanStudyRowsParallel(ctx context.Context, readers *sql.DB, tx *sql.Tx, st studyRef, fn func(row *[6]string) error) error {
	if !st.ok {
		return nil
	}
	span := st.hi - st.lo + 1
	if span < scanParallelFrom {
		return scanStudyRows(ctx, tx, st, fn)
	}
	// Chunks of equal size, at most parallelChunk, as many for each reader.
	chunks := (span + parallelChunk - 1) / parallelChunk
	chunks = (chunks + scanReaders - 1) / scanReaders * scanReaders
	size := (span + chunks - 1) / chunks
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	outs := make([]chan packedChunk, scanReaders)
	for w := range outs {
		out := make(chan packedChunk)
		outs[w] = out
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(out)
			for k := int64(w); k < chunks; k += scanReaders {
				lo := st.lo + k*size
				c := fetchPacked(ctx, readers, st, lo, min(lo+size-1, st.hi))
				select {
				case out <- c:
				case <-ctx.Done():
					return
				}
				if c.err != nil {
					return
				}
			}
		}()
	}
	for k := range chunks {
		c, ok := <-outs[k%scanReaders]
		if !ok { // only after a cancel
			return ctx.Err()
		}
		if err := c.emit(ctx, tx, st, fn); err != nil {
			return err
		}
	}
	return nil
}

// packedChunk is scanPacked's answer for the ids [lo, hi] of a study.
type packedChunk struct {
	lo, hi int64
	n      int
	cols   [6]sql.NullString
	err    error
}

// rowQuerier is what reads a chunk: the transaction or the readers.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// fetchPacked reads the chunk [lo, hi] of st.
func fetchPacked(ctx context.Context, q rowQuerier, st studyRef, lo, hi int64) packedChunk {
	c := packedChunk{lo: lo, hi: hi}
	c.err = q.QueryRowContext(ctx, scanPacked, c.lo, c.hi, st.id).
		Scan(&c.n, &c.cols[0], &c.cols[1], &c.cols[2], &c.cols[3], &c.cols[4], &c.cols[5])
	return c
}

// emit calls fn with each of the chunk's rows, reading the chunk again one
// row per request (on tx) when its separators are ambiguous.
func (c *packedChunk) emit(ctx context.Context, tx *sql.Tx, st studyRef, fn func(row *[6]string) error) error {
	if c.err != nil {
		return c.err
	}
	if c.n == 0 {
		return nil
	}
	for _, col := range c.cols {
		if strings.Count(col.String, "\x01") != c.n-1 {
			return scanChunkPlain(ctx, tx, st, c.lo, c.hi, fn)
		}
	}
	var row, rest [6]string
	for i, col := range c.cols {
		rest[i] = col.String
	}
	for range c.n {
		for i := range rest {
			row[i], rest[i], _ = strings.Cut(rest[i], "\x01")
		}
		if err := fn(&row); err != nil {
			return err
		}
	}
	return nil
}

// scanChunkPlain reads the answered requests of a study with ids in
// [lo, hi], one per row.
func scanChunkPlain(ctx context.Context, tx *sql.Tx, st studyRef, lo, hi int64, fn func(row *[6]string) error) error {
	rows, err := tx.QueryContext(ctx, `
		SELECT context, candidate, probe, wording, run, answer
		FROM study_requests NOT INDEXED
		WHERE id BETWEEN ? AND ? AND study_id = ? AND answer IS NOT NULL`, lo, hi, st.id)
	if err != nil {
		return err
	}
	defer rows.Close()
	var row [6]string
	for rows.Next() {
		if err := rows.Scan(&row[0], &row[1], &row[2], &row[3], &row[4], &row[5]); err != nil {
			return err
		}
		if err := fn(&row); err != nil {
			return err
		}
	}
	return rows.Err()
}

// addAnswer adds an answered request with its answer column (answerText).
func (sr *studyRows) addAnswer(pair, cond int32, answer string) error {
	score, ok, err := scoreOfAnswer(answer)
	if err != nil {
		return err
	}
	if !ok {
		score = 0 // as a NULL score reads
	}
	sr.add(pair, cond).answer(score, !ok)
	return nil
}

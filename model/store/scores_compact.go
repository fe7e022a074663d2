package store

import (
	"context"
	"database/sql"
	"strings"
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
// (scanPacked). The strings are parts of the chunk's: fn copies what it
// keeps. A chunk whose separators do not count right (an id holding \x01)
// is read again one request per row. The answer column holds the score
// exactly, so no response row is read.
func scanStudyRows(ctx context.Context, tx *sql.Tx, st studyRef, fn func(row *[6]string) error) error {
	if !st.ok {
		return nil
	}
	var cols [6]sql.NullString
	var row [6]string
	for lo := st.lo; lo <= st.hi; lo += compactChunk {
		hi := min(lo+compactChunk-1, st.hi)
		var n int
		err := tx.QueryRowContext(ctx, scanPacked, lo, hi, st.id).
			Scan(&n, &cols[0], &cols[1], &cols[2], &cols[3], &cols[4], &cols[5])
		if err != nil {
			return err
		}
		if n == 0 {
			continue
		}
		ambiguous := false
		for _, c := range cols {
			ambiguous = ambiguous || strings.Count(c.String, "\x01") != n-1
		}
		if ambiguous {
			if err := scanChunkPlain(ctx, tx, st, lo, hi, fn); err != nil {
				return err
			}
			continue
		}
		var rest [6]string
		for i, c := range cols {
			rest[i] = c.String
		}
		for range n {
			for i := range rest {
				row[i], rest[i], _ = strings.Cut(rest[i], "\x01")
			}
			if err := fn(&row); err != nil {
				return err
			}
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
	sr.add(0, pair, cond)
	r := &sr.recs[len(sr.recs)-1]
	r.answered, r.missing, r.score = true, !ok, score
	if !ok {
		r.score = 0 // as a NULL score reads
	}
	return nil
}

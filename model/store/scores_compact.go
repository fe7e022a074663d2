package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// compactChunk is how many request ids one packed query of
// scanStudyCompact covers: one row crosses the driver per chunk.
const compactChunk = 1 << 14

// scanStudyCompact reads the answers of one study of a compact workspace
// (schema 5) into sr: a scan of the study's id range of study_requests in
// table order (rows of other studies in the range are skipped), each
// answered request's coordinates and answer bits packed NUL-separated and
// joined by \x01, one row per chunk of ids. The answer column holds the
// score's exact bits, so no response row is read. A chunk whose
// separators do not count right (an id holding NUL or \x01) is read again
// one request per row.
func scanStudyCompact(ctx context.Context, tx *sql.Tx, sr *studyRows, st studyRef) error {
	if !st.ok {
		return nil
	}
	pk := &packedKeys{pairOf: map[string]int32{}, condOf: map[string]int32{}}
	for lo := st.lo; lo <= st.hi; lo += compactChunk {
		hi := min(lo+compactChunk-1, st.hi)
		var n int
		var packed sql.NullString
		err := tx.QueryRowContext(ctx, scanPacked, lo, hi, st.id).Scan(&n, &packed)
		if err != nil {
			return err
		}
		if n == 0 {
			continue
		}
		p := packed.String
		if strings.Count(p, "\x00") != 5*n || strings.Count(p, "\x01") != n-1 {
			if err := scanChunkPlain(ctx, tx, sr, st, lo, hi); err != nil {
				return err
			}
			continue
		}
		for req := range strings.SplitSeq(p, "\x01") {
			if err := pk.add(sr, st.bank, req); err != nil {
				return err
			}
		}
	}
	return nil
}

// scanPacked packs the answered requests of a study with ids in [lo, hi]
// into one row, reading the table in id order.
const scanPacked = `
	SELECT count(*), group_concat(concat_ws(char(0), context, candidate, probe, wording, run, answer), char(1))
	FROM study_requests NOT INDEXED
	WHERE id BETWEEN ? AND ? AND study_id = ? AND answer IS NOT NULL`

// packedKeys find the candidate and condition of a packed request by its
// text (looked up without copying it), so each is made once per study.
type packedKeys struct {
	pairOf map[string]int32 // "context\0candidate"
	condOf map[string]int32 // "probe\0wording\0run"
}

// add adds one packed request "context\0candidate\0probe\0wording\0run\0bits".
func (pk *packedKeys) add(sr *studyRows, bank, req string) error {
	i := strings.LastIndexByte(req, 0)
	coords, bitsText := req[:i], req[i+1:]
	bits, err := strconv.ParseInt(bitsText, 10, 64)
	if err != nil {
		return fmt.Errorf("store: answer %q: %w", bitsText, err)
	}
	c := strings.IndexByte(coords, 0)
	k := c + 1 + strings.IndexByte(coords[c+1:], 0)
	pairText, condText := coords[:k], coords[k+1:]
	pair, ok := pk.pairOf[pairText]
	if !ok {
		pairText = strings.Clone(pairText)
		context, candidate, _ := strings.Cut(pairText, "\x00")
		pair = sr.pair(context, candidate)
		pk.pairOf[pairText] = pair
	}
	cond, ok := pk.condOf[condText]
	if !ok {
		condText = strings.Clone(condText)
		probe, rest, _ := strings.Cut(condText, "\x00")
		wording, run, _ := strings.Cut(rest, "\x00")
		cond = sr.cond(probe, wording, run, bank)
		pk.condOf[condText] = cond
	}
	sr.addAnswer(pair, cond, bits)
	return nil
}

// scanChunkPlain reads the answered requests of a study with ids in
// [lo, hi], one per row.
func scanChunkPlain(ctx context.Context, tx *sql.Tx, sr *studyRows, st studyRef, lo, hi int64) error {
	rows, err := tx.QueryContext(ctx, `
		SELECT context, candidate, probe, wording, run, answer
		FROM study_requests NOT INDEXED
		WHERE id BETWEEN ? AND ? AND study_id = ? AND answer IS NOT NULL`, lo, hi, st.id)
	if err != nil {
		return err
	}
	defer rows.Close()
	var c, k, probe, wording, run string
	var bits int64
	for rows.Next() {
		if err := rows.Scan(&c, &k, &probe, &wording, &run, &bits); err != nil {
			return err
		}
		sr.addAnswer(sr.pair(c, k), sr.cond(probe, wording, run, st.bank), bits)
	}
	return rows.Err()
}

// addAnswer adds an answered request with its answer bits (answerBits).
func (sr *studyRows) addAnswer(pair, cond int32, bits int64) {
	sr.add(0, pair, cond)
	r := &sr.recs[len(sr.recs)-1]
	score, ok := scoreOfBits(bits)
	r.answered, r.missing, r.score = true, !ok, score
	if !ok {
		r.score = 0 // as a NULL score reads
	}
}

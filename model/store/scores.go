package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prism-eval/prism/model"
)

// ImportBackend is the backend of judges whose scores were imported from a
// tidy CSV rather than requested by prism.
const ImportBackend = "import"

// Scores returns the answers of judge on dataset as tidy score rows, one
// per answered request (repeats and wordings are not averaged: Run and
// Wording say which is which). An answer without a parsed score gives a
// row with Missing set. bankHash selects one bank snapshot; "" selects all.
// Imported scores have no bank, so an import judge's rows are selected
// under any bankHash. Rows come in dataset order (the file order of
// contexts and candidates; ids the dataset does not hold first), then
// context and candidate id, probe, wording, run and bank hash, compared
// as bytes.
//
// SQLite only finds the rows (by the requests index); the order is made
// here from the dataset's positions, which costs far less than a sort
// over joined text columns.
func (s *Store) Scores(ctx context.Context, dataset, judge, bankHash string) ([]model.ScoreRow, error) {
	pos, err := s.positions(ctx, dataset)
	if err != nil {
		return nil, err
	}
	rows, err := s.r.QueryContext(ctx, `
		SELECT r.context, r.candidate, r.probe, r.wording, r.run, r.bank_hash, p.score
		FROM requests r
		JOIN judges j ON j.id = r.judge_id
		JOIN datasets d ON d.id = r.dataset_id
		JOIN responses p ON p.request_id = r.id AND p.ok = 1
		WHERE d.name = ? AND j.name = ? AND (? = '' OR r.bank_hash = ? OR j.backend = ?)`,
		dataset, judge, bankHash, bankHash, ImportBackend)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type keyed struct {
		row      model.ScoreRow
		ctx, can int // positions; -1 when the dataset lacks the id
		bank     string
	}
	var ks []keyed
	for rows.Next() {
		var k keyed
		var score sql.NullFloat64
		if err := rows.Scan(&k.row.Context, &k.row.Candidate, &k.row.Probe, &k.row.Wording, &k.row.Run, &k.bank, &score); err != nil {
			return nil, err
		}
		if score.Valid {
			k.row.Score = score.Float64
		} else {
			k.row.Score, k.row.Missing = math.NaN(), true
		}
		k.ctx, k.can = pos.of(k.row.Context, k.row.Candidate)
		ks = append(ks, k)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		return cmp.Or(cmp.Compare(a.ctx, b.ctx), cmp.Compare(a.can, b.can),
			strings.Compare(a.row.Context, b.row.Context), strings.Compare(a.row.Candidate, b.row.Candidate),
			strings.Compare(a.row.Probe, b.row.Probe), strings.Compare(a.row.Wording, b.row.Wording),
			strings.Compare(a.row.Run, b.row.Run), strings.Compare(a.bank, b.bank))
	})
	out := make([]model.ScoreRow, len(ks))
	for i, k := range ks {
		out[i] = k.row
	}
	return out, nil
}

// datasetPositions are the file positions of a dataset's contexts and of
// the candidates within each.
type datasetPositions struct {
	ctx  map[string]int
	cand map[[2]string]int
}

// of returns the positions of a context and a candidate, -1 for an id the
// dataset does not hold (so such rows sort first, as SQL sorts NULL).
func (p datasetPositions) of(context, candidate string) (int, int) {
	c, ok := p.ctx[context]
	if !ok {
		return -1, -1
	}
	k, ok := p.cand[[2]string{context, candidate}]
	if !ok {
		return c, -1
	}
	return c, k
}

// positions reads the positions of dataset's contexts and candidates.
func (s *Store) positions(ctx context.Context, dataset string) (datasetPositions, error) {
	p := datasetPositions{ctx: map[string]int{}, cand: map[[2]string]int{}}
	rows, err := s.r.QueryContext(ctx, `
		SELECT c.ext_id, c.pos, k.ext_id, k.pos
		FROM datasets d
		JOIN contexts c ON c.dataset_id = d.id
		LEFT JOIN candidates k ON k.context_id = c.id
		WHERE d.name = ?`, dataset)
	if err != nil {
		return p, err
	}
	defer rows.Close()
	for rows.Next() {
		var cid, kid sql.NullString
		var cpos, kpos sql.NullInt64
		if err := rows.Scan(&cid, &cpos, &kid, &kpos); err != nil {
			return p, err
		}
		p.ctx[cid.String] = int(cpos.Int64)
		if kid.Valid {
			p.cand[[2]string{cid.String, kid.String}] = int(kpos.Int64)
		}
	}
	return p, rows.Err()
}

// ImportScores stores scores recorded elsewhere (read with
// model.ReadScoresCSV) as the answers of an import judge named judge on
// dataset, all in one transaction. The judge is created with backend
// ImportBackend if absent; an existing judge of another backend is an
// error. Every row must name a context and candidate of the dataset and a
// probe, no two rows may share coordinates (context, candidate, probe,
// wording, run), and none may already have an answer; errors name the
// row's line. It returns the number of rows stored.
func (s *Store) ImportScores(ctx context.Context, dataset, judge string, rows []model.ScoreRow) (int, error) {
	d, err := s.Dataset(ctx, dataset)
	if err != nil {
		return 0, err
	}
	known := map[[2]string]bool{}
	for _, c := range d.Contexts {
		for _, k := range c.Candidates {
			known[[2]string{c.ID, k.ID}] = true
		}
	}
	seen := map[coord]int{}
	now := time.Now()
	keyer, err := NewKeyer(ImportBackend, judge, nil)
	if err != nil {
		return 0, err
	}
	rs := make([]Response, 0, len(rows))
	for i, row := range rows {
		line := row.Line
		if line == 0 {
			line = i + 1
		}
		at := func(format string, args ...any) error {
			return fmt.Errorf("line %d: "+format, append([]any{line}, args...)...)
		}
		switch {
		case row.Probe == "":
			return 0, at("probe is empty")
		case !known[[2]string{row.Context, row.Candidate}]:
			return 0, at("context %q candidate %q is not in dataset %q", row.Context, row.Candidate, dataset)
		case !row.Missing && (math.IsNaN(row.Score) || math.IsInf(row.Score, 0)):
			return 0, at("score is not a finite number")
		}
		c := coord{row.Context, row.Candidate, row.Probe, row.Wording, row.Run}
		if prev, dup := seen[c]; dup {
			return 0, at("repeats the coordinates of line %d (context, candidate, probe, wording, run)", prev)
		}
		seen[c] = line
		r := Response{
			Request: Request{Judge: judge, Dataset: dataset, Context: row.Context, Candidate: row.Candidate,
				Probe: row.Probe, Wording: row.Wording, Run: row.Run},
			Score: row.Score,
			Time:  now,
		}
		if row.Missing {
			r.Score = math.NaN()
		} else {
			r.Raw = strconv.FormatFloat(row.Score, 'g', -1, 64)
		}
		// Imported scores were sent by nobody: their key hashes the
		// coordinates (one length-prefixed field each), so it is stable and
		// distinct per coordinate; as for real requests, the run label is
		// not part of it.
		r.Key = keyer.Key([]Message{{"dataset", dataset},
			{"context", row.Context}, {"candidate", row.Candidate}, {"probe", row.Probe}, {"wording", row.Wording}})
		rs = append(rs, r)
	}
	// The judge, the check for earlier scores and the scores themselves go
	// in one transaction: a failed import leaves no trace, not even the judge.
	err = s.tx(ctx, func(tx *sql.Tx) error {
		if err := ensureImportJudge(ctx, tx, judge); err != nil {
			return err
		}
		answered, err := answeredSet(ctx, tx, judge, dataset, "") // imports have no bank
		if err != nil {
			return err
		}
		first := 0
		for c := range answered {
			if line, ok := seen[c]; ok && (first == 0 || line < first) {
				first = line
			}
		}
		if first > 0 {
			return fmt.Errorf("line %d: judge %q already has a score here; import into a new judge name", first, judge)
		}
		return s.putResponsesTx(ctx, tx, rs, 0)
	})
	if err != nil {
		return 0, err
	}
	return len(rs), nil
}

// ensureImportJudge creates the import judge name inside tx when absent
// and refuses a judge of another backend.
func ensureImportJudge(ctx context.Context, tx *sql.Tx, name string) error {
	var backend string
	err := tx.QueryRowContext(ctx, "SELECT backend FROM judges WHERE name = ?", name).Scan(&backend)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		_, err = tx.ExecContext(ctx, "INSERT INTO judges(name, backend, model, base_url, params, created) VALUES (?, ?, '', '', '{}', ?)",
			name, ImportBackend, formatTime(time.Now()))
		return err
	case err != nil:
		return err
	case backend != ImportBackend:
		return fmt.Errorf("judge %q has backend %q; import scores under a new judge name", name, backend)
	}
	return nil
}

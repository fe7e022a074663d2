package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store/redact"
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
// In a compact workspace (schema 5) a study's answers come from its score
// snapshot when it has a current one (snapshot.go), else from its request
// rows, each of which holds its answer's score, read in table order and
// packed a chunk of ids per row (scanStudyCompact). In an older one opened read-only,
// SQLite reads them in two passes without a join: the study's requests from the requests index, one row per
// candidate with its requests packed in one text column (what crosses the
// driver row by row costs more than SQLite's own work), then the answers'
// scores by a range scan over request ids (a join looks each answer up on
// its own). The order is made here, which costs far less than a sort over
// joined text columns: rows are bucketed by their candidate's place in
// the dataset (a counting sort), and within a candidate ordered by the
// rank of their condition (probe, wording, run, bank), of which a study
// has a few dozen. Each row's strings are shared with every other row of
// its candidate and condition.
func (s *Store) Scores(ctx context.Context, dataset, judge, bankHash string) ([]model.ScoreRow, error) {
	sr, err := s.studyRowsOf(ctx, dataset, judge, bankHash)
	if err != nil {
		return nil, err
	}
	return sr.ordered(), nil
}

// ScanScores calls fn with each row Scores returns, in the same order and
// with the same values, without making the slice: it holds a study's
// answers packed (16 bytes each) rather than as ScoreRows (over 100 bytes
// each), which is what lets prism fit --workspace build its design in
// the memory of the design (docs/performance.md). The row fn is given is
// rewritten for the next: fn copies what it keeps. An error from fn ends
// the scan and is returned.
func (s *Store) ScanScores(ctx context.Context, dataset, judge, bankHash string, fn func(*model.ScoreRow) error) error {
	sr, err := s.studyRowsOf(ctx, dataset, judge, bankHash)
	if err != nil {
		return err
	}
	return sr.each(nil, fn)
}

// studyRowsOf reads the answers Scores returns, unordered.
func (s *Store) studyRowsOf(ctx context.Context, dataset, judge, bankHash string) (*studyRows, error) {
	pos, err := s.positions(ctx, dataset)
	if err != nil {
		return nil, err
	}
	return s.studyRowsAt(ctx, pos, dataset, judge, bankHash)
}

// studyRowsAt is studyRowsOf with the dataset's positions already read.
func (s *Store) studyRowsAt(ctx context.Context, pos datasetPositions, dataset, judge, bankHash string) (*studyRows, error) {
	// One read transaction: both passes see the same snapshot.
	tx, err := s.r.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	sr := newStudyRows(pos)
	if s.compact() {
		studies, err := studiesOf(ctx, tx, judge, dataset, bankHash, true)
		if err != nil {
			return nil, err
		}
		for _, st := range studies {
			if ok, err := readSnapshot(ctx, tx, sr, st); err != nil || ok {
				if err != nil {
					return nil, err
				}
				continue
			}
			if err := scanStudyCompact(ctx, tx, sr, st); err != nil {
				return nil, err
			}
		}
		return sr, nil
	}
	var q studyQuery
	err = tx.QueryRowContext(ctx, `
		SELECT j.id, d.id, ? = '' OR j.backend = ?
		FROM judges j, datasets d WHERE j.name = ? AND d.name = ?`,
		bankHash, ImportBackend, judge, dataset).Scan(&q.judge, &q.dataset, &q.anyBank)
	if errors.Is(err, sql.ErrNoRows) {
		return sr, nil // no such judge or dataset: no rows
	}
	if err != nil {
		return nil, err
	}
	q.bank = bankHash
	err = scanRequestsPacked(ctx, tx, sr, q)
	if errors.Is(err, errPackedAmbiguous) {
		// An id holds a NUL byte, the packed columns' separator: read the
		// columns one by one instead.
		sr = newStudyRows(pos)
		err = scanRequestsPlain(ctx, tx, sr, q)
	}
	if err == nil {
		err = scanAnswers(ctx, tx, sr, q)
	}
	if err != nil {
		return nil, err
	}
	return sr, nil
}

// studyQuery selects a study's requests: a judge's on a dataset, under
// one bank unless anyBank.
type studyQuery struct {
	judge, dataset int64
	anyBank        bool
	bank           string
}

const (
	studyWhere    = ` WHERE r.judge_id = ? AND r.dataset_id = ? AND (? OR r.bank_hash = ?)`
	studyRequests = ` FROM requests r` + studyWhere
)

func (q studyQuery) args() []any { return []any{q.judge, q.dataset, q.anyBank, q.bank} }

// errPackedAmbiguous says a packed column held a NUL byte of its own.
var errPackedAmbiguous = errors.New("store: an id holds a NUL byte")

// scanRequestsPacked reads the study's requests one candidate (and bank)
// at a time: a row holds the context and candidate ids NUL-separated, the
// candidate's request count, and its requests joined by \x01, each its
// probe, wording, run, bank hash and id NUL-separated, so the rows that
// cross the driver are a study's candidates, not its requests. The
// separators are checked by count (4 NULs per request, one \x01 fewer
// than requests; one NUL in the ids): an id or name holding either byte
// stops the scan with errPackedAmbiguous.
func scanRequestsPacked(ctx context.Context, tx *sql.Tx, sr *studyRows, q studyQuery) error {
	rows, err := tx.QueryContext(ctx, `
		SELECT r.context || char(0) || r.candidate, count(*),
		       group_concat(r.probe || char(0) || r.wording || char(0) || r.run || char(0) || r.bank_hash || char(0) || r.id, char(1))`+
		studyRequests+`
		GROUP BY r.bank_hash, r.context, r.candidate`, q.args()...)
	if err != nil {
		return err
	}
	defer rows.Close()
	condOf := map[string]int32{}
	var pk, reqs string
	var n int
	for rows.Next() {
		if err := rows.Scan(&pk, &n, &reqs); err != nil {
			return err
		}
		if strings.Count(pk, "\x00") != 1 || strings.Count(reqs, "\x00") != 4*n || strings.Count(reqs, "\x01") != n-1 {
			return errPackedAmbiguous
		}
		c, k, _ := strings.Cut(pk, "\x00")
		pair := sr.pair(c, k)
		for req := range strings.SplitSeq(reqs, "\x01") {
			i := strings.LastIndexByte(req, 0)
			ck, idText := req[:i], req[i+1:]
			id, err := strconv.ParseInt(idText, 10, 64)
			if err != nil {
				return fmt.Errorf("store: request id %q: %w", idText, err)
			}
			cond, ok := condOf[ck]
			if !ok {
				ck = strings.Clone(ck) // not the whole candidate's string
				probe, rest, _ := strings.Cut(ck, "\x00")
				wording, rest, _ := strings.Cut(rest, "\x00")
				run, bank, _ := strings.Cut(rest, "\x00")
				cond = sr.cond(probe, wording, run, bank)
				condOf[ck] = cond
			}
			sr.addID(id, pair, cond)
		}
	}
	return rows.Err()
}

// scanRequestsPlain reads the study's requests with one text column per
// coordinate.
func scanRequestsPlain(ctx context.Context, tx *sql.Tx, sr *studyRows, q studyQuery) error {
	rows, err := tx.QueryContext(ctx, `
		SELECT r.id, r.context, r.candidate, r.probe, r.wording, r.run, r.bank_hash`+studyRequests, q.args()...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var id int64
	var c, k, probe, wording, run, bank string
	for rows.Next() {
		if err := rows.Scan(&id, &c, &k, &probe, &wording, &run, &bank); err != nil {
			return err
		}
		sr.addID(id, sr.pair(c, k), sr.cond(probe, wording, run, bank))
	}
	return rows.Err()
}

// denseSpan is the widest range of request ids scanAnswers reads by one
// range scan for n requests: it then skips at most three other rows per
// row of the study.
var denseSpan = func(n int) int64 { return 4*int64(n) + 1024 }

// scanAnswers gives each request read its answer's score. When the
// requests' ids are dense (one run stores a study's requests in a block)
// the answers are read by one range scan over request ids, those of other
// studies in the range skipped; otherwise each request's answer is found
// by a join.
func scanAnswers(ctx context.Context, tx *sql.Tx, sr *studyRows, q studyQuery) error {
	if sr.recs.len() == 0 {
		return nil
	}
	lo, hi := sr.ids[0], sr.ids[0]
	for _, id := range sr.ids {
		lo, hi = min(lo, id), max(hi, id)
	}
	var rows *sql.Rows
	var err error
	var at func(id int64) int32
	if span := hi - lo + 1; span <= denseSpan(sr.recs.len()) {
		index := make([]int32, span)
		for i := range index {
			index[i] = -1
		}
		for i, id := range sr.ids {
			index[id-lo] = int32(i)
		}
		at = func(id int64) int32 {
			if id < lo || id > hi {
				return -1
			}
			return index[id-lo]
		}
		rows, err = tx.QueryContext(ctx, `
			SELECT p.request_id, p.score FROM responses p
			WHERE p.ok = 1 AND p.request_id BETWEEN ? AND ?`, lo, hi)
	} else {
		index := make(map[int64]int32, len(sr.ids))
		for i, id := range sr.ids {
			index[id] = int32(i)
		}
		at = func(id int64) int32 {
			if i, ok := index[id]; ok {
				return i
			}
			return -1
		}
		rows, err = tx.QueryContext(ctx, `
			SELECT p.request_id, p.score FROM requests r
			JOIN responses p ON p.request_id = r.id AND p.ok = 1`+studyWhere, q.args()...)
	}
	if err != nil {
		return err
	}
	defer rows.Close()
	var id int64
	var score sql.NullFloat64
	for rows.Next() {
		if err := rows.Scan(&id, &score); err != nil {
			return err
		}
		if i := at(id); i >= 0 {
			sr.recs.at(int(i)).answer(score.Float64, !score.Valid)
		}
	}
	return rows.Err()
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
	imp, err := newScoreImport(d, dataset, judge, s.knownSecrets())
	if err != nil {
		return 0, err
	}
	rs := make([]Response, 0, len(rows))
	for i, row := range rows {
		r, err := imp.response(i, row)
		if err != nil {
			return 0, err
		}
		rs = append(rs, r)
	}
	// The judge, the check for earlier scores and the scores themselves go
	// in one transaction: a failed import leaves no trace, not even the judge.
	err = s.tx(ctx, func(tx *sql.Tx) error {
		if err := ensureImportJudge(ctx, tx, judge); err != nil {
			return err
		}
		if err := s.checkNotScored(ctx, tx, judge, dataset, imp.seen); err != nil {
			return err
		}
		return s.putResponsesTx(ctx, tx, rs, 0)
	})
	if err != nil {
		return 0, err
	}
	return len(rs), nil
}

// scoreImport turns the rows of one ImportScores into responses.
type scoreImport struct {
	dataset, judge string
	known          map[[2]string]bool // the dataset's (context, candidate) pairs
	seen           map[coord]int      // the line of each coordinates imported
	now            time.Time
	keyer          *Keyer
	secrets        []string
}

func newScoreImport(d *model.Dataset, dataset, judge string, secrets []string) (*scoreImport, error) {
	known := map[[2]string]bool{}
	for _, c := range d.Contexts {
		for _, k := range c.Candidates {
			known[[2]string{c.ID, k.ID}] = true
		}
	}
	imp := &scoreImport{dataset: dataset, judge: judge, known: known, seen: map[coord]int{}, now: time.Now(), secrets: secrets}
	var err error
	imp.keyer, err = NewKeyer(ImportBackend, judge, nil)
	return imp, err
}

// response checks row i and returns it as a response; errors name its
// line.
func (imp *scoreImport) response(i int, row model.ScoreRow) (Response, error) {
	// Ids and labels are scrubbed as the dataset's were (PutDataset),
	// so a row still names the stored candidate.
	secrets := imp.secrets
	row.Context, row.Candidate = redact.Exact(row.Context, secrets), redact.Exact(row.Candidate, secrets)
	row.Run, row.Wording = redact.Exact(row.Run, secrets), redact.Exact(row.Wording, secrets)
	line := row.Line
	if line == 0 {
		line = i + 1
	}
	at := func(format string, args ...any) error {
		return fmt.Errorf("line %d: "+format, append([]any{line}, args...)...)
	}
	switch {
	case row.Probe == "":
		return Response{}, at("probe is empty")
	case !imp.known[[2]string{row.Context, row.Candidate}]:
		return Response{}, at("context %s candidate %s is not in dataset %q", model.Quote(row.Context), model.Quote(row.Candidate), imp.dataset)
	case !row.Missing && (math.IsNaN(row.Score) || math.IsInf(row.Score, 0)):
		return Response{}, at("score is not a finite number")
	}
	c := coord{row.Context, row.Candidate, row.Probe, row.Wording, row.Run}
	if prev, dup := imp.seen[c]; dup {
		return Response{}, at("repeats the coordinates of line %d (context, candidate, probe, wording, run)", prev)
	}
	imp.seen[c] = line
	r := Response{
		Request: Request{Judge: imp.judge, Dataset: imp.dataset, Context: row.Context, Candidate: row.Candidate,
			Probe: row.Probe, Wording: row.Wording, Run: row.Run},
		Score: row.Score,
		Time:  imp.now,
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
	r.Key = imp.keyer.Key([]Message{{"dataset", imp.dataset},
		{"context", row.Context}, {"candidate", row.Candidate}, {"probe", row.Probe}, {"wording", row.Wording}})
	return r, nil
}

// checkNotScored refuses an import when judge already has an answer at
// any of the coordinates seen, naming the first line.
func (s *Store) checkNotScored(ctx context.Context, tx *sql.Tx, judge, dataset string, seen map[coord]int) error {
	answered, err := s.answeredSet(ctx, tx, judge, dataset, "") // imports have no bank
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
	return nil
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

// Labels returns the human targets of dataset's candidates as labels, in
// file order, leaving out candidates without one: Dataset(…).Labels()
// without reading the texts.
func (s *Store) Labels(ctx context.Context, dataset string) ([]model.Label, error) {
	layout, ok, err := s.layoutOf(ctx, dataset)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("dataset %q: %w", dataset, ErrNotFound)
	}
	return labelsOf(layout), nil
}

// labelsOf is the labels of a dataset's layout, in its order.
func labelsOf(layout []layoutContext) []model.Label {
	var ls []model.Label
	for _, c := range layout {
		for _, k := range c.candidates {
			if k.human.Valid {
				ls = append(ls, model.Label{Context: c.id, Candidate: k.id, Human: k.human.Float64})
			}
		}
	}
	return ls
}

// FitInput is what prism fit needs from a workspace: the judge's score rows
// on dataset (one bank snapshot, or all when bankHash is "") and the human
// labels of the dataset's candidates. Candidates without a human score
// give no label. Requests that failed, or were never answered, have no
// row, so they are missing cells for the fit (docs/protocol.md §2).
func (s *Store) FitInput(ctx context.Context, dataset, judge, bankHash string) ([]model.ScoreRow, []model.Label, error) {
	labels, sr, err := s.fitRows(ctx, dataset, judge, bankHash)
	if err != nil {
		return nil, nil, err
	}
	rows := sr.ordered()
	if len(rows) == 0 {
		return nil, nil, noAnswers(dataset, judge, bankHash)
	}
	return rows, labels, nil
}

// ScanFitInput is FitInput without the slice of score rows: it reads the
// labels and the study's answers, calls reserve with the labels and the
// count of rows to come (so a design builder and a memory limit can be
// sized before a row arrives), then fn with each score row as ScanScores
// gives it, and returns the labels. No row is the same error as
// FitInput's.
func (s *Store) ScanFitInput(ctx context.Context, dataset, judge, bankHash string, reserve func(labels []model.Label, rows int), fn func(*model.ScoreRow) error) ([]model.Label, error) {
	labels, sr, err := s.fitRows(ctx, dataset, judge, bankHash)
	if err != nil {
		return nil, err
	}
	n := 0
	err = sr.each(func(rows int) {
		n = rows
		if reserve != nil {
			reserve(labels, rows)
		}
	}, fn)
	if err == nil && n == 0 {
		err = noAnswers(dataset, judge, bankHash)
	}
	if err != nil {
		return nil, err
	}
	return labels, nil
}

// fitRows reads the dataset's labels and the study's rows, placed.
func (s *Store) fitRows(ctx context.Context, dataset, judge, bankHash string) ([]model.Label, *studyRows, error) {
	labels, pos, err := s.fitLayout(ctx, dataset)
	if err != nil {
		return nil, nil, err
	}
	sr, err := s.studyRowsAt(ctx, pos, dataset, judge, bankHash)
	return labels, sr, err
}

// noAnswers is the error of a study without rows.
func noAnswers(dataset, judge, bankHash string) error {
	return fmt.Errorf("judge %q has no answers on dataset %q%s: %w", judge, dataset, bankNote(bankHash), ErrNotFound)
}

// fitLayout reads the dataset's layout once for a fit: its labels (not
// the dataset: its texts are not needed) and Scores' positions.
func (s *Store) fitLayout(ctx context.Context, dataset string) ([]model.Label, datasetPositions, error) {
	layout, ok, err := s.layoutOf(ctx, dataset)
	if err != nil {
		return nil, datasetPositions{}, err
	}
	if !ok {
		return nil, datasetPositions{}, fmt.Errorf("dataset %q: %w", dataset, ErrNotFound)
	}
	return labelsOf(layout), positionsOf(layout), nil
}

// ScanRowBytes is what ScanFitInput holds per row while it calls fn: a
// packed answer (scoreRec, 16 bytes) and its place in the order (4). A
// workspace older than schema 5, read-only, holds its request id too.
const ScanRowBytes = int64(unsafe.Sizeof(scoreRec{})) + 4

func bankNote(h string) string {
	if h == "" {
		return ""
	}
	return " under bank " + h
}

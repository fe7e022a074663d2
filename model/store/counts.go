package store

import (
	"context"
	"math"
)

// Tally counts the outcomes of judge replies: answers, those of them
// without a score (a rubric reply's missing cell), and failed attempts,
// also by error kind. One type, so that "answered", "missing" and
// "failed" mean the same wherever replies are counted: a run's own
// snapshot here (runSnapshot), and what a live run or a batch import
// counts of the replies it stores.
type Tally struct {
	Answered int
	Missing  int // of Answered, those without a score
	Failed   int
	Errors   map[string]int // Failed by error kind; nil until the first failure
}

// Count counts one reply: an answer when errKind is "", one without a
// score when score is NaN; else a failed attempt of that kind.
func (t *Tally) Count(errKind string, score float64) {
	if errKind != "" && t.Errors == nil {
		t.Errors = map[string]int{}
	}
	CountOutcome(errKind, score, &t.Answered, &t.Missing, &t.Failed, t.Errors)
}

// CountOutcome is the one rule for counting a reply, for counters kept
// in other shapes (a run's engine.Progress, a batch import's stats):
// answered when errKind is "", and missing among them when score is NaN
// (missing may be nil: not counted); else failed, by kind in errs.
func CountOutcome(errKind string, score float64, answered, missing, failed *int, errs map[string]int) {
	if errKind == "" {
		*answered++
		if missing != nil && math.IsNaN(score) {
			*missing++
		}
		return
	}
	*failed++
	errs[errKind]++
}

// CountResponse counts r.
func (t *Tally) CountResponse(r *Response) { t.Count(r.ErrKind, r.Score) }

// Add adds o's counts to t.
func (t *Tally) Add(o Tally) {
	t.Answered += o.Answered
	t.Missing += o.Missing
	t.Failed += o.Failed
	for k, v := range o.Errors {
		if t.Errors == nil {
			t.Errors = map[string]int{}
		}
		t.Errors[k] += v
	}
}

// Failures counts the failed attempts of judge on dataset by error kind.
func (s *Store) Failures(ctx context.Context, dataset, judge string) (map[string]int, error) {
	rows, err := s.r.QueryContext(ctx, `
		SELECT p.error_kind, count(*)
		FROM responses p
		JOIN requests r ON r.id = p.request_id
		JOIN judges j ON j.id = r.judge_id
		JOIN datasets d ON d.id = r.dataset_id
		WHERE p.ok = 0 AND j.name = ? AND d.name = ?
		GROUP BY p.error_kind`, judge, dataset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var kind string
		var n int
		if err := rows.Scan(&kind, &n); err != nil {
			return nil, err
		}
		out[kind] = n
	}
	return out, rows.Err()
}

// Progress counts a judge's work on a dataset: requests recorded, those
// answered, and failed attempts (a request may fail several times).
type Progress struct {
	Requests, Answered, Failures int
}

// newRequests is the Progress of request rows created with one reply
// each, t counting the replies: a new row records its answer or its one
// failed attempt.
func (t *Tally) newRequests() Progress {
	return Progress{Requests: t.Answered + t.Failed, Answered: t.Answered, Failures: t.Failed}
}

// progressCompact counts a study's requests, answers and failed attempts
// in a compact workspace from the request rows alone.
const progressCompact = `
	SELECT count(*), count(r.answer), coalesce(sum(r.failures), 0)
	FROM studies st
	JOIN judges j ON j.id = st.judge_id
	JOIN datasets d ON d.id = st.dataset_id
	JOIN study_requests r NOT INDEXED ON r.id BETWEEN st.first_id AND st.last_id AND r.study_id = st.id
	WHERE d.name = ? AND j.name = ? AND (? = '' OR st.bank_hash = ?)`

// Progress reports the judge's progress on dataset for one bank snapshot,
// or over all banks when bankHash is "".
func (s *Store) Progress(ctx context.Context, dataset, judge, bankHash string) (Progress, error) {
	var p Progress
	if s.compact() {
		// Each request row counts its answer and failed attempts: one scan
		// of the study's id range in table order.
		err := s.r.QueryRowContext(ctx, progressCompact, dataset, judge, bankHash, bankHash).
			Scan(&p.Requests, &p.Answered, &p.Failures)
		return p, err
	}
	// Versions 1–4: a request has at most one answer (the responses_answer index), so
	// its failed attempts are its responses less its answer: both counted
	// from indexes, without reading a response row.
	err := s.r.QueryRowContext(ctx, `
		SELECT count(*), coalesce(sum(a), 0), coalesce(sum(n - a), 0)
		FROM (SELECT EXISTS (SELECT 1 FROM responses p WHERE p.request_id = r.id AND p.ok = 1) AS a,
		             (SELECT count(*) FROM responses p WHERE p.request_id = r.id) AS n
		      FROM requests r
		      JOIN judges j ON j.id = r.judge_id
		      JOIN datasets d ON d.id = r.dataset_id
		      WHERE d.name = ? AND j.name = ? AND (? = '' OR r.bank_hash = ?))`, dataset, judge, bankHash, bankHash).
		Scan(&p.Requests, &p.Answered, &p.Failures)
	return p, err
}

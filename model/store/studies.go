package store

import (
	"context"
	"database/sql"
	"strings"
)

// StudyInfo is what a workspace holds for one study, a dataset × judge ×
// bank snapshot: the requests recorded, those answered, and those failed
// (a failed attempt and no answer yet). Failures counts failed attempts;
// a request may fail several times before it is answered.
type StudyInfo struct {
	Dataset  string
	Judge    string
	BankHash string
	BankName string // "" when the snapshot is not stored
	// Rubric is set for a rubric study (its snapshot's source starts with
	// RubricSourcePrefix): its requests are rubric ratings, not probes.
	Rubric   bool
	Requests int
	Answered int
	Failed   int
	Failures int

	// The plan of the study's own acquisition (schema 8; zero: none
	// recorded, every answer is a diagnostic's or predates plans):
	// PlannedRuns runs per condition, Planned requests, and of them
	// PlanAnswered answered and PlanFailed failed (a failed attempt and
	// no answer yet).
	PlannedRuns  int
	Planned      int
	PlanAnswered int
	PlanFailed   int
	// Diagnostics names the diagnostics that sent requests in the study.
	Diagnostics []string
	// Runs are the run labels the study's requests carry, sorted.
	Runs []string
	// Generation changes whenever a request or answer of the study is
	// written (a stored report of another generation is stale).
	Generation int64
}

// BeyondPlan counts the study's answers outside its plan: those of runs
// beyond the planned ones, or of the diagnostics that sent requests.
func (st *StudyInfo) BeyondPlan() int { return st.Answered - st.PlanAnswered }

// Studies lists every study with recorded requests or a recorded plan,
// by dataset, judge and bank name.
func (s *Store) Studies(ctx context.Context) ([]StudyInfo, error) {
	if !s.compact() {
		return s.studiesLegacy(ctx)
	}
	plan := `NULL, NULL, ''`
	if s.version >= planVersion {
		plan = `s.planned_runs, s.planned, s.diagnostics`
	}
	// One row per study and run label: the plan's counts are the runs
	// inside it (runInPlan), decided here rather than in SQL.
	rows, err := s.r.QueryContext(ctx, `
		SELECT s.id, d.name, j.name, s.bank_hash, coalesce(b.name, ''), coalesce(b.source, ''), `+plan+`, s.generation,
		       q.run, count(q.id), coalesce(sum(q.answer IS NOT NULL), 0),
		       coalesce(sum(q.answer IS NULL AND q.failures > 0), 0), coalesce(sum(q.failures), 0)
		FROM studies s
		JOIN judges j ON j.id = s.judge_id
		JOIN datasets d ON d.id = s.dataset_id
		LEFT JOIN banks b ON b.hash = s.bank_hash
		LEFT JOIN study_requests q ON q.study_id = s.id
		GROUP BY s.id, q.run
		ORDER BY d.name, j.name, coalesce(b.name, ''), s.bank_hash, s.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StudyInfo
	last := int64(-1)
	for rows.Next() {
		var id int64
		var st StudyInfo
		var source, diags string
		var run sql.NullString
		var plannedRuns, planned sql.NullInt64
		var n, answered, failed, failures int
		if err := rows.Scan(&id, &st.Dataset, &st.Judge, &st.BankHash, &st.BankName, &source, &plannedRuns, &planned, &diags, &st.Generation,
			&run, &n, &answered, &failed, &failures); err != nil {
			return nil, err
		}
		if id != last {
			st.Rubric = IsRubricSource(source)
			st.PlannedRuns, st.Planned, st.Diagnostics = int(plannedRuns.Int64), int(planned.Int64), splitNames(diags)
			out = append(out, st)
			last = id
		}
		cur := &out[len(out)-1]
		if !run.Valid {
			continue // a planned study without requests yet
		}
		cur.Runs = append(cur.Runs, run.String)
		cur.Requests += n
		cur.Answered += answered
		cur.Failed += failed
		cur.Failures += failures
		if RunInPlan(run.String, cur.PlannedRuns) {
			cur.PlanAnswered += answered
			cur.PlanFailed += failed
		}
	}
	return out, rows.Err()
}

// StudiesOf lists the studies of judge on dataset as Studies does, but
// without counting their requests (Requests, Answered, Failed, Failures,
// PlanAnswered, PlanFailed and Runs are zero): what picking a study
// needs, read without scanning any study's requests.
func (s *Store) StudiesOf(ctx context.Context, dataset, judge string) ([]StudyInfo, error) {
	if !s.compact() {
		all, err := s.studiesLegacy(ctx)
		var out []StudyInfo
		for _, st := range all {
			if st.Dataset == dataset && st.Judge == judge {
				out = append(out, st)
			}
		}
		return out, err
	}
	plan := `NULL, NULL, ''`
	if s.version >= planVersion {
		plan = `s.planned_runs, s.planned, s.diagnostics`
	}
	rows, err := s.r.QueryContext(ctx, `
		SELECT s.bank_hash, coalesce(b.name, ''), coalesce(b.source, ''), `+plan+`, s.generation
		FROM studies s
		JOIN judges j ON j.id = s.judge_id
		JOIN datasets d ON d.id = s.dataset_id
		LEFT JOIN banks b ON b.hash = s.bank_hash
		WHERE d.name = ? AND j.name = ?
		ORDER BY coalesce(b.name, ''), s.bank_hash`, dataset, judge)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StudyInfo
	for rows.Next() {
		st := StudyInfo{Dataset: dataset, Judge: judge}
		var source, diags string
		var plannedRuns, planned sql.NullInt64
		if err := rows.Scan(&st.BankHash, &st.BankName, &source, &plannedRuns, &planned, &diags, &st.Generation); err != nil {
			return nil, err
		}
		st.Rubric = IsRubricSource(source)
		st.PlannedRuns, st.Planned, st.Diagnostics = int(plannedRuns.Int64), int(planned.Int64), splitNames(diags)
		out = append(out, st)
	}
	return out, rows.Err()
}

// FailedRuns counts, per run label, the study's requests that failed and
// have no answer, from the partial index of those rows (schema 8;
// before it, a scan of the study's requests).
func (s *Store) FailedRuns(ctx context.Context, dataset, judge, bankHash string) (map[string]int, error) {
	out := map[string]int{}
	if !s.compact() {
		return out, nil
	}
	rows, err := s.r.QueryContext(ctx, `
		SELECT q.run, count(*) FROM study_requests q
		WHERE q.study_id = (SELECT s.id FROM studies s JOIN judges j ON j.id = s.judge_id JOIN datasets d ON d.id = s.dataset_id
		                    WHERE d.name = ? AND j.name = ? AND s.bank_hash = ?)
		  AND q.answer IS NULL AND q.failures > 0
		GROUP BY q.run`, dataset, judge, bankHash)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var run string
		var n int
		if err := rows.Scan(&run, &n); err != nil {
			return nil, err
		}
		out[run] = n
	}
	return out, rows.Err()
}

// RunInPlan reports whether run label run is one of the first runs of a
// plan of that many runs per condition: "0"…"R−1", or a batched study's
// o<k>r<r> with r < R. With no plan (runs ≤ 0) every run is.
func RunInPlan(run string, runs int) bool {
	if runs <= 0 {
		return true
	}
	r, ok := runIndex(run)
	return ok && r < runs
}

// runIndex is the repeat a run label names: N for "N", r for a batched
// label "o<k>r<r>" and 0 for "o<k>" (judge.OrderRunLabel).
func runIndex(run string) (int, bool) {
	if len(run) > 1 && run[0] == 'o' {
		k, r, found := strings.Cut(run[1:], "r")
		if _, ok := decimal(k); !ok {
			return 0, false
		}
		if !found {
			return 0, true
		}
		run = r
	}
	return decimal(run)
}

// decimal reads a run number: decimal digits without a leading zero.
func decimal(s string) (int, bool) {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// studiesLegacy is Studies on a workspace before schema 5, opened as it
// is: no plans.
func (s *Store) studiesLegacy(ctx context.Context) ([]StudyInfo, error) {
	rows, err := s.r.QueryContext(ctx, `
		SELECT d.name, j.name, r.bank_hash, coalesce(b.name, ''), coalesce(b.source, ''), count(*),
		       coalesce(sum(EXISTS (SELECT 1 FROM responses p WHERE p.request_id = r.id AND p.ok = 1)), 0),
		       coalesce(sum(NOT EXISTS (SELECT 1 FROM responses p WHERE p.request_id = r.id AND p.ok = 1)
		                    AND EXISTS (SELECT 1 FROM responses p WHERE p.request_id = r.id AND p.ok = 0)), 0),
		       coalesce(sum((SELECT count(*) FROM responses p WHERE p.request_id = r.id AND p.ok = 0)), 0)
		FROM requests r
		JOIN judges j ON j.id = r.judge_id
		JOIN datasets d ON d.id = r.dataset_id
		LEFT JOIN banks b ON b.hash = r.bank_hash
		GROUP BY d.name, j.name, r.bank_hash
		ORDER BY d.name, j.name, coalesce(b.name, ''), r.bank_hash`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StudyInfo
	for rows.Next() {
		var st StudyInfo
		var source string
		if err := rows.Scan(&st.Dataset, &st.Judge, &st.BankHash, &st.BankName, &source, &st.Requests, &st.Answered, &st.Failed, &st.Failures); err != nil {
			return nil, err
		}
		st.Rubric = IsRubricSource(source)
		st.PlanAnswered, st.PlanFailed = st.Answered, st.Failed // no plan: every run counts
		out = append(out, st)
	}
	return out, rows.Err()
}

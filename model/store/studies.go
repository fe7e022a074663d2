package store

import (
	"context"
	"database/sql"
	"math"
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

// Reply is one answered request of a candidate, as the judge sent it.
type Reply struct {
	Probe, Wording, Run string
	Raw                 string  // the judge's text as received
	Score               float64 // the parsed score; NaN when none was parsed
}

// Replies returns the answers (not the failed attempts) of judge to the
// requests about one candidate of dataset under bankHash ("" for every
// bank; an import judge's, which have no bank, under any), ordered by
// probe, wording and run: what the candidate inspector
// shows next to the scores.
func (s *Store) Replies(ctx context.Context, dataset, judge, bankHash, contextID, candidate string) ([]Reply, error) {
	rows, err := s.r.QueryContext(ctx, `
		SELECT r.probe, r.wording, r.run, p.raw, p.score
		FROM requests r
		JOIN judges j ON j.id = r.judge_id
		JOIN datasets d ON d.id = r.dataset_id
		JOIN responses p ON p.request_id = r.id AND p.ok = 1
		WHERE d.name = ? AND j.name = ? AND (? = '' OR r.bank_hash = ? OR j.backend = ?) AND r.context = ? AND r.candidate = ?
		ORDER BY r.probe, r.wording, r.run, p.id`,
		dataset, judge, bankHash, bankHash, ImportBackend, contextID, candidate)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Reply
	for rows.Next() {
		var r Reply
		var score sql.NullFloat64
		if err := rows.Scan(&r.Probe, &r.Wording, &r.Run, &r.Raw, &score); err != nil {
			return nil, err
		}
		r.Score = math.NaN()
		if score.Valid {
			r.Score = score.Float64
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// ProbeUsage is what a judge's answers under one probe name cost: the
// answered requests, the candidates they cover and their token counts. It
// is what fit reports beside each method as its budget per candidate
// (docs/rubrics.md, "Budgets").
type ProbeUsage struct {
	Probe      string
	Answered   int // answered requests (all wordings and runs)
	Candidates int // distinct (context, candidate) pairs among them
	// PromptTokens and CompletionTokens sum the answers' token counts. A
	// SAJA call's counts are stored on its first criterion's row only, so
	// the sum over a rubric's probes is the calls' total.
	PromptTokens, CompletionTokens int64
	// Samples is the largest number of replies one answer holds: N for a
	// sampled G-Eval request (its raw reply is the JSON array of the N
	// replies), 1 for every other answer.
	Samples int
}

// Usage reports, per probe name, the cost of a judge's answers on a
// dataset under one bank or rubric snapshot (bankHash), or under all of
// them when bankHash is "". Failed attempts are not counted: the budget of
// a method is what its answers took.
func (s *Store) Usage(ctx context.Context, dataset, judge, bankHash string) ([]ProbeUsage, error) {
	rows, err := s.r.QueryContext(ctx, `
		SELECT r.probe, count(*), count(DISTINCT r.context || char(0) || r.candidate),
		       coalesce(sum(p.prompt_tokens), 0), coalesce(sum(p.completion_tokens), 0),
		       coalesce(max(CASE WHEN substr(p.raw, 1, 1) = '[' AND json_valid(p.raw)
		                         THEN json_array_length(p.raw) ELSE 1 END), 1)
		FROM requests r
		JOIN judges j ON j.id = r.judge_id
		JOIN datasets d ON d.id = r.dataset_id
		JOIN responses p ON p.request_id = r.id AND p.ok = 1
		WHERE d.name = ? AND j.name = ? AND (? = '' OR r.bank_hash = ?)
		GROUP BY r.probe
		ORDER BY r.probe`, dataset, judge, bankHash, bankHash)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ProbeUsage
	for rows.Next() {
		var u ProbeUsage
		if err := rows.Scan(&u.Probe, &u.Answered, &u.Candidates, &u.PromptTokens, &u.CompletionTokens, &u.Samples); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// StudyHashes lists the bank and rubric snapshot hashes a judge has
// requests under on a dataset, sorted: a cheap Studies for one judge.
//
// It skips from one hash to the next along the requests index (each step
// one index seek), rather than reading every request of the study.
func (s *Store) StudyHashes(ctx context.Context, dataset, judge string) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `
		WITH RECURSIVE
		  st(j, d) AS (SELECT j.id, d.id FROM judges j, datasets d WHERE j.name = ? AND d.name = ?),
		  h(x) AS (
		    SELECT (SELECT min(r.bank_hash) FROM requests r, st WHERE r.judge_id = st.j AND r.dataset_id = st.d)
		    UNION ALL
		    SELECT (SELECT min(r.bank_hash) FROM requests r, st WHERE r.judge_id = st.j AND r.dataset_id = st.d AND r.bank_hash > h.x)
		    FROM h WHERE h.x IS NOT NULL)
		SELECT x FROM h WHERE x IS NOT NULL`, judge, dataset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

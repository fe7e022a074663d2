package store

import (
	"context"
	"database/sql"
	"math"
)

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

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"testing"
	"time"
)

// legacyPut writes rs into a workspace of schema version 1–4 as the code
// of those versions did (PutResponses before version 5): a requests row
// per coordinates with the key as text, kept when it exists, and every
// response but a second answer. A nil-response entry (answer false and
// no ErrKind, Raw "-") records the request alone, as PutRequests did.
func legacyPut(t testing.TB, s *Store, rs []Response, requestOnly ...bool) {
	t.Helper()
	ctx := context.Background()
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for i := range rs {
		r := &rs[i]
		var judgeID, dsID int64
		if err := tx.QueryRowContext(ctx, "SELECT id FROM judges WHERE name = ?", r.Judge).Scan(&judgeID); err != nil {
			t.Fatalf("judge %q: %v", r.Judge, err)
		}
		if err := tx.QueryRowContext(ctx, "SELECT id FROM datasets WHERE name = ?", r.Dataset).Scan(&dsID); err != nil {
			t.Fatalf("dataset %q: %v", r.Dataset, err)
		}
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO requests(key, judge_id, dataset_id, context, candidate, bank_hash, probe, wording, run)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(judge_id, dataset_id, bank_hash, context, candidate, probe, wording, run) DO NOTHING`,
			r.Key, judgeID, dsID, r.Context, r.Candidate, r.BankHash, r.Probe, r.Wording, r.Run); err != nil {
			t.Fatal(err)
		}
		if len(requestOnly) > 0 && requestOnly[0] {
			continue
		}
		var reqID int64
		if err := tx.QueryRowContext(ctx, `SELECT id FROM requests WHERE judge_id = ? AND dataset_id = ? AND bank_hash = ?
			AND context = ? AND candidate = ? AND probe = ? AND wording = ? AND run = ?`,
			judgeID, dsID, r.BankHash, r.Context, r.Candidate, r.Probe, r.Wording, r.Run).Scan(&reqID); err != nil {
			t.Fatal(err)
		}
		ok := 0
		if r.Answered() {
			ok = 1
		}
		var logprobs any
		if len(r.Logprobs) > 0 {
			if !json.Valid(r.Logprobs) {
				t.Fatal("bad logprobs")
			}
			logprobs = string(r.Logprobs)
		}
		tm := r.Time
		if tm.IsZero() {
			tm = time.Unix(1700000000, int64(i)).UTC()
		}
		if _, err := tx.ExecContext(ctx, `
			INSERT INTO responses(request_id, ok, raw, score, logprobs, prompt_tokens, cached_tokens,
			                      completion_tokens, latency_ns, error_kind, error, created)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT DO NOTHING`,
			reqID, ok, r.Raw, nullFloat(r.Score), logprobs, r.PromptTokens, r.CachedTokens, r.CompletionTokens,
			int64(r.Latency), r.ErrKind, r.Err, formatTime(tm)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// responseDump is every response row by id with its request's columns,
// through the requests table (versions 1–4) or view (5): what a migration
// must carry over unchanged.
func responseDump(t testing.TB, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`
		SELECT p.id, r.id, r.key, r.judge_id, r.dataset_id, r.context, r.candidate, r.bank_hash, r.probe, r.wording, r.run,
		       p.ok, p.raw, p.score, coalesce(p.logprobs, 'NULL'), p.prompt_tokens, p.cached_tokens,
		       p.completion_tokens, p.latency_ns, p.error_kind, p.error, p.created
		FROM responses p JOIN requests r ON r.id = p.request_id
		ORDER BY p.id`)
	return scanRows(t, rows, err, func(f []any) string { b, _ := json.Marshal(f); return string(b) })
}

// scanRows reads every row of a query (its error err) as strings made by
// format of the row's columns, in the query's order.
func scanRows(t testing.TB, rows *sql.Rows, err error, format func([]any) string) []string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		f := make([]any, len(cols))
		ptrs := make([]any, len(f))
		for i := range f {
			ptrs[i] = &f[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, format(f))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// requestDump is every request row by id (versions 1–4: the table; 5:
// the view), answered or not.
func requestDump(t testing.TB, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT id, key, judge_id, dataset_id, context, candidate, bank_hash, probe, wording, run
		FROM requests ORDER BY id`)
	return scanRows(t, rows, err, func(f []any) string { b, _ := json.Marshal(f); return string(b) })
}

package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ResponseWriter is PutResponseBatch for a writer that commits many small
// batches (the judge engine's group commit, where a server judge's batch
// is the handful of answers that arrived during the previous commit). Its
// statements are prepared once on the writer connection and reused by
// every batch, where PutResponseBatch prepares five per transaction
// (parsing SQL was 20% of a run's CPU at concurrency 8,
// docs/performance.md). What it stores is what PutResponseBatch stores
// (TestResponseWriterEqualsPutResponseBatch). It is not safe for
// concurrent use; Close releases its statements.
type ResponseWriter struct {
	s                                       *Store
	insReq, findReq, insResp, judgeID, dsID *sql.Stmt
	order                                   []int // reused per batch
}

// The statements of requestUpsert, putResponsesOrdered and idCache, with
// the same text.
const (
	sqlInsertRequest = `
		INSERT INTO requests(key, judge_id, dataset_id, context, candidate, bank_hash, probe, wording, run)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(judge_id, dataset_id, bank_hash, context, candidate, probe, wording, run) DO NOTHING`
	sqlFindRequest = `
		SELECT id, key FROM requests
		WHERE judge_id = ? AND dataset_id = ? AND bank_hash = ? AND context = ? AND candidate = ?
		  AND probe = ? AND wording = ? AND run = ?`
	sqlInsertResponse = `
		INSERT INTO responses(request_id, ok, raw, score, logprobs, prompt_tokens, cached_tokens,
		                      completion_tokens, latency_ns, error_kind, error, created)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING`
	sqlJudgeID   = "SELECT id FROM judges WHERE name = ?"
	sqlDatasetID = "SELECT id FROM datasets WHERE name = ?"
)

// NewResponseWriter prepares a ResponseWriter's statements.
func (s *Store) NewResponseWriter(ctx context.Context) (*ResponseWriter, error) {
	if s.readOnly {
		return nil, fmt.Errorf("workspace %s: %w", s.path, ErrReadOnly)
	}
	w := &ResponseWriter{s: s}
	for _, p := range []struct {
		st  **sql.Stmt
		sql string
	}{{&w.insReq, sqlInsertRequest}, {&w.findReq, sqlFindRequest}, {&w.insResp, sqlInsertResponse},
		{&w.judgeID, sqlJudgeID}, {&w.dsID, sqlDatasetID}} {
		st, err := s.w.PrepareContext(ctx, p.sql)
		if err != nil {
			w.Close()
			return nil, err
		}
		*p.st = st
	}
	return w, nil
}

// Close releases the writer's statements.
func (w *ResponseWriter) Close() error {
	var errs []error
	for _, st := range []*sql.Stmt{w.insReq, w.findReq, w.insResp, w.judgeID, w.dsID} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(errs...)
}

// Put records rs as PutResponseBatch does: in one transaction, stored
// whole or not at all, written in request-key order.
func (w *ResponseWriter) Put(ctx context.Context, rs []Response) error {
	if len(rs) == 0 {
		return nil
	}
	w.order = w.order[:0]
	for i := range rs {
		w.order = append(w.order, i)
	}
	slices.SortStableFunc(w.order, func(a, b int) int { return strings.Compare(rs[a].Key, rs[b].Key) })
	return w.s.tx(ctx, func(tx *sql.Tx) error { return w.put(ctx, tx, rs) })
}

// put is putResponsesOrdered over the writer's statements, bound to tx
// (Tx.StmtContext reuses a statement already prepared on the connection).
func (w *ResponseWriter) put(ctx context.Context, tx *sql.Tx, rs []Response) error {
	secrets := w.s.knownSecrets()
	ids := newIDCache(tx)
	up := &requestUpsert{ids: ids, ins: tx.StmtContext(ctx, w.insReq), find: tx.StmtContext(ctx, w.findReq)}
	insResp := tx.StmtContext(ctx, w.insResp)
	for _, i := range w.order {
		r := &rs[i]
		where := func(err error) error {
			return fmt.Errorf("response %d (%s/%s %s/%s %s): %w", i, r.Judge, r.Dataset, r.Context, r.Candidate, r.Probe, err)
		}
		if err := checkResponse(r); err != nil {
			return where(err)
		}
		if err := checkRequest(&r.Request); err != nil {
			return where(err)
		}
		// The judge's and dataset's ids, once per transaction as idCache
		// does, through prepared statements.
		if err := w.resolve(ctx, tx, ids.judges, w.judgeID, "judge", r.Judge); err != nil {
			return where(err)
		}
		if err := w.resolve(ctx, tx, ids.datasets, w.dsID, "dataset", r.Dataset); err != nil {
			return where(err)
		}
		reqID, err := up.put(ctx, &r.Request)
		if err != nil {
			return where(err)
		}
		ok := 0
		if r.Answered() {
			ok = 1
		}
		var logprobs any
		if len(r.Logprobs) > 0 {
			if !json.Valid(r.Logprobs) {
				return where(errors.New("logprobs are not valid JSON"))
			}
			logprobs = string(r.Logprobs)
		}
		t := r.Time
		if t.IsZero() {
			t = time.Now()
		}
		// Redacted here as in putResponsesOrdered: every path that stores
		// a response removes credentials.
		if _, err := insResp.ExecContext(ctx, reqID, ok, clipRaw(redactRaw(r.Raw, secrets)), nullFloat(r.Score), logprobs,
			r.PromptTokens, r.CachedTokens, r.CompletionTokens, int64(r.Latency),
			r.ErrKind, Redact(r.Err, secrets...), formatTime(t)); err != nil {
			return where(err)
		}
	}
	return nil
}

// resolve fills m[name] with the row id st finds (ErrNotFound when none).
func (w *ResponseWriter) resolve(ctx context.Context, tx *sql.Tx, m map[string]int64, st *sql.Stmt, what, name string) error {
	if _, ok := m[name]; ok {
		return nil
	}
	var id int64
	err := tx.StmtContext(ctx, st).QueryRowContext(ctx, name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s %q: %w", what, name, ErrNotFound)
	}
	if err != nil {
		return err
	}
	m[name] = id
	return nil
}

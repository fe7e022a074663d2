package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// The statements that record an attempt (requestUpsert and
// putResponsesOrdered): one text each, whether prepared per transaction
// or once per ResponseWriter.
const (
	sqlInsertRequest = `
		INSERT INTO study_requests(study_id, key, context, candidate, probe, wording, run, answer, failures)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(study_id, context, candidate, probe, wording, run) DO NOTHING`
	sqlFindRequest = `
		SELECT id, key, answer FROM study_requests
		WHERE study_id = ? AND context = ? AND candidate = ? AND probe = ? AND wording = ? AND run = ?`
	sqlInsertResponse = `
		INSERT INTO responses(request_id, ok, raw, score, logprobs, prompt_tokens, cached_tokens,
		                      completion_tokens, latency_ns, error_kind, error, created)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
)

// writeStmts are the recording statements prepared once on the writer
// connection. A nil *writeStmts prepares them in each transaction.
type writeStmts struct{ insReq, findReq, insResp *sql.Stmt }

func (p *writeStmts) insReqStmt() *sql.Stmt {
	if p == nil {
		return nil
	}
	return p.insReq
}

func (p *writeStmts) findReqStmt() *sql.Stmt {
	if p == nil {
		return nil
	}
	return p.findReq
}

func (p *writeStmts) insRespStmt() *sql.Stmt {
	if p == nil {
		return nil
	}
	return p.insResp
}

// stmt binds the prepared statement st to tx (Tx.StmtContext reuses a
// statement already prepared on the connection), or prepares text in tx
// when st is nil. Either way the caller closes the result.
func (*writeStmts) stmt(ctx context.Context, tx *sql.Tx, st *sql.Stmt, text string) (*sql.Stmt, error) {
	if st != nil {
		return tx.StmtContext(ctx, st), nil
	}
	return tx.PrepareContext(ctx, text)
}

// ResponseWriter is PutResponseBatch for a writer that commits many small
// batches (the judge engine's group commit, where a server judge's batch
// is the handful of answers that arrived during the previous commit). Its
// statements are prepared once on the writer connection and reused by
// every batch, where PutResponseBatch prepares them per transaction
// (parsing SQL was 20% of a run's CPU at concurrency 8,
// docs/performance.md). It stores what PutResponseBatch stores, through
// the same code (TestResponseWriterEqualsPutResponseBatch). It is not
// safe for concurrent use; Close releases its statements.
type ResponseWriter struct {
	s     *Store
	pre   writeStmts
	order []int // reused per batch
}

// NewResponseWriter prepares a ResponseWriter's statements.
func (s *Store) NewResponseWriter(ctx context.Context) (*ResponseWriter, error) {
	if s.readOnly {
		return nil, fmt.Errorf("workspace %s: %w", s.path, ErrReadOnly)
	}
	w := &ResponseWriter{s: s}
	for _, p := range []struct {
		st  **sql.Stmt
		sql string
	}{{&w.pre.insReq, sqlInsertRequest}, {&w.pre.findReq, sqlFindRequest}, {&w.pre.insResp, sqlInsertResponse}} {
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
	for _, st := range []*sql.Stmt{w.pre.insReq, w.pre.findReq, w.pre.insResp} {
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
	w.order = keyOrder(rs, w.order)
	return w.s.tx(ctx, func(tx *sql.Tx) error {
		return w.s.putResponsesOrdered(ctx, tx, rs, 0, w.order, &w.pre)
	})
}

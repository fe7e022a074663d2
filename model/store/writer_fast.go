package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
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
	sqlFindJudge   = `SELECT id FROM judges WHERE name = ?`
	sqlFindDataset = `SELECT id FROM datasets WHERE name = ?`
	sqlInsertStudy = `INSERT INTO studies(judge_id, dataset_id, bank_hash) VALUES (?, ?, ?)
		ON CONFLICT DO NOTHING`
	sqlFindStudy       = `SELECT id FROM studies WHERE judge_id = ? AND dataset_id = ? AND bank_hash = ?`
	sqlFindStudyByName = `
		SELECT s.id FROM studies s
		JOIN judges j ON j.id = s.judge_id JOIN datasets d ON d.id = s.dataset_id
		WHERE j.name = ? AND d.name = ? AND s.bank_hash = ?`
	sqlStudyRange = `
		UPDATE studies SET first_id = min(coalesce(first_id, ?1), ?1), last_id = max(coalesce(last_id, ?2), ?2),
		                   generation = generation + 1
		WHERE id = ?3`
	sqlStudyGeneration = `UPDATE studies SET generation = generation + 1 WHERE id = ?`
	sqlStudyFirstGen   = `SELECT first_id, generation FROM studies WHERE id = ?`
)

// sqlInsertResponses is sqlInsertResponse for responseChunk rows in one
// statement: one execution's fixed cost (database/sql, the driver, the
// VDBE program) shared by the chunk's rows.
var sqlInsertResponses = sqlInsertResponse + strings.Repeat(`, (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, responseChunk-1)

// sqlInsertRequests is sqlInsertRequest for requestChunk rows in one
// statement (requestUpsert.putChunk).
var sqlInsertRequests = `
		INSERT INTO study_requests(study_id, key, context, candidate, probe, wording, run, answer, failures)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)` + strings.Repeat(`, (?, ?, ?, ?, ?, ?, ?, ?, ?)`, requestChunk-1) + `
		ON CONFLICT(study_id, context, candidate, probe, wording, run) DO NOTHING`

// writeStmts are the recording statements prepared once on the writer
// connection. A nil *writeStmts prepares them in each transaction.
//
// Besides the per-answer statements, each transaction looks up its
// judge, dataset and study and updates the study's bounds: five more
// statements whose parsing cost the engine's writer 7% of its CPU at
// concurrency 128 (docs/performance.md), prepared once here too.
type writeStmts struct {
	insReq, findReq, insResp, insResps        *sql.Stmt
	insReqs                                   *sql.Stmt
	findJudge, findDataset                    *sql.Stmt
	insStudy, findStudy, studyRange, studyGen *sql.Stmt
	findStudyByName, studyFirstGen            *sql.Stmt

	// studyIDs are the ids of the studies written so far, by judge,
	// dataset and bank hash: valid only while the transactions that
	// found them stand (Put forgets them when one fails).
	studyIDs map[[3]string]int64
}

// remember keeps a study's id for the writer's later transactions. The
// transaction that found it may still fail: ResponseWriter.Put then
// forgets every id.
func (p *writeStmts) remember(k [3]string, id int64) {
	if p == nil {
		return // statements parsed per transaction: nothing kept
	}
	if p.studyIDs == nil {
		p.studyIDs = map[[3]string]int64{}
	}
	p.studyIDs[k] = id
}

// all lists the statements with their texts, for preparing and closing.
func (p *writeStmts) all() []struct {
	st  **sql.Stmt
	sql string
} {
	return []struct {
		st  **sql.Stmt
		sql string
	}{
		{&p.insReq, sqlInsertRequest}, {&p.findReq, sqlFindRequest}, {&p.insResp, sqlInsertResponse}, {&p.insResps, sqlInsertResponses}, {&p.insReqs, sqlInsertRequests},
		{&p.findJudge, sqlFindJudge}, {&p.findDataset, sqlFindDataset},
		{&p.insStudy, sqlInsertStudy}, {&p.findStudy, sqlFindStudy},
		{&p.studyRange, sqlStudyRange}, {&p.studyGen, sqlStudyGeneration},
		{&p.findStudyByName, sqlFindStudyByName}, {&p.studyFirstGen, sqlStudyFirstGen},
	}
}

// get returns the statement f picks from p, or nil when p is nil.
func (p *writeStmts) get(f func(*writeStmts) *sql.Stmt) *sql.Stmt {
	if p == nil {
		return nil
	}
	return f(p)
}

func (p *writeStmts) insReqStmt() *sql.Stmt      { return p.insReq }
func (p *writeStmts) insReqsStmt() *sql.Stmt     { return p.insReqs }
func (p *writeStmts) findReqStmt() *sql.Stmt     { return p.findReq }
func (p *writeStmts) insRespStmt() *sql.Stmt     { return p.insResp }
func (p *writeStmts) insRespsStmt() *sql.Stmt    { return p.insResps }
func (p *writeStmts) findJudgeStmt() *sql.Stmt   { return p.findJudge }
func (p *writeStmts) findDatasetStmt() *sql.Stmt { return p.findDataset }
func (p *writeStmts) insStudyStmt() *sql.Stmt    { return p.insStudy }
func (p *writeStmts) findStudyStmt() *sql.Stmt   { return p.findStudy }
func (p *writeStmts) studyRangeStmt() *sql.Stmt  { return p.studyRange }
func (p *writeStmts) studyGenStmt() *sql.Stmt    { return p.studyGen }
func (p *writeStmts) firstGenStmt() *sql.Stmt    { return p.studyFirstGen }

// exec runs text in tx, through its statement prepared on the writer
// connection when there is one.
func (p *writeStmts) exec(ctx context.Context, tx *sql.Tx, st *sql.Stmt, text string, args ...any) (sql.Result, error) {
	if st == nil {
		return tx.ExecContext(ctx, text, args...)
	}
	b := tx.StmtContext(ctx, st)
	defer b.Close()
	return b.ExecContext(ctx, args...)
}

// queryRow scans the one row text returns into dest, as exec runs it.
func (p *writeStmts) queryRow(ctx context.Context, tx *sql.Tx, st *sql.Stmt, text string, args []any, dest ...any) error {
	if st == nil {
		return tx.QueryRowContext(ctx, text, args...).Scan(dest...)
	}
	b := tx.StmtContext(ctx, st)
	defer b.Close()
	return b.QueryRowContext(ctx, args...).Scan(dest...)
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

	// A run's writer (NewRunWriter) builds its study's score snapshot
	// from the rows its transactions create, and Close hands it to the
	// lease.
	snap  *runSnapshot
	lease *Lease
}

// NewResponseWriter prepares a ResponseWriter's statements.
func (s *Store) NewResponseWriter(ctx context.Context) (*ResponseWriter, error) {
	if s.readOnly {
		return nil, fmt.Errorf("workspace %s: %w", s.path, ErrReadOnly)
	}
	w := &ResponseWriter{s: s}
	for _, p := range w.pre.all() {
		st, err := s.w.PrepareContext(ctx, p.sql)
		if err != nil {
			w.Close()
			return nil, err
		}
		*p.st = st
	}
	return w, nil
}

// NewRunWriter is NewResponseWriter for the run holding l (its writer):
// it also builds the score snapshot of
// l's study from the request rows its transactions create, and Close
// hands it to l, whose Release uses it when nothing else wrote to the
// study (run_snapshot.go).
func (s *Store) NewRunWriter(ctx context.Context, l *Lease) (*ResponseWriter, error) {
	w, err := s.NewResponseWriter(ctx)
	if err != nil {
		return nil, err
	}
	w.snap, w.lease = newRunSnapshot(), l
	return w, nil
}

// Close releases the writer's statements and hands a run writer's
// snapshot, when it holds, to the run's lease.
func (w *ResponseWriter) Close() error {
	if w.snap != nil {
		w.lease.built = w.snap.finish()
		w.snap = nil
	}
	var errs []error
	for _, p := range w.pre.all() {
		if *p.st != nil {
			errs = append(errs, (*p.st).Close())
		}
	}
	return errors.Join(errs...)
}

// Put records rs as PutResponseBatch does: in one transaction, stored
// whole or not at all, in writeOrder.
func (w *ResponseWriter) Put(ctx context.Context, rs []Response) error {
	if len(rs) == 0 {
		return nil
	}
	return w.PutWith(ctx, rs, nil)
}

// PutWith is Put with also, when not nil, run in the same transaction
// after rs are written (and the transaction is rolled back when it
// fails); unlike Put it commits a transaction even when rs is empty.
func (w *ResponseWriter) PutWith(ctx context.Context, rs []Response, also func(*sql.Tx) error) error {
	b := w.snap
	if b == nil || !b.ok {
		return w.putLogged(ctx, rs, also, nil)
	}
	b.log.reset()
	err := w.putLogged(ctx, rs, func(tx *sql.Tx) error {
		if also != nil {
			if err := also(tx); err != nil {
				return err
			}
		}
		b.check(ctx, tx, &w.pre)
		return nil
	}, &b.log)
	if err != nil {
		b.ok = false
		return err
	}
	b.committed()
	return nil
}

// putLogged is PutWith telling log (when not nil) what became of each
// request row.
func (w *ResponseWriter) putLogged(ctx context.Context, rs []Response, also func(*sql.Tx) error, log *foldLog) error {
	order := w.s.writeOrder(rs, w.order)
	if order != nil {
		w.order = order
	}
	err := w.s.tx(ctx, func(tx *sql.Tx) error {
		if len(rs) > 0 {
			if err := w.s.putResponsesOrdered(ctx, tx, rs, 0, order, &w.pre, log); err != nil {
				return err
			}
		}
		if also != nil {
			return also(tx)
		}
		return nil
	})
	if err != nil {
		// A study this transaction created is gone with it.
		w.pre.studyIDs = nil
	}
	return err
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// requestUpsert records requests inside one transaction: the row at a
// request's coordinates is created, or kept when it exists, and must carry
// the request's key. PutRequests and PutResponses both record through it.
//
// It inserts with ON CONFLICT DO NOTHING and reads the new row's id from
// the statement's result; only when the row already exists (a request
// failed before, or exported by prism batch) does it look the row up.
// That is one plain statement per new request instead of an upsert with
// RETURNING, whose result rows cost the writer more than the insert. A
// new request's row is written with its response's outcome (answer score
// or one failure), so a request answered at once is one row write.
type requestUpsert struct {
	tx      *sql.Tx
	pre     *writeStmts // nil: statements parsed in tx
	ids     *idCache
	studies map[[3]string]*studyRef
	ins     *sql.Stmt
	find    *sql.Stmt
	insN    *sql.Stmt // sqlInsertRequests, prepared when first needed
	args    []any
}

func prepareRequestUpsert(ctx context.Context, tx *sql.Tx, pre *writeStmts) (*requestUpsert, error) {
	ins, err := pre.stmt(ctx, tx, pre.get((*writeStmts).insReqStmt), sqlInsertRequest)
	if err != nil {
		return nil, err
	}
	find, err := pre.stmt(ctx, tx, pre.get((*writeStmts).findReqStmt), sqlFindRequest)
	if err != nil {
		ins.Close()
		return nil, err
	}
	return &requestUpsert{tx: tx, pre: pre, ids: newIDCache(tx, pre), studies: map[[3]string]*studyRef{}, ins: ins, find: find}, nil
}

func (u *requestUpsert) Close() error {
	err := errors.Join(u.ins.Close(), u.find.Close())
	if u.insN != nil {
		err = errors.Join(err, u.insN.Close())
	}
	return err
}

// study returns the study row of a request's judge, dataset and bank,
// creating it when absent.
func (u *requestUpsert) study(ctx context.Context, r *Request) (*studyRef, error) {
	k := [3]string{r.Judge, r.Dataset, r.BankHash}
	if st, ok := u.studies[k]; ok {
		return st, nil
	}
	id, err := u.studyID(ctx, k, r)
	if err != nil {
		return nil, err
	}
	st := &studyRef{bank: r.BankHash, id: id}
	u.studies[k] = st
	u.pre.remember(k, id)
	return st, nil
}

// studyID finds the id of study k (r's judge, dataset and bank hash), or
// creates the study.
func (u *requestUpsert) studyID(ctx context.Context, k [3]string, r *Request) (int64, error) {
	var id int64
	if u.pre != nil {
		// A ResponseWriter remembers its studies' ids from one
		// transaction to the next (a run's study cannot go while its
		// lease holds the dataset; were it gone, the foreign key would
		// refuse the insert and Put would forget them), and otherwise
		// finds a stored study in one statement instead of the four
		// below.
		if id, ok := u.pre.studyIDs[k]; ok {
			return id, nil
		}
		err := u.pre.queryRow(ctx, u.tx, u.pre.findStudyByName, sqlFindStudyByName, []any{r.Judge, r.Dataset, r.BankHash}, &id)
		if !errors.Is(err, sql.ErrNoRows) {
			return id, err
		}
	}
	judgeID, err := u.ids.judge(ctx, r.Judge)
	if err != nil {
		return 0, err
	}
	dsID, err := u.ids.dataset(ctx, r.Dataset)
	if err != nil {
		return 0, err
	}
	if _, err := u.pre.exec(ctx, u.tx, u.pre.get((*writeStmts).insStudyStmt), sqlInsertStudy, judgeID, dsID, r.BankHash); err != nil {
		return 0, err
	}
	err = u.pre.queryRow(ctx, u.tx, u.pre.get((*writeStmts).findStudyStmt), sqlFindStudy, []any{judgeID, dsID, r.BankHash}, &id)
	return id, err
}

// put records r and returns its row id, and whether resp (nil: none, as
// for PutRequests) is to be added to the responses: always for a failure,
// for an answer only when the request has none yet. The request row
// counts the failure or takes the answer's score. Recording a different
// key at the same coordinates is an error: the rendered request changed
// under the same bank hash.
func (u *requestUpsert) put(ctx context.Context, r *Request, resp *Response) (id int64, add, fresh bool, err error) {
	if err := checkRequest(r); err != nil {
		return 0, false, false, err
	}
	st, err := u.study(ctx, r)
	if err != nil {
		return 0, false, false, err
	}
	answer, failures := outcome(resp)
	res, err := u.ins.ExecContext(ctx, st.id, keyValue(r.Key), r.Context, r.Candidate, r.Probe, r.Wording, r.Run, answer, failures)
	if err != nil {
		return 0, false, false, err
	}
	if n, err := res.RowsAffected(); err != nil {
		return 0, false, false, err
	} else if n == 1 {
		id, err := res.LastInsertId()
		if err != nil {
			return 0, false, false, err
		}
		st.inserted(id)
		return id, resp != nil, true, nil
	}
	row, err := u.findRow(ctx, st, r)
	if err != nil {
		return 0, false, false, err
	}
	id, add, err = u.existing(ctx, row, r, resp, answer)
	return id, add, false, err
}

// outcome is what a new request row records of resp: its answer's score
// (nil: none) and its failures (0 or 1).
func outcome(resp *Response) (answer any, failures int) {
	switch {
	case resp == nil:
	case resp.Answered():
		answer = responseAnswer(resp.Score)
	default:
		failures = 1
	}
	return answer, failures
}

// inserted widens the study's bounds to a request row created now.
func (st *studyRef) inserted(id int64) {
	if !st.ok {
		st.lo, st.hi, st.ok = id, id, true
	}
	st.lo, st.hi = min(st.lo, id), max(st.hi, id)
}

// storedRow is what the find statement reads of a request row.
type storedRow struct {
	id     int64
	key    any
	answer sql.NullString
}

// findRow reads r's row in study st.
func (u *requestUpsert) findRow(ctx context.Context, st *studyRef, r *Request) (storedRow, error) {
	var row storedRow
	err := u.find.QueryRowContext(ctx, st.id, r.Context, r.Candidate, r.Probe, r.Wording, r.Run).
		Scan(&row.id, &row.key, &row.answer)
	return row, err
}

// existing records resp against r's row, which was there before: the key
// must be the row's, an answer is taken only by a row without one, and a
// failure is counted.
func (u *requestUpsert) existing(ctx context.Context, row storedRow, r *Request, resp *Response, answer any) (int64, bool, error) {
	if !sameKey(row.key, r.Key) {
		return 0, false, fmt.Errorf("these coordinates were recorded with request key %s, not %s: the request text changed", keyString(row.key), r.Key)
	}
	var err error
	switch {
	case resp == nil:
		return row.id, false, nil
	case resp.Answered() && row.answer.Valid:
		return row.id, false, nil // the first answer stands
	case resp.Answered():
		_, err = u.tx.ExecContext(ctx, "UPDATE study_requests SET answer = ? WHERE id = ?", answer, row.id)
	default:
		_, err = u.tx.ExecContext(ctx, "UPDATE study_requests SET failures = failures + 1 WHERE id = ?", row.id)
	}
	return row.id, err == nil, err
}

// pendingRequest is a response whose request row putChunk records.
type pendingRequest struct {
	r  *Response
	st *studyRef
	id int64 // set by putChunk
	// add is set by putChunk: whether the response is to be added.
	add bool
	// fresh is set by putChunk: whether the row was created now.
	fresh bool
}

// putChunk records the request rows of ps, which must be responses
// (put's work, for many rows). A full chunk of requestChunk rows is one
// multi-row insert: when every row is new (a run's answers, the usual
// case) their ids are the statement's consecutive row ids, in order.
// Otherwise, and for a partial chunk, each row is resolved as put
// resolves it, in order, so the rows and ids are put's exactly
// (TestRequestChunksEqualRowByRow): a row this statement created is the
// first of the chunk to find it, with an id above those before it; the
// others take the path of a row that was there before.
func (u *requestUpsert) putChunk(ctx context.Context, ps []pendingRequest) (int, error) {
	if len(ps) < requestChunk {
		for j := range ps {
			p := &ps[j]
			id, add, fresh, err := u.put(ctx, &p.r.Request, p.r)
			if err != nil {
				return j, err
			}
			p.id, p.add, p.fresh = id, add, fresh
		}
		return 0, nil
	}
	n, last, err := u.insertChunk(ctx, ps)
	if err != nil {
		return 0, err
	}
	if n == int64(len(ps)) {
		for j := range ps {
			p := &ps[j]
			p.id, p.add, p.fresh = last-n+1+int64(j), true, true
			p.st.inserted(p.id)
		}
		return 0, nil
	}
	return u.resolveChunk(ctx, ps, n, last)
}

// insertChunk inserts the request rows of ps in one statement, those
// already there left as they are, and returns the rows inserted and the
// last row id.
func (u *requestUpsert) insertChunk(ctx context.Context, ps []pendingRequest) (n, last int64, err error) {
	args := u.args[:0]
	for j := range ps {
		r := ps[j].r
		answer, failures := outcome(r)
		args = append(args, ps[j].st.id, keyValue(r.Key), r.Context, r.Candidate, r.Probe, r.Wording, r.Run, answer, failures)
	}
	u.args = args
	if u.insN == nil {
		if u.insN, err = u.pre.stmt(ctx, u.tx, u.pre.get((*writeStmts).insReqsStmt), sqlInsertRequests); err != nil {
			return 0, 0, err
		}
	}
	res, err := u.insN.ExecContext(ctx, args...)
	clear(args)
	if err != nil {
		return 0, 0, err
	}
	if n, err = res.RowsAffected(); err != nil {
		return 0, 0, err
	}
	last, err = res.LastInsertId()
	return n, last, err
}

// resolveChunk resolves each row of ps after a chunk insert that created
// n of them, the last with id last, as put would have: a row the insert
// created is the first of the chunk to find it, with an id above those
// before it; the others take the path of a row that was there before.
func (u *requestUpsert) resolveChunk(ctx context.Context, ps []pendingRequest, n, last int64) (int, error) {
	claimed := map[int64]bool{}
	for j := range ps {
		p := &ps[j]
		r := p.r
		row, err := u.findRow(ctx, p.st, &r.Request)
		if err != nil {
			return j, err
		}
		if n > 0 && row.id > last-n && !claimed[row.id] {
			claimed[row.id] = true
			p.id, p.add, p.fresh = row.id, true, true
			p.st.inserted(row.id)
			continue
		}
		answer, _ := outcome(r)
		if p.id, p.add, err = u.existing(ctx, row, &r.Request, r, answer); err != nil {
			return j, err
		}
	}
	return 0, nil
}

// finish widens each study's id bounds to the requests created in this
// transaction and bumps the generation of every study it wrote to (its
// score snapshot is stale from now on); it must run before the
// transaction commits.
func (u *requestUpsert) finish(ctx context.Context) error {
	for _, st := range u.studies {
		var err error
		if st.ok {
			_, err = u.pre.exec(ctx, u.tx, u.pre.get((*writeStmts).studyRangeStmt), sqlStudyRange, st.lo, st.hi, st.id)
		} else {
			_, err = u.pre.exec(ctx, u.tx, u.pre.get((*writeStmts).studyGenStmt), sqlStudyGeneration, st.id)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// idCache resolves judge and dataset names to row ids once per batch.
type idCache struct {
	tx       *sql.Tx
	pre      *writeStmts
	judges   map[string]int64
	datasets map[string]int64
}

func newIDCache(tx *sql.Tx, pre *writeStmts) *idCache {
	return &idCache{tx: tx, pre: pre, judges: map[string]int64{}, datasets: map[string]int64{}}
}

func (c *idCache) judge(ctx context.Context, name string) (int64, error) {
	return c.lookup(ctx, c.judges, c.pre.get((*writeStmts).findJudgeStmt), sqlFindJudge, "judge", name)
}

func (c *idCache) dataset(ctx context.Context, name string) (int64, error) {
	return c.lookup(ctx, c.datasets, c.pre.get((*writeStmts).findDatasetStmt), sqlFindDataset, "dataset", name)
}

func (c *idCache) lookup(ctx context.Context, m map[string]int64, st *sql.Stmt, text, what, name string) (int64, error) {
	if id, ok := m[name]; ok {
		return id, nil
	}
	var id int64
	err := c.pre.queryRow(ctx, c.tx, st, text, []any{name}, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("%s %q: %w", what, name, ErrNotFound)
	}
	if err != nil {
		return 0, err
	}
	m[name] = id
	return id, nil
}

// PutRequests records requests without answers, so that a batch exported
// for another machine can be matched back by key and run when its output
// is imported (see RequestsByKey). Requests already recorded are left as
// they are; recording a different key at the same coordinates is an error,
// as in PutResponses. All of rs is written in one transaction.
func (s *Store) PutRequests(ctx context.Context, rs []Request) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		up, err := prepareRequestUpsert(ctx, tx, nil)
		if err != nil {
			return err
		}
		defer up.Close()
		for i := range rs {
			r := &rs[i]
			if _, _, _, err := up.put(ctx, r, nil); err != nil {
				return fmt.Errorf("request %d (%s/%s %s/%s %s): %w", i, r.Judge, r.Dataset, r.Context, r.Candidate, r.Probe, err)
			}
		}
		return up.finish(ctx)
	})
}

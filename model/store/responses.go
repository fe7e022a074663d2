package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Request is one judge request at its study coordinates. Judge and Dataset
// are names of a stored judge and dataset; Key is RequestKey of what was
// (or will be) sent. Wording and Run are labels: the judge engine writes
// the wording index and the repeat index in decimal.
type Request struct {
	Key       string
	Judge     string
	Dataset   string
	Context   string
	Candidate string
	BankHash  string
	Probe     string // "baseline", "ATTR:+", "ATTR:-", "neutral:NAME", "ctx:NAME"
	Wording   string
	Run       string
}

// Response is one attempt at a request: an answer when ErrKind is empty,
// a failure otherwise. Failures are stored for counting but never stand in
// for an answer.
type Response struct {
	Request
	Raw              string          // the judge's text as received
	Score            float64         // the parsed score; NaN when none was parsed
	Logprobs         json.RawMessage // as the backend returned them; nil when absent
	PromptTokens     int
	CachedTokens     int // prompt tokens served from the provider's cache
	CompletionTokens int
	Latency          time.Duration
	ErrKind          string // "" for an answer, else e.g. "timeout", "http-429", "parse"
	Err              string // the error message (credentials are redacted)
	Time             time.Time
}

// Answered reports whether r is an answer rather than a failed attempt.
func (r *Response) Answered() bool { return r.ErrKind == "" }

// BatchSize is how many responses PutResponses writes per transaction:
// large enough that commit cost is amortised, small enough that a crash
// loses at most one batch of work in flight.
const BatchSize = 500

// PutResponses records responses, creating their request rows as needed,
// in transactions of BatchSize; a batch is stored whole or not at all, and
// an error stops at the failing batch with the earlier ones committed.
//
// A request's coordinates fix its key: recording a different Key for the
// same coordinates is an error (the rendered request changed under the
// same bank hash). Once a request has an answer, a later answer to it is
// ignored, so the first answer stands; failed attempts are always added.
func (s *Store) PutResponses(ctx context.Context, rs []Response) error {
	for lo := 0; lo < len(rs); lo += BatchSize {
		hi := min(lo+BatchSize, len(rs))
		err := s.tx(ctx, func(tx *sql.Tx) error {
			return s.putResponsesTx(ctx, tx, rs[lo:hi], lo)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// PutResponseBatch records rs as PutResponses does, all in one
// transaction whatever their number: stored whole or not at all. The
// judge engine's writer bounds its batches itself and commits a large one
// at once, since a commit rewrites every index page it touched. The
// responses are written in writeOrder.
func (s *Store) PutResponseBatch(ctx context.Context, rs []Response) error {
	if len(rs) == 0 {
		return nil
	}
	order := s.writeOrder(rs, nil)
	return s.tx(ctx, func(tx *sql.Tx) error {
		return s.putResponsesOrdered(ctx, tx, rs, 0, order, nil, nil)
	})
}

// writeOrder is the order in which a batch's responses are written, as
// indices of rs reusing buf, or nil for the order they come in. Before
// schema version 7 it is the request-key order (keyOrder), so that the
// key index on study_requests, whose pages a hash scatters, is walked
// once in order rather than at random through a small page cache. From
// version 7 no writer touches the key index (request_keys.go), and the
// order they come in (a run's plan or answer order) keeps the inserts
// into the coordinates' index together: the offline run of 608,000
// requests took 7.2–7.5 s against 8.5–9.6 s in key order
// (docs/performance.md, "Request keys in bulk"). Row ids follow the
// order written; nothing reads them as plan order.
func (s *Store) writeOrder(rs []Response, buf []int) []int {
	if s.separateKeys() {
		return nil
	}
	return keyOrder(rs, buf)
}

// keyOrder fills buf with the indices of rs in request-key order
// (stable: responses to one key keep theirs) and returns it.
func keyOrder(rs []Response, buf []int) []int {
	buf = buf[:0]
	for i := range rs {
		buf = append(buf, i)
	}
	slices.SortStableFunc(buf, func(a, b int) int { return strings.Compare(rs[a].Key, rs[b].Key) })
	return buf
}

// putResponsesTx writes rs inside tx; offset numbers them in errors.
func (s *Store) putResponsesTx(ctx context.Context, tx *sql.Tx, rs []Response, offset int) error {
	return s.putResponsesOrdered(ctx, tx, rs, offset, nil, nil, nil)
}

// putResponsesOrdered is putResponsesTx writing rs in the order of the
// indices order lists (nil: as they come).
//
// pre, when not nil, holds the statements prepared once on the writer
// connection (ResponseWriter); otherwise they are prepared in tx. log,
// when not nil, is told what became of each request row (foldLog.note).
func (s *Store) putResponsesOrdered(ctx context.Context, tx *sql.Tx, rs []Response, offset int, order []int, pre *writeStmts, log *foldLog) error {
	secrets := s.knownSecrets()
	upReq, err := prepareRequestUpsert(ctx, tx, pre)
	if err != nil {
		return err
	}
	defer upReq.Close()
	insResp, err := pre.stmt(ctx, tx, pre.get((*writeStmts).insRespStmt), sqlInsertResponse)
	if err != nil {
		return err
	}
	defer insResp.Close()
	// The response rows go in chunks of responseChunk per statement (the
	// rest one by one), in the order they come: the same rows and ids as
	// one statement per row.
	var insResps *sql.Stmt
	rows := make([]any, 0, responseCols*responseChunk)
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		var err error
		if len(rows) == responseCols*responseChunk {
			if insResps == nil {
				if insResps, err = pre.stmt(ctx, tx, pre.get((*writeStmts).insRespsStmt), sqlInsertResponses); err != nil {
					return err
				}
			}
			_, err = insResps.ExecContext(ctx, rows...)
		} else {
			for lo := 0; lo < len(rows) && err == nil; lo += responseCols {
				_, err = insResp.ExecContext(ctx, rows[lo:lo+responseCols]...)
			}
		}
		clear(rows)
		rows = rows[:0]
		return err
	}
	defer func() {
		if insResps != nil {
			insResps.Close()
		}
	}()
	first := 0 // the index in rs of rows' first response, for errors
	// Request rows are recorded requestChunk at a time (putChunk), then
	// their responses are queued for insertion in the same order.
	pend := make([]pendingRequest, 0, requestChunk)
	idx := make([]int, 0, requestChunk) // pend's indices in rs
	record := func() error {
		bad, err := upReq.putChunk(ctx, pend)
		if err != nil {
			i := idx[bad]
			return responseErr(offset+i, &rs[i], err)
		}
		log.note(pend)
		for j := range pend {
			p := &pend[j]
			if !p.add {
				continue // a later answer to an answered request: the first stands
			}
			r, i := p.r, idx[j]
			ok := 0
			if r.Answered() {
				ok = 1
			}
			t := r.Time
			if t.IsZero() {
				t = time.Now()
			}
			var logprobs any
			if len(r.Logprobs) > 0 {
				logprobs = string(r.Logprobs)
			}
			if len(rows) == 0 {
				first = offset + i
			}
			// Every path (live run, batch import, cache copy) passes here,
			// so this is where credentials are removed: the model's text
			// loses registered secrets and credential-shaped strings and
			// is kept to a bounded prefix; error messages also lose
			// key=value pairs.
			rows = append(rows, p.id, ok, clipRaw(redactRaw(r.Raw, secrets)), nullFloat(r.Score), logprobs,
				r.PromptTokens, r.CachedTokens, r.CompletionTokens, int64(r.Latency),
				r.ErrKind, Redact(r.Err, secrets...), formatTime(t))
			if len(rows) == cap(rows) {
				if err := flush(); err != nil {
					return fmt.Errorf("responses from %d on: %w", first, err)
				}
			}
		}
		clear(pend)
		pend, idx = pend[:0], idx[:0]
		return nil
	}
	for n := range rs {
		i := n
		if order != nil {
			i = order[n]
		}
		r := &rs[i]
		where := func(err error) error { return responseErr(offset+i, r, err) }
		if err := checkResponse(r); err != nil {
			return where(err)
		}
		if len(r.Logprobs) > 0 && !json.Valid(r.Logprobs) {
			return where(errors.New("logprobs are not valid JSON"))
		}
		if err := checkRequest(&r.Request); err != nil {
			return where(err)
		}
		st, err := upReq.study(ctx, &r.Request)
		if err != nil {
			return where(err)
		}
		pend = append(pend, pendingRequest{r: r, st: st})
		idx = append(idx, i)
		if len(pend) == requestChunk {
			if err := record(); err != nil {
				return err
			}
		}
	}
	if err := record(); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return fmt.Errorf("responses from %d on: %w", first, err)
	}
	return upReq.finish(ctx)
}

// responseErr names response n of a batch, and r's coordinates, in err.
func responseErr(n int, r *Response, err error) error {
	return fmt.Errorf("response %d (%s/%s %s/%s %s): %w", n, r.Judge, r.Dataset, r.Context, r.Candidate, r.Probe, err)
}

// responseCols is the number of values in a row of sqlInsertResponse;
// responseChunk the rows sqlInsertResponses inserts at once, and
// requestChunk the rows sqlInsertRequests.
const (
	responseCols  = 12
	responseChunk = 32
	requestChunk  = 32
)

// MaxRawBytes bounds the reply text stored with a response: a longer one
// keeps its first MaxRawBytes bytes (cut at a UTF-8 boundary) and a note
// of its full length.
const MaxRawBytes = 64 << 10

func clipRaw(s string) string {
	if len(s) <= MaxRawBytes {
		return s
	}
	cut := MaxRawBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… [cut: %d bytes in all]", len(s))
}

func checkResponse(r *Response) error {
	switch {
	case r.ErrKind == "" && r.Err != "":
		return errors.New("response has an error message but no error kind")
	case math.IsInf(r.Score, 0):
		return errors.New("score is infinite")
	}
	return nil
}

func checkRequest(r *Request) error {
	switch {
	case r.Key == "":
		return errors.New("request has no key")
	case r.Probe == "":
		return errors.New("request has no probe")
	case r.Context == "" || r.Candidate == "":
		return errors.New("request has no context or candidate id")
	}
	return nil
}

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
	args := u.args[:0]
	for j := range ps {
		r := ps[j].r
		answer, failures := outcome(r)
		args = append(args, ps[j].st.id, keyValue(r.Key), r.Context, r.Candidate, r.Probe, r.Wording, r.Run, answer, failures)
	}
	u.args = args
	if u.insN == nil {
		var err error
		if u.insN, err = u.pre.stmt(ctx, u.tx, u.pre.get((*writeStmts).insReqsStmt), sqlInsertRequests); err != nil {
			return 0, err
		}
	}
	res, err := u.insN.ExecContext(ctx, args...)
	clear(args)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	last, err := res.LastInsertId()
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

// coord is a request's coordinates within one (judge, dataset, bank).
type coord struct{ context, candidate, probe, wording, run string }

// Pending returns the requests of reqs, in order, that have no answer at
// their coordinates yet; failed attempts do not count as answers. A judge
// or dataset not yet stored has no answers. Before sending a pending
// request, the judge engine should still ask CachedAnswer whether the same
// messages were answered at other coordinates.
func (s *Store) Pending(ctx context.Context, reqs []Request) ([]Request, error) {
	type group struct{ judge, dataset, bank string }
	answered := map[group]map[coord]bool{}
	var out []Request
	for _, r := range reqs {
		g := group{r.Judge, r.Dataset, r.BankHash}
		set, ok := answered[g]
		if !ok {
			var err error
			if set, err = s.answeredSet(ctx, s.r, g.judge, g.dataset, g.bank); err != nil {
				return nil, err
			}
			answered[g] = set
		}
		if !set[coord{r.Context, r.Candidate, r.Probe, r.Wording, r.Run}] {
			out = append(out, r)
		}
	}
	return out, nil
}

// AnsweredSet holds the coordinates of a study's answers (one judge,
// dataset and bank hash), for a planner that asks about its requests one
// by one without first building them all (Pending does that for a list).
// It is either a set of its own or a view of a StudyAnswers.
type AnsweredSet struct {
	set  map[coord]bool
	view *answeredView
}

// Answered reads the coordinates of judge's answers on dataset under one
// bank hash; failed attempts are not answers. A judge or dataset not yet
// stored has none.
func (s *Store) Answered(ctx context.Context, judge, dataset, bankHash string) (AnsweredSet, error) {
	set, err := s.answeredSet(ctx, s.r, judge, dataset, bankHash)
	return AnsweredSet{set: set}, err
}

// Len is the number of answered coordinates.
func (a AnsweredSet) Len() int {
	if a.view != nil {
		return a.view.n
	}
	return len(a.set)
}

// Has reports whether the request at these coordinates (of the set's
// judge, dataset and bank) has an answer.
func (a AnsweredSet) Has(context, candidate, probe, wording, run string) bool {
	if a.view != nil {
		return a.view.has(context, candidate, probe, wording, run)
	}
	return a.set[coord{context, candidate, probe, wording, run}]
}

// Each calls f with the coordinates of every answer in the set, in no
// particular order.
func (a AnsweredSet) Each(f func(context, candidate, probe, wording, run string)) {
	if a.view != nil {
		a.view.each(f)
		return
	}
	for c := range a.set {
		f(c.context, c.candidate, c.probe, c.wording, c.run)
	}
}

// AnsweredRuns returns, for each of keys with an answer at any
// coordinates, the run labels answered: the (key, run) pairs CachedAnswers
// would find, without their answers. A planner that counts rather than
// stores (an estimate of many runs) asks this instead.
func (s *Store) AnsweredRuns(ctx context.Context, keys []string) (map[string][]string, error) {
	out := map[string][]string{}
	err := s.keyChunks(ctx, keys, func(where string, args []any) error {
		rows, err := s.r.QueryContext(ctx, `
			SELECT DISTINCT r.key, r.run
			FROM `+s.keyTable()+` k
			JOIN requests r ON r.id = k.id
			JOIN responses p ON p.request_id = r.id AND p.ok = 1
			WHERE `+where, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k, run string
			if err := rows.Scan(&k, &run); err != nil {
				return err
			}
			out[k] = append(out[k], run)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	for _, runs := range out {
		slices.Sort(runs) // in an order that does not depend on the index's
	}
	return out, nil
}

// keyChunks calls fn with keys in chunks of keyChunk keys, as the
// condition (keyMatch) and arguments of one look-up of keyTable each,
// after indexing the keys of the tail (indexKeys).
func (s *Store) keyChunks(ctx context.Context, keys []string, fn func(where string, args []any) error) error {
	if len(keys) == 0 {
		return nil
	}
	if err := s.indexKeys(ctx); err != nil {
		return fmt.Errorf("indexing request keys: %w", err)
	}
	chunk, err := s.keyChunk(ctx)
	if err != nil {
		return err
	}
	for len(keys) > 0 {
		n := min(len(keys), chunk)
		if err := fn(s.keyMatch(n), s.keyArgs(keys[:n])); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}

// AnyAnswer reports whether the workspace holds any answer at all: when it
// holds none, no request can be answered from the cache (CachedAnswers).
func (s *Store) AnyAnswer(ctx context.Context) (bool, error) {
	var answered bool
	q := `SELECT EXISTS (SELECT 1 FROM responses WHERE ok = 1)`
	if s.compact() {
		q = `SELECT EXISTS (SELECT 1 FROM study_requests WHERE answer IS NOT NULL)`
	}
	err := s.r.QueryRowContext(ctx, q).Scan(&answered)
	return answered, err
}

// querier is what *sql.DB and *sql.Tx share for reading.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// answeredSet returns the coordinates of judge on dataset under one bank
// hash that have an answer.
func (s *Store) answeredSet(ctx context.Context, q querier, judge, dataset, bank string) (map[coord]bool, error) {
	query := `
		SELECT r.context, r.candidate, r.probe, r.wording, r.run
		FROM requests r
		JOIN judges j ON j.id = r.judge_id
		JOIN datasets d ON d.id = r.dataset_id
		JOIN responses p ON p.request_id = r.id AND p.ok = 1
		WHERE j.name = ? AND d.name = ? AND r.bank_hash = ?`
	if s.compact() {
		query = `
		SELECT r.context, r.candidate, r.probe, r.wording, r.run
		FROM studies st
		JOIN judges j ON j.id = st.judge_id
		JOIN datasets d ON d.id = st.dataset_id
		JOIN study_requests r ON r.study_id = st.id
		WHERE j.name = ? AND d.name = ? AND st.bank_hash = ? AND r.answer IS NOT NULL`
	}
	rows, err := q.QueryContext(ctx, query, judge, dataset, bank)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	set := map[coord]bool{}
	for rows.Next() {
		var c coord
		if err := rows.Scan(&c.context, &c.candidate, &c.probe, &c.wording, &c.run); err != nil {
			return nil, err
		}
		set[c] = true
	}
	return set, rows.Err()
}

// CachedAnswer returns a stored answer to a request with this key and run
// label at any coordinates, so that identical messages are never sent
// twice. ok is false when there is none; failures are never returned.
func (s *Store) CachedAnswer(ctx context.Context, key, run string) (r Response, ok bool, err error) {
	got, err := s.CachedAnswers(ctx, [][2]string{{key, run}})
	if err != nil {
		return Response{}, false, err
	}
	r, ok = got[[2]string{key, run}]
	return r, ok, nil
}

// cachedChunk bounds the keys of one CachedAnswers query (SQLite's limit
// on bound parameters is far higher; this keeps each statement small).
const cachedChunk = 500

// tailChunk bounds the keys of one look-up by a read-only store of
// schema version 7 or later whose tail (the request rows not yet in
// request_keys) is not empty: each statement scans the tail once. 8,000
// keys are 24,000 bound parameters, under SQLite's limit of 32,766. At
// 500 keys a statement, 38,000 keys against a tail of 121,600 rows took
// 6.7 s (76 scans); at 8,000, 2.2–2.4 s (5 scans), against 1.4–1.9 s
// for the same look-up through version 6's index.
const tailChunk = 8000

// keyChunk is how many keys one look-up statement takes: tailChunk when
// the statements will scan a tail (a read-only store cannot index it),
// else cachedChunk (an indexed look-up of 38,000 keys took 1.5 s in
// statements of 500 keys, 2.0–2.2 s in statements of 8,000).
func (s *Store) keyChunk(ctx context.Context) (int, error) {
	if !s.readOnly || !s.separateKeys() {
		return cachedChunk, nil
	}
	var behind bool
	if err := s.r.QueryRowContext(ctx, sqlKeysBehind).Scan(&behind); err != nil {
		return 0, err
	}
	if behind {
		return tailChunk, nil
	}
	return cachedChunk, nil
}

// CachedAnswers is CachedAnswer for many (key, run) pairs at once: for
// each pair with a stored answer at any coordinates, the earliest one.
// It asks the key index (request_keys and the tail; study_requests_key
// in versions 5 and 6, requests_key before) in a few statements rather
// than one query per pair, which is what a planner resolving thousands
// of requests needs.
func (s *Store) CachedAnswers(ctx context.Context, want [][2]string) (map[[2]string]Response, error) {
	out := map[[2]string]Response{}
	if len(want) == 0 {
		return out, nil
	}
	// A workspace with no answer at all (a new study) needs no look-up.
	answered, err := s.AnyAnswer(ctx)
	if err != nil {
		return nil, err
	}
	if !answered {
		return out, nil
	}
	wanted := make(map[[2]string]bool, len(want))
	var keys []string
	seen := map[string]bool{}
	for _, w := range want {
		wanted[w] = true
		if !seen[w[0]] {
			seen[w[0]] = true
			keys = append(keys, w[0])
		}
	}
	if err := s.keyChunks(ctx, keys, func(where string, args []any) error { return s.cachedChunk(ctx, where, args, wanted, out) }); err != nil {
		return nil, err
	}
	return out, nil
}

// cachedChunk adds to out the earliest answer of every wanted (key, run)
// whose key is among keys.
func (s *Store) cachedChunk(ctx context.Context, where string, args []any, wanted map[[2]string]bool, out map[[2]string]Response) error {
	rows, err := s.r.QueryContext(ctx, `
		SELECT r.key, j.name, d.name, r.context, r.candidate, r.bank_hash, r.probe, r.wording, r.run,
		       p.raw, p.score, p.logprobs, p.prompt_tokens, p.cached_tokens, p.completion_tokens,
		       p.latency_ns, p.created
		FROM `+s.keyTable()+` k
		JOIN requests r ON r.id = k.id
		JOIN judges j ON j.id = r.judge_id
		JOIN datasets d ON d.id = r.dataset_id
		JOIN responses p ON p.request_id = r.id AND p.ok = 1
		WHERE `+where+`
		ORDER BY p.id`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var r Response
		var score sql.NullFloat64
		var logprobs sql.NullString
		var latency int64
		var created string
		if err := rows.Scan(&r.Key, &r.Judge, &r.Dataset, &r.Context, &r.Candidate, &r.BankHash, &r.Probe, &r.Wording, &r.Run,
			&r.Raw, &score, &logprobs, &r.PromptTokens, &r.CachedTokens, &r.CompletionTokens, &latency, &created); err != nil {
			return err
		}
		k := [2]string{r.Key, r.Run}
		if _, done := out[k]; done || !wanted[k] {
			continue
		}
		r.Score = math.NaN()
		if score.Valid {
			r.Score = score.Float64
		}
		if logprobs.Valid {
			r.Logprobs = json.RawMessage(logprobs.String)
		}
		r.Latency = time.Duration(latency)
		r.Time = parseTime(created)
		out[k] = r
	}
	return rows.Err()
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

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

	"github.com/prism-eval/prism/model/store/redact"
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
	up, err := prepareRequestUpsert(ctx, tx, pre)
	if err != nil {
		return err
	}
	defer up.Close()
	// b, with its queues, lives on the stack: a server judge's writer
	// commits batches of a few answers, one call each.
	b := responseBatch{ctx: ctx, rs: rs, offset: offset, secrets: s.knownSecrets(), up: up, log: log}
	b.out = responseRows{ctx: ctx, tx: tx, pre: pre}
	if b.out.one, err = pre.stmt(ctx, tx, pre.get((*writeStmts).insRespStmt), sqlInsertResponse); err != nil {
		return err
	}
	defer b.out.Close()
	for n := range rs {
		i := n
		if order != nil {
			i = order[n]
		}
		if err := b.queue(i); err != nil {
			return err
		}
	}
	if err := b.record(); err != nil {
		return err
	}
	if err := b.out.flush(); err != nil {
		return err
	}
	return up.finish(ctx)
}

// responseBatch is one putResponsesOrdered: request rows are recorded
// requestChunk at a time (putChunk), then their responses are queued for
// insertion (responseRows) in the same order.
type responseBatch struct {
	ctx     context.Context
	rs      []Response
	offset  int      // the index of rs[0] in the caller's batch, for errors
	secrets []string // registered secrets, removed from what is written
	up      *requestUpsert
	log     *foldLog
	out     responseRows
	n       int // requests queued in pend
	pend    [requestChunk]pendingRequest
	idx     [requestChunk]int // pend's indices in rs
}

// queue checks rs[i] and queues its request row, recording the queue
// when it holds a chunk.
func (b *responseBatch) queue(i int) error {
	r := &b.rs[i]
	if err := checkStored(r); err != nil {
		return responseErr(b.offset+i, r, err)
	}
	st, err := b.up.study(b.ctx, &r.Request)
	if err != nil {
		return responseErr(b.offset+i, r, err)
	}
	b.pend[b.n], b.idx[b.n] = pendingRequest{r: r, st: st}, i
	b.n++
	if b.n == requestChunk {
		return b.record()
	}
	return nil
}

// record records the queued request rows and queues the responses to be
// added.
func (b *responseBatch) record() error {
	pend := b.pend[:b.n]
	bad, err := b.up.putChunk(b.ctx, pend)
	if err != nil {
		i := b.idx[bad]
		return responseErr(b.offset+i, &b.rs[i], err)
	}
	b.log.note(pend)
	for j := range pend {
		p := &pend[j]
		if !p.add {
			continue // a later answer to an answered request: the first stands
		}
		if err := b.out.add(p.id, p.r, b.offset+b.idx[j], b.secrets); err != nil {
			return err
		}
	}
	clear(pend)
	b.n = 0
	return nil
}

// responseRows inserts response rows responseChunk per statement (the
// rest one by one), in the order they come: the same rows and ids as one
// statement per row.
type responseRows struct {
	ctx   context.Context
	tx    *sql.Tx
	pre   *writeStmts
	one   *sql.Stmt // sqlInsertResponse
	many  *sql.Stmt // sqlInsertResponses, prepared when first needed
	first int       // the number of the first response queued, for errors
	n     int       // values queued in buf
	buf   [responseCols * responseChunk]any
}

func (w *responseRows) Close() {
	if w.many != nil {
		w.many.Close()
	}
	w.one.Close()
}

// add queues the row of r, response n of the caller's batch, whose
// request row is id; a full chunk is inserted.
func (w *responseRows) add(id int64, r *Response, n int, secrets []string) error {
	if w.n == 0 {
		w.first = n
	}
	// buf has room for the row: it is flushed as soon as it is full.
	w.n += len(appendResponseRow(w.buf[w.n:w.n], id, r, secrets))
	if w.n == len(w.buf) {
		return w.flush()
	}
	return nil
}

// flush inserts the rows queued.
func (w *responseRows) flush() error {
	if w.n == 0 {
		return nil
	}
	rows := w.buf[:w.n]
	err := w.insert(rows)
	clear(rows)
	w.n = 0
	if err != nil {
		return fmt.Errorf("responses from %d on: %w", w.first, err)
	}
	return nil
}

func (w *responseRows) insert(rows []any) error {
	if len(rows) == len(w.buf) {
		if w.many == nil {
			var err error
			if w.many, err = w.pre.stmt(w.ctx, w.tx, w.pre.get((*writeStmts).insRespsStmt), sqlInsertResponses); err != nil {
				return err
			}
		}
		_, err := w.many.ExecContext(w.ctx, rows...)
		return err
	}
	var err error
	for lo := 0; lo < len(rows) && err == nil; lo += responseCols {
		_, err = w.one.ExecContext(w.ctx, rows[lo:lo+responseCols]...)
	}
	return err
}

// appendResponseRow appends to rows the values of r's row in
// sqlInsertResponse, for request row id.
//
// Every path (live run, batch import, cache copy) passes here, so this
// is where credentials are removed: the model's text loses registered
// secrets and credential-shaped strings and is kept to a bounded
// prefix; error messages also lose key=value pairs.
func appendResponseRow(rows []any, id int64, r *Response, secrets []string) []any {
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
	return append(rows, id, ok, clipRaw(redact.Reply(r.Raw, secrets)), nullFloat(r.Score), logprobs,
		r.PromptTokens, r.CachedTokens, r.CompletionTokens, int64(r.Latency),
		r.ErrKind, redact.Text(r.Err, secrets...), formatTime(t))
}

// checkStored checks what a response must be to be stored.
func checkStored(r *Response) error {
	if err := checkResponse(r); err != nil {
		return err
	}
	if len(r.Logprobs) > 0 && !json.Valid(r.Logprobs) {
		return errors.New("logprobs are not valid JSON")
	}
	return checkRequest(&r.Request)
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

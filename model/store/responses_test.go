package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

const testBank = "bank-hash-1"

func seedJudgeAndDataset(t testing.TB, s *Store) {
	t.Helper()
	ctx := context.Background()
	if err := s.PutDataset(ctx, tinyDataset("tiny"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutJudge(ctx, Judge{Name: "j", Backend: "openai", Model: "gpt-x", Params: map[string]any{"temperature": 0}}); err != nil {
		t.Fatal(err)
	}
}

func keyOf(ctxID, cand, probe string) string {
	k, err := RequestKey("openai", "gpt-x", map[string]any{"temperature": 0},
		[]Message{{"system", "sys " + probe}, {"user", ctxID + "/" + cand}})
	if err != nil {
		panic(err)
	}
	return k
}

func req(ctxID, cand, probe, run string) Request {
	return Request{Key: keyOf(ctxID, cand, probe), Judge: "j", Dataset: "tiny", Context: ctxID, Candidate: cand,
		BankHash: testBank, Probe: probe, Wording: "0", Run: run}
}

func answer(ctxID, cand, probe, run string, score float64) Response {
	return Response{Request: req(ctxID, cand, probe, run), Raw: fmt.Sprintf(`{"score": %g}`, score), Score: score,
		PromptTokens: 100, CachedTokens: 64, CompletionTokens: 7, Latency: 1500 * time.Millisecond,
		Logprobs: []byte(`[{"token":"4","logprob":-0.1}]`)}
}

func failure(ctxID, cand, probe, run, kind string) Response {
	return Response{Request: req(ctxID, cand, probe, run), Score: math.NaN(), ErrKind: kind, Err: kind + " happened"}
}

func TestFailuresAreNeverAnswers(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	plan := []Request{req("c2", "b", "baseline", "0"), req("c2", "a", "baseline", "0"), req("c1", "x", "baseline", "0")}

	// b answered; a failed twice; x never tried.
	err := s.PutResponses(ctx, []Response{
		answer("c2", "b", "baseline", "0", 4),
		failure("c2", "a", "baseline", "0", "timeout"),
		failure("c2", "a", "baseline", "0", "http-429"),
		failure("c2", "b", "baseline", "0", "timeout"), // a failure after the answer changes nothing
	})
	if err != nil {
		t.Fatal(err)
	}
	pending, err := s.Pending(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != 2 || pending[0].Candidate != "a" || pending[1].Candidate != "x" {
		t.Fatalf("Pending = %+v, want a and x", pending)
	}
	fails, err := s.Failures(ctx, "tiny", "j")
	if err != nil {
		t.Fatal(err)
	}
	if fails["timeout"] != 2 || fails["http-429"] != 1 || len(fails) != 2 {
		t.Errorf("Failures = %v, want timeout:2 http-429:1", fails)
	}
	// Two coordinates recorded (b and a; x was never tried), one answered,
	// three failed attempts.
	if p, err := s.Progress(ctx, "tiny", "j", testBank); err != nil || p != (Progress{Requests: 2, Answered: 1, Failures: 3}) {
		t.Errorf("Progress = %+v, %v; want 2 requests, 1 answered, 3 failures", p, err)
	}
	if _, ok, err := s.CachedAnswer(ctx, keyOf("c2", "a", "baseline"), "0"); err != nil || ok {
		t.Errorf("CachedAnswer for a request that only failed: ok = %v, err = %v; want none", ok, err)
	}

	// Once a is answered it is no longer pending.
	if err := s.PutResponses(ctx, []Response{answer("c2", "a", "baseline", "0", 2)}); err != nil {
		t.Fatal(err)
	}
	pending, err = s.Pending(ctx, plan)
	if err != nil {
		t.Fatal(err)
	}
	if len(pending) != 1 || pending[0].Candidate != "x" {
		t.Fatalf("Pending after answering a = %+v, want only x", pending)
	}
}

func TestFirstAnswerStands(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	if err := s.PutResponses(ctx, []Response{answer("c1", "x", "baseline", "0", 3)}); err != nil {
		t.Fatal(err)
	}
	if err := s.PutResponses(ctx, []Response{answer("c1", "x", "baseline", "0", 5)}); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Scores(ctx, "tiny", "j", testBank)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Score != 3 {
		t.Fatalf("Scores = %+v, want the one first answer, 3", rows)
	}
}

func TestCachedAnswerRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	want := answer("c2", "b", "quality:+", "1", 4.5)
	want.Wording = "0"
	if err := s.PutResponses(ctx, []Response{want}); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.CachedAnswer(ctx, want.Key, "1")
	if err != nil || !ok {
		t.Fatalf("CachedAnswer: ok = %v, err = %v", ok, err)
	}
	if got.Request != want.Request || got.Raw != want.Raw || got.Score != want.Score ||
		string(got.Logprobs) != string(want.Logprobs) || got.PromptTokens != 100 || got.CachedTokens != 64 ||
		got.CompletionTokens != 7 || got.Latency != want.Latency || got.Time.IsZero() {
		t.Fatalf("CachedAnswer = %+v\nwant %+v", got, want)
	}
	if _, ok, _ := s.CachedAnswer(ctx, want.Key, "0"); ok {
		t.Error("CachedAnswer matched another run label")
	}
}

// rejectCase is a response the store refuses next to a stored answer
// answer("c1", "x", "baseline", "0", 3), and what the error mentions.
type rejectCase struct {
	r    Response
	want string
}

// rejectCases are the responses every write path (PutResponses,
// PutResponseBatch, ResponseWriter.Put) refuses.
func rejectCases() []rejectCase {
	edit := func(f func(*Response)) Response {
		r := answer("c1", "x", "baseline", "0", 3)
		f(&r)
		return r
	}
	return []rejectCase{
		{edit(func(r *Response) { r.Key = keyOf("c1", "x", "edited") }), "request text changed"},
		{edit(func(r *Response) { r.Judge = "ghost" }), `judge "ghost": not found`},
		{edit(func(r *Response) { r.Dataset = "ghost" }), `dataset "ghost": not found`},
		{edit(func(r *Response) { r.Key = "" }), "no key"},
		{edit(func(r *Response) { r.Err = "oops" }), "no error kind"},
		{edit(func(r *Response) { r.Logprobs = []byte("{not json") }), "logprobs"},
	}
}

func TestPutResponsesRejects(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	if err := s.PutResponses(ctx, []Response{answer("c1", "x", "baseline", "0", 3)}); err != nil {
		t.Fatal(err)
	}
	changed := answer("c1", "x", "baseline", "1", 3)
	changed.Key = keyOf("c1", "x", "something else")
	if err := s.PutResponses(ctx, []Response{changed}); err != nil {
		t.Fatal(err) // a new run with a new key is fine
	}
	for _, tc := range rejectCases() {
		err := s.PutResponses(ctx, []Response{tc.r})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("PutResponses: err = %v, want it to mention %q", err, tc.want)
		}
	}
	unknownJudge := answer("c1", "x", "baseline", "0", 3)
	unknownJudge.Judge = "ghost"
	if err := s.PutResponses(ctx, []Response{unknownJudge}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown judge: err = %v, want ErrNotFound", err)
	}
}

// TestBatchesCommitIndependently checks that PutResponses commits whole
// batches: a bad row in the second batch leaves the first batch stored and
// nothing of the second.
func TestBatchesCommitIndependently(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	rs := make([]Response, BatchSize+10)
	for i := range rs {
		rs[i] = answer("c1", "x", "baseline", fmt.Sprint(i), 3)
	}
	rs[BatchSize+5].Key = "" // poison the second batch
	err := s.PutResponses(ctx, rs)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("response %d", BatchSize+5)) {
		t.Fatalf("err = %v, want it to name response %d", err, BatchSize+5)
	}
	rows, err := s.Scores(ctx, "tiny", "j", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != BatchSize {
		t.Fatalf("%d rows stored, want exactly the first batch of %d", len(rows), BatchSize)
	}
}

// TestConcurrentUse writes from several goroutines while others read; run
// with -race. Every write must land and no call may fail with SQLITE_BUSY.
func TestConcurrentUse(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	const writers, perWriter = 4, 15
	var wg sync.WaitGroup
	errs := make(chan error, 2*writers)
	for w := 0; w < writers; w++ {
		wg.Add(2)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				if err := s.PutResponses(ctx, []Response{answer("c2", "b", "baseline", fmt.Sprintf("%d-%d", w, i), 4)}); err != nil {
					errs <- err
					return
				}
			}
		}(w)
		go func() {
			defer wg.Done()
			for i := 0; i < perWriter; i++ {
				if _, err := s.Scores(ctx, "tiny", "j", testBank); err != nil {
					errs <- err
					return
				}
				if _, err := s.Pending(ctx, []Request{req("c1", "x", "baseline", "0")}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	rows, err := s.Scores(ctx, "tiny", "j", testBank)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != writers*perWriter {
		t.Fatalf("%d rows after concurrent writes, want %d", len(rows), writers*perWriter)
	}
}

// TestRawRedactedAndBoundedAtTheStore: whatever path writes a response
// (here none registered a secret, as a batch import might not), a key
// echoed in the reply is not stored and a huge reply keeps a prefix.
func TestRawRedactedAndBoundedAtTheStore(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	const key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"
	echo := answer("c1", "x", "baseline", "0", 3)
	echo.Raw = `{"score": 3} your key ` + key + ` was in the prompt`
	big := answer("c2", "a", "baseline", "0", 4)
	big.Raw = `{"score": 4}` + strings.Repeat("é", MaxRawBytes) // 2 bytes a rune: cut mid-rune
	if err := s.PutResponses(ctx, []Response{echo, big}); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.CachedAnswer(ctx, echo.Key, "0")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if strings.Contains(got.Raw, "abcdefghijklmnop") || !strings.Contains(got.Raw, "[redacted]") {
		t.Errorf("stored raw = %q, want the key redacted", got.Raw)
	}
	got, ok, err = s.CachedAnswer(ctx, big.Key, "0")
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if len(got.Raw) > MaxRawBytes+64 || !utf8.ValidString(got.Raw) || !strings.Contains(got.Raw, "bytes in all]") {
		t.Errorf("stored raw of %d bytes (valid UTF-8: %v), want at most %d and a note", len(got.Raw), utf8.ValidString(got.Raw), MaxRawBytes+64)
	}
}

// dump is a workspace's requests and responses, independent of row ids
// and write order: what PutResponses and PutResponseBatch must agree on.
func dump(t *testing.T, s *Store) []string {
	t.Helper()
	rows, err := s.r.QueryContext(context.Background(), `
		SELECT r.key, r.context, r.candidate, r.bank_hash, r.probe, r.wording, r.run,
		       coalesce(p.ok, -1), coalesce(p.raw, ''), coalesce(p.score, -99), coalesce(p.error_kind, ''), coalesce(p.error, ''),
		       coalesce(p.prompt_tokens, 0), coalesce(p.logprobs, '')
		FROM requests r LEFT JOIN responses p ON p.request_id = r.id`)
	out := scanRows(t, rows, err, func(f []any) string { return fmt.Sprint(f) })
	slices.Sort(out)
	return out
}

// seededPair is two workspaces holding the same dataset and judge, for
// tests that write the same responses two ways, and a random source.
func seededPair(t *testing.T, seed1, seed2 uint64) (a, b *Store, rng *rand.Rand) {
	t.Helper()
	a, b = openTemp(t), openTemp(t)
	seedJudgeAndDataset(t, a)
	seedJudgeAndDataset(t, b)
	return a, b, rand.New(rand.NewPCG(seed1, seed2))
}

// testCands and testProbes are coordinates of tinyDataset's candidates
// and of probes those tests draw from.
var (
	testCands  = [][2]string{{"c2", "b"}, {"c2", "a"}, {"c1", "x"}}
	testProbes = []string{"baseline", "len:+", "len:-", "neutral:x"}
)

// PutResponseBatch stores what PutResponses stores: new requests,
// requests recorded before (by a failure, or earlier in the same batch),
// first answers standing over later ones, failures always added, across
// chunk boundaries.
func TestPutResponseBatchEqualsPutResponses(t *testing.T) {
	ctx := context.Background()
	a, b, rng := seededPair(t, 1, 2)
	cands, probes := testCands, testProbes
	for round := range 4 {
		var rs []Response
		for range 3*64 + 17 {
			c := cands[rng.IntN(len(cands))]
			p := probes[rng.IntN(len(probes))]
			run := fmt.Sprint(rng.IntN(40))
			if rng.IntN(4) == 0 {
				rs = append(rs, failure(c[0], c[1], p, run, "timeout"))
			} else {
				rs = append(rs, answer(c[0], c[1], p, run, float64(rng.IntN(10)+round)))
			}
		}
		if err := a.PutResponses(ctx, rs); err != nil {
			t.Fatal(err)
		}
		if err := b.PutResponseBatch(ctx, rs); err != nil {
			t.Fatal(err)
		}
	}
	da, db := dump(t, a), dump(t, b)
	if !slices.Equal(da, db) {
		t.Fatalf("PutResponses stored %d rows, PutResponseBatch %d; they differ", len(da), len(db))
	}
	if pa, _ := a.Progress(ctx, "tiny", "j", testBank); pa.Failures == 0 || pa.Answered == 0 {
		t.Fatalf("progress %+v: want answers and failures", pa)
	}
}

// PutResponseBatch refuses what PutResponses refuses, naming the response,
// and stores nothing of a refused batch.
func TestPutResponseBatchRejects(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	putRefusedBatches(t, s, "PutResponseBatch", func(rs []Response) error { return s.PutResponseBatch(ctx, rs) })
}

// putRefusedBatches stores one answer with put, then puts each of
// rejectCases after a good response, and checks that each is refused with
// an error mentioning its reason and every one of also, and that the
// refused batches left no row. It returns the rows stored.
func putRefusedBatches(t *testing.T, s *Store, name string, put func([]Response) error, also ...string) []string {
	t.Helper()
	if err := put([]Response{answer("c1", "x", "baseline", "0", 3)}); err != nil {
		t.Fatal(err)
	}
	before := dump(t, s)
	for _, tc := range rejectCases() {
		err := put([]Response{answer("c2", "a", "baseline", "7", 1), tc.r})
		ok := err != nil && strings.Contains(err.Error(), tc.want)
		for _, a := range also {
			ok = ok && strings.Contains(err.Error(), a)
		}
		if !ok {
			t.Errorf("%s: err = %v, want it to mention %q and %q", name, err, tc.want, also)
		}
	}
	if after := dump(t, s); !slices.Equal(before, after) {
		t.Errorf("refused batches left rows: %d before, %d after", len(before), len(after))
	}
	return before
}

// TestWriterStatementJournalInMemory: the writer keeps its statement
// journals in memory (temp_store=MEMORY; docs/performance.md, "Statement
// journals in memory"), and a statement that fails part-way through a
// transaction is still undone alone: an UPDATE of 3,000 rows of 1 KB (far
// past the 64 KiB at which SQLite would spill the journal to a file)
// failing on its last row leaves every row as it was, while the
// transaction's earlier statement commits.
func TestWriterStatementJournalInMemory(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	var mode int
	if err := s.w.QueryRowContext(ctx, "PRAGMA temp_store").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != 2 {
		t.Fatalf("writer's temp_store = %d, want 2 (MEMORY)", mode)
	}
	const n = 3000
	for _, q := range []string{
		"CREATE TABLE scratch (id INTEGER PRIMARY KEY, body TEXT NOT NULL) STRICT",
		`WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 3000)
		 INSERT INTO scratch SELECT i, printf('%.1000c', 'x') FROM k`,
	} {
		if _, err := s.w.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE scratch SET body = 'first' WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	_, err = tx.ExecContext(ctx, "UPDATE scratch SET body = CASE WHEN id = ? THEN NULL ELSE body || 'y' END", n)
	if err == nil || !strings.Contains(err.Error(), "NOT NULL") {
		t.Fatalf("failing UPDATE: err = %v, want a NOT NULL constraint error", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var rows, changed int
	var first string
	if err := s.r.QueryRowContext(ctx, `SELECT count(*), sum(body LIKE '%y'), (SELECT body FROM scratch WHERE id = 1) FROM scratch`).
		Scan(&rows, &changed, &first); err != nil {
		t.Fatal(err)
	}
	if rows != n || changed != 0 || first != "first" {
		t.Fatalf("after the failed statement: %d rows, %d changed by it, row 1 %q; want %d, 0, \"first\"", rows, changed, first, n)
	}
	if err := s.IntegrityCheck(ctx); err != nil {
		t.Fatal(err)
	}
}

// A ResponseWriter reused across batches stores what PutResponseBatch
// stores batch by batch: new requests, requests recorded earlier (by a
// failure, in this batch or a previous one), first answers standing,
// failures always added, secrets redacted.
func TestResponseWriterEqualsPutResponseBatch(t *testing.T) {
	ctx := context.Background()
	a, b := openTemp(t), openTemp(t)
	seedJudgeAndDataset(t, a)
	seedJudgeAndDataset(t, b)
	const secret = "plain-opaque-credential-42"
	a.AddSecret(secret)
	b.AddSecret(secret)
	w, err := b.NewResponseWriter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	cands := [][2]string{{"c2", "b"}, {"c2", "a"}, {"c1", "x"}}
	probes := []string{"baseline", "len:+", "len:-", "neutral:x"}
	for round := range 40 {
		var rs []Response
		for range 1 + rng.IntN(12) { // the small batches of a group commit
			c := cands[rng.IntN(len(cands))]
			p := probes[rng.IntN(len(probes))]
			run := fmt.Sprint(rng.IntN(6))
			if rng.IntN(4) == 0 {
				f := failure(c[0], c[1], p, run, "timeout")
				f.Err = "bad key " + secret
				rs = append(rs, f)
			} else {
				r := answer(c[0], c[1], p, run, float64(rng.IntN(10)+round))
				r.Raw += " " + secret
				rs = append(rs, r)
			}
		}
		if round >= 20 && round%3 == 0 {
			// A second bank: a study the writer creates in a later
			// transaction, after finding the first one by name.
			for i := range rs {
				rs[i].BankHash += "-2"
			}
		}
		if err := a.PutResponseBatch(ctx, rs); err != nil {
			t.Fatal(err)
		}
		if err := w.Put(ctx, rs); err != nil {
			t.Fatal(err)
		}
	}
	da, db := dump(t, a), dump(t, b)
	if len(da) == 0 || !slices.Equal(da, db) {
		t.Fatalf("PutResponseBatch stored %d rows, ResponseWriter %d; they differ", len(da), len(db))
	}
	studies := func(s *Store) []string {
		rows, err := s.r.QueryContext(ctx, `SELECT id, judge_id, dataset_id, bank_hash, first_id, last_id, generation FROM studies ORDER BY id`)
		return scanRows(t, rows, err, func(f []any) string { return fmt.Sprint(f) })
	}
	if sa, sb := studies(a), studies(b); len(sa) != 2 || !slices.Equal(sa, sb) {
		t.Errorf("studies differ:\n%v\n%v", sa, sb)
	}
	if strings.Contains(strings.Join(db, "\n"), secret) {
		t.Error("the writer stored a registered secret")
	}
}

// A ResponseWriter refuses what PutResponseBatch refuses, naming the
// response, stores nothing of a refused batch, and keeps working after.
func TestResponseWriterRejects(t *testing.T) {
	ctx := context.Background()
	s, w := openWriter(t)
	before := putRefusedBatches(t, s, "Put", func(rs []Response) error { return w.Put(ctx, rs) }, "response 1 (")
	if err := w.Put(ctx, []Response{answer("c2", "a", "baseline", "7", 1)}); err != nil {
		t.Fatalf("after refused batches: %v", err)
	}
	if n := len(dump(t, s)); n != len(before)+1 {
		t.Errorf("%d rows after one more answer, want %d", n, len(before)+1)
	}
}

func TestResponseWriterReadOnly(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	path := s.Path()
	s.Close()
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if _, err := ro.NewResponseWriter(ctx); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("NewResponseWriter on a read-only store: %v", err)
	}
}

// A ResponseWriter remembers its studies' ids between transactions; a
// study created by a transaction that failed is gone, and its row id may
// go to the next study created, so the writer must forget it.
func TestResponseWriterForgetsStudiesOfAFailedPut(t *testing.T) {
	ctx := context.Background()
	s, w := openWriter(t)
	inBank := func(r Response, bank string) Response { r.BankHash = bank; return r }
	bad := inBank(answer("c2", "b", "baseline", "0", 4), "bankA")
	bad.ErrKind, bad.Err = "", "an error with no kind"
	if err := w.Put(ctx, []Response{inBank(answer("c2", "a", "baseline", "0", 7), "bankA"), bad}); err == nil {
		t.Fatal("a batch holding an invalid response was stored")
	}
	for _, r := range []Response{inBank(answer("c2", "a", "baseline", "0", 5), "bankB"), inBank(answer("c1", "x", "baseline", "0", 3), "bankA")} {
		if err := w.Put(ctx, []Response{r}); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := s.r.QueryContext(ctx, `SELECT s.bank_hash, q.context FROM study_requests q JOIN studies s ON s.id = q.study_id ORDER BY q.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var bank, c string
		if err := rows.Scan(&bank, &c); err != nil {
			t.Fatal(err)
		}
		got = append(got, bank+" "+c)
	}
	if want := []string{"bankB c2", "bankA c1"}; !slices.Equal(got, want) {
		t.Errorf("requests by study %q, want %q", got, want)
	}
}

// openWriter is a new workspace holding a judge and a dataset, and a
// ResponseWriter on it, closed when the test ends.
func openWriter(t *testing.T) (*Store, *ResponseWriter) {
	t.Helper()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	w, err := s.NewResponseWriter(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return s, w
}

// Request and response rows written requestChunk and responseChunk per
// statement are the rows, ids and order that one statement per row gives:
// batches of many (new requests, requests stored before, answers to
// answered requests, failures, the same request twice in a chunk)
// against the same responses, in the order a batch writes them
// (writeOrder), one by one.
func TestChunksEqualRowByRow(t *testing.T) {
	ctx := context.Background()
	a, b, rng := seededPair(t, 5, 6)
	cands, probes := testCands, testProbes
	gen := func(n, runs int) []Response {
		var rs []Response
		for k := range n {
			c := cands[rng.IntN(len(cands))]
			p := probes[rng.IntN(len(probes))]
			run := fmt.Sprint(k) // runs == 0: every request new
			if runs > 0 {
				run = fmt.Sprint(rng.IntN(runs))
			}
			r := answer(c[0], c[1], p, run, float64(rng.IntN(10)))
			if rng.IntN(4) == 0 {
				r = failure(c[0], c[1], p, run, "timeout")
			}
			r.Time = time.Unix(1_700_000_000+int64(rng.IntN(1000)), 0)
			rs = append(rs, r)
		}
		return rs
	}
	// Phase 1: every request new (whole chunks of new rows); phase 2: a
	// mix with rows stored in phase 1 (chunks resolved row by row),
	// repeated coordinates included.
	for _, rs := range [][]Response{gen(5*requestChunk+7, 0), gen(6*requestChunk+3, 200)} {
		if err := a.PutResponseBatch(ctx, rs); err != nil {
			t.Fatal(err)
		}
		order := a.writeOrder(rs, nil)
		if order == nil {
			for i := range rs {
				order = append(order, i)
			}
		}
		for _, i := range order {
			if err := b.PutResponseBatch(ctx, rs[i:i+1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	query := func(s *Store, q string) []string {
		r, err := s.r.QueryContext(ctx, q)
		return scanRows(t, r, err, func(f []any) string { return fmt.Sprint(f) })
	}
	for _, q := range []string{
		`SELECT id, request_id, ok, raw, coalesce(score, -99), error_kind, error, created FROM responses ORDER BY id`,
		`SELECT id, study_id, hex(key), context, candidate, probe, wording, run, coalesce(answer, 'NULL'), failures FROM study_requests ORDER BY id`,
		`SELECT id, first_id, last_id FROM studies ORDER BY id`,
	} {
		ra, rb := query(a, q), query(b, q)
		if len(ra) == 0 || !slices.Equal(ra, rb) {
			t.Fatalf("%s\n%d rows in chunks, %d one by one; they differ", q, len(ra), len(rb))
		}
	}
	if n := len(query(a, `SELECT id FROM responses`)); n < 8*responseChunk {
		t.Fatalf("%d responses: too few to fill the chunks", n)
	}
}

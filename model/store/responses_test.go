package store

import (
	"context"
	"errors"
	"fmt"
	"math"
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

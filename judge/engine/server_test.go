package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/openai"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

// chatServer is an in-process OpenAI-compatible server. It answers
// {"score": N} with N derived from the request body, counts successful
// answers per request identity (messages + seed), and lets a test inject
// latency and faults chosen by the body's hash.
type chatServer struct {
	*httptest.Server
	latency time.Duration
	// fault picks a behaviour for a request (by body identity and the
	// number of times that identity was seen before); nil answers
	// normally.
	fault func(id string, seen int) (status int, header http.Header, body string)

	mu       sync.Mutex
	seen     map[string]int // requests received per identity
	answered map[string]int // 200 answers with a score per identity
	starts   []time.Time
	auth     []string
}

func newChatServer(t testing.TB) *chatServer {
	s := &chatServer{seen: map[string]int{}, answered: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// bodyIdentity hashes what identifies one request of a run: the messages
// and the seed (which carries the run index).
func bodyIdentity(b []byte) (string, []json.RawMessage) {
	var req struct {
		Messages json.RawMessage `json:"messages"`
		Seed     *int            `json:"seed"`
	}
	_ = json.Unmarshal(b, &req)
	h := sha256.New()
	h.Write(req.Messages)
	if req.Seed != nil {
		fmt.Fprintf(h, "|%d", *req.Seed)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (s *chatServer) handle(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	id, _ := bodyIdentity(b)
	s.mu.Lock()
	s.starts = append(s.starts, time.Now())
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	seen := s.seen[id]
	s.seen[id]++
	s.mu.Unlock()
	if s.latency > 0 {
		select {
		case <-time.After(s.latency):
		case <-r.Context().Done():
			return
		}
	}
	if s.fault != nil {
		if status, h, body := s.fault(id, seen); status != 0 {
			for k, v := range h {
				w.Header()[k] = v
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, body)
			return
		}
	}
	score := 1 + int(id[0])%10
	if id[0] >= 'a' {
		score = 1 + int(id[0]-'a'+10)%10
	}
	writeCompletion(w, fmt.Sprintf(`{"score": %d}`, score))
	s.mu.Lock()
	s.answered[id]++
	s.mu.Unlock()
}

func writeCompletion(w http.ResponseWriter, content string) {
	c, _ := json.Marshal(content)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m",`+
		`"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],`+
		`"usage":{"prompt_tokens":100,"completion_tokens":6,"total_tokens":106,"prompt_tokens_details":{"cached_tokens":40}}}`, c)
}

func (s *chatServer) counts() (seen, answered map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen, answered = map[string]int{}, map[string]int{}
	for k, v := range s.seen {
		seen[k] = v
	}
	for k, v := range s.answered {
		answered[k] = v
	}
	return seen, answered
}

// tinyDataset is 2 contexts × 2 candidates of the news-summary task.
func tinyDataset(name string) *model.Dataset {
	d := &model.Dataset{Name: name, Format: "jsonl", Task: model.TaskNewsSummary, Metric: model.MetricSpearman}
	for c := range 2 {
		ctx := model.Context{ID: fmt.Sprintf("doc%d", c), Source: fmt.Sprintf("Article %d. The council voted 7 to 2 on Tuesday to build a bridge over the river.", c)}
		for k := range 2 {
			ctx.Candidates = append(ctx.Candidates, model.Candidate{ID: fmt.Sprintf("s%d", k),
				Text: fmt.Sprintf("Summary %d of article %d: the council approved a bridge.", k, c), Human: float64(k + c)})
		}
		d.Contexts = append(d.Contexts, ctx)
	}
	return d
}

// openStore opens a new workspace holding d.
func openStore(t testing.TB, d *model.Dataset) (*store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ws.db")
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.PutDataset(context.Background(), d, false); err != nil {
		t.Fatal(err)
	}
	return st, path
}

func quality(t testing.TB) *banks.Bank {
	t.Helper()
	b, err := banks.Builtin("quality")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// serverSpec is a spec against s with fast retries.
func serverSpec(t testing.TB, s *chatServer, d *model.Dataset, repeats int, lim Limits) Spec {
	cfg := judge.Defaults()
	cfg.Backend, cfg.Model, cfg.BaseURL = judge.BackendOpenAI, "test-model", s.URL+"/v1"
	cfg.Retries = 2
	cfg.ResponseFormat = judge.FormatNone
	seed := 100
	cfg.Seed = &seed
	return Spec{Dataset: d, Bank: quality(t), BankSource: "builtin:quality", JudgeName: "srv", Config: cfg, Repeats: repeats, Limits: lim}
}

// runToEnd plans spec, runs it with fast backoff and returns the summary.
func runToEnd(t testing.TB, st *store.Store, spec Spec, opts Options) (*Plan, Summary, error) {
	t.Helper()
	ctx := context.Background()
	p, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Limiter == nil {
		opts.Limiter = NewLimiter(spec.Limits)
	}
	js, err := NewJudges(spec.Config, spec.Repeats, opts.Limiter, openai.WithBackoff(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Start(ctx, st, js, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Wait()
	return p, sum, err
}

// A server judge's cached answers are kept without a call, by the run's
// one writer in transactions of at most FlushEvery (how many arrive
// before each commit depends on scheduling), and the study holds them
// all.
func TestServerCacheHitsAreKeptInBatches(t *testing.T) {
	s := newChatServer(t)
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	spec := serverSpec(t, s, d, 1, Limits{Concurrency: 2})
	if _, _, err := runToEnd(t, st, spec, Options{}); err != nil {
		t.Fatal(err)
	}
	calls, _ := s.counts()
	spec.JudgeName = "srv-copy"
	var mu sync.Mutex
	var appends []int
	p, sum, err := runToEnd(t, st, spec, Options{committed: func(n int) {
		mu.Lock()
		appends = append(appends, n)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	n := len(p.Items)
	if again, _ := s.counts(); len(again) != len(calls) || p.Estimate.CacheHits != n {
		t.Fatalf("%d calls after the cached run, %d before; %d cache hits of %d", len(again), len(calls), p.Estimate.CacheHits, n)
	}
	total := 0
	for _, a := range appends {
		total += a
		if a < 1 || a > FlushEvery {
			t.Errorf("a transaction of %d answers, want 1 to %d", a, FlushEvery)
		}
	}
	if total != n {
		t.Errorf("%d cached answers committed by transactions of %v, want %d in all", n, appends, n)
	}
	if sum.CacheHits != n || sum.Stored != n || sum.Study.Answered != n {
		t.Errorf("cache hits %d, stored %d, the study holds %d; want %d", sum.CacheHits, sum.Stored, sum.Study.Answered, n)
	}
}

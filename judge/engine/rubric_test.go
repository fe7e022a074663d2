package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/judge/openai"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/store"
)

func builtinRubric(t testing.TB, name string) *banks.Rubric {
	t.Helper()
	r, err := banks.BuiltinRubric(name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func rubricSpec(t testing.TB, d *model.Dataset, name string) Spec {
	return Spec{Dataset: d, Rubric: builtinRubric(t, name), RubricSource: "builtin:" + name, JudgeName: "offline",
		Config: judge.Defaults(), Repeats: 1, Limits: Limits{Concurrency: 2}}
}

// countJudge counts calls per request identity and can alter replies.
type countJudge struct {
	inner judge.Judge
	mu    sync.Mutex
	calls map[string]int
	after func(n int64) // called after each call with the call count
	n     atomic.Int64
	alter func(*judge.Result)
}

func (c *countJudge) Name() string { return "count" }
func (c *countJudge) Score(ctx context.Context, req banks.Request) (judge.Result, error) {
	res, err := c.inner.Score(ctx, req)
	if judge.KindOf(err) == judge.KindCanceled {
		return res, err // refused before answering: nothing was sent
	}
	if c.alter != nil {
		c.alter(&res)
		if len(res.Items) > 0 {
			err = nil
		}
	}
	c.mu.Lock()
	c.calls[req.ContextID+"/"+req.CandidateID+"/"+req.Probe]++
	c.mu.Unlock()
	if c.after != nil {
		c.after(c.n.Add(1))
	}
	return res, err
}

func runRubric(t *testing.T, st *store.Store, spec Spec, cj *countJudge, cancelAfter int64) (*Plan, Summary) {
	t.Helper()
	ctx := context.Background()
	p, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	js, err := PlanJudges(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	cj.inner = js[0]
	var run atomic.Pointer[Run]
	cj.after = nil
	if cancelAfter > 0 {
		cj.after = func(n int64) {
			if n == cancelAfter {
				if r := run.Load(); r != nil {
					r.Cancel()
				}
			}
		}
		cj.n.Store(0)
	}
	r, err := Start(ctx, st, []judge.Judge{cj}, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	run.Store(r)
	for range r.Events() {
	}
	sum, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	return p, sum
}

func perCriterion(t *testing.T, st *store.Store, d *model.Dataset, hash string) (map[string]int, map[string]int) {
	t.Helper()
	rows, err := st.Scores(context.Background(), d.Name, "offline", hash)
	if err != nil {
		t.Fatal(err)
	}
	scored, missing := map[string]int{}, map[string]int{}
	for _, r := range rows {
		if _, _, ok := model.SplitRubricProbe(r.Probe); !ok {
			t.Fatalf("row probe %q is no rubric probe", r.Probe)
		}
		if r.Missing {
			missing[r.Probe]++
		} else {
			scored[r.Probe]++
		}
	}
	return scored, missing
}

func TestRubricSAJAOneCallPerCandidate(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	spec := rubricSpec(t, d, "saja-broad")
	crits := spec.Rubric.CriterionNames()
	cj := &countJudge{calls: map[string]int{}}
	// Cancel after the first call, then resume: nothing is sent twice.
	p, sum := runRubric(t, st, spec, cj, 1)
	if n := len(crits) * d.NumCandidates(); p.Estimate.Requests != n || p.Estimate.Send != d.NumCandidates() || p.Estimate.Calls != d.NumCandidates() {
		t.Fatalf("estimate %+v, want %d ratings in %d calls", p.Estimate, n, d.NumCandidates())
	}
	if sum.Answered%len(crits) != 0 || sum.Answered == 0 {
		t.Fatalf("first run stored %d ratings, want whole calls of %d", sum.Answered, len(crits))
	}
	runRubric(t, st, spec, cj, 0)
	for id, n := range cj.calls {
		if n != 1 {
			t.Errorf("%s sent %d times", id, n)
		}
	}
	if len(cj.calls) != d.NumCandidates() {
		t.Errorf("%d calls, want %d", len(cj.calls), d.NumCandidates())
	}
	scored, missing := perCriterion(t, st, d, p.BankHash)
	for _, c := range crits {
		if got := scored[model.RubricProbe("saja-broad", c)]; got != d.NumCandidates() {
			t.Errorf("criterion %s: %d scores, want %d", c, got, d.NumCandidates())
		}
	}
	if len(missing) != 0 {
		t.Errorf("missing cells %v", missing)
	}
	// A rerun sends nothing.
	p2, err := NewPlan(context.Background(), st, spec)
	if err != nil {
		t.Fatal(err)
	}
	if p2.Estimate.Send != 0 || p2.Estimate.Answered != p2.Estimate.Requests {
		t.Errorf("rerun estimate %+v", p2.Estimate)
	}
	// The snapshot is stored as a rubric's.
	snap, err := st.Bank(context.Background(), p.BankHash)
	if err != nil || !snap.IsRubric() || snap.Name != "saja-broad" {
		t.Errorf("snapshot %+v, %v", snap.Source, err)
	}
}

func TestRubricSAJAMissingCellIsNoFailure(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	spec := rubricSpec(t, d, "saja-broad")
	cj := &countJudge{calls: map[string]int{}, alter: func(r *judge.Result) {
		// The reply leaves out the second criterion.
		r.Items[1].HasScore, r.Items[1].Score = false, 0
		r.Items[1].Err = &judge.Error{Kind: judge.KindUnparseable, Msg: "missing"}
	}}
	p, sum := runRubric(t, st, spec, cj, 0)
	if sum.Failed != 0 || sum.Missing != d.NumCandidates() {
		t.Fatalf("failed %d missing %d, want 0 and %d", sum.Failed, sum.Missing, d.NumCandidates())
	}
	_, missing := perCriterion(t, st, d, p.BankHash)
	c1 := model.RubricProbe("saja-broad", spec.Rubric.Criteria[1].Name)
	if missing[c1] != d.NumCandidates() || len(missing) != 1 {
		t.Errorf("missing %v", missing)
	}
	p2, err := NewPlan(context.Background(), st, spec)
	if err != nil {
		t.Fatal(err)
	}
	if p2.Estimate.Send != 0 {
		t.Errorf("a missing cell is sent again: %+v", p2.Estimate)
	}
}

func TestRubricGEvalSamples(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	spec := rubricSpec(t, d, "geval-summeval")
	spec.Samples = 5
	crits := spec.Rubric.CriterionNames()
	var samples atomic.Int64
	cj := &countJudge{calls: map[string]int{}, alter: func(r *judge.Result) { samples.Add(int64(len(r.Samples))) }}
	p, _ := runRubric(t, st, spec, cj, 3)
	n := len(crits) * d.NumCandidates()
	if p.Estimate.Send != n || p.Estimate.Calls != 5*n {
		t.Fatalf("estimate %+v, want %d requests of 5 calls", p.Estimate, n)
	}
	if cfg := p.SendConfig(); cfg.Temperature == nil || *cfg.Temperature != 1 || cfg.TopP == nil || *cfg.TopP != 1 || cfg.Repeats != 5 {
		t.Errorf("send config %+v", cfg)
	}
	runRubric(t, st, spec, cj, 0)
	for id, k := range cj.calls {
		if k != 1 {
			t.Errorf("%s sent %d times", id, k)
		}
	}
	if len(cj.calls) != n || samples.Load() != int64(5*n) {
		t.Errorf("%d requests, %d samples; want %d, %d", len(cj.calls), samples.Load(), n, 5*n)
	}
	scored, _ := perCriterion(t, st, d, p.BankHash)
	for _, c := range spec.Rubric.Criteria {
		pr := model.RubricProbe("geval-summeval", c.Name)
		if scored[pr] != d.NumCandidates() {
			t.Errorf("%s: %d scores", pr, scored[pr])
		}
	}
	rows, _ := st.Scores(context.Background(), d.Name, "offline", p.BankHash)
	for _, r := range rows {
		_, c, _ := model.SplitRubricProbe(r.Probe)
		cr, _ := spec.Rubric.Criterion(c)
		if r.Score < float64(cr.Scale.Min) || r.Score > float64(cr.Scale.Max) || math.IsNaN(r.Score) {
			t.Errorf("%s score %v outside %d–%d", r.Probe, r.Score, cr.Scale.Min, cr.Scale.Max)
		}
	}
	// Another sample count is another study of the same rubric: new keys.
	spec.Samples, spec.JudgeName = 6, "offline-n6"
	p3, err := NewPlan(context.Background(), st, spec)
	if err != nil {
		t.Fatal(err)
	}
	if p3.Row(&p3.Items[0]).Key == p.Row(&p.Items[0]).Key {
		t.Error("the sample count is not in the request key")
	}
}

// lockedClock is a fakeClock safe to read from the run's ticker.
type lockedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *lockedClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *lockedClock) sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
	return nil
}

// Every sampled G-Eval call is charged a start: RPM bounds calls, not
// requests.
func TestRubricGEvalSamplesAreRateLimited(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	spec := rubricSpec(t, d, "geval-summeval")
	spec.Samples = 3
	spec.Limits = Limits{Concurrency: 1, RPM: 60}
	p, err := NewPlan(context.Background(), st, spec)
	if err != nil {
		t.Fatal(err)
	}
	calls := p.Estimate.Calls // 4 candidates × 4 criteria × 3 samples
	if calls != 48 || p.Estimate.Time < 47*time.Second {
		t.Fatalf("estimate: %d calls in %s", calls, p.Estimate.Time)
	}
	c := &lockedClock{t: time.Unix(1_000_000, 0)}
	lim := NewLimiter(spec.Limits)
	lim.now, lim.sleep = c.now, c.sleep
	t0 := c.now()
	js, err := PlanJudges(p, lim)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Start(context.Background(), st, js, p, Options{Limiter: lim})
	if err != nil {
		t.Fatal(err)
	}
	for range r.Events() {
	}
	if _, err := r.Wait(); err != nil {
		t.Fatal(err)
	}
	// 48 starts 1 s apart: the last starts 47 s after the first.
	if got := c.now().Sub(t0); got < 47*time.Second {
		t.Errorf("48 calls at 60 rpm took %s of limiter time, want ≥ 47s", got)
	}
}

// A SAJA study against an OpenAI-compatible server: the rubric's schema
// is sent, one call per candidate, every criterion stored, an
// out-of-scale criterion a missing cell, and the call's tokens counted
// once.
func TestRubricSAJAOverHTTP(t *testing.T) {
	s := newChatServer(t)
	var schemas atomic.Int64
	s.fault = func(id string, seen int) (int, http.Header, string) {
		c, _ := json.Marshal(`{"accuracy": 4, "grounding": 5, "overall": 3, "coherence": 4, "fluency": 5, "engagement": 2, "helpfulness": 3, "safety": 9}`)
		return 200, nil, `{"id":"c","object":"chat.completion","created":1,"model":"m",` +
			`"choices":[{"index":0,"message":{"role":"assistant","content":` + string(c) + `},"finish_reason":"stop"}],` +
			`"usage":{"prompt_tokens":100,"completion_tokens":30,"total_tokens":130}}`
	}
	inner := s.Config.Handler
	s.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), `"json_schema"`) && strings.Contains(string(b), `"helpfulness"`) {
			schemas.Add(1)
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		inner.ServeHTTP(w, r)
	})
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	spec := serverSpec(t, s, d, 1, Limits{Concurrency: 2})
	spec.Bank, spec.BankSource = nil, ""
	spec.Rubric, spec.RubricSource = builtinRubric(t, "saja-broad"), "builtin:saja-broad"
	spec.Config.ResponseFormat = judge.FormatJSONSchema
	p, err := NewPlan(context.Background(), st, spec)
	if err != nil {
		t.Fatal(err)
	}
	js, err := PlanJudges(p, nil, openai.WithBackoff(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	var appendsMu sync.Mutex
	var appends []int
	r, err := Start(context.Background(), st, js, p, Options{committed: func(k int) {
		appendsMu.Lock()
		appends = append(appends, k)
		appendsMu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	for range r.Events() {
	}
	sum, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	n := d.NumCandidates()
	// A call's eight criteria are committed together, in one
	// transaction (which may hold the other worker's call too).
	total := 0
	for _, k := range appends {
		total += k
	}
	if total != 8*n || slices.ContainsFunc(appends, func(k int) bool { return k%8 != 0 }) {
		t.Errorf("transactions held %v answers, want whole calls of 8, %d in all", appends, 8*n)
	}
	if seen, _ := s.counts(); len(seen) != n || schemas.Load() != int64(n) {
		t.Errorf("%d calls, %d with the rubric's schema; want %d", len(seen), schemas.Load(), n)
	}
	if sum.Answered != 8*n || sum.Missing != n || sum.Failed != 0 {
		t.Errorf("answered %d missing %d failed %d", sum.Answered, sum.Missing, sum.Failed)
	}
	if sum.PromptTokens != int64(100*n) || sum.CompletionTokens != int64(30*n) {
		t.Errorf("tokens %d + %d, want each call's once: %d + %d", sum.PromptTokens, sum.CompletionTokens, 100*n, 30*n)
	}
	scored, missing := map[string]int{}, map[string]int{}
	rows, _ := st.Scores(context.Background(), d.Name, "srv", p.BankHash)
	for _, row := range rows {
		if row.Missing {
			missing[row.Probe]++
		} else {
			scored[row.Probe] += int(row.Score)
		}
	}
	if missing["rubric:saja-broad/safety"] != n || len(missing) != 1 || scored["rubric:saja-broad/grounding"] != 5*n {
		t.Errorf("scored %v missing %v", scored, missing)
	}
}

// In expected mode a G-Eval request is one call read by its logprobs.
func TestRubricGEvalExpectedIsOneCall(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	spec := rubricSpec(t, d, "geval-summeval")
	spec.Config.Mode = judge.ModeExpected
	spec.JudgeName = "offline-expected"
	var samples atomic.Int64
	cj := &countJudge{calls: map[string]int{}, alter: func(r *judge.Result) { samples.Add(int64(len(r.Samples))) }}
	p, sum := runRubric(t, st, spec, cj, 0)
	n := 4 * d.NumCandidates()
	if p.Estimate.Calls != n || p.SendConfig().Repeats > 1 || samples.Load() != int64(n) || sum.Answered != n {
		t.Errorf("calls %d, repeats %d, samples %d, answered %d; want %d one-call requests", p.Estimate.Calls, p.SendConfig().Repeats, samples.Load(), sum.Answered, n)
	}
	rows, _ := st.Scores(context.Background(), d.Name, "offline-expected", p.BankHash)
	frac := 0
	for _, r := range rows {
		if r.Score != math.Trunc(r.Score) {
			frac++
		}
	}
	if len(rows) != n || frac == 0 {
		t.Errorf("%d rows, %d with a fractional (weighted-mean) score", len(rows), frac)
	}
}

// SAJA with runs: one call per candidate and run, each criterion's item
// led by its run's call.
func TestRubricSAJARepeats(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	spec := rubricSpec(t, d, "saja-broad")
	spec.Repeats = 2
	cj := &countJudge{calls: map[string]int{}}
	p, sum := runRubric(t, st, spec, cj, 0)
	n := d.NumCandidates()
	if p.Estimate.Send != 2*n || sum.Answered != 2*8*n {
		t.Fatalf("send %d answered %d", p.Estimate.Send, sum.Answered)
	}
	for i, it := range p.Items {
		lead := p.Items[it.Lead]
		if lead.Run != it.Run || p.Row(&lead).Context != p.Row(&it).Context || p.Row(&lead).Candidate != p.Row(&it).Candidate || lead.Part != 0 || it.Part != it.Condition {
			t.Fatalf("item %d %+v led by %+v", i, p.Row(&it), p.Row(&lead))
		}
	}
	rows, _ := st.Scores(context.Background(), d.Name, "offline", p.BankHash)
	runs := map[string]int{}
	for _, r := range rows {
		runs[r.Run]++
	}
	if runs["0"] != 8*n || runs["1"] != 8*n {
		t.Errorf("rows per run %v", runs)
	}
}

// One run per rubric study (the lease is on the rubric's hash), while the
// same judge's bank study runs beside it.
func TestRubricStudyLease(t *testing.T) {
	d := tinyDataset("tiny")
	st, path := openStore(t, d)
	ctx := context.Background()
	spec := rubricSpec(t, d, "saja-broad")
	spec.Limits.Concurrency = 1
	r, sj, p := heldRun(t, st, spec, Options{})

	st2, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	p2, err := NewPlan(ctx, st2, spec)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := NewJudges(spec.Config, 1, nil)
	if _, err := Start(ctx, st2, js, p2, Options{}); !errors.Is(err, store.ErrBusy) {
		t.Fatalf("second run on the rubric study: %v, want ErrBusy", err)
	}
	pb, err := NewPlan(ctx, st2, offlineSpec(t, d, 1))
	if err != nil {
		t.Fatal(err)
	}
	rb, err := Start(ctx, st2, js, pb, Options{})
	if err != nil {
		t.Fatalf("the bank study beside the rubric run: %v", err)
	}
	if _, err := rb.Wait(); err != nil {
		t.Fatal(err)
	}
	if sum := finishHeld(t, r, sj); sum.Answered != len(p.Items) {
		t.Errorf("held rubric run answered %d of %d", sum.Answered, len(p.Items))
	}
}

// G-Eval samples at temperature 1 and top_p 1 even when the judge's
// configuration (shared with its bank study) says otherwise; the stored
// judge keeps its configuration.
func TestRubricGEvalSamplingOverridesTemperature(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	spec := rubricSpec(t, d, "geval-summeval")
	zero, half := 0.0, 0.5
	spec.Config.Temperature, spec.Config.TopP = &zero, &half
	p, err := NewPlan(context.Background(), st, spec)
	if err != nil {
		t.Fatal(err)
	}
	cfg := p.SendConfig()
	if *cfg.Temperature != 1 || *cfg.TopP != 1 || cfg.Repeats != DefaultGEvalSamples {
		t.Errorf("send config: temperature %v top_p %v repeats %d", *cfg.Temperature, *cfg.TopP, cfg.Repeats)
	}
	if p.Judge.Params["temperature"] != 0.0 || p.Judge.Params["top_p"] != 0.5 {
		t.Errorf("stored judge params %v", p.Judge.Params)
	}
	// SAJA sends with the judge's configuration.
	spec = rubricSpec(t, d, "saja-broad")
	spec.Config.Temperature = &zero
	p, err = NewPlan(context.Background(), st, spec)
	if err != nil {
		t.Fatal(err)
	}
	if cfg := p.SendConfig(); *cfg.Temperature != 0 || cfg.Repeats != 1 || p.Samples() != 1 {
		t.Errorf("SAJA send config %+v", cfg)
	}
}

// Another G-Eval N under the same judge name is refused: the answers
// stored at the same coordinates were made with other samples.
func TestRubricGEvalOtherSamplesRefused(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	spec := rubricSpec(t, d, "geval-summeval")
	spec.Samples = 2
	runRubric(t, st, spec, &countJudge{calls: map[string]int{}}, 0)
	spec.Samples = 3
	if _, err := NewPlan(context.Background(), st, spec); err == nil || !strings.Contains(err.Error(), "another --judge name") {
		t.Fatalf("another N under the same judge: %v", err)
	}
	spec.JudgeName = "offline-n3"
	p, err := NewPlan(context.Background(), st, spec)
	if err != nil || p.Estimate.Send != len(p.Items) {
		t.Fatalf("another judge name: %v", err)
	}
	// The same N plans again without complaint.
	spec.Samples, spec.JudgeName = 2, "offline"
	if p, err := NewPlan(context.Background(), st, spec); err != nil || p.Estimate.Send != 0 {
		t.Fatalf("same N again: %v", err)
	}
}

package engine

import (
	"bytes"
	"context"
	"math"
	"net/http"
	"os"
	"slices"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/model/datasets"
)

func offlineSpec(t testing.TB, d *model.Dataset, repeats int) Spec {
	return Spec{Dataset: d, Bank: quality(t), BankSource: "builtin:quality", JudgeName: "offline",
		Config: judge.Defaults(), Repeats: repeats, Limits: Limits{Concurrency: 4}}
}

func TestOfflineRunCompletesAndResumes(t *testing.T) {
	d := datasets.Demo()
	st, _ := openStore(t, d)
	ctx := context.Background()
	spec := offlineSpec(t, d, 2)
	p, sum, err := runToEnd(t, st, spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := d.NumCandidates() * 38 * 2
	if sum.Total != n || sum.Answered != n || sum.Written != n || sum.Failed != 0 || sum.Canceled {
		t.Fatalf("summary %+v, want %d answered and written", sum.Progress, n)
	}
	pr, err := st.Progress(ctx, d.Name, "offline", p.BankHash)
	if err != nil || pr.Answered != n {
		t.Fatalf("store progress %+v %v, want %d answered", pr, err, n)
	}
	// The two runs are distinct samples (the simulator draws noise per run).
	rows, err := st.Scores(ctx, d.Name, "offline", p.BankHash)
	if err != nil {
		t.Fatal(err)
	}
	byRun := map[string]float64{}
	differ := 0
	for _, r := range rows {
		k := r.Context + r.Candidate + r.Probe + r.Wording
		if v, ok := byRun[k]; ok && v != r.Score {
			differ++
		}
		byRun[k] = r.Score
	}
	if differ == 0 {
		t.Error("run 0 and run 1 gave identical scores everywhere: repeats are not distinct samples")
	}
	again, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	if again.Estimate.Send != 0 || again.Estimate.Answered != n {
		t.Errorf("after a complete run the plan sends %d (answered %d), want 0 (%d)", again.Estimate.Send, again.Estimate.Answered, n)
	}
}

// countingJudge counts Score calls.
type countingJudge struct {
	judge.Judge
	calls atomic.Int64
}

func (c *countingJudge) Score(ctx context.Context, r banks.Request) (judge.Result, error) {
	c.calls.Add(1)
	return c.Judge.Score(ctx, r)
}

func TestIdenticalMessagesAreCacheHits(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	ctx := context.Background()
	spec := offlineSpec(t, d, 1)
	if _, _, err := runToEnd(t, st, spec, Options{}); err != nil {
		t.Fatal(err)
	}
	// A second judge name with the same configuration sends the same
	// messages: every request is a cache hit and the judge is never called.
	spec.JudgeName = "offline-copy"
	p, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	if p.Estimate.CacheHits != len(p.Items) || p.Estimate.Send != 0 {
		t.Fatalf("estimate %+v, want all %d cache hits", p.Estimate, len(p.Items))
	}
	js, err := NewJudges(spec.Config, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	cj := &countingJudge{Judge: js[0]}
	r, err := Start(ctx, st, []judge.Judge{cj}, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Wait()
	if err != nil || cj.calls.Load() != 0 || sum.CacheHits != len(p.Items) || sum.Written != len(p.Items) {
		t.Fatalf("calls %d, summary %+v, err %v", cj.calls.Load(), sum.Progress, err)
	}
	a, _ := st.Scores(ctx, d.Name, "offline", p.BankHash)
	b, _ := st.Scores(ctx, d.Name, "offline-copy", p.BankHash)
	if len(a) != len(b) {
		t.Fatalf("%d vs %d rows", len(a), len(b))
	}
	for i := range a {
		if a[i].Score != b[i].Score || a[i].Probe != b[i].Probe {
			t.Fatalf("row %d: %+v vs %+v", i, a[i], b[i])
		}
	}
}

func TestServerFaultsAreCountedAndNothingIsLost(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	ctx := context.Background()
	s := newChatServer(t)
	// By the first hex digit of the request identity: 0–1 → a 429 with
	// Retry-After 0 on the first try (then fine), 2 → always 500, 3 → a
	// reply with no score, the rest answer.
	s.fault = func(id string, seen int) (int, http.Header, string) {
		switch id[0] {
		case '0', '1':
			if seen == 0 {
				return 429, http.Header{"Retry-After": {"0"}}, `{"error":{"message":"slow down"}}`
			}
		case '2':
			return 500, nil, `{"error":{"message":"boom"}}`
		case '3':
			return 200, nil, completionJSON("The summary reads well.")
		}
		return 0, nil, ""
	}
	spec := serverSpec(t, s, d, 1, Limits{Concurrency: 8})
	p, sum, err := runToEnd(t, st, spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	answered := 0
	for i := range p.Items {
		id := itemIdentity(t, p, i)
		switch id[0] {
		case '2':
			want[string(judge.KindServer)]++
		case '3':
			want[string(judge.KindUnparseable)]++
		default:
			answered++
		}
	}
	if want[string(judge.KindServer)] == 0 || want[string(judge.KindUnparseable)] == 0 {
		t.Fatal("test data exercises too few faults")
	}
	if sum.Answered != answered || sum.Done != len(p.Items) || !equalCounts(sum.Errors, want) {
		t.Fatalf("summary answered %d errors %v, want %d %v", sum.Answered, sum.Errors, answered, want)
	}
	fails, err := st.Failures(ctx, d.Name, "srv")
	if err != nil || !equalCounts(fails, want) {
		t.Fatalf("store failures %v %v, want %v", fails, err, want)
	}
	rows, _ := st.Scores(ctx, d.Name, "srv", p.BankHash)
	if len(rows) != answered {
		t.Fatalf("%d stored answers, want %d", len(rows), answered)
	}
	// The server reports 100 prompt (40 cached) and 6 completion tokens
	// per 200 reply; 500s carry none. Sent counts finished requests.
	replies := int64(sum.Sent - want[string(judge.KindServer)])
	if sum.PromptTokens != 100*replies || sum.CachedTokens != 40*replies || sum.CompletionTokens != 6*replies {
		t.Errorf("tokens %d/%d/%d, want %d/%d/%d", sum.PromptTokens, sum.CachedTokens, sum.CompletionTokens, 100*replies, 40*replies, 6*replies)
	}
	// Failed cells stay pending and are the only thing a rerun sends.
	again, _ := NewPlan(ctx, st, spec)
	if again.Estimate.Send != len(p.Items)-answered {
		t.Errorf("rerun sends %d, want %d", again.Estimate.Send, len(p.Items)-answered)
	}
}

func completionJSON(content string) string {
	var b bytes.Buffer
	w := &headerlessWriter{&b}
	writeCompletion(w, content)
	return b.String()
}

type headerlessWriter struct{ *bytes.Buffer }

func (headerlessWriter) Header() http.Header { return http.Header{} }
func (headerlessWriter) WriteHeader(int)     {}

func mustRequest(t testing.TB, p *Plan, i int) banks.Request {
	t.Helper()
	req, err := p.Request(i)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// itemIdentity is the chatServer identity of the request of p.Items[i].
func itemIdentity(t testing.TB, p *Plan, i int) string {
	body, err := ChatBody(p.Spec.Config, mustRequest(t, p, i), int(p.Items[i].Run))
	if err != nil {
		t.Fatal(err)
	}
	id, _ := bodyIdentity(body)
	return id
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestRPMLimitCapsEverySecond(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 3 s")
	}
	d := tinyDataset("tiny")
	d.Contexts = d.Contexts[:1]
	d.Contexts[0].Candidates = d.Contexts[0].Candidates[:1]
	st, _ := openStore(t, d)
	s := newChatServer(t)
	spec := serverSpec(t, s, d, 1, Limits{Concurrency: 16, RPM: 600})
	if _, sum, err := runToEnd(t, st, spec, Options{}); err != nil || sum.Answered != 38 {
		t.Fatalf("%+v %v", sum.Progress, err)
	}
	s.mu.Lock()
	starts := append([]time.Time(nil), s.starts...)
	s.mu.Unlock()
	sort.Slice(starts, func(i, j int) bool { return starts[i].Before(starts[j]) })
	worst := 0
	for i := range starts {
		n := 0
		for j := i; j < len(starts) && starts[j].Sub(starts[i]) < time.Second; j++ {
			n++
		}
		worst = max(worst, n)
	}
	// 600 rpm = 10 per second; ±1 for a window's edge.
	if worst > 11 {
		t.Errorf("%d requests within one second at --rpm 600, want ≤ 11", worst)
	}
	if span := starts[len(starts)-1].Sub(starts[0]); span < 3600*time.Millisecond {
		t.Errorf("38 requests at 600 rpm took %v, want ≥ 3.7 s (37 gaps of 100 ms)", span)
	}
}

func TestAuthErrorStopsTheRun(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	s := newChatServer(t)
	s.fault = func(string, int) (int, http.Header, string) {
		return 401, nil, `{"error":{"message":"Incorrect API key provided"}}`
	}
	spec := serverSpec(t, s, d, 1, Limits{Concurrency: 2})
	_, sum, err := runToEnd(t, st, spec, Options{})
	if err == nil || judge.KindOf(err) != judge.KindAuth {
		t.Fatalf("err = %v, want an auth error", err)
	}
	seen, _ := s.counts()
	total := 0
	for _, v := range seen {
		total += v
	}
	if total > 2 || sum.Errors["auth"] < 1 || sum.Errors["auth"] > 2 {
		t.Errorf("server saw %d requests and the run recorded %v; want the run to stop after the first (≤ concurrency 2)", total, sum.Errors)
	}
}

func TestCancelStoresFinishedWorkAndResumeCompletes(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	ctx := context.Background()
	s := newChatServer(t)
	s.latency = 20 * time.Millisecond
	spec := serverSpec(t, s, d, 1, Limits{Concurrency: 4})
	p, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := NewJudges(spec.Config, 1, nil)
	r, err := Start(ctx, st, js, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for ev := range r.Events() {
		if ev.Progress.Done >= 40 {
			r.Cancel()
			break
		}
	}
	sum, err := r.Wait()
	if err != nil || !sum.Canceled {
		t.Fatalf("summary %+v err %v, want canceled", sum.Progress, err)
	}
	if sum.Answered >= len(p.Items) || sum.Written != sum.Answered {
		t.Fatalf("canceled run answered %d of %d and wrote %d", sum.Answered, len(p.Items), sum.Written)
	}
	rows, _ := st.Scores(ctx, d.Name, "srv", p.BankHash)
	if len(rows) != sum.Answered {
		t.Fatalf("store holds %d answers, run reported %d", len(rows), sum.Answered)
	}
	_, answeredBefore := s.counts()
	_, sum2, err := runToEnd(t, st, spec, Options{})
	if err != nil || sum2.Answered != len(p.Items)-len(rows) {
		t.Fatalf("resume answered %d, want %d (%v)", sum2.Answered, len(p.Items)-len(rows), err)
	}
	// No request whose answer was stored before the resume was sent again.
	stored := map[string]bool{}
	for _, row := range rows {
		for i, it := range p.Items {
			if p.Row(&it).Context == row.Context && p.Row(&it).Candidate == row.Candidate && p.Row(&it).Probe == row.Probe && p.Row(&it).Wording == row.Wording {
				stored[itemIdentity(t, p, i)] = true
			}
		}
	}
	_, answeredAfter := s.counts()
	for id := range stored {
		if answeredAfter[id] != answeredBefore[id] || answeredAfter[id] != 1 {
			t.Errorf("request %s answered %d times (stored before resume)", id[:8], answeredAfter[id])
		}
	}
	final, _ := st.Scores(ctx, d.Name, "srv", p.BankHash)
	if len(final) != len(p.Items) {
		t.Errorf("store holds %d answers, want %d", len(final), len(p.Items))
	}
}

// stepJudge answers like inner, but each call first reports on started
// and then waits for a token on proceed: the test decides when every
// call may finish, so nothing depends on timing.
type stepJudge struct {
	inner   judge.Judge
	started chan struct{}
	proceed chan struct{}
}

func (j *stepJudge) Name() string { return j.inner.Name() }

func (j *stepJudge) Score(ctx context.Context, req banks.Request) (judge.Result, error) {
	j.started <- struct{}{}
	select {
	case <-j.proceed:
	case <-ctx.Done():
		return judge.Result{}, &judge.Error{Kind: judge.KindCanceled, Msg: ctx.Err().Error()}
	}
	return j.inner.Score(ctx, req)
}

func TestPauseHoldsNewRequests(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	ctx := context.Background()
	const workers = 2
	spec := offlineSpec(t, d, 1)
	spec.Limits.Concurrency = workers
	p, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	js, err := NewJudges(spec.Config, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	sj := &stepJudge{inner: js[0], started: make(chan struct{}, len(p.Items)), proceed: make(chan struct{})}
	parked := make(chan struct{}, 64)
	// No ticker event within the test: every progress event is the
	// pause's or the resume's own.
	opts := Options{parked: func() { parked <- struct{}{} }, EventBuffer: 4 * len(p.Items), ProgressInterval: time.Hour}
	r, err := Start(ctx, st, []judge.Judge{sj}, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	// Both workers are inside a call; pause, then let those two finish.
	for range workers {
		<-sj.started
	}
	r.Pause()
	for range workers {
		sj.proceed <- struct{}{}
	}
	// Once both workers wait at the gate, nothing can start until Resume.
	for range workers {
		<-parked
	}
	b := r.Snapshot()
	if !b.Paused || b.InFlight != 0 || len(sj.started) != 0 {
		t.Errorf("paused run: in flight %d, %d calls started after the pause", b.InFlight, len(sj.started))
	}
	// The pause's event, then the two results, both as of a paused run.
	var kinds []EventKind
	for len(r.Events()) > 0 {
		ev := <-r.Events()
		if !ev.Progress.Paused {
			t.Fatalf("event %v after the pause says running", ev.Kind)
		}
		kinds = append(kinds, ev.Kind)
	}
	if !slices.Equal(kinds, []EventKind{EventProgress, EventResult, EventResult}) {
		t.Errorf("events after the pause %v, want its progress and the two results", kinds)
	}
	r.Resume()
	// The resume's event is sent before Resume returns, and before any
	// later result: a watcher's last word is the run's state.
	select {
	case ev := <-r.Events():
		if ev.Kind != EventProgress || ev.Progress.Paused {
			t.Errorf("first event after Resume: kind %v, paused %v", ev.Kind, ev.Progress.Paused)
		}
	default:
		t.Error("Resume sent no event")
	}
	go func() { // answer every remaining call
		for range sj.started {
			sj.proceed <- struct{}{}
		}
	}()
	sum, err := r.Wait()
	close(sj.started) // every worker has ended: no call starts any more
	if err != nil || sum.Answered != len(p.Items) {
		t.Fatalf("after resume %+v %v", sum.Progress, err)
	}
	r.Pause() // an ended run's events are closed: nothing is sent
	r.Resume()
}

func TestEventsNeverBlockTheRun(t *testing.T) {
	d := datasets.Demo()
	st, _ := openStore(t, d)
	// Nobody reads Events and the buffer holds 1: the run must still finish.
	_, sum, err := runToEnd(t, st, offlineSpec(t, d, 1), Options{EventBuffer: 1})
	if err != nil || sum.Answered != d.NumCandidates()*38 {
		t.Fatalf("%+v %v", sum.Progress, err)
	}
	if sum.DroppedEvents == 0 {
		t.Error("no result event was dropped with a full buffer and no reader")
	}
}

func TestResultEventsCarryDelta(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	ctx := context.Background()
	spec := offlineSpec(t, d, 1)
	p, _ := NewPlan(ctx, st, spec)
	js, _ := NewJudges(spec.Config, 1, nil)
	r, err := Start(ctx, st, js, p, Options{EventBuffer: 10000})
	if err != nil {
		t.Fatal(err)
	}
	base := map[string]float64{}
	deltas, lastDone := 0, 0
	for ev := range r.Events() {
		if ev.Progress.Done < lastDone {
			t.Fatalf("progress went back: %d done after %d", ev.Progress.Done, lastDone)
		}
		lastDone = ev.Progress.Done
		if ev.Kind != EventResult || !ev.Result.HasScore {
			continue
		}
		res := ev.Result
		k := res.Context + "/" + res.Candidate
		if res.Probe == "baseline" {
			base[k] = res.Score
			continue
		}
		if b, ok := base[k]; ok {
			if !res.HasDelta || math.Abs(res.Delta-(res.Score-b)) > 1e-12 {
				t.Fatalf("%s %s: delta %v (has %v), want %v", k, res.Probe, res.Delta, res.HasDelta, res.Score-b)
			}
			deltas++
		}
	}
	if deltas == 0 {
		t.Error("no result carried a delta")
	}
	if _, err := r.Wait(); err != nil {
		t.Fatal(err)
	}
}

func TestAPIKeyNeverStored(t *testing.T) {
	const key = "sk-prism-FAKE-KEY-4242-zyxwvut"
	d := tinyDataset("tiny")
	st, path := openStore(t, d)
	st.AddSecret(key)
	s := newChatServer(t)
	// The server echoes the key in its error bodies, as some do.
	s.fault = func(id string, seen int) (int, http.Header, string) {
		if id[0] == '5' {
			return 400, nil, `{"error":{"message":"bad request for key ` + key + `"}}`
		}
		if id[0] == '6' {
			return 200, nil, completionJSON("no score, but here is your key " + key)
		}
		return 0, nil, ""
	}
	spec := serverSpec(t, s, d, 1, Limits{Concurrency: 4})
	spec.Config.APIKey = judge.Secret(key)
	p, sum, err := runToEnd(t, st, spec, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed == 0 {
		t.Fatal("no failure exercised the echo")
	}
	s.mu.Lock()
	if len(s.auth) == 0 || s.auth[0] != "Bearer "+key {
		t.Errorf("the server did not receive the key")
	}
	s.mu.Unlock()
	var exp bytes.Buffer
	if _, err := ExportBatch(context.Background(), st, p, &exp); err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, f := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(key)) {
			t.Errorf("%s contains the API key", f)
		}
	}
	if bytes.Contains(exp.Bytes(), []byte(key)) {
		t.Error("the batch export contains the API key")
	}
}

func TestRunAdaptsToRateLimitHeaders(t *testing.T) {
	d := tinyDataset("tiny")
	d.Contexts = d.Contexts[:1]
	d.Contexts[0].Candidates = d.Contexts[0].Candidates[:1]
	st, _ := openStore(t, d)
	s := newChatServer(t)
	var n atomic.Int64
	// The first answer says the request quota is spent until 400 ms from
	// now; the rest say plenty is left.
	s.fault = func(id string, seen int) (int, http.Header, string) {
		if n.Add(1) == 1 {
			return 200, http.Header{"X-Ratelimit-Remaining-Requests": {"0"}, "X-Ratelimit-Reset-Requests": {"400ms"}}, completionJSON(`{"score": 5}`)
		}
		return 200, http.Header{"X-Ratelimit-Remaining-Requests": {"999"}, "X-Ratelimit-Reset-Requests": {"1ms"}}, completionJSON(`{"score": 5}`)
	}
	spec := serverSpec(t, s, d, 1, Limits{Concurrency: 1})
	if _, sum, err := runToEnd(t, st, spec, Options{}); err != nil || sum.Answered != 38 {
		t.Fatalf("%+v %v", sum.Progress, err)
	}
	s.mu.Lock()
	gap := s.starts[1].Sub(s.starts[0])
	s.mu.Unlock()
	if gap < 390*time.Millisecond {
		t.Errorf("second request started %v after the first, want ≥ 400 ms (the server's reset)", gap)
	}
}

// A run's Δ uses baselines stored by an earlier run: a plan without the
// baseline condition reads them (noBaselines is false), and a plan that
// asks every baseline itself of a study with no answers reads nothing.
func TestDeltaAgainstStoredBaselines(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	ctx := context.Background()
	spec := offlineSpec(t, d, 1)
	fresh, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	if !fresh.noBaselines() {
		t.Fatal("a plan of every condition on an empty study reads its baselines")
	}
	var other string
	for _, c := range fresh.conds {
		if c.Probe != "baseline" {
			other = c.Probe
			break
		}
	}
	first := spec
	first.Probes = []string{"baseline"}
	if _, sum, err := runToEnd(t, st, first, Options{}); err != nil || sum.Answered == 0 {
		t.Fatalf("baseline run: %+v %v", sum.Progress, err)
	}
	second := spec
	second.Probes = []string{other}
	p, err := NewPlan(ctx, st, second)
	if err != nil {
		t.Fatal(err)
	}
	if p.noBaselines() {
		t.Fatal("a plan without the baseline condition skips the stored baselines")
	}
	base := map[string]float64{}
	for _, r := range scoresOf(t, st, p) {
		if r.Probe == "baseline" && !r.Missing {
			base[r.Context+"/"+r.Candidate] = r.Score
		}
	}
	js, _ := NewJudges(second.Config, 1, nil)
	r, err := Start(ctx, st, js, p, Options{EventBuffer: 10000})
	if err != nil {
		t.Fatal(err)
	}
	deltas := 0
	for ev := range r.Events() {
		if ev.Kind != EventResult || !ev.Result.HasScore {
			continue
		}
		res := ev.Result
		b, ok := base[res.Context+"/"+res.Candidate]
		if !ok {
			continue
		}
		if !res.HasDelta || res.Delta != res.Score-b {
			t.Fatalf("%s/%s %s: delta %v (has %v), want %v", res.Context, res.Candidate, res.Probe, res.Delta, res.HasDelta, res.Score-b)
		}
		deltas++
	}
	if _, err := r.Wait(); err != nil {
		t.Fatal(err)
	}
	if deltas == 0 || len(base) == 0 {
		t.Fatalf("%d deltas against %d stored baselines", deltas, len(base))
	}
	again, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	if again.noBaselines() {
		t.Fatal("a plan of a study with answers skips its baselines")
	}
}

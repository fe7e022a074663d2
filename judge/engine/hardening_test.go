package engine

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model/store"
)

// heldRun starts the offline study of d on st with a stepJudge, so the
// run is provably in progress (a call is inside the judge) until the test
// lets it go.
func heldRun(t *testing.T, st *store.Store, spec Spec, opts Options) (*Run, *stepJudge, *Plan) {
	t.Helper()
	ctx := context.Background()
	p, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	js, err := NewJudges(spec.Config, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	sj := &stepJudge{inner: js[0], started: make(chan struct{}, len(p.Items)), proceed: make(chan struct{})}
	r, err := Start(ctx, st, []judge.Judge{sj}, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	<-sj.started
	return r, sj, p
}

// finishHeld answers every remaining call and waits for the run.
func finishHeld(t *testing.T, r *Run, sj *stepJudge) Summary {
	t.Helper()
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sj.proceed <- struct{}{}:
			case <-done:
				return
			}
		}
	}()
	sum, err := r.Wait()
	close(done)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func TestSecondRunOnAStudyIsRefused(t *testing.T) {
	d := tinyDataset("tiny")
	st, path := openStore(t, d)
	ctx := context.Background()
	spec := offlineSpec(t, d, 1)
	spec.Limits.Concurrency = 1
	r, sj, _ := heldRun(t, st, spec, Options{})

	// Another process: its own Store on the same file.
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
	counted := &countingJudge{Judge: js[0]}
	_, err = Start(ctx, st2, []judge.Judge{counted}, p2, Options{})
	if !errors.Is(err, store.ErrBusy) || !strings.Contains(err.Error(), "pid") {
		t.Fatalf("second run on the same study: err = %v, want ErrBusy naming the other run", err)
	}
	if counted.calls.Load() != 0 {
		t.Errorf("the refused run sent %d requests", counted.calls.Load())
	}
	// A different study of the same workspace runs beside it.
	other := spec
	other.JudgeName = "offline-2"
	p3, err := NewPlan(ctx, st2, other)
	if err != nil {
		t.Fatal(err)
	}
	r3, err := Start(ctx, st2, js, p3, Options{})
	if err != nil {
		t.Fatalf("another study beside a run: %v", err)
	}
	if _, err := r3.Wait(); err != nil {
		t.Fatal(err)
	}

	sum := finishHeld(t, r, sj)
	if sum.Answered != len(p2.Items) || sum.Study.Answered != len(p2.Items) {
		t.Fatalf("held run: answered %d, study holds %d, want %d", sum.Answered, sum.Study.Answered, len(p2.Items))
	}
	// Once it ended, the study is free again (and all answered).
	p4, _ := NewPlan(ctx, st2, spec)
	r4, err := Start(ctx, st2, js, p4, Options{})
	if err != nil {
		t.Fatalf("after the first run ended: %v", err)
	}
	r4.Wait()
}

func TestDatasetCannotChangeUnderARun(t *testing.T) {
	d := tinyDataset("tiny")
	st, path := openStore(t, d)
	ctx := context.Background()
	spec := offlineSpec(t, d, 1)
	spec.Limits.Concurrency = 1
	r, sj, p := heldRun(t, st, spec, Options{})
	st2, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	changed := tinyDataset("tiny")
	changed.Contexts[0].Candidates[0].Text = "A different summary altogether."
	if err := st2.PutDataset(ctx, changed, true); !errors.Is(err, store.ErrBusy) {
		t.Fatalf("replace during a run: err = %v, want ErrBusy", err)
	}
	if err := st2.DeleteDataset(ctx, "tiny"); !errors.Is(err, store.ErrBusy) {
		t.Fatalf("delete during a run: err = %v, want ErrBusy", err)
	}
	sum := finishHeld(t, r, sj)
	if sum.Study.Answered != len(p.Items) {
		t.Fatalf("study holds %d answers, want %d", sum.Study.Answered, len(p.Items))
	}

	// Replaced between planning and starting: the run refuses to start,
	// so no answer is stored against texts it did not answer.
	p2, err := NewPlan(ctx, st, offlineSpec(t, d, 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := st2.PutDataset(ctx, changed, true); err != nil {
		t.Fatal(err)
	}
	js, _ := NewJudges(spec.Config, 2, nil)
	if _, err := Start(ctx, st, js, p2, Options{}); !errors.Is(err, store.ErrDatasetChanged) {
		t.Fatalf("start after the dataset changed: err = %v, want ErrDatasetChanged", err)
	}
}

// TestGroupCommitStoresWhatArrived: an answer is committed as soon as the
// writer has nothing else queued, not when a batch fills or a timer fires,
// so a kill -9 can only lose requests still in flight.
func TestGroupCommitStoresWhatArrived(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	spec := offlineSpec(t, d, 1)
	spec.Limits.Concurrency = 1
	commits := make(chan int, 256)
	r, sj, p := heldRun(t, st, spec, Options{committed: func(n int) { commits <- n }})
	sj.proceed <- struct{}{} // the first answer
	<-sj.started             // the second call is in flight, held
	if n := <-commits; n != 1 {
		t.Fatalf("first commit held %d responses, want 1", n)
	}
	// Stored while the next request is still in flight.
	prog, err := st.Progress(context.Background(), "tiny", "offline", p.BankHash)
	if err != nil || prog.Answered != 1 {
		t.Fatalf("store holds %d answers (err %v), want 1 with the next call in flight", prog.Answered, err)
	}
	finishHeld(t, r, sj)
}

// downJudge fails every call as a dead server does.
type downJudge struct{ calls int }

func (j *downJudge) Name() string { return "down" }
func (j *downJudge) Score(context.Context, banks.Request) (judge.Result, error) {
	j.calls++
	e := &judge.Error{Kind: judge.KindNetwork, Msg: "dial tcp 127.0.0.1:1: connect: connection refused"}
	return judge.Result{Err: e}, e
}

func TestCircuitBreakerStopsOrPauses(t *testing.T) {
	d := tinyDataset("tiny")
	ctx := context.Background()
	spec := offlineSpec(t, d, 1)
	spec.Limits.Concurrency = 1 // one worker: the count is exact

	st, _ := openStore(t, d)
	p, _ := NewPlan(ctx, st, spec)
	dj := &downJudge{}
	r, err := Start(ctx, st, []judge.Judge{dj}, p, Options{BreakAfter: 5})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := r.Wait()
	if !errors.Is(err, ErrServerDown) || !strings.Contains(err.Error(), "5 requests in a row failed") {
		t.Fatalf("err = %v, want ErrServerDown after 5", err)
	}
	if dj.calls != 5 || sum.Failed != 5 || sum.Stored != 0 || sum.Written != 5 {
		t.Errorf("calls %d, failed %d, stored %d, written %d; want 5, 5, 0, 5", dj.calls, sum.Failed, sum.Stored, sum.Written)
	}

	// In the TUI the run pauses with the reason instead.
	st2, _ := openStore(t, d)
	p2, _ := NewPlan(ctx, st2, spec)
	dj2 := &downJudge{}
	parked := make(chan struct{}, 8)
	r2, err := Start(ctx, st2, []judge.Judge{dj2}, p2, Options{BreakAfter: 5, PauseOnBreak: true, parked: func() { parked <- struct{}{} }})
	if err != nil {
		t.Fatal(err)
	}
	<-parked
	prog := r2.Snapshot()
	if !prog.Paused || !strings.Contains(prog.Why(time.Now()), "server looks down") || dj2.calls != 5 {
		t.Errorf("paused %v, why %q, calls %d", prog.Paused, prog.Why(time.Now()), dj2.calls)
	}
	r2.Cancel()
	r2.Wait()
}

func TestLimiterCapsAndExplainsServerWaits(t *testing.T) {
	now := time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)
	l := NewLimiter(Limits{MaxWait: 30 * time.Second})
	l.now = func() time.Time { return now }
	var slept time.Duration
	l.sleep = func(_ context.Context, d time.Duration) error { slept += d; now = now.Add(d); return nil }

	l.Observe(http.StatusTooManyRequests, http.Header{"Retry-After": {"100000"}})
	why, until := l.Waiting()
	if !until.Equal(now.Add(30*time.Second)) || !strings.Contains(why, "capped at 30s") {
		t.Fatalf("Waiting = %q until %v; want the 30 s cap", why, until)
	}
	p := Progress{Waiting: why, WaitUntil: until}
	if w := p.Why(now); !strings.Contains(w, "waiting 30s") || !strings.Contains(w, "HTTP 429") {
		t.Errorf("progress says %q", w)
	}
	if err := l.Wait(context.Background(), 1); err != nil || slept != 30*time.Second {
		t.Fatalf("waited %v (%v), want the cap 30s", slept, err)
	}
	// A later success lifts a 429 hold at once.
	l.Observe(http.StatusTooManyRequests, http.Header{"Retry-After": {"20"}})
	l.Observe(http.StatusOK, http.Header{})
	if why, _ := l.Waiting(); why != "" {
		t.Errorf("hold not lifted by a success: %q", why)
	}
	// Absurd hints do not overflow.
	for _, v := range []string{"1e300", "+Inf", "99999999999999999999"} {
		l.Observe(http.StatusTooManyRequests, http.Header{"Retry-After": {v}})
		if _, until := l.Waiting(); until.After(now.Add(30*time.Second)) || until.Before(now) {
			t.Errorf("Retry-After %s: until %v", v, until)
		}
	}
}

func TestPlanRefusesHugeStudiesBeforeAllocating(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	_, err := NewPlan(context.Background(), st, offlineSpec(t, d, 100000))
	if err == nil || !strings.Contains(err.Error(), "more than the 2000000 one plan holds") {
		t.Fatalf("err = %v", err)
	}
}

// TestProgressSaysWhy: every way a run can stand still has words.
func TestProgressSaysWhy(t *testing.T) {
	now := time.Date(2026, 12, 1, 5, 0, 0, 0, time.Local)
	cases := []struct {
		p    Progress
		want string
	}{
		{Progress{}, ""},
		{Progress{Paused: true}, ""}, // the user's pause: shown as "paused" alone
		{Progress{Paused: true, PauseReason: "the judge's server looks down"}, "paused: the judge's server looks down"},
		{Progress{Waiting: "the server asked to wait 20s (HTTP 429)", WaitUntil: now.Add(20 * time.Second)}, "waiting 20s, until 05:00:20: the server asked to wait 20s (HTTP 429)"},
		{Progress{Waiting: "over", WaitUntil: now.Add(-time.Second)}, ""},
		{Progress{Retrying: "HTTP 503 Service Unavailable"}, "retrying after HTTP 503 Service Unavailable"},
		{Progress{InFlight: 8, OldestSent: now.Add(-45 * time.Second)}, "waiting for the judge: 8 request(s) in flight, the oldest sent 45s ago"},
		{Progress{InFlight: 8, OldestSent: now.Add(-time.Second)}, ""},
	}
	for _, c := range cases {
		if got := c.p.Why(now); got != c.want {
			t.Errorf("%+v: Why = %q, want %q", c.p, got, c.want)
		}
	}
}

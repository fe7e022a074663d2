package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/prism-eval/prism/banks"
	"github.com/prism-eval/prism/judge"
	"github.com/prism-eval/prism/model/store"
)

// paidRun starts d's study as a server judge's (its workers wait for
// their answers' commits) with js standing in for the server, which is
// never contacted.
func paidRun(t *testing.T, st *store.Store, conc int, js func(inner judge.Judge, calls int) judge.Judge, opts Options) (*Run, *Plan) {
	t.Helper()
	d := tinyDataset("tiny")
	spec := offlineSpec(t, d, 1)
	spec.Config.Backend, spec.Config.Model, spec.Config.BaseURL = judge.BackendOpenAI, "m", "http://127.0.0.1:1/v1"
	spec.JudgeName = "srv"
	spec.Limits.Concurrency = conc
	ctx := context.Background()
	p, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	inner, err := NewJudges(offlineSpec(t, d, 1).Config, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Start(ctx, st, []judge.Judge{js(inner[0], len(p.Sends))}, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r, p
}

// steppedPaidRun is paidRun at concurrency 2 with a stepJudge, whose
// calls the test releases one by one.
func steppedPaidRun(t *testing.T, st *store.Store, opts Options) (*Run, *Plan, *stepJudge) {
	t.Helper()
	var sj *stepJudge
	r, p := paidRun(t, st, 2, func(inner judge.Judge, calls int) judge.Judge {
		sj = &stepJudge{inner: inner, started: make(chan struct{}, calls), proceed: make(chan struct{})}
		return sj
	}, opts)
	return r, p, sj
}

// roundJudge answers like inner, in rounds: a call returns only once
// size calls (or all that are left) have started, so each round's answers
// are all on their way to the writer before any is done.
type roundJudge struct {
	inner      judge.Judge
	mu         sync.Mutex
	size, left int
	n          int
	release    chan struct{}
}

func (j *roundJudge) Name() string { return j.inner.Name() }

func (j *roundJudge) Score(ctx context.Context, req banks.Request) (judge.Result, error) {
	j.mu.Lock()
	if j.release == nil {
		j.release = make(chan struct{})
	}
	ch := j.release
	j.n++
	j.left--
	if j.n == j.size || j.left == 0 {
		close(ch)
		j.release, j.n = nil, 0
	}
	j.mu.Unlock()
	select {
	case <-ch:
	case <-ctx.Done():
		return judge.Result{}, &judge.Error{Kind: judge.KindCanceled, Msg: ctx.Err().Error()}
	}
	return j.inner.Score(ctx, req)
}

// Answers that arrive while other calls are in flight share one
// transaction: with each round of 4 calls answered together and a commit
// delay far longer than the test, every commit holds a whole round, and
// the writer commits as soon as the round's last answer is queued (no
// call in flight), not when the delay ends.
func TestCommitDelayGathersAnswersInFlight(t *testing.T) {
	st, _ := openStore(t, tinyDataset("tiny"))
	var mu sync.Mutex
	var commits []int
	r, p := paidRun(t, st, 4, func(inner judge.Judge, calls int) judge.Judge {
		return &roundJudge{inner: inner, size: 4, left: calls}
	}, Options{CommitDelay: time.Hour, committed: func(n int) { mu.Lock(); commits = append(commits, n); mu.Unlock() }})
	sum, err := r.Wait()
	if err != nil || sum.Stored != len(p.Items) {
		t.Fatalf("stored %d of %d: %v", sum.Stored, len(p.Items), err)
	}
	want := (len(p.Sends) + 3) / 4
	if len(commits) != want {
		t.Fatalf("%d commits %v, want %d of 4 answers each", len(commits), commits, want)
	}
	for i, n := range commits {
		if n != 4 && !(i == len(commits)-1 && n == len(p.Sends)%4) {
			t.Fatalf("commit %d held %d answers, want a round of 4: %v", i, n, commits)
		}
	}
}

// The delay is bounded: an answer whose companions stay in flight is
// committed after CommitDelay, while they are still held, and stored.
func TestCommitDelayIsBounded(t *testing.T) {
	st, _ := openStore(t, tinyDataset("tiny"))
	commits := make(chan int, 256)
	r, p, sj := steppedPaidRun(t, st, Options{committed: func(n int) { commits <- n }})
	<-sj.started
	<-sj.started             // both calls in flight
	sj.proceed <- struct{}{} // one answers; the other stays held
	if n := <-commits; n != 1 {
		t.Fatalf("first commit held %d responses, want the lone answer", n)
	}
	prog, err := st.Progress(context.Background(), "tiny", "srv", p.BankHash)
	if err != nil || prog.Answered != 1 {
		t.Fatalf("store holds %d answers (err %v), want 1 with the other call in flight", prog.Answered, err)
	}
	finishHeld(t, r, sj)
}

// A canceled run whose writer is lingering ends: abandoned calls count
// as done, so the writer commits what arrived and the run stores it.
func TestCommitDelayEndsOnCancel(t *testing.T) {
	st, _ := openStore(t, tinyDataset("tiny"))
	commits := make(chan int, 256)
	r, _, sj := steppedPaidRun(t, st, Options{CommitDelay: time.Hour, committed: func(n int) { commits <- n }})
	<-sj.started
	<-sj.started
	sj.proceed <- struct{}{} // one answer, lingering for the held call
	for ev := range r.Events() {
		if ev.Kind == EventResult { // queued for the writer
			break
		}
	}
	r.Cancel()
	sum, _ := r.Wait()
	if !sum.Canceled || sum.Stored != 1 || sum.Study.Answered != 1 {
		t.Fatalf("canceled %v, stored %d, study %d: want the one answer stored", sum.Canceled, sum.Stored, sum.Study.Answered)
	}
}

package engine

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prism-eval/prism/judge"
)

// Each result's progress is as of that result: the error counts a later
// failure adds do not reach the snapshots already sent (snapshots share
// one copy of the counts until they change).
func TestResultSnapshotsKeepTheirErrorCounts(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	spec := offlineSpec(t, d, 1)
	spec.Limits.Concurrency = 1
	p, err := NewPlan(context.Background(), st, spec)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Start(context.Background(), st, []judge.Judge{&downJudge{}}, p, Options{BreakAfter: 4})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for ev := range r.Events() {
		if ev.Kind == EventResult {
			got = append(got, ev.Progress.Errors[string(judge.KindNetwork)])
		}
	}
	r.Wait()
	if len(got) != 4 || got[0] != 1 || got[1] != 2 || got[2] != 3 || got[3] != 4 {
		t.Fatalf("network failures as of each result: %v, want [1 2 3 4]", got)
	}
}

// OldestSent is the send time of the oldest request in flight, and zero
// once none is.
func TestOldestSentFollowsRequestsInFlight(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	spec := offlineSpec(t, d, 1)
	spec.Limits.Concurrency = 2
	r, sj, _ := heldRun(t, st, spec, Options{})
	<-sj.started // both workers' calls are in flight
	first := r.Snapshot()
	if first.InFlight != 2 || first.OldestSent.IsZero() || first.OldestSent.After(first.At) {
		t.Fatalf("two in flight: InFlight %d, OldestSent %v (at %v)", first.InFlight, first.OldestSent, first.At)
	}
	sum := finishHeld(t, r, sj)
	if sum.InFlight != 0 || !sum.OldestSent.IsZero() {
		t.Fatalf("after the run: InFlight %d, OldestSent %v", sum.InFlight, sum.OldestSent)
	}
}

// ProgressOnly: no result events, progress that never goes back, and the
// last snapshot has every request done; the answers are all stored.
func TestProgressOnlyEmitsNoResults(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	spec := offlineSpec(t, d, 1)
	p, err := NewPlan(context.Background(), st, spec)
	if err != nil {
		t.Fatal(err)
	}
	js, err := NewJudges(spec.Config, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Start(context.Background(), st, js, p, Options{ProgressOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var last Progress
	n := 0
	for ev := range r.Events() {
		if ev.Kind != EventProgress {
			t.Fatalf("event of kind %v with ProgressOnly", ev.Kind)
		}
		if ev.Progress.Done < last.Done {
			t.Fatalf("Done went back from %d to %d", last.Done, ev.Progress.Done)
		}
		last = ev.Progress
		n++
	}
	sum, err := r.Wait()
	if err != nil || n == 0 || last.Done != len(p.Items) || sum.Stored != len(p.Items) || sum.Study.Answered != len(p.Items) {
		t.Fatalf("%d events, last Done %d, stored %d, study %d, want %d (%v)", n, last.Done, sum.Stored, sum.Study.Answered, len(p.Items), err)
	}
}

// Rate and ETA are computed over the run's active time: while it is
// paused they stand still however long the pause lasts, and after a
// resume the pause does not count.
func TestRateExcludesPausedTime(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	r := &Run{start: t0, lim: NewLimiter(Limits{}), gate: make(chan struct{})}
	close(r.gate)
	r.prog.Total, r.prog.Done, r.prog.Sent = 100, 10, 10
	r.prog.Errors = map[string]int{}

	running := r.snapshotAt(t0.Add(10 * time.Second))
	if running.Rate != 1 || running.ETA != 90*time.Second || running.Active != 10*time.Second {
		t.Fatalf("running: rate %v ETA %v active %v, want 1/s, 90s, 10s", running.Rate, running.ETA, running.Active)
	}
	r.pauseLocked(t0.Add(10 * time.Second))
	for _, after := range []time.Duration{time.Second, time.Minute, time.Hour} {
		p := r.snapshotAt(t0.Add(10*time.Second + after))
		if p.Rate != running.Rate || p.ETA != running.ETA || p.Active != running.Active {
			t.Errorf("paused for %v: rate %v ETA %v active %v, want them as at the pause (%v, %v, %v)",
				after, p.Rate, p.ETA, p.Active, running.Rate, running.ETA, running.Active)
		}
		if p.Elapsed != 10*time.Second+after {
			t.Errorf("paused for %v: elapsed %v, want the wall time", after, p.Elapsed)
		}
	}
	resumed := t0.Add(10*time.Second + time.Hour)
	r.resumeLocked(resumed)
	r.prog.Done, r.prog.Sent = 20, 20
	p := r.snapshotAt(resumed.Add(10 * time.Second))
	if p.Active != 20*time.Second || p.Rate != 1 || p.ETA != 80*time.Second {
		t.Errorf("resumed: active %v rate %v ETA %v, want 20s, 1/s, 80s", p.Active, p.Rate, p.ETA)
	}
	// A second pause adds to the first.
	r.pauseLocked(resumed.Add(10 * time.Second))
	r.resumeLocked(resumed.Add(40 * time.Second))
	if p := r.snapshotAt(resumed.Add(50 * time.Second)); p.Active != 30*time.Second {
		t.Errorf("after two pauses: active %v, want 30s", p.Active)
	}
}

func TestRateETA(t *testing.T) {
	for _, tc := range []struct {
		sent, remaining int
		active          time.Duration
		rate            float64
		eta             time.Duration
	}{
		{0, 10, time.Second, 0, 0},
		{10, 10, 0, 0, 0},
		{10, 0, 5 * time.Second, 2, 0},
		{10, 20, 5 * time.Second, 2, 10 * time.Second},
	} {
		rate, eta := rateETA(tc.sent, tc.remaining, tc.active)
		if rate != tc.rate || eta != tc.eta {
			t.Errorf("rateETA(%d, %d, %v) = %v, %v; want %v, %v", tc.sent, tc.remaining, tc.active, rate, eta, tc.rate, tc.eta)
		}
	}
}

// A run counts the calls whose token usage the client replaced by
// estimates (judge.CheckUsage), so the summary can say so.
func TestRunCountsEstimatedUsage(t *testing.T) {
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	spec := Spec{Dataset: d, Bank: quality(t), JudgeName: "offline", Config: judge.Defaults(), Repeats: 1,
		Limits: Limits{Concurrency: 2}, Probes: []string{"baseline"}}
	var calls atomic.Int64
	cj := &countJudge{calls: map[string]int{}, alter: func(r *judge.Result) {
		if calls.Add(1)%2 == 1 && len(r.Samples) > 0 {
			r.Samples[0].UsageNote = "prompt_tokens -5: estimated"
		}
	}}
	_, sum := runRubric(t, st, spec, cj, 0)
	if sum.Sent != 4 || sum.UsageEstimated != 2 {
		t.Fatalf("sent %d, usage estimated %d; want 4 and 2", sum.Sent, sum.UsageEstimated)
	}
}

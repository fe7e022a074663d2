package engine

import (
	"context"
	"testing"

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

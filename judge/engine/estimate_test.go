package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/prism-eval/prism/model/store"
	"github.com/prism-eval/prism/model/synthstudy"
)

// EstimatePlan's estimate is NewPlan's, request for request: in a new
// workspace, and in one holding some of the study's answers at their
// coordinates, a failure, answers of other runs and answers to the same
// messages under another judge name (cache hits).
func TestEstimatePlanEqualsNewPlan(t *testing.T) {
	// A context is 2 candidates × 38 conditions = 76 cells: 3 contexts are
	// one group of the estimate's reads (500 cells); with groups of 150
	// cells (two contexts), 8 contexts are four, as 30 are five at 500.
	for _, c := range []struct{ contexts, chunk int }{{3, cachedChunkCells}, {8, 150}} {
		t.Run(fmt.Sprint(c.contexts), func(t *testing.T) {
			defer func(old int) { cachedChunkCells = old }(cachedChunkCells)
			cachedChunkCells = c.chunk
			estimateEqualsNewPlan(t, c.contexts)
		})
	}
}

func estimateEqualsNewPlan(t *testing.T, contexts int) {
	ctx := context.Background()
	d := synthstudy.Dataset(contexts, 2, 7)
	st, _ := openStore(t, d)
	same := func(spec Spec) Estimate {
		t.Helper()
		p, err := NewPlan(ctx, st, spec)
		if err != nil {
			t.Fatal(err)
		}
		e, err := EstimatePlan(ctx, st, spec)
		if err != nil {
			t.Fatal(err)
		}
		if e.Estimate != p.Estimate {
			t.Fatalf("EstimatePlan %+v\nNewPlan      %+v", e.Estimate, p.Estimate)
		}
		if len(e.Items) != 0 || e.BankHash != p.BankHash || e.Conditions() != p.Conditions() {
			t.Fatalf("EstimatePlan holds %d items, bank %s, %d conditions", len(e.Items), e.BankHash, e.Conditions())
		}
		return e.Estimate
	}
	spec := offlineSpec(t, d, 3)
	same(spec)
	// Answer runs 0 and 1 under another judge name: cache hits for "offline".
	other := offlineSpec(t, d, 2)
	other.JudgeName = "other"
	if _, _, err := runToEnd(t, st, other, Options{}); err != nil {
		t.Fatal(err)
	}
	same(spec)
	// Some answers (and a failure) of the study itself, at scattered
	// coordinates and runs.
	storeScattered(t, st, spec, 5)
	if e := same(spec); e.Answered == 0 || e.CacheHits == 0 || e.Send == 0 {
		t.Fatalf("estimate %+v: want answered, cached and sent requests", e)
	}
	spec.Repeats = 1
	same(spec)
	spec.Repeats = 5
	spec.Probes = []string{"baseline"}
	same(spec)
	spec.Repeats = smallRepeats + 4 // the answered set regrouped by condition
	spec.Probes = nil
	if e := same(spec); e.Answered == 0 || e.CacheHits == 0 {
		t.Fatalf("estimate %+v: want answered and cached requests", e)
	}
	// The study answered whole in one run: every candidate is counted
	// without rendering its requests (EstimatePlan's allAnswered), beside
	// a second run that is partly answered.
	spec.Repeats = 1
	if _, _, err := runToEnd(t, st, spec, Options{}); err != nil {
		t.Fatal(err)
	}
	// The run's end wrote the study's score snapshot: the estimates
	// below read the answered set from it (store.SnapshotAnswers), the
	// ones above from the requests.
	if a, err := st.SnapshotAnswers(ctx, spec.JudgeName, d.Name, bankHashOf(t, st, spec)); err != nil || a == nil || a.Len() == 0 {
		t.Fatalf("no current score snapshot after the run (%v): the estimates would not read it", err)
	}
	if e := same(spec); e.Send != 0 || e.Answered != e.Requests {
		t.Fatalf("estimate %+v: want every request answered", e)
	}
	spec.Probes = []string{"baseline"} // some conditions of the snapshot (HasAll)
	if e := same(spec); e.Send != 0 || e.Answered != e.Requests {
		t.Fatalf("estimate %+v: want every request answered", e)
	}
	spec.Probes = nil
	spec.Repeats = 2
	if e := same(spec); e.Send+e.CacheHits == 0 || e.Answered < e.Requests/2 {
		t.Fatalf("estimate %+v: want run 0 answered and run 1 to send or cached", e)
	}
	spec.Repeats = smallRepeats + 4 // the snapshot's set regrouped by condition
	if e := same(spec); e.Answered == 0 || e.CacheHits == 0 {
		t.Fatalf("estimate %+v: want answered and cached requests", e)
	}
}

// bankHashOf is the bank hash a plan of spec records.
func bankHashOf(t *testing.T, st *store.Store, spec Spec) string {
	t.Helper()
	p, err := EstimatePlan(context.Background(), st, spec)
	if err != nil {
		t.Fatal(err)
	}
	return p.BankHash
}

// EstimatePlan plans a study far beyond MaxPlanRequests without holding
// its requests.
func TestEstimatePlanOfManyRuns(t *testing.T) {
	ctx := context.Background()
	d := synthstudy.Dataset(2, 2, 7)
	st, _ := openStore(t, d)
	spec := offlineSpec(t, d, 100_000)
	if _, err := NewPlan(ctx, st, spec); err == nil {
		t.Fatal("NewPlan planned 15,200,000 requests")
	}
	e, err := EstimatePlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	if n := 4 * 38 * 100_000; e.Estimate.Requests != n || e.Estimate.Send != n {
		t.Fatalf("estimate %+v, want %d requests to send", e.Estimate, n)
	}
}

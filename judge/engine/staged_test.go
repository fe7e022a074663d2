package engine

import (
	"context"
	"math"
	"testing"
)

// TestPlanStage: a stage plans only its candidates and probe (every
// wording and run), stores under the full study's coordinates, and a
// stage already answered sends nothing; StageValues averages the
// wordings and runs of each candidate.
func TestPlanStage(t *testing.T) {
	ctx := context.Background()
	d := tinyDataset("tiny")
	st, _ := openStore(t, d)
	spec := offlineSpec(t, d, 2)
	keep := map[string][]string{"doc1": {"s0"}, "doc0": {"s1", "nope"}}
	p, err := PlanStage(ctx, st, spec, []string{"coverage:+"}, keep)
	if err != nil {
		t.Fatal(err)
	}
	// 2 candidates × 2 wordings × 2 runs.
	if len(p.Items) != 8 || p.Estimate.Send != 8 {
		t.Fatalf("%d items, %d to send; want 8", len(p.Items), p.Estimate.Send)
	}
	full, err := NewPlan(ctx, st, spec)
	if err != nil {
		t.Fatal(err)
	}
	if p.BankHash != full.BankHash || p.DatasetRev != full.DatasetRev {
		t.Errorf("stage study %s@%d, full %s@%d", p.BankHash, p.DatasetRev, full.BankHash, full.DatasetRev)
	}
	for i := range p.Items {
		r := p.Row(&p.Items[i])
		if r.Probe != "coverage:+" || !(r.Context == "doc1" && r.Candidate == "s0" || r.Context == "doc0" && r.Candidate == "s1") {
			t.Errorf("item %d: %+v", i, r)
		}
	}
	judges, err := PlanJudges(p, NewLimiter(p.Spec.Limits))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Start(ctx, st, judges, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range r.Events() {
	}
	if sum, err := r.Wait(); err != nil || sum.Sent != 8 {
		t.Fatalf("sent %d: %v", sum.Sent, err)
	}
	again, err := PlanStage(ctx, st, spec, []string{"coverage:+"}, keep)
	if err != nil || again.Estimate.Send != 0 || again.Estimate.Answered != 8 {
		t.Fatalf("replanned stage: %+v, %v", again.Estimate, err)
	}
	vals, err := StageValues(ctx, st, p)
	if err != nil {
		t.Fatal(err)
	}
	rows, _, err := st.FitInput(ctx, "tiny", "offline", p.BankHash)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	n := 0
	for _, r := range rows {
		if r.Context == "doc1" && r.Candidate == "s0" && r.Probe == "coverage:+" {
			sum += r.Score
			n++
		}
	}
	if n != 4 || len(vals) != 2 || math.Abs(vals[[3]string{"doc1", "s0", "coverage:+"}]-sum/4) > 1e-15 {
		t.Errorf("values %v; doc1/s0 has %d rows summing to %v", vals, n, sum)
	}
	if none, err := PlanStage(ctx, st, spec, []string{"baseline"}, map[string][]string{"x": {"y"}}); none != nil || err != nil {
		t.Errorf("empty stage: %v %v", none, err)
	}
}

package store

import (
	"context"
	"slices"
	"testing"
)

// A study's progress is counted against its plan: an interrupted run
// shows the requests it planned, of them those answered and failed; a
// diagnostic's extra runs are answers beyond the plan, and its name is
// recorded; a plan only widens.
func TestStudyPlanProgress(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	if err := s.PlanStudy(ctx, StudyPlan{Dataset: "tiny", Judge: "j", BankHash: testBank, Runs: 1, Requests: 10}); err != nil {
		t.Fatal(err)
	}
	one := func() StudyInfo {
		t.Helper()
		st, err := s.Studies(ctx)
		if err != nil || len(st) != 1 {
			t.Fatalf("Studies = %+v, %v", st, err)
		}
		return st[0]
	}
	if got := one(); got.Planned != 10 || got.PlannedRuns != 1 || got.Requests != 0 || got.PlanAnswered != 0 {
		t.Errorf("a planned study before any answer: %+v", got)
	}
	// Interrupted: 2 of the 10 answered, one failed; then a screen's run 1.
	err := s.PutResponses(ctx, []Response{
		answer("c1", "x", "baseline", "0", 4),
		answer("c2", "a", "baseline", "0", 5),
		failure("c2", "b", "baseline", "0", "timeout"),
		answer("c1", "x", "baseline", "1", 6),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.PlanStudy(ctx, StudyPlan{Dataset: "tiny", Judge: "j", BankHash: testBank, Runs: 2, Requests: 4, Diagnostic: "screen"}); err != nil {
		t.Fatal(err)
	}
	got := one()
	if got.Planned != 10 || got.PlannedRuns != 1 || got.PlanAnswered != 2 || got.PlanFailed != 1 || got.Answered != 3 ||
		!slices.Equal(got.Diagnostics, []string{"screen"}) || !slices.Equal(got.Runs, []string{"0", "1"}) {
		t.Errorf("after an interrupted run and a screen: %+v", got)
	}
	// A later run with fewer requests keeps the plan; one with more runs widens it.
	for _, p := range []StudyPlan{{Runs: 1, Requests: 5}, {Runs: 2, Requests: 20}} {
		p.Dataset, p.Judge, p.BankHash = "tiny", "j", testBank
		if err := s.PlanStudy(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if got := one(); got.Planned != 20 || got.PlannedRuns != 2 || got.PlanAnswered != 3 {
		t.Errorf("after a wider plan: %+v", got)
	}
}

func TestRunInPlan(t *testing.T) {
	for _, c := range []struct {
		run  string
		runs int
		want bool
	}{
		{"0", 1, true}, {"1", 1, false}, {"1", 2, true}, {"10", 2, false}, {"x", 2, false}, {"01", 2, false},
		{"o3", 1, true}, {"o3r1", 1, false}, {"o3r1", 2, true}, {"or1", 2, false}, {"", 1, false},
		{"anything", 0, true}, {"", 0, true},
	} {
		if got := RunInPlan(c.run, c.runs); got != c.want {
			t.Errorf("RunInPlan(%q, %d) = %v, want %v", c.run, c.runs, got, c.want)
		}
	}
}

// A stored report comes back newest first, with its study's generation.
func TestReportsStored(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	for i, body := range []string{`{"a":1}`, `{"a":2}`} {
		id, err := s.PutReport(ctx, StoredReport{Kind: "fit", Dataset: "d", Judge: "j", BankHash: "h", Runs: "planned", Generation: int64(i), Inputs: "x", Body: []byte(body)})
		if err != nil || id != int64(i+1) {
			t.Fatalf("PutReport = %d, %v", id, err)
		}
	}
	reps, err := s.Reports(ctx, "fit", "d", true)
	if err != nil || len(reps) != 2 || string(reps[0].Body) != `{"a":2}` || reps[0].Generation != 1 || reps[1].ID != 1 {
		t.Fatalf("Reports = %+v, %v", reps, err)
	}
	if reps, _ := s.Reports(ctx, "fit", "other", false); len(reps) != 0 {
		t.Errorf("another dataset's reports: %+v", reps)
	}
}

// StudiesOf names a judge's studies on a dataset with their plans,
// without counting; FailedRuns counts one study's failed requests per
// run.
func TestStudiesOfAndFailedRuns(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	seedJudgeAndDataset(t, s)
	if err := s.PlanStudy(ctx, StudyPlan{Dataset: "tiny", Judge: "j", BankHash: testBank, Runs: 1, Requests: 10}); err != nil {
		t.Fatal(err)
	}
	err := s.PutResponses(ctx, []Response{
		answer("c1", "x", "baseline", "0", 4),
		failure("c2", "b", "baseline", "0", "timeout"),
		failure("c2", "b", "baseline", "1", "timeout"),
		failure("c2", "a", "baseline", "1", "timeout"),
		failure("c2", "a", "baseline", "1", "timeout"),
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.StudiesOf(ctx, "tiny", "j")
	if err != nil || len(st) != 1 || st[0].BankHash != testBank || st[0].PlannedRuns != 1 || st[0].Planned != 10 || st[0].Requests != 0 {
		t.Fatalf("StudiesOf = %+v, %v", st, err)
	}
	if other, err := s.StudiesOf(ctx, "tiny", "nobody"); err != nil || len(other) != 0 {
		t.Errorf("another judge's studies: %+v, %v", other, err)
	}
	failed, err := s.FailedRuns(ctx, "tiny", "j", testBank)
	if err != nil || failed["0"] != 1 || failed["1"] != 2 || len(failed) != 2 {
		t.Errorf("FailedRuns = %v, %v; want 0:1 1:2", failed, err)
	}
}

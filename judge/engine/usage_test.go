package engine

import (
	"sync/atomic"
	"testing"

	"github.com/prism-eval/prism/judge"
)

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

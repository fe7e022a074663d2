package budget

import (
	"context"
	"testing"
)

var sinkBudget *Report

// BenchmarkBudget evaluates the whole budget curve (Vanilla, the full
// bank, 7 unit and 15 column subsets, one sign, 16 one-wording points,
// 10 τ on all wordings and 10 on the first) with nested CV (5 × 5 folds,
// 7 γ) and 2,000 bootstrap resamples on a SummEval-sized synthetic study:
// 100 contexts × 16 candidates, 8 attributes, 2 wordings per sign.
func BenchmarkBudget(b *testing.B) {
	rows, labels := synthWordings(100, 16, 8, 1)
	opts := DefaultOptions()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, _, err := Evaluate(context.Background(), rows, labels, opts)
		if err != nil {
			b.Fatal(err)
		}
		sinkBudget = r
	}
}

package selection

import (
	"context"
	"testing"

	"github.com/prism-eval/prism/calib"

	"github.com/prism-eval/prism/calib/internal/calibtest"
)

var sinkSelect *Report

// BenchmarkSelectAll255 enumerates all 255 subsets of an 8-attribute bank
// with nested CV (5 × 5 folds, 7 γ) on a SummEval-sized synthetic study
// (100 contexts × 16 candidates), plus the omission table and Forward
// selection (which reuse the enumeration). Target: under 2 s per op.
func BenchmarkSelectAll255(b *testing.B) {
	rows, labels := calibtest.Synth(100, 16, 8, 1)
	d, _, err := calib.BuildDesign(rows, labels, calib.BuildOptions{})
	if err != nil {
		b.Fatal(err)
	}
	opts := DefaultOptions()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, _, err := SelectDesign(context.Background(), d, opts)
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Subsets) != 255 {
			b.Fatalf("%d subsets", len(r.Subsets))
		}
		sinkSelect = r
	}
}

package signal

import (
	"context"
	"testing"
)

var sinkSignal *Report

// BenchmarkSignal is one diagnostics pass on a SummEval-sized study: 100
// contexts × 16 candidates × 2 runs × (baseline, 8 attributes × 2 signs ×
// 2 wordings, 3 neutral clauses) = 115,200 score rows, with the TUI's live
// 200 resamples and the protocol's 2,000.
func BenchmarkSignal(b *testing.B) {
	rows := noiseStudy(100, 16, 2, []float64{0, 0.2, 0.4, 0.6, 0.8, 1, 1.2, 1.4}, 1)
	for _, bs := range []struct {
		name string
		B    int
	}{{"B=200", 200}, {"B=2000", 2000}} {
		b.Run(bs.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				r, err := Signal(context.Background(), rows, Options{Bootstrap: bs.B, Seed: 42})
				if err != nil {
					b.Fatal(err)
				}
				sinkSignal = r
			}
		})
	}
}

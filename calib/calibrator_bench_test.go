package calib

import (
	"fmt"
	"testing"

	"github.com/prism-eval/prism/model"
)

var sinkScored *Scored

// BenchmarkApply100k scores 100,000 candidates (10,000 contexts × 10)
// from stored scores with a 32-column calibrator (16 attributes):
// averaging, imputation, centering, prediction, terms and ranks. The
// rate is candidates/s.
func BenchmarkApply100k(b *testing.B) {
	const nctx, ncand, K = 10000, 10, 16
	c := &Calibrator{Method: "prism", Metric: "spearman", Centering: CenterWithinContext, Alpha: 1, Gamma: GammaChoice{Value: 1}}
	for k := 0; k < K; k++ {
		a := fmt.Sprintf("a%02d", k)
		c.Attributes = append(c.Attributes, a)
		c.Columns = append(c.Columns, a+":+", a+":-")
		c.Beta = append(c.Beta, 0.1*float64(k%5), -0.05*float64(k%3))
	}
	c.ScoreColumns = c.scoreColumns()
	c.Means = make([]float64, len(c.ScoreColumns))
	rows := make([]model.ScoreRow, 0, nctx*ncand*(1+2*K))
	for g := 0; g < nctx; g++ {
		ctx := fmt.Sprintf("c%05d", g)
		for i := 0; i < ncand; i++ {
			cand := fmt.Sprintf("m%02d", i)
			s0 := float64((g*7+i*3)%10 + 1)
			rows = append(rows, model.ScoreRow{Context: ctx, Candidate: cand, Probe: "baseline", Score: s0})
			for k, col := range c.Columns {
				rows = append(rows, model.ScoreRow{Context: ctx, Candidate: cand, Probe: col, Score: s0 + float64((g+i+k)%3-1)})
			}
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, err := c.Apply(rows, nil, ApplyOptions{})
		if err != nil {
			b.Fatal(err)
		}
		sinkScored = s
	}
	b.ReportMetric(float64(nctx*ncand)*float64(b.N)/b.Elapsed().Seconds(), "candidates/s")
}

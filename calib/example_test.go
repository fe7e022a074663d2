package calib_test

import (
	"context"
	"fmt"
	"math"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
)

// The default context order: sorted ids, Fisher–Yates with PCG(42, 0).
// The output was cross-checked with an independent Python implementation
// of Go's PCG-DXSM (the snippet is in the fit documentation).
func ExamplePermutation() {
	fmt.Println(calib.Permutation([]string{"e", "d", "c", "b", "a"}, 42))
	// Output: [c b e a d]
}

// Fit takes rows and labels from anywhere (CSV files, the workspace).
// Here a judge ignores "detail", which the humans value; the detail
// probe exposes it and PRISM puts it back.
func ExampleFit() {
	var rows []model.ScoreRow
	var labels []model.Label
	for g := 0; g < 10; g++ {
		for i := 0; i < 6; i++ {
			ctx, cand := fmt.Sprintf("doc%d", g), fmt.Sprintf("sum%d", i)
			style := math.Sin(float64(3*g + 5*i))
			detail := math.Cos(float64(7*g + 2*i))
			s0 := style
			labels = append(labels, model.Label{Context: ctx, Candidate: cand, Human: style + detail})
			rows = append(rows,
				model.ScoreRow{Context: ctx, Candidate: cand, Probe: "baseline", Score: s0},
				model.ScoreRow{Context: ctx, Candidate: cand, Probe: "detail:+", Score: s0 + 0.5*detail},
				model.ScoreRow{Context: ctx, Candidate: cand, Probe: "detail:-", Score: s0 - 0.5*detail})
		}
	}
	rep, _, err := calib.Fit(context.Background(), rows, labels, calib.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.NContexts, rep.NCandidates, rep.Columns)
	fmt.Println("PRISM beats Vanilla:", rep.Methods.PRISM.DiffVsVanilla.CI[0] > 0)
	fmt.Println("adds detail back (a < 0):", rep.Profiles["detail"].A.Mean < 0)
	// Output:
	// 10 60 [detail:+ detail:-]
	// PRISM beats Vanilla: true
	// adds detail back (a < 0): true
}

// ExampleCalibrator_Apply scores one context of three candidates with a
// one-attribute calibrator (the case worked by hand in docs/calibrator.md):
// the third candidate's s− is missing and takes the training mean 6.
func ExampleCalibrator_Apply() {
	c := &calib.Calibrator{Method: "prism", Metric: "spearman", Centering: calib.CenterWithinContext,
		Columns: []string{"a:+", "a:-"}, Attributes: []string{"a"}, ScoreColumns: []string{"baseline", "a:+", "a:-"},
		Means: []float64{6, 7, 6}, Alpha: 1, Beta: []float64{0.5, 0.25}, Gamma: calib.GammaChoice{Value: 1}}
	var rows []model.ScoreRow
	for _, r := range []struct {
		cand         string
		s0, plus, mi float64
	}{{"x", 5, 6, 4}, {"y", 6, 6, 6}, {"z", 7, 9, -1}} {
		rows = append(rows,
			model.ScoreRow{Context: "g", Candidate: r.cand, Probe: "baseline", Score: r.s0},
			model.ScoreRow{Context: "g", Candidate: r.cand, Probe: "a:+", Score: r.plus},
			model.ScoreRow{Context: "g", Candidate: r.cand, Probe: "a:-", Score: r.mi, Missing: r.mi < 0})
	}
	s, err := c.Apply(rows, nil, calib.ApplyOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range s.Rows {
		fmt.Printf("%s: s0 %g → %.4f, rank %g → %g, term %+.4f, imputed %d\n", r.Candidate, r.Baseline, r.Corrected, r.RankBefore, r.RankAfter, r.Terms[0], r.Imputed)
	}
	// Output:
	// x: s0 5 → 4.9167, rank 3 → 3, term +0.0833, imputed 0
	// y: s0 6 → 6.6667, rank 2 → 1, term -0.6667, imputed 0
	// z: s0 7 → 6.4167, rank 1 → 2, term +0.5833, imputed 1
}

// ExampleFitMonotone maps corrected scores to the human scale: the
// violating pair (2, 3) and (3, 2) is pooled into one knot at 2.5.
func ExampleFitMonotone() {
	m, err := calib.FitMonotone([]float64{1, 2, 3, 4}, []float64{1, 3, 2, 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("knots:", m.X, "→", m.Y)
	fmt.Println("At(3.25) =", m.At(3.25), " At(5) =", m.At(5), "(extrapolated:", m.Extrapolates(5), ")")
	// Output:
	// knots: [1 2.5 4] → [1 2.5 4]
	// At(3.25) = 3.25  At(5) = 5 (extrapolated: true )
}

package calib

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib/internal/calibtest"

	"github.com/prism-eval/prism/model"
	"gonum.org/v1/gonum/mat"
)

// TestGlobalSums checks the training statistics of global mode against
// explicit centering over the training rows and the target of eq. 4 with
// the training rows as the one group.
func TestGlobalSums(t *testing.T) {
	rows, labels := calibtest.Synth(30, 1, 2, 5)
	d, _, err := BuildDesign(rows, labels, BuildOptions{Global: true})
	if err != nil {
		t.Fatal(err)
	}
	f := newGlobalFitter(d, DefaultOptions())
	train := []int{0, 3, 4, 7, 8, 9, 12, 15, 16, 20, 21, 22, 25, 29}
	f.fitSums(train)
	q, n := d.Q(), len(train)
	J := mat.NewDense(n, q, nil)
	s0 := make([]float64, n)
	y := make([]float64, n)
	for i, r := range train {
		for c := 0; c < q; c++ {
			J.Set(i, c, d.J[r*q+c])
		}
		s0[i], y[i] = d.S0[r], d.Human[r]
	}
	center := func(x []float64) []float64 {
		m := mean(x)
		out := make([]float64, len(x))
		for i := range x {
			out[i] = x[i] - m
		}
		return out
	}
	for c := 0; c < q; c++ {
		col := center(mat.Col(nil, c, J))
		J.SetCol(c, col)
	}
	v, cy := center(s0), center(y)
	norm := func(x []float64) float64 { return mat.Norm(mat.NewVecDense(len(x), x), 2) }
	k := norm(v) / norm(cy)
	ys := make([]float64, n)
	for i := range cy {
		ys[i] = k * cy[i]
	}
	var G mat.Dense
	G.Mul(J.T(), J)
	var c, e mat.VecDense
	c.MulVec(J.T(), mat.NewVecDense(n, v))
	e.MulVec(J.T(), mat.NewVecDense(n, ys))
	calibtest.AssertClose(t, "G", f.sum.G, G.RawMatrix().Data, 1e-10)
	calibtest.AssertClose(t, "c", f.sum.c, c.RawVector().Data, 1e-10)
	calibtest.AssertClose(t, "e", f.sum.e, e.RawVector().Data, 1e-10)
	calibtest.AssertClose(t, "vv, vy", []float64{f.sum.vv, f.sum.vy}, []float64{mat.Dot(mat.NewVecDense(n, v), mat.NewVecDense(n, v)), mat.Dot(mat.NewVecDense(n, v), mat.NewVecDense(n, ys))}, 1e-10)
}

// TestGlobalFit: data without contexts (every candidate its own context id)
// fit in global mode; the synthetic judge is fixable, so PRISM must beat
// Vanilla, deterministically.
func TestGlobalFit(t *testing.T) {
	rows, labels := calibtest.Synth(300, 1, 3, 6)
	opts := DefaultOptions()
	opts.Global = true
	opts.Bootstrap = 300
	r, _, err := Fit(context.Background(), rows, labels, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Global || r.NContexts != 1 || r.NCandidates != 300 || len(r.Order) != 300 || len(r.Folds[0].TestContexts) != 60 {
		t.Fatalf("global report: global %v, %d contexts, %d candidates, order %d", r.Global, r.NContexts, r.NCandidates, len(r.Order))
	}
	if !strings.Contains(r.Order[0], "/") {
		t.Errorf("unit id %q is not context/candidate", r.Order[0])
	}
	v, p := r.Methods.Vanilla, r.Methods.PRISM
	if p.DiffVsVanilla.CI[0] <= 0 || !(v.CI[0] <= v.Mean && v.Mean <= v.CI[1]) {
		t.Errorf("Vanilla %v %v, PRISM %v, diff %+v", v.Mean, v.CI, p.Mean, p.DiffVsVanilla)
	}
	if got := v.PerContext[GlobalContext]; got != v.Mean {
		t.Errorf("per_context[%q] = %v, want the mean %v", GlobalContext, got, v.Mean)
	}
	r2, _, _ := Fit(context.Background(), rows, labels, opts)
	if r2.Methods.PRISM.Mean != p.Mean || r2.Methods.PRISM.CI != p.CI {
		t.Error("global fit not deterministic")
	}
	opts.Metric = model.MetricPairwise
	if _, _, err := Fit(context.Background(), rows, labels, opts); err == nil {
		t.Error("global mode with pairwise accuracy: no error")
	}
}

func TestPooledBootstrap(t *testing.T) {
	human := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	preds := [][]float64{
		{2, 1, 4, 3, 6, 5, 8, 7, 10, 9},
		{1, 2, 3, 4, 5, 6, 7, 8, 10, 9},
	}
	means, ci, diff := PooledBootstrap(preds, human, 0, 500, 42)
	if means[1] != Spearman(preds[1], human) || means[0] != Spearman(preds[0], human) {
		t.Errorf("means %v", means)
	}
	for m := range preds {
		if !(ci[m][0] <= means[m] && means[m] <= ci[m][1]) || ci[m][1] > 1 {
			t.Errorf("row %d: mean %v, CI %v", m, means[m], ci[m])
		}
	}
	_, ci2, diff2 := PooledBootstrap(preds, human, 0, 500, 42)
	if !slices.Equal(ci, ci2) || !slices.Equal(diff, diff2) {
		t.Error("same seed, different intervals")
	}
	if diff[1][0] < 0 {
		t.Errorf("row 1 is better on every resample's pairs; paired interval %v", diff[1])
	}
}

package calib

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// taylorOn builds the Taylor fit of all contexts of d.
func taylorOn(t *testing.T, d *Design) (*taylorFit, *fitter) {
	t.Helper()
	f := fitterOn(d, allContexts(d))
	ps, err := pathsFor([]Method{Half, Taylor}, f.sum, len(d.Attrs))
	if err != nil {
		t.Fatal(err)
	}
	return ps[1].taylor, f
}

// directLoss computes F(δ) = ‖v − y* − Õδ + ½H̃δ²‖² + μ‖δ‖² from the rows.
func directLoss(d *Design, delta []float64, mu float64) float64 {
	q, K := d.Q(), len(d.Attrs)
	var f float64
	for r := 0; r < d.Rows(); r++ {
		res := d.V[r] - d.YStar[r]
		for k := 0; k < K; k++ {
			p, n := d.JC[r*q+2*k], d.JC[r*q+2*k+1]
			res += -(p+n)/2*delta[k] + (p-n)*delta[k]*delta[k]/2
		}
		f += res * res
	}
	for _, x := range delta {
		f += mu * x * x
	}
	return f
}

func TestTaylorLossAndGradient(t *testing.T) {
	d := designOf(t, 8, 6, 3, 31)
	tf, _ := taylorOn(t, d)
	delta := []float64{0.3, -0.7, 1.1}
	mu := 0.25
	got, want := tf.loss(delta, mu), directLoss(d, delta, mu)
	if math.Abs(got-want) > 1e-10*want {
		t.Errorf("loss from statistics %v, from rows %v", got, want)
	}
	// ∇F = 2·g; check g by central differences of the direct loss.
	tf.gradient(delta, mu)
	for k := range delta {
		h := 1e-6
		p, m := append([]float64(nil), delta...), append([]float64(nil), delta...)
		p[k] += h
		m[k] -= h
		fd := (directLoss(d, p, mu) - directLoss(d, m, mu)) / (2 * h)
		if math.Abs(2*tf.g[k]-fd) > 1e-5*math.Max(1, math.Abs(fd)) {
			t.Errorf("∂F/∂δ%d = %v, finite difference %v", k, 2*tf.g[k], fd)
		}
	}
}

// TestTaylorOptimum: the result is a stationary point no worse than any
// of the three starts (ridge fit, zero, its negation).
func TestTaylorOptimum(t *testing.T) {
	d := designOf(t, 12, 6, 3, 33)
	tf, _ := taylorOn(t, d)
	for _, gamma := range []float64{1e-3, 1e-1, 10} {
		delta := make([]float64, 3)
		tf.fit(gamma, delta)
		mu := gamma * tf.scale
		best := tf.loss(delta, mu)
		tf.half.path.solve(gamma, tf.half.coef)
		neg := []float64{-tf.half.coef[0], -tf.half.coef[1], -tf.half.coef[2]}
		for _, start := range [][]float64{tf.half.coef, {0, 0, 0}, neg} {
			if f := tf.loss(start, mu); f < best {
				t.Errorf("γ=%v: loss %v above a start's %v", gamma, best, f)
			}
		}
		tf.gradient(delta, mu)
		for k, g := range tf.g {
			if math.Abs(g) > 1e-6*math.Max(1, tf.aa) {
				t.Errorf("γ=%v: gradient[%d] = %v at the optimum", gamma, k, g)
			}
		}
	}
}

// TestTaylorSymmetricIsHalf: when every probe moves the score by the same
// amount both ways (Δ+ = Δ−, so H = 0) the Taylor loss is the half-
// difference ridge loss and both give the same δ.
func TestTaylorSymmetricIsHalf(t *testing.T) {
	rows, labels := synth(10, 6, 2, 35)
	s0 := map[string]float64{}
	plus := map[string]float64{}
	for _, r := range rows {
		key := r.Context + "/" + r.Candidate
		switch {
		case r.Probe == "baseline":
			s0[key] = r.Score
		case strings.HasSuffix(r.Probe, ":+"):
			plus[key+r.Probe[:len(r.Probe)-2]] = r.Score
		}
	}
	for i, r := range rows {
		key := r.Context + "/" + r.Candidate
		if strings.HasSuffix(r.Probe, ":-") { // s− = 2 s0 − s+  ⇒  Δ− = Δ+
			rows[i].Score = 2*s0[key] - plus[key+r.Probe[:len(r.Probe)-2]]
		}
	}
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tf, _ := taylorOn(t, d)
	for _, gamma := range []float64{1e-3, 1} {
		delta := make([]float64, 2)
		tf.fit(gamma, delta)
		tf.half.path.solve(gamma, tf.half.coef)
		assertClose(t, "Taylor δ vs Half δ", delta, tf.half.coef, 1e-8)
	}
}

func TestFitTaylor(t *testing.T) {
	rows, labels := synth(20, 6, 2, 37)
	// Make the responses asymmetric so that H carries signal.
	for i, r := range rows {
		if strings.HasSuffix(r.Probe, ":+") {
			rows[i].Score += 0.3 * math.Sin(float64(i))
		}
	}
	opts := DefaultOptions()
	opts.Taylor = true
	opts.Bootstrap = 200
	r, _, err := Fit(context.Background(), rows, labels, opts)
	if err != nil {
		t.Fatal(err)
	}
	tr := r.Methods.Taylor
	if tr == nil || tr.DiffVsVanilla == nil || len(tr.PerContext) != 20 {
		t.Fatalf("taylor result %+v", tr)
	}
	if tr.DiffVsVanilla.CI[0] <= 0 {
		t.Errorf("Taylor − Vanilla %+v: want the CI above 0", tr.DiffVsVanilla)
	}
	for _, f := range r.Folds {
		if f.Taylor == nil || len(f.Taylor.Beta) != 2 || f.Taylor.Alpha != 1 {
			t.Errorf("fold %d taylor %+v", f.Fold, f.Taylor)
		}
	}
	if _, ok := r.Sweep["1"]["taylor"]; !ok {
		t.Errorf("sweep lacks taylor: %v", r.Sweep["1"])
	}
	// Off by default: no taylor keys at all.
	opts.Taylor = false
	r, _, _ = Fit(context.Background(), rows, labels, opts)
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), "taylor") {
		t.Error("taylor keys present without Options.Taylor")
	}
}

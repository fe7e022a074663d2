package calib

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib/internal/calibtest"
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
	got, _ := tf.loss(delta, mu)
	if want := directLoss(d, delta, mu); math.Abs(got-want) > 1e-10*want {
		t.Errorf("loss from statistics %v, from rows %v", got, want)
	}
	// ∇F = 2·g: check g against the gradient from the rows, and ∇²F = 2·hess
	// by central differences of it.
	g := make([]float64, 3)
	tf.grad(delta, mu, g)
	tf.hessian(delta, mu)
	calibtest.AssertClose(t, "½∇F", g, scaled(directGrad(d, delta, mu), 0.5), 1e-10)
	for k := range delta {
		h := 1e-6
		p, m := append([]float64(nil), delta...), append([]float64(nil), delta...)
		p[k] += h
		m[k] -= h
		gp, gm := directGrad(d, p, mu), directGrad(d, m, mu)
		for l := range delta {
			fd := (gp[l] - gm[l]) / (2 * h)
			if math.Abs(2*tf.hess[l*3+k]-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("∂²F/∂δ%d∂δ%d = %v, finite difference %v", l, k, 2*tf.hess[l*3+k], fd)
			}
		}
	}
}

func scaled(x []float64, c float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = c * v
	}
	return out
}

// directGrad computes ∇F(δ) = 2 Σ_rows r ∂r/∂δ + 2μδ from the rows, with
// r = v − y* − Õδ + ½H̃δ² and ∂r/∂δk = −Õk + H̃k δk.
func directGrad(d *Design, delta []float64, mu float64) []float64 {
	q, K := d.Q(), len(d.Attrs)
	g := make([]float64, K)
	for r := 0; r < d.Rows(); r++ {
		res := d.V[r] - d.YStar[r]
		for k := 0; k < K; k++ {
			p, n := d.JC[r*q+2*k], d.JC[r*q+2*k+1]
			res += -(p+n)/2*delta[k] + (p-n)*delta[k]*delta[k]/2
		}
		for k := 0; k < K; k++ {
			p, n := d.JC[r*q+2*k], d.JC[r*q+2*k+1]
			g[k] += 2 * res * (-(p+n)/2 + (p-n)*delta[k])
		}
	}
	for k, x := range delta {
		g[k] += 2 * mu * x
	}
	return g
}

// TestTaylorOptimum: the result is a stationary point no worse than any
// of the three starts (ridge fit, zero, its negation).
func TestTaylorOptimum(t *testing.T) {
	d := designOf(t, 12, 6, 3, 33)
	tf, _ := taylorOn(t, d)
	for _, gamma := range []float64{1e-3, 1e-1, 10} {
		delta := make([]float64, 3)
		if err := tf.fit(gamma, delta); err != nil {
			t.Fatal(err)
		}
		mu := gamma * tf.scale
		best, _ := tf.loss(delta, mu)
		tf.half.path.solve(gamma, tf.half.coef)
		neg := []float64{-tf.half.coef[0], -tf.half.coef[1], -tf.half.coef[2]}
		for _, start := range [][]float64{tf.half.coef, {0, 0, 0}, neg} {
			if f, _ := tf.loss(start, mu); f < best {
				t.Errorf("γ=%v: loss %v above a start's %v", gamma, best, f)
			}
		}
		for k, g := range directGrad(d, delta, mu) {
			if math.Abs(g) > tf.tol {
				t.Errorf("γ=%v: ∂F/∂δ%d = %v at the optimum, tolerance %v", gamma, k, g, tf.tol)
			}
		}
	}
}

// TestTaylorSymmetricIsHalf: when every probe moves the score by the same
// amount both ways (Δ+ = Δ−, so H = 0) the Taylor loss is the half-
// difference ridge loss and both give the same δ.
func TestTaylorSymmetricIsHalf(t *testing.T) {
	rows, labels := calibtest.Synth(10, 6, 2, 35)
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
		if err := tf.fit(gamma, delta); err != nil {
			t.Fatal(err)
		}
		tf.half.path.solve(gamma, tf.half.coef)
		calibtest.AssertClose(t, "Taylor δ vs Half δ", delta, tf.half.coef, 1e-8)
	}
}

func TestFitTaylor(t *testing.T) {
	rows, labels := calibtest.Synth(20, 6, 2, 37)
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

// asymmetric is synth with the + responses shifted by amp·sin(i) (row i),
// so that H = Δ+ − Δ− carries signal and the Taylor loss is not the
// half-difference ridge loss.
func asymmetric(t testing.TB, nctx, ncand, K int, seed uint64, amp float64) *Design {
	t.Helper()
	rows, labels := calibtest.Synth(nctx, ncand, K, seed)
	for i, r := range rows {
		if strings.HasSuffix(r.Probe, ":+") {
			rows[i].Score += amp * math.Sin(float64(i))
		}
	}
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// realCubicRoots returns the real roots of c3 x³ + c2 x² + c1 x + c0
// (c3 ≠ 0), each polished by Newton steps on the cubic.
func realCubicRoots(c3, c2, c1, c0 float64) []float64 {
	A, B, C := c2/c3, c1/c3, c0/c3
	p := B - A*A/3
	q := 2*A*A*A/27 - A*B/3 + C
	var ts []float64
	if disc := q*q/4 + p*p*p/27; disc > 0 {
		s := math.Sqrt(disc)
		ts = []float64{math.Cbrt(-q/2+s) + math.Cbrt(-q/2-s)}
	} else {
		m := 2 * math.Sqrt(-p/3)
		th := math.Acos(math.Max(-1, math.Min(1, 3*q/(p*m)))) / 3
		for k := 0; k < 3; k++ {
			ts = append(ts, m*math.Cos(th-2*math.Pi*float64(k)/3))
		}
	}
	roots := make([]float64, len(ts))
	for i, tt := range ts {
		x := tt - A/3
		for it := 0; it < 8; it++ {
			f := ((c3*x+c2)*x+c1)*x + c0
			df := (3*c3*x+2*c2)*x + c1
			if df == 0 {
				break
			}
			x -= f / df
		}
		roots[i] = x
	}
	return roots
}

// TestTaylorK1Cubic: with one attribute ½F′(δ) is the cubic
//
//	½HH δ³ − (3/2)OH δ² + (Ha + OO + μ) δ − Oa,
//
// (OO = ÕᵀÕ, OH = ÕᵀH̃, HH = H̃ᵀH̃, Oa = Õᵀa, Ha = H̃ᵀa from the rows), whose
// real roots are found in closed form; the fit must return the root that
// is the global minimum of F to 1e-10, on designs where F has one and two
// local minima.
func TestTaylorK1Cubic(t *testing.T) {
	twoMinima := false
	for _, tc := range []struct {
		seed uint64
		amp  float64
	}{{41, 0.3}, {42, 3}, {43, 6}, {44, 10}} {
		d := asymmetric(t, 12, 6, 1, tc.seed, tc.amp)
		tf, _ := taylorOn(t, d)
		var OO, OH, HH, Oa, Ha float64
		for r := 0; r < d.Rows(); r++ {
			p, n := d.JC[2*r], d.JC[2*r+1]
			o, h, a := (p+n)/2, p-n, d.V[r]-d.YStar[r]
			OO += o * o
			OH += o * h
			HH += h * h
			Oa += o * a
			Ha += h * a
		}
		for _, gamma := range DefaultGammas {
			mu := gamma * OO
			c3, c2, c1, c0 := HH/2, -1.5*OH, Ha+OO+mu, -Oa
			best, bestF, minima := math.NaN(), math.Inf(1), 0
			for _, x := range realCubicRoots(c3, c2, c1, c0) {
				if (3*c3*x+2*c2)*x+c1 <= 0 { // not a minimum of F
					continue
				}
				minima++
				if f := directLoss(d, []float64{x}, mu); f < bestF {
					best, bestF = x, f
				}
			}
			twoMinima = twoMinima || minima == 2
			delta := make([]float64, 1)
			if err := tf.fit(gamma, delta); err != nil {
				t.Fatal(err)
			}
			if math.Abs(delta[0]-best) > 1e-10*math.Max(1, math.Abs(best)) {
				t.Errorf("seed %d γ=%v: δ = %.17g, global minimum at %.17g (%d local minima)", tc.seed, gamma, delta[0], best, minima)
			}
		}
	}
	if !twoMinima {
		t.Error("no case with two local minima: the test lost its hard case")
	}
}

// TestTaylorK4Minimum: a 40-context × 6-candidate design with 4
// attributes (the size of the reported defect). At every γ the fit's
// gradient, from the rows, is within the documented tolerance, and no
// point of a fine perturbation search around it has a lower loss.
func TestTaylorK4Minimum(t *testing.T) {
	d := asymmetric(t, 40, 6, 4, 45, 3)
	tf, _ := taylorOn(t, d)
	rng := rand.New(rand.NewPCG(46, 0))
	for _, gamma := range DefaultGammas {
		delta := make([]float64, 4)
		if err := tf.fit(gamma, delta); err != nil {
			t.Fatal(err)
		}
		mu := gamma * tf.scale
		for k, g := range directGrad(d, delta, mu) {
			if math.Abs(g) > tf.tol {
				t.Errorf("γ=%v: ∂F/∂δ%d = %.3g at the fit, tolerance %.3g", gamma, k, g, tf.tol)
			}
		}
		f0 := directLoss(d, delta, mu)
		try := make([]float64, 4)
		for i := 0; i < 200; i++ {
			dir := make([]float64, 4)
			if i < 8 {
				dir[i/2] = float64(1 - 2*(i%2)) // ± each axis
			} else {
				for k := range dir {
					dir[k] = rng.NormFloat64() / 2
				}
			}
			for _, h := range []float64{1e-2, 1e-3, 1e-4, 1e-5} {
				for k := range try {
					try[k] = delta[k] + h*dir[k]
				}
				if f := directLoss(d, try, mu); f < f0-1e-13*f0 {
					t.Errorf("γ=%v: loss %.15g at δ + %g·%v, below the fit's %.15g", gamma, f, h, dir, f0)
				}
			}
		}
	}
}

// TestTaylorNotConverged: a start that hits the Newton step cap is an
// error naming γ, and Fit returns it naming the outer and inner fold, in
// both modes.
func TestTaylorNotConverged(t *testing.T) {
	defaultSteps := taylorMaxSteps
	defer func() { taylorMaxSteps = defaultSteps }()
	taylorMaxSteps = 1
	d := asymmetric(t, 12, 6, 3, 47, 1)
	tf, _ := taylorOn(t, d)
	err := tf.fit(0.01, make([]float64, 3))
	var te *taylorError
	if !errors.As(err, &te) || te.gamma != 0.01 || te.steps != 1 || !(te.grad > te.tol) ||
		!strings.Contains(err.Error(), "γ = 0.01") || !strings.Contains(err.Error(), "did not converge in 1 steps") {
		t.Errorf("fit with a step cap of 1: %v", err)
	}
	opts := DefaultOptions()
	opts.Taylor = true
	opts.Bootstrap = 10
	_, _, err = FitDesign(context.Background(), d, opts)
	if err == nil || !strings.Contains(err.Error(), "outer fold ") || !strings.Contains(err.Error(), "inner fold ") ||
		!strings.Contains(err.Error(), "γ = ") || !errors.As(err, &te) {
		t.Errorf("FitDesign: error %v, want one naming the fold and γ", err)
	}
	rows, labels := calibtest.Synth(60, 1, 2, 48)
	for i, r := range rows {
		if strings.HasSuffix(r.Probe, ":+") {
			rows[i].Score += math.Sin(float64(i))
		}
	}
	opts.Global = true
	_, _, err = Fit(context.Background(), rows, labels, opts)
	if err == nil || !strings.Contains(err.Error(), "global mode, outer fold ") || !strings.Contains(err.Error(), "γ = ") {
		t.Errorf("global Fit: error %v, want one naming the fold and γ", err)
	}
	lmErr := &taylorError{gamma: 0.1, start: 2, lm: true, steps: 1000, grad: 1, tol: 1e-9}
	if want := "from the negated ridge fit (after Levenberg–Marquardt) did not converge"; !strings.Contains(lmErr.Error(), want) {
		t.Errorf("error %q lacks %q", lmErr.Error(), want)
	}
	taylorMaxSteps = defaultSteps
	if _, _, err = Fit(context.Background(), rows, labels, opts); err != nil {
		t.Errorf("global Fit with the default cap: %v", err)
	}
}

// taylorOfRows builds the Taylor fit of K attributes straight from rows of
// Õ (o), H̃ (h) and a = v − y*, with no centering: the Gram statistics of
// J = (o + h/2, o − h/2) per attribute, c = Jᵀa, e = 0 and vᵀv = aᵀa.
func taylorOfRows(K int, o, h [][]float64, a []float64) *taylorFit {
	q := 2 * K
	s := newGram(q)
	j := make([]float64, q)
	for i := range a {
		for k := 0; k < K; k++ {
			j[2*k], j[2*k+1] = o[i][k]+h[i][k]/2, o[i][k]-h[i][k]/2
		}
		for x := 0; x < q; x++ {
			for y := 0; y < q; y++ {
				s.G[x*q+y] += j[x] * j[y]
			}
			s.c[x] += j[x] * a[i]
		}
		s.vv += a[i] * a[i]
	}
	half, _ := newMethodPath(Half, s, K)
	return newTaylorFit(s, K, half)
}

// twoMinima is F of TestTaylorTwoMinima written out by hand from its three
// rows, r_i = a_i − o_i·δ + ½ h_i·(δ∘δ), with μ = γ·tr(ÕᵀÕ)/K = 0.01·28/2:
//
//	r1 =  2 − 3δ1 +  δ2 − 3δ1² +  δ2²
//	r2 = −3 + 3δ1 + 2δ2 − 3δ1² + 3δ2²
//	r3 =  1 +  δ1 + 2δ2 − 2δ1²
//	F  = r1² + r2² + r3² + 0.14 (δ1² + δ2²)
//
// and its gradient by the chain rule, ∂F/∂δj = 2 Σ r_i ∂r_i/∂δj + 0.28 δj.
func twoMinima(d []float64) (f float64, g [2]float64) {
	x, y := d[0], d[1]
	r := [3]float64{2 - 3*x + y - 3*x*x + y*y, -3 + 3*x + 2*y - 3*x*x + 3*y*y, 1 + x + 2*y - 2*x*x}
	dx := [3]float64{-3 - 6*x, 3 - 6*x, 1 - 4*x}
	dy := [3]float64{1 + 2*y, 2 + 6*y, 2}
	f = 0.14 * (x*x + y*y)
	g = [2]float64{0.28 * x, 0.28 * y}
	for i := range r {
		f += r[i] * r[i]
		g[0] += 2 * r[i] * dx[i]
		g[1] += 2 * r[i] * dy[i]
	}
	return f, g
}

// TestTaylorTwoMinima: a two-attribute objective with two local minima,
//
//	δ_hi ≈ (0.6238022, 0.4840728), F = 3.8698509507029
//	δ_lo ≈ (0.4580718, −1.1491162), F = 2.1800790693153,
//
// where Newton's method from each of the three starts (ridge fit ≈ (0.787,
// −0.212), zero, the negated ridge fit) ends at δ_hi, and
// Levenberg–Marquardt from the negated ridge fit reaches δ_lo: the fit must
// return δ_lo. The values are checked here, independently of the Gram
// code, on the hand-written F and ∇F of twoMinima: both points are
// stationary and have a positive definite Hessian (by central differences
// of ∇F), and no point of a 0.01 grid over [−3, 3]² lies below F(δ_lo).
func TestTaylorTwoMinima(t *testing.T) {
	o := [][]float64{{3, -1}, {-3, -2}, {-1, -2}}
	h := [][]float64{{-6, 2}, {-6, 6}, {-4, 0}}
	tf := taylorOfRows(2, o, h, []float64{2, -3, 1})
	const gamma, fLo, fHi = 0.01, 2.1800790693153, 3.8698509507029
	lo, hi := []float64{0.4580718, -1.1491162}, []float64{0.6238022, 0.4840728}
	for _, p := range [][]float64{lo, hi} {
		if _, g := twoMinima(p); math.Abs(g[0]) > 1e-5 || math.Abs(g[1]) > 1e-5 {
			t.Errorf("∇F(%v) = %v: not stationary", p, g)
		}
		var H [2][2]float64
		for j := 0; j < 2; j++ {
			pp, pm := slices.Clone(p), slices.Clone(p)
			pp[j] += 1e-5
			pm[j] -= 1e-5
			_, gp := twoMinima(pp)
			_, gm := twoMinima(pm)
			H[0][j], H[1][j] = (gp[0]-gm[0])/2e-5, (gp[1]-gm[1])/2e-5
		}
		if !(H[0][0] > 0 && H[0][0]*H[1][1]-H[0][1]*H[1][0] > 0) {
			t.Errorf("Hessian at %v = %v: not a minimum", p, H)
		}
	}
	if f, _ := twoMinima(lo); math.Abs(f-fLo) > 1e-9 {
		t.Errorf("F(δ_lo) = %.15g, want %.15g", f, fLo)
	}
	for i := -300; i <= 300; i++ {
		for j := -300; j <= 300; j++ {
			if f, _ := twoMinima([]float64{float64(i) / 100, float64(j) / 100}); f < fLo {
				t.Fatalf("F(%v, %v) = %v below F(δ_lo)", float64(i)/100, float64(j)/100, f)
			}
		}
	}
	// Plain Newton (the fit before Levenberg–Marquardt) ends at δ_hi from
	// every start: the case the least-squares runs exist for.
	mu := gamma * tf.scale
	tf.half.path.solve(gamma, tf.start)
	for s, c := range [][]float64{slices.Clone(tf.start), {0, 0}, {-tf.start[0], -tf.start[1]}} {
		f, err := tf.minimize(c, mu)
		if err != nil || math.Abs(f-fHi) > 1e-9 || math.Abs(c[0]-hi[0]) > 1e-6 || math.Abs(c[1]-hi[1]) > 1e-6 {
			t.Errorf("Newton from start %d: δ = %v, F = %.15g, %v; want δ_hi", s, c, f, err)
		}
	}
	delta := make([]float64, 2)
	if err := tf.fit(gamma, delta); err != nil {
		t.Fatal(err)
	}
	f, g := twoMinima(delta)
	if math.Abs(delta[0]-lo[0]) > 1e-6 || math.Abs(delta[1]-lo[1]) > 1e-6 || math.Abs(f-fLo) > 1e-9 ||
		math.Abs(g[0]) > tf.tol || math.Abs(g[1]) > tf.tol {
		t.Errorf("fit: δ = %v, F = %.15g, ∇F = %v; want δ_lo = %v, F = %.15g", delta, f, g, lo, fLo)
	}
	again := make([]float64, 2)
	if tf.fit(gamma, again); !slices.Equal(again, delta) {
		t.Errorf("refit %v, first fit %v: not bitwise equal", again, delta)
	}
}

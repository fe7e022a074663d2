package calib

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// taylorFit is the diagonal Taylor correction of docs/protocol.md §4 (§D.1)
// on one training design:
//
//	ŷ = s0 − Σk Ok δk + ½ Σk Hk δk²
//
// with δ minimising the penalised loss
//
//	F(δ) = ‖a − Õδ + ½ H̃ (δ∘δ)‖² + μ‖δ‖²,  a = v − y*,  μ = γ‖Õ‖²_F / K,
//
// where Õ = C O and H̃ = C H. F is a quartic in δ whose coefficients are the
// Gram blocks ÕᵀÕ, ÕᵀH̃, H̃ᵀH̃ and the vectors Õᵀa, H̃ᵀa, all linear images
// of the training statistics (G = J̃ᵀJ̃, J̃ᵀa, aᵀa), so F, its gradient and
// its Hessian cost O(K²) and a Newton step O(K³) whatever the number of
// rows. With r = a − Õδ + ½H̃(δ∘δ) and R = −Õ + H̃ diag(δ) (∂r/∂δ):
//
//	½∇F  = Rᵀr + μδ = −Õᵀr + δ∘(H̃ᵀr) + μδ
//	½∇²F = RᵀR + diag(H̃ᵀr) + μI
type taylorFit struct {
	K          int
	OO, OH, HH []float64 // K×K: ÕᵀÕ, ÕᵀH̃, H̃ᵀH̃
	Oa, Ha     []float64 // Õᵀa, H̃ᵀa
	aa         float64   // aᵀa = F(0)
	scale      float64   // ‖Õ‖²_F / K
	tol        float64   // convergence bound on ‖∇F‖∞ (see minimize)
	maxSteps   int       // Newton steps per start before non-convergence is reported
	half       *methodPath
	newton     bool // the last direction (t.step) was the Newton step
	// scratch
	u, r1, r2, g, gt, hess, step, trial, chol, start, cand, scl []float64
}

// Convergence of the Taylor minimisation (taylorFit.minimize).
const (
	taylorTol    = 1e-9  // ‖∇F‖∞ ≤ taylorTol · max(1, S)
	taylorPolish = 3     // full Newton steps after convergence, at most
	taylorNoise  = 1e-12 // F is flat when a step raises it by at most this times its terms' magnitude
)

// taylorMaxSteps caps the Newton steps (factorizations) per start; tests
// lower it to provoke non-convergence.
var taylorMaxSteps = 1000

func newTaylorFit(s *gram, K int, half *methodPath) *taylorFit {
	q := s.q
	vec := func() []float64 { return make([]float64, K) }
	t := &taylorFit{K: K, half: half, maxSteps: taylorMaxSteps,
		OO: make([]float64, K*K), OH: make([]float64, K*K), HH: make([]float64, K*K),
		Oa: vec(), Ha: vec(), u: vec(), r1: vec(), r2: vec(), g: vec(), gt: vec(),
		step: vec(), trial: vec(), start: vec(), cand: vec(), scl: vec(),
		hess: make([]float64, K*K), chol: make([]float64, K*K)}
	G := func(i, j int) float64 { return s.G[i*q+j] }
	for k := 0; k < K; k++ {
		pk, nk := 2*k, 2*k+1
		for l := 0; l < K; l++ {
			pl, nl := 2*l, 2*l+1
			t.OO[k*K+l] = (G(pk, pl) + G(pk, nl) + G(nk, pl) + G(nk, nl)) / 4
			t.OH[k*K+l] = (G(pk, pl) - G(pk, nl) + G(nk, pl) - G(nk, nl)) / 2
			t.HH[k*K+l] = G(pk, pl) - G(pk, nl) - G(nk, pl) + G(nk, nl)
		}
		bp, bn := s.c[pk]-s.e[pk], s.c[nk]-s.e[nk]
		t.Oa[k] = (bp + bn) / 2
		t.Ha[k] = bp - bn
	}
	t.aa = math.Max(s.vv-2*s.vy+s.yy, 0)
	if K > 0 {
		t.scale = trace(t.OO, K) / float64(K)
	}
	t.tol = taylorTol * math.Max(1, t.aa+trace(t.OO, K)+trace(t.HH, K))
	return t
}

// loss returns F(δ) for the penalty mu and the sum of the absolute values
// of the terms it adds up, which bounds its rounding error.
func (t *taylorFit) loss(delta []float64, mu float64) (f, mag float64) {
	K := t.K
	for k, d := range delta {
		t.u[k] = d * d
	}
	f, mag = t.aa, t.aa
	for k := 0; k < K; k++ {
		d, u := delta[k], t.u[k]
		x, y, z := -2*t.Oa[k]*d, t.Ha[k]*u, mu*d*d
		f += x + y + z
		mag += math.Abs(x) + math.Abs(y) + z
		for l := 0; l < K; l++ {
			x, y, z := d*t.OO[k*K+l]*delta[l], -d*t.OH[k*K+l]*t.u[l], u*t.HH[k*K+l]*t.u[l]/4
			f += x + y + z
			mag += math.Abs(x) + math.Abs(y) + math.Abs(z)
		}
	}
	return f, mag
}

// grad stores ½∇F(δ) in g and returns ‖½∇F(δ)‖∞; t.r1 = Õᵀr and t.r2 =
// H̃ᵀr are left for hessian at the same δ.
func (t *taylorFit) grad(delta []float64, mu float64, g []float64) float64 {
	K := t.K
	for k, d := range delta {
		t.u[k] = d * d
	}
	for k := 0; k < K; k++ {
		// r1 = Õᵀr = Oa − OOδ + ½ OH u;  r2 = H̃ᵀr = Ha − OHᵀδ + ½ HH u
		r1, r2 := t.Oa[k], t.Ha[k]
		for l := 0; l < K; l++ {
			r1 += -t.OO[k*K+l]*delta[l] + t.OH[k*K+l]*t.u[l]/2
			r2 += -t.OH[l*K+k]*delta[l] + t.HH[k*K+l]*t.u[l]/2
		}
		t.r1[k], t.r2[k] = r1, r2
	}
	var norm float64
	for k := 0; k < K; k++ {
		g[k] = -t.r1[k] + delta[k]*t.r2[k] + mu*delta[k]
		norm = math.Max(norm, math.Abs(g[k]))
	}
	return norm
}

// hessian stores ½∇²F(δ) = RᵀR + diag(H̃ᵀr) + μI in t.hess; t.r2 must be
// H̃ᵀr at δ (from grad).
func (t *taylorFit) hessian(delta []float64, mu float64) {
	t.curvature(t.hess, delta, mu, true)
}

// curvature stores in dst RᵀR + μI, plus diag(H̃ᵀr) (from t.r2) when full:
// the Gauss–Newton matrix of the least-squares form of F, or ½∇²F.
func (t *taylorFit) curvature(dst, delta []float64, mu float64, full bool) {
	K := t.K
	for k := 0; k < K; k++ {
		for l := 0; l < K; l++ {
			a := t.OO[k*K+l] - t.OH[k*K+l]*delta[l] - delta[k]*t.OH[l*K+k] + delta[k]*t.HH[k*K+l]*delta[l]
			if k == l {
				if full {
					a += mu + t.r2[k] // this grouping: results stay bitwise as before
				} else {
					a += mu
				}
			}
			dst[k*K+l] = a
		}
	}
}

// direction stores in t.step a descent direction p from ½∇F = t.g: the
// Newton step ½∇²F p = −½∇F when the Hessian is positive definite, else,
// with ½∇²F = Σ λi qi qiᵀ, p = −Σ qi (qi·½∇F) / max(|λi|, 1e-12·max|λ|)
// (the eigenvalue-modified Newton step, which also follows directions of
// negative curvature downhill), or p = −½∇F if the Hessian is 0.
func (t *taylorFit) direction() {
	K := t.K
	copy(t.chol, t.hess)
	for k := 0; k < K; k++ {
		t.step[k] = -t.g[k]
	}
	if t.newton = cholSolve(t.chol, t.step, K); t.newton {
		return
	}
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(K, slices.Clone(t.hess)), true) {
		// Not expected for a finite symmetric matrix; fall back to steepest descent.
		return
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	var big float64
	for _, l := range vals {
		big = math.Max(big, math.Abs(l))
	}
	if !(big > 0) {
		return
	}
	clear(t.step)
	for i, l := range vals {
		var c float64
		for k := 0; k < K; k++ {
			c += vecs.At(k, i) * t.g[k]
		}
		c /= math.Max(math.Abs(l), 1e-12*big)
		for k := 0; k < K; k++ {
			t.step[k] -= c * vecs.At(k, i)
		}
	}
}

// taylorError reports a Taylor minimisation that hit its step cap or
// stalled.
type taylorError struct {
	gamma     float64
	start     int  // 0 the ridge fit, 1 zero, 2 the negated ridge fit
	lm        bool // Newton's method continued from Levenberg–Marquardt's point
	steps     int
	grad, tol float64
	stalled   bool // the line search found no acceptable step
}

func (e *taylorError) Error() string {
	from := [...]string{"the ridge fit", "zero", "the negated ridge fit"}[e.start]
	how := fmt.Sprintf("did not converge in %d steps", e.steps)
	if e.stalled {
		how = fmt.Sprintf("stalled at step %d (no step along the search direction lowers the loss)", e.steps)
	}
	if e.lm {
		from += " (after Levenberg–Marquardt)"
	}
	return fmt.Sprintf("diagonal Taylor fit at γ = %g: Newton's method from %s %s (‖∇F‖∞ = %.3g, tolerance %.3g)",
		e.gamma, from, how, e.grad, e.tol)
}

// minimize runs Newton's method with a line search on F from delta
// (overwritten with the result) and returns F there. It has converged when
//
//	‖∇F(δ)‖∞ ≤ 1e-9 · max(1, S),  S = F(0) + ‖Õ‖²_F + ‖H̃‖²_F = aᵀa + tr ÕᵀÕ + tr H̃ᵀH̃,
//
// a magnitude of the terms of ∇F at |δk| ≤ 1, invariant to the score
// scale. Each step takes the direction p of t.direction (the Newton step
// where ½∇²F is positive definite) and the first length s of 1, ½, ¼, …
// (at most 60 halvings) with F(δ + sp) ≤ F(δ) + 10⁻⁴ s ∇F·p (Armijo);
// where F is flat to rounding, s = 1 is also accepted if it raises F by at
// most 1e-12 times the magnitude of F's terms and lowers ‖∇F‖∞. Once
// converged, up to 3 such full Newton steps polish δ while they lower
// ‖∇F‖∞. Non-convergence within t.maxSteps steps, or a step that finds no
// acceptable length, is returned as a taylorError (start and γ are the
// caller's to fill in).
func (t *taylorFit) minimize(delta []float64, mu float64) (float64, *taylorError) {
	K := t.K
	f, fmag := t.loss(delta, mu)
	gn := t.grad(delta, mu, t.g)
	t.hessian(delta, mu)
	// step tries δ + s·p along t.step and moves there if allowed.
	step := func(polish bool) bool {
		var slope float64 // ∇F·p
		for k := range t.step {
			slope += 2 * t.g[k] * t.step[k]
		}
		s := 1.0
		for half := 0; half <= 60; half++ {
			for k, d := range delta {
				t.trial[k] = d + s*t.step[k]
			}
			ft, tmag := t.loss(t.trial, mu)
			if !polish && ft <= f+1e-4*s*slope && ft < f {
				copy(delta, t.trial)
				f, fmag = ft, tmag
				gn = t.grad(delta, mu, t.g)
				t.hessian(delta, mu)
				return true
			}
			if s == 1 && ft <= f+taylorNoise*math.Max(fmag, tmag) {
				if gnt := t.grad(t.trial, mu, t.gt); gnt < gn {
					copy(delta, t.trial)
					copy(t.g, t.gt)
					f, fmag, gn = ft, tmag, gnt
					t.hessian(delta, mu)
					return true
				}
			}
			if polish {
				return false
			}
			s /= 2
		}
		return false
	}
	for steps := 0; !(2*gn <= t.tol); steps++ { // NaN does not converge
		if steps == t.maxSteps {
			return f, &taylorError{steps: steps, grad: 2 * gn, tol: t.tol}
		}
		t.direction()
		if !step(false) {
			return f, &taylorError{steps: steps + 1, grad: 2 * gn, tol: t.tol, stalled: true}
		}
	}
	for i := 0; i < taylorPolish && gn > 0 && K > 0; i++ {
		t.direction()
		if !t.newton || !step(true) {
			break
		}
	}
	return f, nil
}

// fit stores in delta the δ of γ (docs/protocol.md §4). From each of the
// three starts, the linear ridge fit (the half-difference δ at the same
// γ), zero and the ridge fit's negation, it runs Newton's method
// (minimize) to convergence and keeps the lowest penalised loss, the
// earlier start on a tie. Then from each start again it runs
// Levenberg–Marquardt (levenberg) and Newton's method from where that
// stops; such a minimum replaces the kept one only if its loss is lower by
// more than taylorNoise times the magnitude of F's terms, so a minimum
// that both solvers reach keeps the Newton digits. The two solvers can
// end in different minima of the quartic F from the same start. A run
// that does not converge is an error (*taylorError) naming γ and the start.
func (t *taylorFit) fit(gamma float64, delta []float64) error {
	mu := gamma * t.scale
	t.half.path.solve(gamma, t.start)
	best, bestMag := math.Inf(1), 0.0
	for run := 0; run < 6; run++ {
		start, lm := run%3, run >= 3
		for k, x := range t.start {
			t.cand[k] = [...]float64{x, 0, -x}[start]
		}
		if lm {
			t.levenberg(t.cand, mu)
		}
		f, e := t.minimize(t.cand, mu)
		if e != nil {
			e.gamma, e.start, e.lm = gamma, start, lm
			return e
		}
		_, mag := t.loss(t.cand, mu)
		if f < best && (!lm || f < best-taylorNoise*math.Max(mag, bestMag)) {
			best, bestMag = f, mag
			copy(delta, t.cand)
		}
	}
	return nil
}

// cholSolve solves the symmetric positive definite system a x = b in place
// (b becomes x); it reports false when a is not positive definite.
func cholSolve(a, b []float64, n int) bool {
	for j := 0; j < n; j++ {
		d := a[j*n+j]
		for k := 0; k < j; k++ {
			d -= a[j*n+k] * a[j*n+k]
		}
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		a[j*n+j] = d
		for i := j + 1; i < n; i++ {
			s := a[i*n+j]
			for k := 0; k < j; k++ {
				s -= a[i*n+k] * a[j*n+k]
			}
			a[i*n+j] = s / d
		}
	}
	for i := 0; i < n; i++ { // L y = b
		s := b[i]
		for k := 0; k < i; k++ {
			s -= a[i*n+k] * b[k]
		}
		b[i] = s / a[i*n+i]
	}
	for i := n - 1; i >= 0; i-- { // Lᵀ x = y
		s := b[i]
		for k := i + 1; k < n; k++ {
			s -= a[k*n+i] * b[k]
		}
		b[i] = s / a[i*n+i]
	}
	return true
}

// Levenberg–Marquardt on the Taylor loss (taylorFit.levenberg).
const (
	lmLambda0  = 1e-3 // initial damping, relative to the scaling D
	lmFtol     = 1e-8 // stop when an accepted step lowers F by at most this fraction
	lmMaxTries = 200  // trial steps (accepted or not) per start
)

// levenberg moves delta downhill on F by Levenberg–Marquardt, the
// least-squares method the paper names (§D.1: "nonlinear least squares
// starts from ..."), and leaves it where that method stops; minimize then
// finishes with Newton's method to the stated tolerance. F is the squared
// norm of the residual r̂ = (a − Õδ + ½H̃(δ∘δ), √μ δ), whose Jacobian Ĵ
// gives the Gauss–Newton matrix A = ĴᵀĴ = RᵀR + μI and ĴᵀR̂ = ½∇F, both
// from the Gram blocks. Each trial solves (A + λD) h = −½∇F with
// Marquardt's scaling D = diag(A), each entry the largest seen so far (1
// where it is 0), as MINPACK's lmder does with its column norms. A trial
// that lowers F is taken and λ is multiplied by max(⅓, 1 − (2ρ − 1)³),
// with ρ the ratio of the actual to the predicted decrease; a trial that
// does not is refused and λ multiplied by ν = 2, 4, 8, … (Madsen, Nielsen
// and Tingleff, "Methods for non-linear least squares problems", 2004,
// Algorithm 3.16). It stops when ‖∇F‖∞ meets minimize's tolerance, when
// a taken step lowers F by at most lmFtol of F (scipy's default ftol),
// when a trial no longer moves δ, or after lmMaxTries trials.
func (t *taylorFit) levenberg(delta []float64, mu float64) {
	K := t.K
	f, _ := t.loss(delta, mu)
	gn := t.grad(delta, mu, t.g)
	t.curvature(t.hess, delta, mu, false)
	for k := 0; k < K; k++ {
		t.scl[k] = 0
	}
	t.rescale()
	lambda, nu := lmLambda0, 2.0
	for try := 0; try < lmMaxTries && !(2*gn <= t.tol); try++ {
		copy(t.chol, t.hess)
		moves := false
		for k := 0; k < K; k++ {
			t.chol[k*K+k] += lambda * t.scl[k]
			t.step[k] = -t.g[k]
		}
		var ft, pred float64
		if cholSolve(t.chol, t.step, K) {
			for k, d := range delta {
				t.trial[k] = d + t.step[k]
				moves = moves || t.trial[k] != d
				pred += t.step[k] * (lambda*t.scl[k]*t.step[k] - t.g[k])
			}
			if !moves {
				return
			}
			ft, _ = t.loss(t.trial, mu)
		}
		if !(moves && ft < f && pred > 0) { // also a NaN loss, or A + λD not positive definite
			lambda *= nu
			nu *= 2
			if math.IsInf(lambda, 0) {
				return
			}
			continue
		}
		rho, small := (f-ft)/pred, f-ft <= lmFtol*f
		copy(delta, t.trial)
		f = ft
		gn = t.grad(delta, mu, t.g)
		t.curvature(t.hess, delta, mu, false)
		t.rescale()
		if small {
			return
		}
		lambda *= math.Max(1.0/3, 1-math.Pow(2*rho-1, 3))
		nu = 2
	}
}

// rescale raises Marquardt's scaling t.scl to the diagonal of the
// Gauss–Newton matrix in t.hess; a scale still 0 (a column of zeros at
// μ = 0) becomes 1.
func (t *taylorFit) rescale() {
	K := t.K
	for k := 0; k < K; k++ {
		t.scl[k] = math.Max(t.scl[k], t.hess[k*K+k])
		if !(t.scl[k] > 0) {
			t.scl[k] = 1
		}
	}
}

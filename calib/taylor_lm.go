package calib

import "math"

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

package calib

import "math"

// taylorFit is the diagonal Taylor correction of PROTOCOL §4 (§D.1) on one
// training design:
//
//	ŷ = s0 − Σk Ok δk + ½ Σk Hk δk²
//
// with δ minimising the penalised loss
//
//	F(δ) = ‖a − Õδ + ½ H̃ (δ∘δ)‖² + μ‖δ‖²,  a = v − y*,  μ = γ‖Õ‖²_F / K,
//
// where Õ = C O and H̃ = C H. F is a quartic in δ whose coefficients are the
// Gram blocks ÕᵀÕ, ÕᵀH̃, H̃ᵀH̃ and the vectors Õᵀa, H̃ᵀa, all linear images
// of the training statistics (G = J̃ᵀJ̃, J̃ᵀa, aᵀa), so each
// Levenberg–Marquardt step costs O(K³) whatever the number of rows.
type taylorFit struct {
	K          int
	OO, OH, HH []float64 // K×K
	Oa, Ha     []float64
	aa         float64
	scale      float64 // ‖Õ‖²_F / K
	half       *methodPath
	// scratch
	u, r1, r2, g, step, trial, A, chol []float64
}

func newTaylorFit(s *gram, K int, half *methodPath) *taylorFit {
	q := s.q
	t := &taylorFit{K: K, half: half,
		OO: make([]float64, K*K), OH: make([]float64, K*K), HH: make([]float64, K*K),
		Oa: make([]float64, K), Ha: make([]float64, K),
		u: make([]float64, K), r1: make([]float64, K), r2: make([]float64, K), g: make([]float64, K),
		step: make([]float64, K), trial: make([]float64, K), A: make([]float64, K*K), chol: make([]float64, K*K)}
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
	t.aa = s.vv - 2*s.vy + s.yy
	if K > 0 {
		t.scale = trace(t.OO, K) / float64(K)
	}
	return t
}

// loss returns F(δ) for the penalty mu.
func (t *taylorFit) loss(delta []float64, mu float64) float64 {
	K := t.K
	for k, d := range delta {
		t.u[k] = d * d
	}
	f := t.aa
	for k := 0; k < K; k++ {
		f += -2*t.Oa[k]*delta[k] + t.Ha[k]*t.u[k] + mu*delta[k]*delta[k]
		for l := 0; l < K; l++ {
			f += delta[k]*t.OO[k*K+l]*delta[l] - delta[k]*t.OH[k*K+l]*t.u[l] + t.u[k]*t.HH[k*K+l]*t.u[l]/4
		}
	}
	return f
}

// gradient stores ½∇F(δ) = Jrᵀr + μδ in t.g and the Gauss–Newton matrix
// JrᵀJr + μI in t.A, with Jr = −Õ + H̃ diag(δ).
func (t *taylorFit) gradient(delta []float64, mu float64) {
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
	for k := 0; k < K; k++ {
		t.g[k] = -t.r1[k] + delta[k]*t.r2[k] + mu*delta[k]
		for l := 0; l < K; l++ {
			a := t.OO[k*K+l] - t.OH[k*K+l]*delta[l] - delta[k]*t.OH[l*K+k] + delta[k]*t.HH[k*K+l]*delta[l]
			if k == l {
				a += mu
			}
			t.A[k*K+l] = a
		}
	}
}

// minimize runs Levenberg–Marquardt from delta (overwritten with the
// result) and returns the final loss.
func (t *taylorFit) minimize(delta []float64, mu float64) float64 {
	K := t.K
	f := t.loss(delta, mu)
	lambda := 1e-3
	for it := 0; it < 200; it++ {
		t.gradient(delta, mu)
		improved := false
		for try := 0; try < 30; try++ {
			for i := range t.step {
				t.step[i] = -t.g[i]
			}
			// (A + λ·diag-scale) step = −g; A + μI is positive definite.
			a := t.chol
			copy(a, t.A)
			for k := 0; k < K; k++ {
				a[k*K+k] += lambda * math.Max(t.A[k*K+k], 1e-300)
			}
			if !cholSolve(a, t.step, K) {
				lambda *= 10
				continue
			}
			for k := range delta {
				t.trial[k] = delta[k] + t.step[k]
			}
			if ft := t.loss(t.trial, mu); ft < f {
				rel := (f - ft) / math.Max(math.Abs(f), 1e-300)
				copy(delta, t.trial)
				f = ft
				lambda = math.Max(lambda/10, 1e-12)
				improved = true
				if rel < 1e-14 {
					return f
				}
				break
			}
			lambda *= 10
		}
		if !improved {
			return f
		}
	}
	return f
}

// fit returns δ at γ: Levenberg–Marquardt from the linear ridge fit (the
// half-difference δ at the same γ), from zero and from the ridge fit's
// negation; the lowest penalised loss wins (the earlier start on a tie).
func (t *taylorFit) fit(gamma float64, delta []float64) {
	mu := gamma * t.scale
	t.half.path.solve(gamma, t.half.coef)
	best := math.Inf(1)
	cand := make([]float64, t.K)
	for start := 0; start < 3; start++ {
		for k := range cand {
			switch start {
			case 0:
				cand[k] = t.half.coef[k]
			case 1:
				cand[k] = 0
			case 2:
				cand[k] = -t.half.coef[k]
			}
		}
		if f := t.minimize(cand, mu); f < best {
			best = f
			copy(delta, cand)
		}
	}
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

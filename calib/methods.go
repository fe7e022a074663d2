package calib

import (
	"errors"

	"gonum.org/v1/gonum/mat"
)

// Method is one scoring method compared by Fit. The arrays of per-method
// results are indexed by Method; a later method (the diagonal Taylor
// correction of docs/protocol.md §4) takes the next slot.
type Method int

// The methods of docs/protocol.md §4, Vanilla being s0 as is.
const (
	Vanilla    Method = iota // s0 used as is
	PRISM                    // α = 1: ŷ = s0 − J̃β
	AlphaPRISM               // α unpenalised: ŷ = α s0 − J̃β
	Half                     // PRISM on the half-differences Ok only
	Taylor                   // diagonal Taylor: ŷ = s0 − Σ Ok δk + ½ Σ Hk δk² (opt-in)
	numMethods
)

var methodNames = [numMethods]string{"vanilla", "prism", "alpha_prism", "half", "taylor"}

// String returns the method's key in the JSON report.
func (m Method) String() string {
	if m < 0 || m >= numMethods {
		return "unknown"
	}
	return methodNames[m]
}

// methodsFor returns the fitted methods of a run, in report order; Taylor
// follows Half, whose fit it starts from.
func methodsFor(opts Options) []Method {
	ms := []Method{PRISM, AlphaPRISM, Half}
	if opts.Taylor {
		ms = append(ms, Taylor)
	}
	return ms
}

// pathsFor factorizes every method of ms on the statistics s.
func pathsFor(ms []Method, s *gram, K int) ([]*methodPath, error) {
	ps := make([]*methodPath, len(ms))
	var half, prism *methodPath
	for i, m := range ms {
		if m == AlphaPRISM && prism != nil { // share PRISM's factorization
			ps[i] = newAlphaPath(s, prism.path)
			continue
		}
		if m == Taylor {
			if half == nil {
				return nil, errors.New("calib: the Taylor fit needs the half-difference fit")
			}
			ps[i] = &methodPath{method: Taylor, q: s.q, K: K, taylor: newTaylorFit(s, K, half), coef: make([]float64, K)}
			continue
		}
		p, ok := newMethodPath(m, s, K)
		if !ok {
			return nil, errEigen
		}
		switch m {
		case Half:
			half = p
		case PRISM:
			prism = p
		}
		ps[i] = p
	}
	return ps, nil
}

// methodPath is one method's ridge path on one training design: every γ
// of the grid is a cheap solve on the same eigendecomposition.
type methodPath struct {
	method Method
	path   *ridgePath
	q, K   int
	vv, vy float64   // vᵀv, vᵀy*, for α-PRISM's α
	coef   []float64 // last solution in the method's own coordinates
	pc, pe []float64 // α-PRISM: Vᵀc and Vᵀe in PRISM's eigenbasis
	taylor *taylorFit
}

// newMethodPath sets up the penalised normal equations of method m on the
// training statistics s (docs/protocol.md §4), with μ = γ‖design‖²_F / m:
//
//	PRISM:     (G + μI) β = c − e
//	α-PRISM:   [vᵀv  −cᵀ; −c  G + μI] (α, β) = (vᵀy*, −e)   (see newAlphaPath)
//	Half:      Õ = J̃M with M[k±, k] = ½:  (MᵀGM + μI) δ = Mᵀ(c − e)
//
// where G = J̃ᵀJ̃, c = J̃ᵀv, e = J̃ᵀy*. The α-PRISM system is the exact
// minimiser of ‖αv − J̃β − y*‖² + μ‖β‖² over (α, β); its penalty uses
// ‖J̃‖²_F like PRISM's. Half (and Taylor) read the statistics of Õ as these
// linear images of G, equal to ÕᵀÕ and Õᵀ(v − y*) up to rounding; their
// predictions use Õ centered from O itself (rule.predict).
func newMethodPath(m Method, s *gram, K int) (*methodPath, bool) {
	q := s.q
	mp := &methodPath{method: m, q: q, K: K, vv: s.vv, vy: s.vy}
	var a, b []float64
	var scale float64
	switch m {
	case PRISM:
		a = s.G
		b = make([]float64, q)
		for i := range b {
			b[i] = s.c[i] - s.e[i]
		}
		scale = trace(s.G, q) / float64(q)
	case AlphaPRISM:
		base, err := newMethodPath(PRISM, s, K)
		if !err {
			return nil, false
		}
		return newAlphaPath(s, base.path), true
	case Half:
		a = make([]float64, K*K)
		b = make([]float64, K)
		for k := 0; k < K; k++ {
			for l := 0; l < K; l++ {
				a[k*K+l] = (s.G[2*k*q+2*l] + s.G[2*k*q+2*l+1] + s.G[(2*k+1)*q+2*l] + s.G[(2*k+1)*q+2*l+1]) / 4
			}
			b[k] = (s.c[2*k] - s.e[2*k] + s.c[2*k+1] - s.e[2*k+1]) / 2
		}
		if K > 0 {
			scale = trace(a, K) / float64(K)
		}
	default:
		panic("calib: no ridge path for method " + m.String())
	}
	p, ok := newRidgePath(a, b, scale)
	if !ok {
		return nil, false
	}
	mp.path = p
	mp.coef = make([]float64, len(b))
	return mp, true
}

// newAlphaPath sets up α-PRISM on PRISM's eigendecomposition base of G,
// so one factorization serves both methods and every γ. With M = G + μI,
// eliminating β = M⁻¹(cα − e) from the bordered normal equations leaves
// the scalar Schur complement
//
//	α = (vᵀy* − cᵀM⁻¹e) / (vᵀv − cᵀM⁻¹c),
//
// and M⁻¹ is diagonal in the eigenbasis. The denominator equals
// vᵀv·(1 − uᵀM⁻¹u) with u = c/‖v‖, positive because J̃ᵀP⊥J̃ + μI is; when
// v = 0 (or the denominator vanishes numerically) α is not identified and
// is set to 1.
func newAlphaPath(s *gram, base *ridgePath) *methodPath {
	q := s.q
	mp := &methodPath{method: AlphaPRISM, q: q, path: base, vv: s.vv, vy: s.vy,
		coef: make([]float64, q), pc: make([]float64, q), pe: make([]float64, q)}
	if base.vecs != nil {
		for i := 0; i < q; i++ {
			for k := 0; k < q; k++ {
				mp.pc[k] += base.vecs.At(i, k) * s.c[i]
				mp.pe[k] += base.vecs.At(i, k) * s.e[i]
			}
		}
	}
	return mp
}

// alphaAt solves α-PRISM at γ into mp.coef and returns α.
func (mp *methodPath) alphaAt(gamma float64) float64 {
	p := mp.path
	if p.vecs == nil { // zero design: β = 0, α by least squares of αv ≈ y*
		clear(mp.coef)
		if mp.vv > 0 {
			return mp.vy / mp.vv
		}
		return 1
	}
	mu := gamma * p.scale
	var cMc, cMe float64
	for i, l := range p.vals {
		if d := l + mu; d > 0 {
			cMc += mp.pc[i] * mp.pc[i] / d
			cMe += mp.pc[i] * mp.pe[i] / d
		}
	}
	alpha := 1.0
	if den := mp.vv - cMc; mp.vv > 0 && den > 0 {
		alpha = (mp.vy - cMe) / den
	}
	for i, l := range p.vals {
		if d := l + mu; d > 0 {
			p.w[i] = (mp.pc[i]*alpha - mp.pe[i]) / d
		} else {
			p.w[i] = 0
		}
	}
	mat.NewVecDense(mp.q, mp.coef).MulVec(p.vecs, mat.NewVecDense(mp.q, p.w))
	return alpha
}

// rule is one method's fit at one γ, in the form its predictions take
// (docs/protocol.md §4). A prediction is a function of the s0 and the row
// that define it, evaluated with the same operations in the same order for
// every row, so that bitwise-equal rows get bitwise-equal predictions and
// share a mid-rank (which the exact-tie rule of §5 then sees):
//
//	Vanilla:          ŷ = s0
//	PRISM, α-PRISM:   ŷ = α s0 − Σc J̃c βc               (c = 1..q)
//	Half:             ŷ = s0 − Σk Õk δk                 (k = 1..K)
//	Taylor:           ŷ = s0 − Σk (Õk δk − H̃k · ½δk²)   (k = 1..K)
//
// with J̃ = C J, Õ = C O and H̃ = C H centered within the group from their
// own columns (see centerOH), and each sum accumulated from its first term
// in index order.
type rule struct {
	method Method
	alpha  float64   // α: 1 except for α-PRISM
	beta   []float64 // q coefficients of J̃ (PRISM, α-PRISM)
	delta  []float64 // K coefficients δ of Õ (Half, Taylor)
	curv   []float64 // K coefficients ½δk² of H̃ (Taylor)
}

// vanillaRule predicts s0.
var vanillaRule = &rule{method: Vanilla, alpha: 1}

func newRule(q, K int) *rule {
	return &rule{alpha: 1, beta: make([]float64, q), delta: make([]float64, K), curv: make([]float64, K)}
}

// predict returns ŷ of one candidate from its s0 and its rows of J̃, Õ
// and H̃ (each read only by the methods that use it).
func (r *rule) predict(s0 float64, j, o, h []float64) float64 {
	var dot float64
	switch r.method {
	case Vanilla:
		return s0
	case Half:
		for k, d := range r.delta {
			dot += o[k] * d
		}
		return s0 - dot
	case Taylor:
		for k, d := range r.delta {
			dot += o[k]*d - h[k]*r.curv[k]
		}
		return s0 - dot
	default:
		for c, b := range r.beta {
			dot += j[c] * b
		}
		return r.alpha*s0 - dot
	}
}

// at solves method mp at γ into r. For PRISM and α-PRISM r gets α and β
// (the coefficients of J̃); for Half and Taylor it gets δ (Taylor also
// ½δ²), and mp.coef keeps δ. Only Taylor can fail: its minimisation
// reports non-convergence (see taylorFit.fit).
func (mp *methodPath) at(gamma float64, r *rule) error {
	r.method, r.alpha = mp.method, 1
	switch mp.method {
	case Taylor:
		if err := mp.taylor.fit(gamma, mp.coef); err != nil {
			return err
		}
		for k, d := range mp.coef {
			r.delta[k] = d
			r.curv[k] = d * d / 2
		}
	case AlphaPRISM:
		r.alpha = mp.alphaAt(gamma)
		copy(r.beta, mp.coef)
	case Half:
		mp.path.solve(gamma, mp.coef)
		copy(r.delta, mp.coef)
	default:
		mp.path.solve(gamma, mp.coef)
		copy(r.beta, mp.coef)
	}
	return nil
}

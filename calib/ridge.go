package calib

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// gram holds the sufficient statistics of a ridge fit over a set of
// contexts: G = J̃ᵀJ̃, c = J̃ᵀv, e = J̃ᵀy*, vv = vᵀv, vy = vᵀy*. They add
// over contexts, so a training design is a sum of per-context terms and
// every fold is assembled without touching the rows again.
type gram struct {
	q      int
	G      []float64 // q×q, row-major, symmetric
	c, e   []float64
	vv, vy float64
	yy     float64 // y*ᵀy*, for the Taylor loss
	rows   int
}

func newGram(q int) *gram {
	return &gram{q: q, G: make([]float64, q*q), c: make([]float64, q), e: make([]float64, q)}
}

func (s *gram) reset() {
	clear(s.G)
	clear(s.c)
	clear(s.e)
	s.vv, s.vy, s.yy, s.rows = 0, 0, 0, 0
}

func (s *gram) add(o *gram) {
	for i, x := range o.G {
		s.G[i] += x
	}
	for i := range s.c {
		s.c[i] += o.c[i]
		s.e[i] += o.e[i]
	}
	s.vv += o.vv
	s.vy += o.vy
	s.yy += o.yy
	s.rows += o.rows
}

// contextGram computes the statistics of rows [lo, hi) of d, one context.
func contextGram(d *Design, lo, hi int) *gram {
	q := d.Q()
	s, m := newGram(q), make([]float64, q)
	d.ColumnMeans(lo, hi, m)
	contextGramInto(s, d, lo, hi, m, make([]float64, q))
	return s
}

// contextGramInto sets s to the statistics of rows [lo, hi) of d, one
// context whose ColumnMeans are m; each row of J̃ is made in jrow (q).
func contextGramInto(s *gram, d *Design, lo, hi int, m, jrow []float64) {
	q := d.Q()
	s.reset()
	for r := lo; r < hi; r++ {
		d.CenteredRow(r, m, jrow)
		j := jrow
		v, y := d.V[r], d.YStar[r]
		for a := 0; a < q; a++ {
			ja := j[a]
			if ja == 0 {
				continue
			}
			row := s.G[a*q : (a+1)*q]
			for b := a; b < q; b++ {
				row[b] += ja * j[b]
			}
			s.c[a] += ja * v
			s.e[a] += ja * y
		}
		s.vv += v * v
		s.vy += v * y
		s.yy += y * y
	}
	for a := 0; a < q; a++ { // mirror the upper triangle
		for b := a + 1; b < q; b++ {
			s.G[b*q+a] = s.G[a*q+b]
		}
	}
	s.rows = hi - lo
}

// ridgePath solves (A + μI) x = b for every μ of a grid from one
// eigendecomposition A = V Λ Vᵀ: x(μ) = V diag(1/(λi + μ)) Vᵀ b, with
// μ = γ · scale. A zero design (scale 0) gives x = 0.
type ridgePath struct {
	m     int
	scale float64   // ‖design‖²_F / m, so that μ = γ · scale
	vals  []float64 // eigenvalues λ
	vecs  *mat.Dense
	proj  []float64 // Vᵀ b
	w     []float64 // scratch
}

// newRidgePath factorizes the symmetric m×m matrix a (row-major).
// It reports false when the eigendecomposition fails.
func newRidgePath(a, b []float64, scale float64) (*ridgePath, bool) {
	m := len(b)
	p := &ridgePath{m: m, scale: scale, proj: make([]float64, m), w: make([]float64, m)}
	if m == 0 || scale == 0 {
		return p, true
	}
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(m, a), true) {
		return nil, false
	}
	p.vals = eig.Values(nil)
	p.vecs = mat.NewDense(m, m, nil)
	eig.VectorsTo(p.vecs)
	mat.NewVecDense(m, p.proj).MulVec(p.vecs.T(), mat.NewVecDense(m, b))
	return p, true
}

// solve stores x(γ) in dst (length m).
func (p *ridgePath) solve(gamma float64, dst []float64) {
	if p.vecs == nil {
		clear(dst)
		return
	}
	mu := gamma * p.scale
	for i, l := range p.vals {
		den := l + mu
		if den <= 0 || math.IsInf(den, 0) { // only for a numerically singular A with γ = 0
			p.w[i] = 0
			continue
		}
		p.w[i] = p.proj[i] / den
	}
	mat.NewVecDense(p.m, dst).MulVec(p.vecs, mat.NewVecDense(p.m, p.w))
}

// trace of a row-major m×m matrix.
func trace(a []float64, m int) float64 {
	var t float64
	for i := 0; i < m; i++ {
		t += a[i*m+i]
	}
	return t
}

// ctxStats holds every context's ridge statistics (contextGram) packed in
// one slab, for the folds' sums. Per context, stride = q(q+1)/2 + 2q + 3
// values:
//
//	G's upper triangle, row by row (G_ab for a ≤ b), then c = J̃ᵀv,
//	e = J̃ᵀy*, then vᵀv, vᵀy*, y*ᵀy*
//
// against q² + 2q + 3 in a gram of its own, and no pointer or slice
// header per context: at 16 columns, 171 values instead of 291. G is
// symmetric by construction (contextGram mirrors its upper triangle), so
// gram.addPacked adds each packed value to both G_ab and G_ba: every sum
// is the sum of the same numbers in the same order as before.
type ctxStats struct {
	q, stride int
	data      []float64
	off       []int // Design.Off: context g has off[g+1] − off[g] rows
}

func packedStride(q int) int { return q*(q+1)/2 + 2*q + 3 }

// newCtxStats computes the statistics of every context of d, and stores
// in cm (contexts × q) each context's ColumnMeans, which center its rows.
func newCtxStats(d *Design, cm []float64) *ctxStats {
	q := d.Q()
	st := &ctxStats{q: q, stride: packedStride(q), off: d.Off}
	st.data = make([]float64, len(d.Contexts)*st.stride)
	s, jrow := newGram(q), make([]float64, q) // one context's statistics, one row, reused
	for g := range d.Contexts {
		m := cm[g*q : (g+1)*q]
		d.ColumnMeans(d.Off[g], d.Off[g+1], m)
		contextGramInto(s, d, d.Off[g], d.Off[g+1], m, jrow)
		p := st.of(g)
		i := 0
		for a := 0; a < q; a++ {
			i += copy(p[i:], s.G[a*q+a:(a+1)*q])
		}
		i += copy(p[i:], s.c)
		i += copy(p[i:], s.e)
		p[i], p[i+1], p[i+2] = s.vv, s.vy, s.yy
	}
	return st
}

// of returns context g's packed statistics.
func (st *ctxStats) of(g int) []float64 { return st.data[g*st.stride : (g+1)*st.stride] }

// vv returns context g's vᵀv.
func (st *ctxStats) vv(g int) float64 { return st.data[(g+1)*st.stride-3] }

// addPacked adds context g's statistics of st to s, as s.add adds a gram.
func (s *gram) addPacked(st *ctxStats, g int) {
	q, p := s.q, st.of(g)
	i := 0
	for a := 0; a < q; a++ {
		s.G[a*q+a] += p[i]
		i++
		for b := a + 1; b < q; b++ {
			x := p[i]
			i++
			s.G[a*q+b] += x
			s.G[b*q+a] += x
		}
	}
	c, e := p[i:i+q], p[i+q:i+2*q]
	for a := 0; a < q; a++ {
		s.c[a] += c[a]
		s.e[a] += e[a]
	}
	t := p[i+2*q:]
	s.vv += t[0]
	s.vy += t[1]
	s.yy += t[2]
	s.rows += st.off[g+1] - st.off[g]
}

package calib

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

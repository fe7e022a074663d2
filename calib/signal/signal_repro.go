package signal

import (
	"math"

	"github.com/prism-eval/prism/calib"

	"github.com/prism-eval/prism/model"
)

// CrossRunQ returns the cross-run product of docs/protocol.md §8 (paper §B.4) of
// two contrasts, u[i][r] and v[i][r] being candidate i's values in run r
// (NaN: absent):
//
//	Q(U,V) = Σ_i Σ_{r≠r′} U_i^(r) V_i^(r′) / Σ_i R_i(R_i − 1),
//
// where the inner sum runs over the R_i runs in which candidate i has both
// contrasts. With complete data (R_i = R for all n candidates) this is
// 1/(n R (R−1)) Σ_i Σ_{r≠r′} U_i^(r) V_i^(r′); independent zero-mean run
// noise cancels from it in expectation. It is NaN when no candidate has
// both contrasts in two runs.
//
// CrossRunQ panics if u and v differ in shape.
func CrossRunQ(u, v [][]float64) float64 {
	if len(u) != len(v) {
		panic("calib: CrossRunQ shape mismatch")
	}
	var s qStats
	for i := range u {
		if len(u[i]) != len(v[i]) {
			panic("calib: CrossRunQ shape mismatch")
		}
		s.add(u[i], v[i])
	}
	return s.q()
}

// qStats accumulates the cross-run and same-run products of two contrasts
// over candidates; sums from disjoint sets of contrasts pool by adding,
// which averages their second moments before any square root.
type qStats struct {
	cross, pairs float64 // Σ Σ_{r≠r′} U^(r) V^(r′), Σ R_i(R_i − 1)
	same, count  float64 // Σ Σ_r U^(r) V^(r), Σ R_i, over candidates with R_i ≥ 2
	n            int     // candidates with R_i ≥ 2
}

// add adds one candidate's values across runs. Σ_{r≠r′} U^(r) V^(r′) =
// (Σ_r U^(r))(Σ_r V^(r)) − Σ_r U^(r) V^(r).
func (s *qStats) add(u, v []float64) {
	var su, sv, suv float64
	k := 0
	for r := range u {
		if math.IsNaN(u[r]) || math.IsNaN(v[r]) {
			continue
		}
		su += u[r]
		sv += v[r]
		suv += u[r] * v[r]
		k++
	}
	if k < 2 {
		return
	}
	s.cross += su*sv - suv
	s.pairs += float64(k * (k - 1))
	s.same += suv
	s.count += float64(k)
	s.n++
}

func (s *qStats) pool(o qStats) {
	s.cross += o.cross
	s.pairs += o.pairs
	s.same += o.same
	s.count += o.count
	s.n += o.n
}

func (s qStats) q() float64 {
	if s.pairs == 0 {
		return math.NaN()
	}
	return s.cross / s.pairs
}

func (s qStats) m() float64 {
	if s.count == 0 {
		return math.NaN()
	}
	return s.same / s.count
}

// reproRMS is sqrt(max(Q, 0)), NaN when Q is.
func (s qStats) reproRMS() float64 {
	q := s.q()
	if math.IsNaN(q) {
		return q
	}
	return math.Sqrt(math.Max(q, 0))
}

// runCorr is Q/M, NaN when undefined.
func (s qStats) runCorr() float64 {
	m := s.m()
	if !(m > 0) {
		return math.NaN()
	}
	return s.q() / m
}

// selfStats accumulates Q(U,U) of the contrast m ([run][candidate]).
func selfStats(m [][]float64) qStats { return crossStats(m, m) }

// crossStats accumulates Q(U,V) of two contrasts laid out [run][candidate].
func crossStats(u, v [][]float64) qStats {
	var s qStats
	if len(u) == 0 {
		return s
	}
	R := len(u)
	cu, cv := make([]float64, R), make([]float64, R)
	for c := range u[0] {
		for r := 0; r < R; r++ {
			cu[r], cv[r] = u[r][c], v[r][c]
		}
		s.add(cu, cv)
	}
	return s
}

func reproOf(name string, s qStats) Reproducibility {
	return Reproducibility{Name: name, N: s.n, RMS: math.Sqrt(s.m()), ReproRMS: s.reproRMS(), RunCorr: s.runCorr()}
}

// reproducibility fills the cross-run statistics of r: per probe and per
// neutral clause on the wording-averaged displacements, per unit and
// pooled by adding the probes' sums, and the O and E components.
func reproducibility(t *scoreTable, r *Report) {
	U := len(t.attrs) + len(t.ctxProbes)
	unitStats := make([]qStats, U)
	var pooled, neutral qStats
	var probeCorr, neutralCorr []float64
	disp := map[string][][]float64{} // attribute sign → centered displacement, for O and E
	for _, p := range t.probes {
		d := t.displacement(p.mean)
		s := selfStats(d)
		rep := reproOf(p.probe, s)
		if p.unit < 0 {
			r.Neutrals = append(r.Neutrals, rep)
			neutral.pool(s)
			if !math.IsNaN(rep.RunCorr) {
				neutralCorr = append(neutralCorr, rep.RunCorr)
			}
			continue
		}
		r.Probes = append(r.Probes, rep)
		unitStats[p.unit].pool(s)
		pooled.pool(s)
		if !math.IsNaN(rep.RunCorr) {
			probeCorr = append(probeCorr, rep.RunCorr)
		}
		if p.kind == model.ProbeAttr {
			disp[p.probe] = p.mean // uncentered scores; O and E are centered below
		}
	}
	for i := range r.Units {
		r.Units[i].ReproRMS, r.Units[i].RunCorr = unitStats[i].reproRMS(), unitStats[i].runCorr()
	}
	r.Pooled.ReproRMS, r.Pooled.RunCorr = pooled.reproRMS(), pooled.runCorr()
	r.Neutral.ReproRMS, r.Neutral.RunCorr = neutral.reproRMS(), neutral.runCorr()
	r.ProbeRunCorrMean, r.NeutralRunCorrMean = meanOrNaN(probeCorr), meanOrNaN(neutralCorr)

	for _, a := range t.attrs {
		plus, minus := disp[a+":+"], disp[a+":-"]
		if plus == nil || minus == nil {
			r.Components = append(r.Components, Component{Attribute: a, ReproO: math.NaN(), ReproE: math.NaN(),
				RunCorrO: math.NaN(), RunCorrE: math.NaN(), CorrOE: math.NaN()})
			continue
		}
		o, e := components(t, plus, minus)
		oo, ee, oe := selfStats(o), selfStats(e), crossStats(o, e)
		c := Component{Attribute: a, N: oe.n, ReproO: oo.reproRMS(), ReproE: ee.reproRMS(),
			RunCorrO: oo.runCorr(), RunCorrE: ee.runCorr(), CorrOE: math.NaN()}
		if qo, qe := oo.q(), ee.q(); qo > 0 && qe > 0 {
			c.CorrOE = oe.q() / math.Sqrt(qo*qe)
		}
		r.Components = append(r.Components, c)
	}
}

// components returns O = (s+ − s−)/2 and E = (s+ + s−)/2 − s0 per run and
// candidate, each centered within context over the candidates that have
// s0, s+ and s− in that run.
func components(t *scoreTable, plus, minus [][]float64) (o, e [][]float64) {
	o, e = make([][]float64, len(plus)), make([][]float64, len(plus))
	for r := range plus {
		o[r], e[r] = make([]float64, len(plus[r])), make([]float64, len(plus[r]))
		for c := range plus[r] {
			sp, sm, s0 := plus[r][c], minus[r][c], t.s0[r][c]
			o[r][c] = (sp - sm) / 2
			e[r][c] = (sp+sm)/2 - s0
			if math.IsNaN(s0) {
				o[r][c] = math.NaN() // O needs no s0, but both share one candidate set
			}
		}
	}
	t.center(o)
	t.center(e)
	return o, e
}

func meanOrNaN(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	return calib.Mean(x)
}

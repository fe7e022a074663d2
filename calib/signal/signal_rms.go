package signal

import (
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/prism-eval/prism/calib"
)

// signalAccum holds per-context sums of squared centered displacements,
// so that the context bootstrap only re-adds them. Rows of ss and n:
// the report's units, then pooled, neutral and the repeat reference.
type signalAccum struct {
	t     *scoreTable
	units int
	ss    [][]float64 // [row][context]
	n     [][]int
}

func newSignalAccum(t *scoreTable) *signalAccum {
	u := len(t.attrs) + len(t.ctxProbes)
	a := &signalAccum{t: t, units: u, ss: make([][]float64, u+3), n: make([][]int, u+3)}
	for i := range a.ss {
		a.ss[i] = make([]float64, len(t.ctxs))
		a.n[i] = make([]int, len(t.ctxs))
	}
	return a
}

func (a *signalAccum) pooledRow() int  { return a.units }
func (a *signalAccum) neutralRow() int { return a.units + 1 }
func (a *signalAccum) repeatRow() int  { return a.units + 2 }

// add accumulates the squared values of m (NaN skipped) per context into
// the given rows.
func (a *signalAccum) add(m [][]float64, rows ...int) {
	t := a.t
	for _, row := range m {
		for g := range t.ctxs {
			var ss float64
			k := 0
			for _, x := range row[t.off[g]:t.off[g+1]] {
				if !math.IsNaN(x) {
					ss += x * x
					k++
				}
			}
			for _, i := range rows {
				a.ss[i][g] += ss
				a.n[i][g] += k
			}
		}
	}
}

// displacements accumulates every probe's centered displacement s(p) − s0
// into its unit and the pooled row, or the neutral row: per probe with
// its wordings averaged (t.probes), or per wording when perWording is set
// (t.series).
func (a *signalAccum) displacements(perWording bool) {
	series := a.t.probes
	if perWording {
		series = a.t.series
	}
	for _, s := range series {
		d := a.t.displacement(s.mean)
		if s.unit < 0 {
			a.add(d, a.neutralRow())
		} else {
			a.add(d, s.unit, a.pooledRow())
		}
	}
}

// repeats accumulates the repeat reference: for every pair of runs r < r′,
// the differences s0^(r) − s0^(r′) of the candidates scored in both,
// centered within context, i.e. the difference of the two runs' centered
// baselines over those candidates.
func (a *signalAccum) repeats() {
	t := a.t
	for r := range t.runs {
		for r2 := r + 1; r2 < len(t.runs); r2++ {
			d := make([]float64, t.nCand())
			for c := range d {
				d[c] = t.s0[r][c] - t.s0[r2][c]
			}
			m := [][]float64{d}
			t.center(m)
			a.add(m, a.repeatRow())
		}
	}
}

// total sums a row over the contexts; k counts the contexts that
// contribute to it.
func (a *signalAccum) total(i int) (ss float64, n, k int) {
	for g := range a.ss[i] {
		ss += a.ss[i][g]
		n += a.n[i][g]
		if a.n[i][g] > 0 {
			k++
		}
	}
	return ss, n, k
}

// fill sets the RMS, ratios and bootstrap intervals of r.
func (a *signalAccum) fill(r *Report, opts Options) {
	t := a.t
	rows := a.units + 2 // units, pooled, neutral: the rows with ratios
	est := make([]float64, a.units+3)
	cnt := make([]int, a.units+3)
	ctxs := make([]int, a.units+3)
	for i := range est {
		ss, n, k := a.total(i)
		est[i], cnt[i], ctxs[i] = rms(ss, n), n, k
	}
	neuCtxs := ctxs[a.neutralRow()]
	neu, rep := est[a.neutralRow()], est[a.repeatRow()]
	if len(t.runs) < 2 {
		rep = math.NaN()
	}
	ratio, vsRep := bootstrapRatios(a, rows, opts.Bootstrap, opts.Seed, len(t.runs) >= 2)
	unit := func(i int, name string) Unit {
		u := Unit{Name: name, N: cnt[i], RMS: est[i], Ratio: est[i] / neu, CI: ratio[i],
			Contexts: ctxs[i], TooFew: ctxs[i] < MinContexts || neuCtxs < MinContexts,
			RatioVsRepeat: est[i] / rep, CIVsRepeat: vsRep[i], ReproRMS: math.NaN(), RunCorr: math.NaN()}
		if cnt[i] == 0 {
			u.Ratio, u.RatioVsRepeat = math.NaN(), math.NaN()
		}
		u.Pass = u.CI[0] > 1 && !u.TooFew
		return u
	}
	for k, name := range t.attrs {
		r.Units = append(r.Units, unit(k, name))
	}
	for c, name := range t.ctxProbes {
		r.Units = append(r.Units, unit(len(t.attrs)+c, "ctx:"+name))
	}
	r.Pooled = unit(a.pooledRow(), "pooled")
	r.Neutral = unit(a.neutralRow(), "neutral")
	r.Neutral.Ratio, r.Neutral.CI, r.Neutral.Pass = 1, [2]float64{1, 1}, false
	if cnt[a.neutralRow()] == 0 {
		r.Neutral.Ratio, r.Neutral.CI = math.NaN(), [2]float64{math.NaN(), math.NaN()}
	}
	r.RepeatRMS, r.RepeatN = rep, cnt[a.repeatRow()]
}

// bootstrapRatios returns, for each of the first rows rows of a, the
// percentile 95% interval (Quantile7 at 0.025 and 0.975) of RMS_row /
// RMS_neutral and of RMS_row / RMS_repeat over B context-bootstrap
// resamples: each draws len(contexts) contexts with replacement, as
// i = ⌊x · n / 2⁶⁴⌋ with x = Uint64() of rand.NewPCG(seed, 1) (the
// drawing rule of PairedBootstrap), and recomputes both RMS from the drawn
// contexts' sums. Resamples where a ratio is undefined (0/0) are left out
// of its interval; an interval with no defined resample is NaN. Without
// repeats the second intervals are NaN.
func bootstrapRatios(a *signalAccum, rows, B int, seed uint64, repeats bool) (vsNeutral, vsRepeat [][2]float64) {
	nctx := len(a.t.ctxs)
	nanPair := [2]float64{math.NaN(), math.NaN()}
	vsNeutral, vsRepeat = make([][2]float64, rows), make([][2]float64, rows)
	for i := range vsNeutral {
		vsNeutral[i], vsRepeat[i] = nanPair, nanPair
	}
	if nctx == 0 {
		return vsNeutral, vsRepeat
	}
	all := a.units + 3
	draws := make([][]float64, 2*rows) // per row: B ratios vs neutral, then vs repeat
	for i := range draws {
		draws[i] = make([]float64, 0, B)
	}
	ss := make([]float64, all)
	n := make([]int, all)
	g := rand.NewPCG(seed, 1)
	for b := 0; b < B; b++ {
		clear(ss)
		clear(n)
		for k := 0; k < nctx; k++ {
			hi, _ := bits.Mul64(g.Uint64(), uint64(nctx))
			c := int(hi)
			for i := 0; i < all; i++ {
				ss[i] += a.ss[i][c]
				n[i] += a.n[i][c]
			}
		}
		neu := rms(ss[a.neutralRow()], n[a.neutralRow()])
		rep := rms(ss[a.repeatRow()], n[a.repeatRow()])
		for i := 0; i < rows; i++ {
			x := rms(ss[i], n[i])
			if v := x / neu; !math.IsNaN(v) {
				draws[i] = append(draws[i], v)
			}
			if v := x / rep; repeats && !math.IsNaN(v) {
				draws[rows+i] = append(draws[rows+i], v)
			}
		}
	}
	interval := func(s []float64) [2]float64 {
		if len(s) == 0 {
			return nanPair
		}
		return calib.PercentileInterval(s)
	}
	for i := 0; i < rows; i++ {
		vsNeutral[i] = interval(draws[i])
		vsRepeat[i] = interval(draws[rows+i])
	}
	return vsNeutral, vsRepeat
}

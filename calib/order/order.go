package order

import (
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/prism-eval/prism/calib"
)

// Presentation-order diagnostics of batched pointwise scoring
// (docs/protocol.md §14, paper §2.2 Fig. 2b–c, §B.6, Table 12). They read
// stored scores only: a listwise study's scores by order and repeat, and,
// for the references, a pointwise study's scores by run.

// Context is one context's scores for the order diagnostics. Every
// slice over candidates has one entry per candidate, in one fixed order;
// NaN marks a missing score. Orders and repeats may be absent (nil).
type Context struct {
	ID    string
	Human []float64 // human targets (NaN: unlabeled)
	// Base[k][r][i]: batched baseline score of candidate i in order k,
	// repeat r; Probe[u][k][r][i] the same under unit u (wordings
	// averaged).
	Base  [][][]float64
	Probe [][][][]float64
	// Pos[k][i]: 0-based position of candidate i in order k (nil when
	// unknown; only the position decomposition reads it).
	Pos [][]int
	// Point[run][i] and PointProbe[u][run][i]: pointwise scores.
	Point      [][]float64
	PointProbe [][][]float64
}

// Data is the input of Diagnostics. Units name the probe
// columns (ATTR:+, ATTR:-, ctx:NAME) and Signs orient them: +1 for ATTR:+
// and context probes, −1 for ATTR:- (Δ⁻ = s₀ − s(p⁻), §2).
type Data struct {
	Units    []string
	Signs    []float64
	Contexts []Context
}

// Options set the bootstrap and the minimum data.
type Options struct {
	Bootstrap   int    // context-bootstrap resamples (default 2000, as the other diagnostics)
	Seed        uint64 // bootstrap seed (default 42)
	MinContexts int    // fewer usable contexts: "too few" (default 5)
}

// DefaultOptions are prism diagnose order's defaults.
func DefaultOptions() Options {
	return Options{Bootstrap: 2000, Seed: 42, MinContexts: 5}
}

// Stat is one estimate: its value and 95% context-bootstrap
// percentile interval, or TooFew saying what is missing (Value and CI nil).
type Stat struct {
	Value    *float64    `json:"value"`
	CI       *[2]float64 `json:"ci95"`
	Contexts int         `json:"contexts"`
	Cells    int         `json:"cells,omitempty"`
	TooFew   string      `json:"too_few,omitempty"`
}

// CurvePoint is the probe-response correlation between two disjoint
// sets of M averaged orders.
type CurvePoint struct {
	Orders int `json:"orders"`
	Stat
}

// Spearman is the uncalibrated mean within-context Spearman of a
// scoring format with the human targets, and its paired difference from
// pointwise scoring.
type Spearman struct {
	Format      string      `json:"format"` // "pointwise" or "batched"
	Orders      int         `json:"orders"` // orders averaged (0 for pointwise)
	CallsPerCtx float64     `json:"calls_per_context"`
	Spearman    *float64    `json:"spearman"`
	CI          *[2]float64 `json:"ci95"`
	GainVsPoint *float64    `json:"gain_vs_pointwise"`
	GainCI      *[2]float64 `json:"gain_ci95"`
	Contexts    int         `json:"contexts"`
	TooFew      string      `json:"too_few,omitempty"`
}

// Report is the result of Diagnostics.
type Report struct {
	Contexts   int          `json:"contexts"`
	Units      []string     `json:"units"`
	Orders     int          `json:"orders"`  // orders present (repeat 0) in every context that has any
	Repeats    int          `json:"repeats"` // most repeats of an order
	PointRuns  int          `json:"pointwise_runs"`
	Bootstrap  int          `json:"bootstrap"`
	Seed       uint64       `json:"seed"`
	MinCtx     int          `json:"min_contexts"`
	Curve      []CurvePoint `json:"order_curve"`
	RepeatRef  Stat         `json:"repeat_reference"`
	PointRef   Stat         `json:"pointwise_reference"`
	KendallRev Stat         `json:"kendall_reversed"`
	KendallRep Stat         `json:"kendall_repeat"`
	KendallGap Stat         `json:"kendall_reversed_minus_repeat"`
	Spearman   []Spearman   `json:"spearman"`
	Positions  Positions    `json:"positions"`
}

// Diagnostics computes the three presentation-order diagnostics
// (formulas in docs/protocol.md §14):
//
//   - Curve: for M = 1, 2, 4, … with 2M ≤ K orders, the pooled correlation
//     of within-context centered probe responses Δ averaged over orders
//     [2bM, (2b+1)M) against orders [(2b+1)M, (2b+2)M), b = 0 … ⌊K/2M⌋−1,
//     sums pooled over blocks, units and contexts; RepeatRef the same
//     between repeats 0 and 1 of one order (every order that has both);
//     PointRef between pointwise runs 0 and 1.
//   - Kendall: per context, τ_b of the baseline scores of order 2j and of
//     its reversal 2j+1 (repeat 0), averaged over j; and of repeats 0 and
//     1 of an order, averaged over orders; both averaged over contexts.
//   - Positions: the order-induced deviations of baseline scores split
//     into the call's shift, additive position effects and the order ×
//     candidate interaction (orderCalc.positions).
//   - Spearman: per context, Spearman of the human targets with the
//     baseline averaged over the first M orders (repeat 0), M = 1, 2, 4,
//     …, K, and with pointwise run 0; averaged over contexts, with paired
//     differences from pointwise.
//
// Intervals: B context-bootstrap resamples drawn as PairedBootstrap
// draws them (rand.NewPCG(seed, 1), i = ⌊x·n/2⁶⁴⌋); a pooled correlation
// is recomputed from the resampled contexts' sums, resamples where it is
// undefined are dropped.
func Diagnostics(d *Data, opts Options) (*Report, error) {
	if d == nil || len(d.Units) != len(d.Signs) {
		return nil, errors.New("calib: order diagnostics: units and signs differ in length")
	}
	def := DefaultOptions()
	if opts.Bootstrap <= 0 {
		opts.Bootstrap = def.Bootstrap
	}
	if opts.MinContexts <= 0 {
		opts.MinContexts = def.MinContexts
	}
	rep := &Report{Contexts: len(d.Contexts), Units: d.Units, Bootstrap: opts.Bootstrap, Seed: opts.Seed, MinCtx: opts.MinContexts}
	K := -1
	for _, c := range d.Contexts {
		if k := ordersPresent(c.Base); len(c.Base) > 0 && (K < 0 || k < K) {
			K = k
		}
		for _, o := range c.Base {
			rep.Repeats = max(rep.Repeats, len(o))
		}
		rep.PointRuns = max(rep.PointRuns, len(c.Point))
	}
	rep.Orders = max(K, 0)
	o := orderCalc{d: d, opts: opts}

	// Curve of averaged orders.
	for M := 1; 2*M <= rep.Orders; M *= 2 {
		p := CurvePoint{Orders: M}
		p.Stat = o.pooled(func(c *Context, s *corrSums) {
			for b := 0; (2*b+2)*M <= rep.Orders; b++ {
				o.addResponses(c, s, orderMean(c, 2*b*M, M), orderMean(c, (2*b+1)*M, M))
			}
		}, "")
		rep.Curve = append(rep.Curve, p)
	}
	if len(rep.Curve) == 0 {
		rep.Curve = append(rep.Curve, CurvePoint{Orders: 1, Stat: Stat{TooFew: "needs at least 2 orders of a listwise study"}})
	}
	rep.RepeatRef = o.pooled(func(c *Context, s *corrSums) {
		for k := range c.Base {
			if len(c.Base[k]) >= 2 {
				o.addResponses(c, s, repeatOf(c, k, 0), repeatOf(c, k, 1))
			}
		}
	}, "needs 2 repeats of an order (prism run --listwise --repeats 2)")
	rep.PointRef = o.pooled(func(c *Context, s *corrSums) {
		if len(c.Point) >= 2 {
			o.addResponses(c, s, pointRun(c, 0), pointRun(c, 1))
		}
	}, "needs 2 pointwise runs (prism run --repeats 2)")

	// Kendall τ of the reversal and of a repeat.
	rev, repv := make([]float64, len(d.Contexts)), make([]float64, len(d.Contexts))
	for ci := range d.Contexts {
		c := &d.Contexts[ci]
		rev[ci], repv[ci] = math.NaN(), math.NaN()
		var sum, n float64
		for j := 0; 2*j+1 < len(c.Base); j++ {
			if t, ok := kendallCells(c, 2*j, 0, 2*j+1, 0); ok {
				sum += t
				n++
			}
		}
		if n > 0 {
			rev[ci] = sum / n
		}
		sum, n = 0, 0
		for k := range c.Base {
			if t, ok := kendallCells(c, k, 0, k, 1); ok {
				sum += t
				n++
			}
		}
		if n > 0 {
			repv[ci] = sum / n
		}
	}
	rep.KendallRev, rep.KendallRep, rep.KendallGap = o.pairedMeans(rev, repv,
		"needs orders 0 and 1 (an order and its reversal)", "needs 2 repeats of an order (prism run --listwise --repeats 2)")

	// Spearman with the human targets.
	rep.Spearman = o.spearman(rep.Orders)
	rep.Positions = o.positions(rep.Orders)
	return rep, nil
}

// orderCalc carries the data and options through the computations.
type orderCalc struct {
	d    *Data
	opts Options
}

// ordersPresent is the number of leading orders with a repeat 0.
func ordersPresent(base [][][]float64) int {
	k := 0
	for k < len(base) && len(base[k]) > 0 {
		k++
	}
	return k
}

// scoreSet is one arrangement of a context's scores: baseline and units.
type scoreSet struct {
	base  []float64
	units [][]float64
}

func nanVec(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

func runAt(v [][]float64, r int) []float64 {
	if r < len(v) {
		return v[r]
	}
	return nil
}

// orderMean averages the scores of orders [from, from+M), repeat 0,
// cell by cell (a cell missing in any of them is NaN).
func orderMean(c *Context, from, M int) scoreSet {
	n := len(c.Human)
	mean := func(get func(k int) []float64) []float64 {
		out := make([]float64, n)
		for k := from; k < from+M; k++ {
			v := get(k)
			for i := range out {
				if v == nil || i >= len(v) {
					out[i] = math.NaN()
				} else {
					out[i] += v[i]
				}
			}
		}
		for i := range out {
			out[i] /= float64(M)
		}
		return out
	}
	s := scoreSet{base: mean(func(k int) []float64 {
		if k < len(c.Base) {
			return runAt(c.Base[k], 0)
		}
		return nil
	})}
	for u := range c.Probe {
		s.units = append(s.units, mean(func(k int) []float64 {
			if k < len(c.Probe[u]) {
				return runAt(c.Probe[u][k], 0)
			}
			return nil
		}))
	}
	return s
}

func repeatOf(c *Context, k, r int) scoreSet {
	s := scoreSet{base: orNaN(runAt(c.Base[k], r), len(c.Human))}
	for u := range c.Probe {
		var v []float64
		if k < len(c.Probe[u]) {
			v = runAt(c.Probe[u][k], r)
		}
		s.units = append(s.units, orNaN(v, len(c.Human)))
	}
	return s
}

func pointRun(c *Context, r int) scoreSet {
	s := scoreSet{base: orNaN(runAt(c.Point, r), len(c.Human))}
	for u := range c.PointProbe {
		s.units = append(s.units, orNaN(runAt(c.PointProbe[u], r), len(c.Human)))
	}
	return s
}

func orNaN(v []float64, n int) []float64 {
	if len(v) != n {
		return nanVec(n)
	}
	return v
}

// addResponses adds the centered responses Δ_u = σ_u·(s_u − s₀) of two
// score sets, unit by unit.
func (o orderCalc) addResponses(c *Context, s *corrSums, a, b scoreSet) {
	n := len(c.Human)
	x, y := make([]float64, n), make([]float64, n)
	for u := range o.d.Units {
		if u >= len(a.units) || u >= len(b.units) {
			continue
		}
		sg := o.d.Signs[u]
		for i := range n {
			x[i] = sg * (a.units[u][i] - a.base[i])
			y[i] = sg * (b.units[u][i] - b.base[i])
		}
		s.addCentered(x, y)
	}
}

// pooled computes a pooled correlation whose per-context sums add fills,
// with its bootstrap interval, or says too few.
func (o orderCalc) pooled(add func(*Context, *corrSums), need string) Stat {
	var per []corrSums
	var all corrSums
	for ci := range o.d.Contexts {
		var s corrSums
		add(&o.d.Contexts[ci], &s)
		if s.n > 0 {
			per = append(per, s)
			all.add(s)
		}
	}
	v := Stat{Contexts: len(per), Cells: int(all.n)}
	if len(per) == 0 && need != "" {
		v.TooFew = need
		return v
	}
	if why := tooFewContexts(len(per), o.opts.MinContexts); why != "" {
		v.TooFew = why
		return v
	}
	r, ok := all.corr()
	if !ok {
		v.TooFew = "the responses do not vary within contexts"
		return v
	}
	v.Value = &r
	g := rand.NewPCG(o.opts.Seed, 1)
	stats := make([]float64, 0, o.opts.Bootstrap)
	n := uint64(len(per))
	for range o.opts.Bootstrap {
		var s corrSums
		for range per {
			i, _ := bits.Mul64(g.Uint64(), n)
			s.add(per[i])
		}
		if r, ok := s.corr(); ok {
			stats = append(stats, r)
		}
	}
	if len(stats) > 0 {
		ci := calib.PercentileInterval(stats)
		v.CI = &ci
	}
	return v
}

// tooFewContexts is the order diagnostics' "too few" reason: "" with
// enough usable contexts.
func tooFewContexts(have, want int) string {
	return calib.TooFew(have, want, "too few: %d usable contexts, needs %d")
}

// kendallCells is τ_b of the baseline of (order a, repeat ra) and (order
// b, repeat rb).
func kendallCells(c *Context, a, ra, b, rb int) (float64, bool) {
	if a >= len(c.Base) || b >= len(c.Base) {
		return 0, false
	}
	x, y := runAt(c.Base[a], ra), runAt(c.Base[b], rb)
	if x == nil || y == nil || len(x) != len(y) {
		return 0, false
	}
	return calib.KendallTauB(x, y)
}

// pairedMeans are the context means of a and b (NaN: undefined there)
// and of a − b over the contexts where both are defined, with paired
// bootstrap intervals.
func (o orderCalc) pairedMeans(a, b []float64, needA, needB string) (va, vb, vd Stat) {
	one := func(x []float64, need string) Stat {
		var vals []float64
		for _, v := range x {
			if !math.IsNaN(v) {
				vals = append(vals, v)
			}
		}
		return o.meanValue(vals, need)
	}
	va, vb = one(a, needA), one(b, needB)
	var d []float64
	for i := range a {
		if !math.IsNaN(a[i]) && !math.IsNaN(b[i]) {
			d = append(d, a[i]-b[i])
		}
	}
	need := needA
	if vb.Contexts == 0 {
		need = needB
	}
	vd = o.meanValue(d, need)
	return va, vb, vd
}

// meanValue is the mean of per-context values with its bootstrap
// interval (PairedBootstrap of one row), or too few.
func (o orderCalc) meanValue(vals []float64, need string) Stat {
	v := Stat{Contexts: len(vals)}
	if len(vals) == 0 {
		v.TooFew = need
		return v
	}
	if why := tooFewContexts(len(vals), o.opts.MinContexts); why != "" {
		v.TooFew = why
		return v
	}
	var s float64
	for _, x := range vals {
		s += x
	}
	m := s / float64(len(vals))
	ci, _ := calib.PairedBootstrap([][]float64{vals}, 0, o.opts.Bootstrap, o.opts.Seed)
	v.Value, v.CI = &m, &ci[0]
	return v
}

// spearman is the Spearman table: pointwise first, then batched with M =
// 1, 2, 4, … orders and K.
func (o orderCalc) spearman(K int) []Spearman {
	var ms []int
	for M := 1; M <= K; M *= 2 {
		ms = append(ms, M)
	}
	if K > 0 && ms[len(ms)-1] != K {
		ms = append(ms, K)
	}
	// Contexts usable: labeled, with pointwise run 0 and all K orders.
	rows := make([][]float64, 1+len(ms))
	var nSum float64
	for ci := range o.d.Contexts {
		c := &o.d.Contexts[ci]
		if len(c.Point) == 0 || len(c.Human) < 2 {
			continue
		}
		p := SpearmanCells(c.Human, c.Point[0])
		if math.IsNaN(p) {
			continue
		}
		vals := []float64{p}
		for _, M := range ms {
			s := SpearmanCells(c.Human, orderMean(c, 0, M).base)
			vals = append(vals, s)
		}
		if slicesHasNaN(vals) {
			continue
		}
		for m, v := range vals {
			rows[m] = append(rows[m], v)
		}
		nSum += float64(len(c.Human))
	}
	out := []Spearman{{Format: "pointwise"}}
	for _, M := range ms {
		out = append(out, Spearman{Format: "batched", Orders: M, CallsPerCtx: float64(M)})
	}
	n := len(rows[0])
	for i := range out {
		out[i].Contexts = n
	}
	if n > 0 {
		out[0].CallsPerCtx = nSum / float64(n)
	}
	if n < o.opts.MinContexts || K == 0 {
		why := tooFewContexts(n, o.opts.MinContexts) + " (labeled, with pointwise run 0 and listwise order 0)"
		if K == 0 {
			why = "needs a listwise study (prism run --listwise) and a pointwise one (prism run)"
		}
		for i := range out {
			out[i].TooFew = why
		}
		return out
	}
	ci, diff := calib.PairedBootstrap(rows, 0, o.opts.Bootstrap, o.opts.Seed)
	for m := range out {
		var s float64
		for _, v := range rows[m] {
			s += v
		}
		mean := s / float64(n)
		out[m].Spearman, out[m].CI = &mean, &ci[m]
		if m > 0 {
			var g float64
			for i := range rows[m] {
				g += rows[m][i] - rows[0][i]
			}
			g /= float64(n)
			out[m].GainVsPoint, out[m].GainCI = &g, &diff[m]
		}
	}
	return out
}

// SpearmanCells is Spearman over the cells where both are finite (NaN
// when fewer than two are).
func SpearmanCells(x, y []float64) float64 {
	var a, b []float64
	for i := range x {
		if i < len(y) && calib.Finite(x[i]) && calib.Finite(y[i]) {
			a = append(a, x[i])
			b = append(b, y[i])
		}
	}
	if len(a) < 2 {
		return math.NaN()
	}
	return calib.Spearman(a, b)
}

func slicesHasNaN(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) {
			return true
		}
	}
	return false
}

package calib

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
)

// fitter runs the nested cross-validation of docs/protocol.md §5 on one design.
// Everything it needs per fold is a sum of per-context statistics, so the
// rows are read once, in newFitter.
type fitter struct {
	d        *Design
	opts     Options
	pairwise bool
	K        int
	methods  []Method // fitted methods, report order

	stats   *ctxStats   // per context: the ridge statistics the folds sum
	cm      []float64   // per context, J's column means (contexts × q): J̃'s rows come from J (Design.CenteredRow)
	ctxSS   [][]float64 // per context: Σ(C Ok)², then Σ(C Ek)², per attribute
	mo, mh  []float64   // per context, the means of O_k and H_k over its rows (contexts × K): Õ and H̃ of a row come from J (Design.ohRow)
	hrank   []float64   // human mid-ranks per row
	defined []bool      // per context: the metric is defined (pairwise needs an unequal-human pair, or a comparison)

	sum   *gram
	rl    *rule // the fit being scored
	pred  []float64
	prank []float64
	orow  []float64 // one row's Õ (K)
	hrow  []float64 // one row's H̃ (K), with Taylor
	idx   []int
	cv    []float64 // inner out-of-fold values, methods × γ × training contexts
}

var errEigen = errors.New("eigendecomposition of a training design failed")

func newFitter(d *Design, opts Options) *fitter {
	q, K := d.Q(), len(d.Attrs)
	f := &fitter{
		d: d, opts: opts, K: K,
		pairwise: opts.Metric == "pairwise",
		methods:  methodsFor(opts),
		hrank:    make([]float64, d.Rows()),
		defined:  make([]bool, len(d.Contexts)),
		sum:      newGram(q),
		rl:       newRule(q, K),
		cm:       make([]float64, len(d.Contexts)*q),
		mo:       make([]float64, len(d.Contexts)*K),
		mh:       make([]float64, len(d.Contexts)*K),
	}
	maxN := 0
	for g := range d.Contexts {
		maxN = max(maxN, d.Off[g+1]-d.Off[g])
	}
	f.scratch(maxN)
	f.stats = newCtxStats(d, f.cm)
	// Õ and H̃ of one context at a time: the profiles' sums of squares and
	// the means that give any row's later (ohRow).
	oc, hc := make([]float64, maxN*K), make([]float64, maxN*K)
	ss := make([]float64, len(d.Contexts)*2*K) // ctxSS, one allocation
	for g := range d.Contexts {
		lo, hi := d.Off[g], d.Off[g+1]
		oc, hc := oc[:(hi-lo)*K], hc[:(hi-lo)*K]
		d.centerOHMeans(lo, hi, oc, hc, f.mo[g*K:(g+1)*K], f.mh[g*K:(g+1)*K])
		ss := ss[g*2*K : (g+1)*2*K : (g+1)*2*K]
		for i := range oc {
			o := oc[i]
			e := hc[i] / 2 // C E_k = C H_k / 2
			ss[i%K] += o * o
			ss[K+i%K] += e * e
		}
		f.ctxSS = append(f.ctxSS, ss)
		MidRanks(f.hrank[lo:hi], d.Human[lo:hi], f.idx[:hi-lo])
		f.defined[g] = true
		if f.pairwise {
			f.defined[g] = d.pairwiseDefined(g)
		}
	}
	return f
}

// scratch allocates the per-fold buffers for contexts of up to maxN rows.
func (f *fitter) scratch(maxN int) {
	f.pred = make([]float64, maxN)
	f.prank = make([]float64, maxN)
	f.idx = make([]int, maxN)
	f.orow = make([]float64, f.K)
	if f.opts.Taylor {
		f.hrow = make([]float64, f.K)
	}
}

// scratchCopy returns a fitter sharing f's read-only data with its own
// scratch buffers, for one concurrent fold.
func (f *fitter) scratchCopy() *fitter {
	w := *f
	w.sum = newGram(f.d.Q())
	w.rl = newRule(f.d.Q(), f.K)
	w.scratch(len(f.pred))
	w.cv = nil
	return &w
}

// predict stores in dst the predictions of rule r for context g's rows
// (docs/protocol.md §4; rule.predict on each row's s0, J̃, Õ and H̃) and
// returns dst[:n]. The rows of J̃, Õ and H̃ are made from J as they are
// read (Design.CenteredRow, Design.ohRow); for J̃'s methods centering is
// fused into rule.predict's dot product, ŷ = α s0 − Σ_c (J_c − m_c) β_c,
// the same operations in the same order.
func (f *fitter) predict(g int, r *rule, dst []float64) []float64 {
	d := f.d
	q, K := d.Q(), f.K
	lo, hi := d.Off[g], d.Off[g+1]
	dst = dst[:hi-lo]
	switch r.method {
	case Vanilla:
		for i := lo; i < hi; i++ {
			dst[i-lo] = r.predict(d.S0[i], nil, nil, nil)
		}
	case Half, Taylor:
		var h []float64
		if r.method == Taylor {
			h = f.hrow
		}
		mo, mh := f.mo[g*K:(g+1)*K], f.mh[g*K:(g+1)*K]
		for i := lo; i < hi; i++ {
			d.ohRow(i, mo, mh, f.orow, h)
			dst[i-lo] = r.predict(d.S0[i], nil, f.orow, h)
		}
	default: // rule.predict's J̃ branch, centering fused
		m := f.cm[g*q : (g+1)*q]
		for i := lo; i < hi; i++ {
			j := d.J[i*q : (i+1)*q]
			var dot float64
			for c, b := range r.beta {
				jc := j[c] - m[c]
				dot += jc * b
			}
			dst[i-lo] = r.alpha*d.S0[i] - dot
		}
	}
	return dst
}

// value is the within-context metric of context g under rule r.
func (f *fitter) value(g int, r *rule) float64 {
	return f.metricOf(g, f.predict(g, r, f.pred))
}

// metricOf is the within-context metric of context g's predictions pred
// (one per row of the context, in row order).
func (f *fitter) metricOf(g int, pred []float64) float64 {
	lo, hi := f.d.Off[g], f.d.Off[g+1]
	if f.pairwise {
		return f.d.pairwiseOf(g, pred)
	}
	n := hi - lo
	MidRanks(f.prank[:n], pred, f.idx[:n])
	return pearsonOfRanks(f.prank[:n], f.hrank[lo:hi])
}

// sumExcept sets f.sum to the statistics of ctxs outside positions [lo, hi).
func (f *fitter) sumExcept(ctxs []int, lo, hi int) {
	f.sum.reset()
	for i, g := range ctxs {
		if i < lo || i >= hi {
			f.sum.addPacked(f.stats, g)
		}
	}
}

// paths factorizes every fitted method on f.sum.
func (f *fitter) paths() ([]*methodPath, error) { return pathsFor(f.methods, f.sum, f.K) }

// selectGammas runs the inner CV on the training contexts train (π order):
// for each inner part, fit on the others at every γ and score the part's
// contexts; a γ's CV score is the mean over all training contexts, in π
// order, of those out-of-inner-fold values. The highest score wins and
// exact ties go to the largest γ. It returns the chosen grid index and the
// CV scores per method.
func (f *fitter) selectGammas(train []int) (sel []int, cv [][]float64, err error) {
	gammas := f.opts.Gammas
	G, nt := len(gammas), len(train)
	need := len(f.methods) * G * nt
	if cap(f.cv) < need {
		f.cv = make([]float64, need)
	}
	vals := f.cv[:need]
	err = innerValues(train, f.opts.Folds, gammas, vals, f.rl,
		func(lo, hi int) ([]*methodPath, error) {
			f.sumExcept(train, lo, hi)
			return f.paths()
		}, f.value)
	if err != nil {
		return sel, cv, err
	}
	sel, cv = make([]int, len(f.methods)), make([][]float64, len(f.methods))
	for mi := range f.methods {
		cv[mi] = make([]float64, G)
		sel[mi] = f.pickGamma(vals[mi*G*nt:(mi+1)*G*nt], train, cv[mi])
	}
	return sel, cv, nil
}

// pickGamma stores in cv the CV score of every γ, the mean over the
// training contexts train (π order) where the metric is defined of the
// out-of-inner-fold values vals[gi*len(train)+i], and returns the index
// of the highest score; exact ties go to the largest γ.
func (f *fitter) pickGamma(vals []float64, train []int, cv []float64) int {
	nt := len(train)
	for gi := range f.opts.Gammas {
		var s float64
		c := 0
		for i, g := range train {
			if f.defined[g] {
				s += vals[gi*nt+i]
				c++
			}
		}
		if c > 0 {
			s /= float64(c)
		}
		cv[gi] = s
	}
	return bestGamma(cv, f.opts.Gammas)
}

// run fills r with the outer-fold results, sweep, bootstrap and profiles.
func (f *fitter) run(ctx context.Context, order []int, r *Report) error {
	prog := newFitProgress(f.opts)
	d := f.d
	bds, err := prepareBaselines(d, f.opts)
	if err != nil {
		return err
	}
	for _, bd := range bds {
		if bd.kind == BaselineRidge {
			bd.res.Gammas = make([]float64, f.opts.Folds)
		}
	}
	tab := newOuterTables(f.opts.Gammas, f.methods, len(d.Contexts)) // out-of-fold values per method, γ and context
	for g := range d.Contexts {
		tab.selected[Vanilla][g] = f.value(g, vanillaRule)
	}
	aByFold, eByFold, err := f.outerFolds(ctx, order, r, tab, bds, prog)
	if err != nil {
		return err
	}
	// Means over the contexts where the metric is defined, in design order.
	var defined []int
	for g := range d.Contexts {
		if f.defined[g] {
			defined = append(defined, g)
		}
	}
	if len(defined) == 0 {
		return d.ErrPairwiseUndefined()
	}
	f.sweep(r, tab, defined)
	f.results(r, tab, bds, defined, prog)
	K := f.K
	aFolds := make([][]float64, K) // per attribute, per fold
	eFolds := make([][]float64, K)
	for fo := range aByFold {
		for k := 0; k < K; k++ {
			aFolds[k] = append(aFolds[k], aByFold[fo][k])
			eFolds[k] = append(eFolds[k], eByFold[fo][k])
		}
	}
	for k, a := range d.Attrs {
		r.Profiles[a] = &Profile{A: summarize(aFolds[k]), E: summarize(eFolds[k])}
	}
	return nil
}

// outerFolds runs the outer folds of π (order) and returns each fold's
// correction profile (per attribute, a and e). The outer folds are
// independent: each runs on its own scratch and writes only its own test
// contexts' slots, so they run concurrently and the result does not
// depend on scheduling.
func (f *fitter) outerFolds(ctx context.Context, order []int, r *Report, tab *outerTables, bds []*baselineData, prog *fitProgress) (aByFold, eByFold [][]float64, err error) {
	bounds := SplitParts(len(order), f.opts.Folds)
	r.Folds = make([]Fold, f.opts.Folds)
	aByFold = make([][]float64, f.opts.Folds)
	eByFold = make([][]float64, f.opts.Folds)
	errs := make([]error, f.opts.Folds)
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	for fo := 0; fo < f.opts.Folds; fo++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if errs[fo] = ctx.Err(); errs[fo] != nil {
				return
			}
			lo, hi := bounds[fo], bounds[fo+1]
			train := make([]int, 0, len(order)-(hi-lo))
			train = append(append(train, order[:lo]...), order[hi:]...)
			aByFold[fo], eByFold[fo], errs[fo] = f.outerFold(ctx, fo, train, order[lo:hi], &r.Folds[fo], tab, bds)
			if errs[fo] == nil {
				prog.step()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return aByFold, eByFold, nil
}

// outerFold fits outer fold fo on its own scratch: γ by the inner CV on
// train, the refit on train, the test contexts' values and the rubric
// baselines. It returns the fold's correction profile.
func (f *fitter) outerFold(ctx context.Context, fo int, train, test []int, fold *Fold, tab *outerTables, bds []*baselineData) (a, e []float64, err error) {
	d := f.d
	w := f.scratchCopy()
	sel, cv, err := w.selectGammas(train)
	if err != nil {
		return nil, nil, fmt.Errorf("calib: outer fold %d: %w", fo+1, err)
	}
	w.sumExcept(train, 0, 0)
	ps, err := w.paths()
	if err != nil {
		return nil, nil, fmt.Errorf("calib: outer fold %d: %w", fo+1, err)
	}
	fold.Fold = fo + 1
	fold.TestContexts = make([]string, len(test))
	for i, g := range test {
		fold.TestContexts[i] = d.Contexts[g]
	}
	err = tab.score(fold, d, f.methods, ps, sel, cv, test, w.rl, w.value, func() {
		a, e = w.profile(train, w.rl.beta)
	})
	if err != nil {
		return nil, nil, fmt.Errorf("calib: outer fold %d: %w", fo+1, err)
	}
	sp := w.baselineSpace()
	for _, bd := range bds {
		gam, err := fitBaselineFold(ctx, bd, sp, d.Human, train, test, f.opts)
		if err != nil {
			return nil, nil, fmt.Errorf("calib: outer fold %d: rubric baseline %q: %w", fo+1, bd.b.Name, err)
		}
		if bd.res.Gammas != nil {
			bd.res.Gammas[fo] = gam
		}
	}
	return a, e, nil
}

// sweep sets the regularization sweep: per γ of the grid, each method's
// mean out-of-fold value over the defined contexts.
func (f *fitter) sweep(r *Report, tab *outerTables, defined []int) {
	gammas := f.opts.Gammas
	G, nctx := len(gammas), len(f.d.Contexts)
	oof := tab.oof
	for gi, gam := range gammas {
		row := map[string]float64{}
		for mi, m := range f.methods {
			var s float64
			for _, g := range defined {
				s += oof[(mi*G+gi)*nctx+g]
			}
			row[m.String()] = s / float64(len(defined))
		}
		r.Sweep[GammaKey(gam)] = row
	}
}

// results sets every method's and rubric baseline's mean over the
// defined contexts with its paired-bootstrap interval and differences
// (vs Vanilla; the baselines also vs PRISM, on the same draws).
func (f *fitter) results(r *Report, tab *outerTables, bds []*baselineData, defined []int, prog *fitProgress) {
	d, selected := f.d, &tab.selected
	used := append([]Method{Vanilla}, f.methods...)
	values := make([][]float64, len(used))
	for u, m := range used {
		values[u] = make([]float64, len(defined))
		for i, g := range defined {
			values[u][i] = selected[m][g]
		}
	}
	for _, bd := range bds {
		v := make([]float64, len(defined))
		for i, g := range defined {
			v[i] = f.metricOf(g, bd.pred[d.Off[g]:d.Off[g+1]])
		}
		values = append(values, v)
	}
	ci, diff := PairedBootstrap(values, 0, f.opts.Bootstrap, f.opts.Seed)
	var diffP [][2]float64 // vs PRISM, on the same draws
	if len(bds) > 0 {
		_, diffP = PairedBootstrap(values, prismRow(used), f.opts.Bootstrap, f.opts.Seed)
	}
	prog.step()
	for u, m := range used {
		res := &MethodResult{Mean: mean(values[u]), CI: ci[u], PerContext: map[string]float64{}}
		for i, g := range defined {
			res.PerContext[d.Contexts[g]] = values[u][i]
		}
		if m != Vanilla {
			res.DiffVsVanilla = &Diff{Mean: res.Mean - mean(values[0]), CI: diff[u]}
		}
		*r.Methods.byMethod(m) = res
	}
	for b, bd := range bds {
		u := len(used) + b
		res := bd.res
		res.MethodResult = MethodResult{Mean: mean(values[u]), CI: ci[u], PerContext: map[string]float64{}}
		for i, g := range defined {
			res.PerContext[d.Contexts[g]] = values[u][i]
		}
		res.DiffVsVanilla = &Diff{Mean: res.Mean - mean(values[0]), CI: diff[u]}
		res.DiffVsPRISM = &Diff{Mean: res.Mean - mean(values[prismRow(used)]), CI: diffP[u]}
		r.addBaseline(bd.b.Name, res)
	}
}

// recordFold stores method m's selected fit r in fold: β keyed by column,
// or for Half and Taylor the coefficients δ of O_k keyed by attribute.
func recordFold(fold *Fold, m Method, d *Design, r *rule, gamma float64, cv []float64) {
	ff := fold.byMethod(m)
	ff.Gamma, ff.Alpha, ff.CV = gamma, r.alpha, cv
	ff.Beta = map[string]float64{}
	if m == Half || m == Taylor {
		for k, a := range d.Attrs {
			ff.Beta[a] = r.delta[k]
		}
		return
	}
	for c, name := range d.Columns {
		ff.Beta[name] = r.beta[c]
	}
}

// profile returns a_k and e_k (docs/protocol.md §7) of the PRISM coefficients beta
// fitted on the training contexts train:
//
//	a_k = (βk+ + βk−) · RMS_T(C Ok) / RMS_T(C s0)
//	e_k = (βk+ − βk−) · RMS_T(C Ek) / RMS_T(C s0)
//
// RMS pooled over all training candidates; both are 0 when C s0 = 0.
func (f *fitter) profile(train []int, beta []float64) (a, e []float64) {
	K := f.K
	ss := make([]float64, 2*K)
	var vv float64
	for _, g := range train {
		for i, x := range f.ctxSS[g] {
			ss[i] += x
		}
		vv += f.stats.vv(g)
	}
	a, e = make([]float64, K), make([]float64, K)
	if vv == 0 {
		return a, e
	}
	for k := 0; k < K; k++ {
		a[k] = (beta[2*k] + beta[2*k+1]) * math.Sqrt(ss[k]/vv)
		e[k] = (beta[2*k] - beta[2*k+1]) * math.Sqrt(ss[K+k]/vv)
	}
	return a, e
}

func mean(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// summarize returns mean, min, max, the values and the count of values
// with the strict sign of the mean.
func summarize(x []float64) ProfileStat {
	st := ProfileStat{Mean: mean(x), Min: math.Inf(1), Max: math.Inf(-1), Folds: x}
	for _, v := range x {
		st.Min = math.Min(st.Min, v)
		st.Max = math.Max(st.Max, v)
		if (v > 0 && st.Mean > 0) || (v < 0 && st.Mean < 0) {
			st.SignStable++
		}
	}
	return st
}

// baselineSpace maps contexts to their rows and scores them as the inner
// CV does (pickGamma): the mean, over the units where the metric is
// defined, in the order given, of the within-context metric.
func (f *fitter) baselineSpace() baselineSpace {
	d := f.d
	return baselineSpace{
		rowsOf: func(units []int) []int { return contextRows(d, units) },
		score: func(units []int, pred []float64) float64 {
			var s float64
			c := 0
			for _, g := range units {
				if f.defined[g] {
					s += f.metricOf(g, pred[d.Off[g]:d.Off[g+1]])
					c++
				}
			}
			if c > 0 {
				s /= float64(c)
			}
			return s
		},
	}
}

// prismRow is the index of PRISM among the bootstrap rows used.
func prismRow(used []Method) int {
	return slices.Index(used, PRISM)
}

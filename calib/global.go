package calib

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// GlobalContext is the one group of a global-mode report.
const GlobalContext = "(all)"

// globalFitter runs the protocol in global mode (docs/protocol.md §3): the whole
// dataset is one group. The fold units are the candidates, with ids
// "context/candidate". Each fit centers its training rows and norm-matches
// the target over them; predictions use J, O and H centered over the whole
// dataset (label-free; rule.predict), so out-of-fold predictions of
// different folds are comparable and pooled: the metric is Spearman over
// all units.
type globalFitter struct {
	d       *Design
	opts    Options
	q, K    int
	methods []Method
	jg      []float64 // J centered over all rows, rows × q
	og, hg  []float64 // O and H centered over all rows, rows × K (Design.centerOH)
	sg, yg  []float64 // s0 and y centered over all rows (y only to keep sums small)
	ids     []string  // unit ids, design row order
	sum     *gram
	rl      *rule
	// scratch for the pooled metric
	rx, ry []float64
	idx    []int
	pairs  []rankPair
}

func newGlobalFitter(d *Design, opts Options) *globalFitter {
	n, q := d.Rows(), d.Q()
	f := &globalFitter{d: d, opts: opts, q: q, K: len(d.Attrs), methods: methodsFor(opts), sum: newGram(q), rl: newRule(q, len(d.Attrs)),
		jg: make([]float64, n*q), sg: make([]float64, n), yg: make([]float64, n),
		rx: make([]float64, n), ry: make([]float64, n), idx: make([]int, n)}
	for c := 0; c < q; c++ {
		var m float64
		for r := 0; r < n; r++ {
			m += d.J[r*q+c]
		}
		m /= float64(n)
		for r := 0; r < n; r++ {
			f.jg[r*q+c] = d.J[r*q+c] - m
		}
	}
	f.og, f.hg = make([]float64, n*len(d.Attrs)), make([]float64, n*len(d.Attrs))
	d.centerOH(0, n, f.og, f.hg)
	ms, my := mean(d.S0), mean(d.Human)
	for r := 0; r < n; r++ {
		f.sg[r] = d.S0[r] - ms
		f.yg[r] = d.Human[r] - my
	}
	for g, c := range d.Contexts {
		for _, cand := range d.Candidates[g] {
			f.ids = append(f.ids, c+"/"+cand)
		}
	}
	return f
}

// fitSums sets f.sum to the statistics of the units train, centered over
// train, with the target y* = (‖C s0‖/‖C y‖) C y over train. It returns
// the per-attribute sums of squares of C O_k and C E_k.
func (f *globalFitter) fitSums(train []int) (ssO, ssE []float64) {
	q, K := f.q, f.K
	s := f.sum
	s.reset()
	sj := make([]float64, q)
	sjy := make([]float64, q)
	so := make([]float64, 2*K) // Σ O_k, Σ E_k
	ssO, ssE = make([]float64, K), make([]float64, K)
	var ss, sss, sy, syy, ssy float64
	for _, r := range train {
		j := f.jg[r*q : (r+1)*q]
		x, y := f.sg[r], f.yg[r]
		for a := 0; a < q; a++ {
			row := s.G[a*q : (a+1)*q]
			for b := a; b < q; b++ {
				row[b] += j[a] * j[b]
			}
			sj[a] += j[a]
			s.c[a] += j[a] * x
			sjy[a] += j[a] * y
		}
		for k := 0; k < K; k++ {
			o, e := f.og[r*K+k], f.hg[r*K+k]/2 // C E_k = C H_k / 2
			so[k] += o
			so[K+k] += e
			ssO[k] += o * o
			ssE[k] += e * e
		}
		ss += x
		sss += x * x
		sy += y
		syy += y * y
		ssy += x * y
	}
	n := float64(len(train))
	for a := 0; a < q; a++ {
		for b := a; b < q; b++ {
			s.G[a*q+b] -= sj[a] * sj[b] / n
			s.G[b*q+a] = s.G[a*q+b]
		}
		s.c[a] -= sj[a] * ss / n
	}
	for k := 0; k < K; k++ {
		ssO[k] -= so[k] * so[k] / n
		ssE[k] -= so[K+k] * so[K+k] / n
	}
	s.vv = sss - ss*ss/n
	yy := syy - sy*sy/n
	scale := 0.0
	if yy > 0 && s.vv > 0 {
		scale = math.Sqrt(s.vv) / math.Sqrt(yy)
	}
	for a := 0; a < q; a++ {
		s.e[a] = scale * (sjy[a] - sj[a]*sy/n)
	}
	s.vy = scale * (ssy - ss*sy/n)
	s.yy = scale * scale * yy
	s.rows = len(train)
	return ssO, ssE
}

// predict is rule rl's prediction for unit (row) r.
func (f *globalFitter) predict(r int, rl *rule) float64 {
	q, K := f.q, f.K
	return rl.predict(f.d.S0[r], f.jg[r*q:(r+1)*q], f.og[r*K:(r+1)*K], f.hg[r*K:(r+1)*K])
}

// pooled is the Spearman correlation of pred and the human scores of units.
func (f *globalFitter) pooled(units []int, pred []float64) float64 {
	return f.pooledWith(f.humanRanks(units), pred)
}

// humanRanks returns the mid-ranks of the human scores of units, for
// pooledWith.
func (f *globalFitter) humanRanks(units []int) []float64 {
	n := len(units)
	y := f.ry[:n]
	for i, u := range units {
		y[i] = f.d.Human[u]
	}
	ry := make([]float64, n)
	f.midRanks(ry, y)
	return ry
}

// pooledWith is pooled with the human scores' mid-ranks ry already
// computed: the same arithmetic (docs/protocol.md §6), the ranks of the
// units' human scores shared by every prediction scored on those units.
func (f *globalFitter) pooledWith(ry, pred []float64) float64 {
	rx := f.rx[:len(ry)]
	f.midRanks(rx, pred)
	return pearsonOfRanks(rx, ry)
}

// midRanks is MidRanks with a faster sort (sortedMidRanks).
func (f *globalFitter) midRanks(dst, x []float64) {
	if !globalSortedMidRanks || hasNaN(x) {
		MidRanks(dst, x, f.idx[:len(x)])
		return
	}
	f.pairs = sortedMidRanks(dst, x, f.pairs)
}

func (f *globalFitter) paths() ([]*methodPath, error) { return pathsFor(f.methods, f.sum, f.K) }

// globalBootstrap is runGlobal's bootstrap; a variable so that the tests
// can compare the reports with those of the sort-per-resample reference.
var globalBootstrap = pooledBootstrap

// globalSortedMidRanks selects sortedMidRanks for the pooled metric of the
// folds; false (the tests' reference) ranks with MidRanks.
var globalSortedMidRanks = true

// runGlobal is FitDesign in global mode.
func runGlobal(ctx context.Context, d *Design, opts Options, r *Report) error {
	prog := newFitProgress(opts)
	if opts.Metric != "spearman" {
		return errors.New("global mode supports the spearman metric only")
	}
	f := newGlobalFitter(d, opts)
	n := d.Rows()
	if n < 2*opts.Folds {
		return errors.New("global mode needs at least two candidates per fold")
	}
	order, err := unitOrder(f.ids, opts)
	if err != nil {
		return err
	}
	for _, u := range order {
		r.Order = append(r.Order, f.ids[u])
	}
	bds, err := prepareBaselines(d, opts)
	if err != nil {
		return err
	}
	for _, bd := range bds {
		if bd.kind == BaselineRidge {
			bd.res.Gammas = make([]float64, opts.Folds)
		}
	}
	tab := newOuterTables(opts.Gammas, f.methods, n)
	copy(tab.selected[Vanilla], d.S0)
	aFolds, eFolds := make([][]float64, f.K), make([][]float64, f.K)
	bounds := SplitParts(n, opts.Folds)
	for fo := 0; fo < opts.Folds; fo++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		lo, hi := bounds[fo], bounds[fo+1]
		train := append(slices.Clone(order[:lo]), order[hi:]...)
		fold, err := f.outerFold(ctx, fo, train, order[lo:hi], tab, bds, aFolds, eFolds)
		if err != nil {
			return err
		}
		r.Folds = append(r.Folds, fold)
		prog.step()
	}
	f.sweep(r, tab)
	f.results(r, tab, bds, prog)
	for k, a := range d.Attrs {
		r.Profiles[a] = &Profile{A: summarize(aFolds[k]), E: summarize(eFolds[k])}
	}
	return nil
}

// outerFold fits outer fold fo of global mode: γ by the inner CV on the
// units train, the refit, the test units' predictions and the rubric
// baselines. It appends the fold's correction profile to aFolds and
// eFolds (per attribute).
func (f *globalFitter) outerFold(ctx context.Context, fo int, train, test []int, tab *outerTables, bds []*baselineData, aFolds, eFolds [][]float64) (Fold, error) {
	d, opts := f.d, f.opts
	sel, cv, err := f.selectGammas(train)
	if err != nil {
		return Fold{}, fmt.Errorf("calib: global mode, outer fold %d: %w", fo+1, err)
	}
	ssO, ssE := f.fitSums(train)
	ps, err := f.paths()
	if err != nil {
		return Fold{}, fmt.Errorf("calib: global mode, outer fold %d: %w", fo+1, err)
	}
	fold := Fold{Fold: fo + 1}
	for _, u := range test {
		fold.TestContexts = append(fold.TestContexts, f.ids[u])
	}
	err = tab.score(&fold, d, f.methods, ps, sel, cv, test, f.rl, f.predict, func() {
		beta := f.rl.beta
		for k := 0; k < f.K; k++ {
			a, e := 0.0, 0.0
			if f.sum.vv > 0 {
				a = (beta[2*k] + beta[2*k+1]) * math.Sqrt(math.Max(ssO[k], 0)/f.sum.vv)
				e = (beta[2*k] - beta[2*k+1]) * math.Sqrt(math.Max(ssE[k], 0)/f.sum.vv)
			}
			aFolds[k] = append(aFolds[k], a)
			eFolds[k] = append(eFolds[k], e)
		}
	})
	if err != nil {
		return Fold{}, fmt.Errorf("calib: global mode, outer fold %d: %w", fo+1, err)
	}
	sp := f.baselineSpace()
	for _, bd := range bds {
		gam, err := fitBaselineFold(ctx, bd, sp, d.Human, train, test, opts)
		if err != nil {
			return Fold{}, fmt.Errorf("calib: global mode, outer fold %d: rubric baseline %q: %w", fo+1, bd.b.Name, err)
		}
		if bd.res.Gammas != nil {
			bd.res.Gammas[fo] = gam
		}
	}
	return fold, nil
}

// sweep sets the regularization sweep: per γ, each method's pooled
// Spearman over every unit's out-of-fold prediction.
func (f *globalFitter) sweep(r *Report, tab *outerTables) {
	gammas := f.opts.Gammas
	G, n := len(gammas), f.d.Rows()
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	sweep := make([]float64, len(f.methods)*G)
	pooledAll(f.humanRanks(all), tab.oof[:len(sweep)*n], sweep)
	for gi, gam := range gammas {
		row := map[string]float64{}
		for mi, m := range f.methods {
			row[m.String()] = sweep[mi*G+gi]
		}
		r.Sweep[GammaKey(gam)] = row
	}
}

// results sets every method's and rubric baseline's pooled Spearman with
// its paired-bootstrap interval and differences (vs Vanilla; the
// baselines also vs PRISM, on the same draws).
func (f *globalFitter) results(r *Report, tab *outerTables, bds []*baselineData, prog *fitProgress) {
	d, opts, selected := f.d, f.opts, &tab.selected
	used := append([]Method{Vanilla}, f.methods...)
	preds := make([][]float64, len(used))
	for u, m := range used {
		preds[u] = selected[m]
	}
	for _, bd := range bds {
		preds = append(preds, bd.pred)
	}
	refs := []int{0}
	if len(bds) > 0 {
		refs = append(refs, prismRow(used)) // vs PRISM, on the same draws
	}
	means, ci, diffs := globalBootstrap(preds, d.Human, opts.Bootstrap, opts.Seed, refs...)
	diff := diffs[0]
	var diffP [][2]float64
	if len(bds) > 0 {
		diffP = diffs[1]
	}
	prog.step()
	for u, m := range used {
		res := &MethodResult{Mean: means[u], CI: ci[u], PerContext: map[string]float64{GlobalContext: means[u]}}
		if m != Vanilla {
			res.DiffVsVanilla = &Diff{Mean: means[u] - means[0], CI: diff[u]}
		}
		*r.Methods.byMethod(m) = res
	}
	for b, bd := range bds {
		u := len(used) + b
		res := bd.res
		res.MethodResult = MethodResult{Mean: means[u], CI: ci[u], PerContext: map[string]float64{GlobalContext: means[u]}}
		res.DiffVsVanilla = &Diff{Mean: means[u] - means[0], CI: diff[u]}
		res.DiffVsPRISM = &Diff{Mean: means[u] - means[prismRow(used)], CI: diffP[u]}
		r.addBaseline(bd.b.Name, res)
	}
}

// selectGammas is the inner CV of global mode: the CV score of a γ is the
// pooled Spearman of all training units' out-of-inner-fold predictions.
func (f *globalFitter) selectGammas(train []int) (sel []int, cv [][]float64, err error) {
	gammas := f.opts.Gammas
	G, nt := len(gammas), len(train)
	preds := make([]float64, len(f.methods)*G*nt)
	err = innerValues(train, f.opts.Folds, gammas, preds, f.rl,
		func(lo, hi int) ([]*methodPath, error) {
			f.fitSums(append(slices.Clone(train[:lo]), train[hi:]...))
			return f.paths()
		}, f.predict)
	if err != nil {
		return sel, cv, err
	}
	sel, cv = make([]int, len(f.methods)), make([][]float64, len(f.methods))
	vals := make([]float64, len(f.methods)*G)
	pooledAll(f.humanRanks(train), preds, vals)
	for mi := range f.methods {
		cv[mi] = slices.Clone(vals[mi*G : (mi+1)*G])
		sel[mi] = bestGamma(cv[mi], gammas)
	}
	return sel, cv, nil
}

// unitOrder is ResolveOrder for global-mode units.
func unitOrder(ids []string, opts Options) ([]int, error) {
	d := &Design{Contexts: ids}
	order, _, err := ResolveOrder(d, opts)
	return order, err
}

// PooledBootstrap is the global-mode bootstrap: each of B resamples draws
// n = len(human) candidates with replacement (indices as in
// PairedBootstrap, from rand.NewPCG(seed, 1)) and recomputes the pooled
// Spearman correlation of every row of preds with human on the resample.
// It returns the full-sample correlations, the percentile 95% intervals and
// the paired intervals of row − ref. The resamples are ranked without
// sorting them and spread over GOMAXPROCS workers (global_rank.go); the
// numbers do not depend on GOMAXPROCS.
//
// PooledBootstrap panics if a row of preds differs in length from human or
// B < 1.
func PooledBootstrap(preds [][]float64, human []float64, ref, B int, seed uint64) (means []float64, ci, diff [][2]float64) {
	means, ci, diffs := pooledBootstrap(preds, human, B, seed, ref)
	return means, ci, diffs[0]
}

// baselineSpace maps candidates (units are rows) to themselves and scores
// a set of them by the pooled Spearman correlation, as the inner CV does.
func (f *globalFitter) baselineSpace() baselineSpace {
	return baselineSpace{
		rowsOf: func(units []int) []int { return slices.Sorted(slices.Values(units)) },
		score: func(units []int, pred []float64) float64 {
			p := make([]float64, len(units))
			for i, u := range units {
				p[i] = pred[u]
			}
			return f.pooled(units, p)
		},
	}
}

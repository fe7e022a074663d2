package budget

import (
	"slices"

	"github.com/prism-eval/prism/calib"
)

// budgetFolds evaluates policies on one design with the outer folds of a
// Selector: static column subsets chosen per fold from the training
// contexts, and adaptive policies learned on them.
type budgetFolds struct {
	s      *calib.Selector
	w      *calib.SelectorWorker
	calls  []float64 // per design column, calls per candidate
	base   float64   // baseline calls per candidate
	beta   [][]float64
	sd     [][]float64
	oofAll []float64       // per context, the full bank's out-of-fold value
	pols   []*calib.Policy // per fold, the adaptive policy learned on its training contexts (τ unset)
}

// policies learns, once, each fold's adaptive policy on its training
// contexts.
func (b *budgetFolds) policies(tr *calib.PolicyTrainer) ([]*calib.Policy, error) {
	if b.pols != nil {
		return b.pols, nil
	}
	for fo := range b.s.Folds() {
		p, err := tr.Learn(b.s.Train(fo), b.beta[fo], b.sd[fo], b.calls, b.base)
		if err != nil {
			return nil, err
		}
		b.pols = append(b.pols, p)
	}
	return b.pols, nil
}

// newBudgetFolds runs the full bank's nested selection once and keeps
// each fold's β (at the γ the inner CV chose) and the RMS of every
// centered column on the fold's training rows.
func newBudgetFolds(s *calib.Selector, calls []float64, base float64) (*budgetFolds, error) {
	b := &budgetFolds{s: s, w: s.Worker(), calls: calls, base: base}
	q := s.Design().Q()
	all := make([]int, q)
	for c := range all {
		all[c] = c
	}
	cols := make([][]int, s.Folds())
	for fo := range cols {
		cols[fo] = all
	}
	oof, betas, err := b.evalFolds(cols)
	if err != nil {
		return nil, err
	}
	b.oofAll, b.beta = oof, betas
	for fo := range s.Folds() {
		b.sd = append(b.sd, s.ColumnSD(fo))
	}
	return b, nil
}

// evalFolds is calib.SelectorWorker.eval with columns chosen per outer fold
// (cols[f], design order): in every fold γ is chosen by the inner CV on
// the fold's training contexts and the fit on all of them predicts the
// test contexts. It returns the out-of-fold value of every design context
// and each fold's β over all q columns (zero outside its subset).
func (b *budgetFolds) evalFolds(cols [][]int) (oof []float64, betas [][]float64, err error) {
	w, s := b.w, b.s
	oof = make([]float64, len(s.Design().Contexts))
	for fo := range s.Folds() {
		c := cols[fo]
		if len(c) == 0 {
			for _, g := range s.Test(fo) {
				oof[g] = s.VanillaValue(g)
			}
			betas = append(betas, make([]float64, s.Design().Q()))
			continue
		}
		if err := w.FitFold(fo, c); err != nil {
			return nil, nil, err
		}
		for _, g := range s.Test(fo) {
			oof[g] = w.Value(g)
		}
		betas = append(betas, append([]float64(nil), w.Beta()...))
	}
	return oof, betas, nil
}

// ranked is a fold's columns ordered by training importance |β_c|·sd_c.
func (b *budgetFolds) ranked(fo int) []int { return calib.ImportanceOrder(b.beta[fo], b.sd[fo]) }

// staticPoint evaluates one static subset rule: pick(fold) returns the
// fold's columns (design order). Calls per candidate are averaged over
// every design candidate (each pays its test fold's subset).
func (b *budgetFolds) staticPoint(pick func(fo int) []int) (vals []float64, calls []float64, err error) {
	cols := make([][]int, b.s.Folds())
	for fo := range cols {
		cols[fo] = slices.Sorted(slices.Values(pick(fo)))
	}
	oof, _, err := b.evalFolds(cols)
	if err != nil {
		return nil, nil, err
	}
	d := b.s.Design()
	calls = make([]float64, len(d.Contexts)) // per context, per candidate
	for fo := range b.s.Folds() {
		c := b.base
		for _, col := range cols[fo] {
			c += b.calls[col]
		}
		for _, g := range b.s.Test(fo) {
			calls[g] = c
		}
	}
	return oof, calls, nil
}

// adaptive learns a policy on each fold's training contexts and follows
// it, with threshold tau and calls cap (0: none), on the fold's test
// contexts. It returns per context the metric value and the mean calls
// per candidate.
func (b *budgetFolds) adaptive(tr *calib.PolicyTrainer, tau, budget float64) (vals, calls []float64, err error) {
	d := b.s.Design()
	q := d.Q()
	vals = make([]float64, len(d.Contexts))
	calls = make([]float64, len(d.Contexts))
	pols, err := b.policies(tr)
	if err != nil {
		return nil, nil, err
	}
	for fo := range b.s.Folds() {
		p := *pols[fo] // a copy: τ is this point's
		p.Tau = tau
		order := p.ColumnOrder()
		for _, g := range b.s.Test(fo) {
			lo, hi := d.Off[g], d.Off[g+1]
			run := p.Start(d.S0[lo:hi], budget)
			for {
				col, who, ok := run.Next()
				if !ok {
					break
				}
				v := make([]float64, len(who))
				for k, i := range who {
					v[k] = d.J[(lo+i)*q+order[col]]
				}
				run.Give(who, v)
			}
			e, cl := run.Scores()
			vals[g] = b.metric(g, e)
			var sum float64
			for _, c := range cl {
				sum += c
			}
			calls[g] = sum / float64(hi-lo)
		}
	}
	return vals, calls, nil
}

// metric is the within-context metric of predictions pred for context g.
func (b *budgetFolds) metric(g int, pred []float64) float64 {
	return b.w.Metric(g, pred)
}

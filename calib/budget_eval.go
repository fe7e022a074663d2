package calib

import (
	"math"
	"slices"
)

// budgetFolds evaluates policies on one design with the outer folds of a
// selector: static column subsets chosen per fold from the training
// contexts, and adaptive policies learned on them.
type budgetFolds struct {
	s      *selector
	w      *selWorker
	calls  []float64 // per design column, calls per candidate
	base   float64   // baseline calls per candidate
	beta   [][]float64
	sd     [][]float64
	oofAll []float64 // per context, the full bank's out-of-fold value
	pols   []*Policy // per fold, the adaptive policy learned on its training contexts (τ unset)
}

// policies learns, once, each fold's adaptive policy on its training
// contexts.
func (b *budgetFolds) policies(tr *policyTrainer) ([]*Policy, error) {
	if b.pols != nil {
		return b.pols, nil
	}
	for fo, fd := range b.s.folds {
		p, err := tr.learn(fd.train, b.beta[fo], b.sd[fo], b.calls, b.base)
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
func newBudgetFolds(s *selector, calls []float64, base float64) (*budgetFolds, error) {
	b := &budgetFolds{s: s, w: s.worker(), calls: calls, base: base}
	q := s.f.d.Q()
	all := make([]int, q)
	for c := range all {
		all[c] = c
	}
	cols := make([][]int, len(s.folds))
	for fo := range cols {
		cols[fo] = all
	}
	oof, betas, err := b.evalFolds(cols)
	if err != nil {
		return nil, err
	}
	b.oofAll, b.beta = oof, betas
	for _, fd := range s.folds {
		sd := make([]float64, q)
		for c := range sd {
			if fd.outer.rows > 0 {
				sd[c] = math.Sqrt(fd.outer.G[c*q+c] / float64(fd.outer.rows))
			}
		}
		b.sd = append(b.sd, sd)
	}
	return b, nil
}

// evalFolds is selWorker.eval with columns chosen per outer fold
// (cols[f], design order): in every fold γ is chosen by the inner CV on
// the fold's training contexts and the fit on all of them predicts the
// test contexts. It returns the out-of-fold value of every design context
// and each fold's β over all q columns (zero outside its subset).
func (b *budgetFolds) evalFolds(cols [][]int) (oof []float64, betas [][]float64, err error) {
	w, s := b.w, b.s
	oof = make([]float64, len(s.f.d.Contexts))
	for fo, fd := range s.folds {
		c := cols[fo]
		if len(c) == 0 {
			for _, g := range fd.test {
				oof[g] = w.f.value(g, vanillaRule)
			}
			betas = append(betas, make([]float64, s.f.d.Q()))
			continue
		}
		if err := w.fitFold(&s.folds[fo], c); err != nil {
			return nil, nil, err
		}
		for _, g := range fd.test {
			oof[g] = w.f.value(g, w.full)
		}
		betas = append(betas, append([]float64(nil), w.full.beta...))
	}
	return oof, betas, nil
}

// ranked is a fold's columns ordered by training importance |β_c|·sd_c.
func (b *budgetFolds) ranked(fo int) []int { return importanceOrder(b.beta[fo], b.sd[fo]) }

// staticPoint evaluates one static subset rule: pick(fold) returns the
// fold's columns (design order). Calls per candidate are averaged over
// every design candidate (each pays its test fold's subset).
func (b *budgetFolds) staticPoint(pick func(fo int) []int) (vals []float64, calls []float64, err error) {
	cols := make([][]int, len(b.s.folds))
	for fo := range cols {
		cols[fo] = slices.Sorted(slices.Values(pick(fo)))
	}
	oof, _, err := b.evalFolds(cols)
	if err != nil {
		return nil, nil, err
	}
	d := b.s.f.d
	calls = make([]float64, len(d.Contexts)) // per context, per candidate
	for fo, fd := range b.s.folds {
		c := b.base
		for _, col := range cols[fo] {
			c += b.calls[col]
		}
		for _, g := range fd.test {
			calls[g] = c
		}
	}
	return oof, calls, nil
}

// adaptive learns a policy on each fold's training contexts and follows
// it, with threshold tau and calls cap (0: none), on the fold's test
// contexts. It returns per context the metric value and the mean calls
// per candidate.
func (b *budgetFolds) adaptive(tr *policyTrainer, tau, budget float64) (vals, calls []float64, err error) {
	d := b.s.f.d
	q := d.Q()
	vals = make([]float64, len(d.Contexts))
	calls = make([]float64, len(d.Contexts))
	pols, err := b.policies(tr)
	if err != nil {
		return nil, nil, err
	}
	for fo, fd := range b.s.folds {
		p := *pols[fo] // a copy: τ is this point's
		p.Tau = tau
		order := p.order
		for _, g := range fd.test {
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
	return b.w.f.metricOf(g, pred)
}

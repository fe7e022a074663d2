package calib

import (
	"context"
	"fmt"
)

// Holdout fits on one set of contexts and scores on another: the
// numerics of the exploration/confirmation protocol (docs/protocol.md
// §13, calib/confirm) that need the fitter's internals.
type Holdout struct {
	d    *Design
	opts Options
	f    *fitter
}

// NewHoldout prepares d's contexts for fits and scores under opts.
func NewHoldout(d *Design, opts Options) *Holdout {
	return &Holdout{d: d, opts: opts, f: newFitter(d, opts)}
}

// Defined reports whether the metric is defined on context g.
func (h *Holdout) Defined(g int) bool { return h.f.defined[g] }

// VanillaValue is the baseline's within-context metric on context g.
func (h *Holdout) VanillaValue(g int) float64 { return h.f.value(g, vanillaRule) }

// HoldoutFit is one method fitted on the training contexts of a holdout
// and scored on its evaluation contexts.
type HoldoutFit struct {
	Method  Method
	Gamma   float64            // chosen by the grouped CV on the training contexts
	CV      []float64          // CV score per γ of the grid
	CVScore float64            // the chosen γ's CV score
	Alpha   float64            // 1 except for α-PRISM
	Coef    map[string]float64 // β per column (prism, alpha_prism) or δ per attribute (half)
	Values  []float64          // the metric on each evaluation context
}

// FitHoldout fits PRISM, α-PRISM and, when the units hold attributes, the
// half-difference on the columns of units (indices into the selection
// units of d: attributes, then context probes): γ by the inner CV of §5
// over the training contexts train (π order), the refit on all of them
// summed in π order (NewCalibrator's final fit), then each fit's metric
// on the contexts eval. It returns d restricted to the units and the fits.
func FitHoldout(d *Design, units, train, eval []int, opts Options) (*Design, []HoldoutFit, error) {
	all := make([]int, len(d.Contexts))
	for g := range all {
		all[g] = g
	}
	dp := d.Sub(all, units)
	f := newFitter(dp, opts)
	f.methods = []Method{PRISM, AlphaPRISM}
	if len(dp.Attrs) > 0 {
		f.methods = append(f.methods, Half)
	}
	sel, cv, err := f.selectGammas(train)
	if err != nil {
		return nil, nil, err
	}
	f.sumExcept(train, 0, 0)
	ps, err := f.paths()
	if err != nil {
		return nil, nil, err
	}
	var out []HoldoutFit
	for mi, m := range f.methods {
		gam := opts.Gammas[sel[mi]]
		if err := ps[mi].at(gam, f.rl); err != nil {
			return nil, nil, fmt.Errorf("%s at γ %g: %w", m, gam, err)
		}
		hf := HoldoutFit{Method: m, Gamma: gam, CV: cv[mi], CVScore: cv[mi][sel[mi]], Alpha: f.rl.alpha, Coef: map[string]float64{}}
		if m == Half {
			for k, a := range dp.Attrs {
				hf.Coef[a] = f.rl.delta[k]
			}
		} else {
			for c, name := range dp.Columns {
				hf.Coef[name] = f.rl.beta[c]
			}
		}
		hf.Values = make([]float64, len(eval))
		for i, g := range eval {
			hf.Values[i] = f.value(g, f.rl)
		}
		out = append(out, hf)
	}
	return dp, out, nil
}

// HoldoutBaseline is a rubric baseline fitted on the training candidates
// of a holdout and scored on its evaluation contexts (docs/protocol.md §12).
type HoldoutBaseline struct {
	Name   string
	Result *BaselineResult
	Gamma  float64   // the ridge head's γ, chosen by the grouped CV on the training contexts
	Values []float64 // the metric on each evaluation context
}

// Baselines fits every rubric baseline of the options on the candidates
// of train (π order), predicting those of test, and scores each on the
// contexts eval.
func (h *Holdout) Baselines(ctx context.Context, train, test, eval []int) ([]HoldoutBaseline, error) {
	d, f := h.d, h.f
	bds, err := prepareBaselines(d, h.opts)
	if err != nil {
		return nil, err
	}
	sp := f.baselineSpace()
	var out []HoldoutBaseline
	for _, bd := range bds {
		gam, err := fitBaselineFold(ctx, bd, sp, d.Human, train, test, h.opts)
		if err != nil {
			return nil, fmt.Errorf("rubric baseline %q: %w", bd.b.Name, err)
		}
		v := make([]float64, len(eval))
		for i, g := range eval {
			v[i] = f.metricOf(g, bd.pred[d.Off[g]:d.Off[g+1]])
		}
		out = append(out, HoldoutBaseline{Name: bd.b.Name, Result: bd.res, Gamma: gam, Values: v})
	}
	return out, nil
}

// Sub returns the design of contexts ctxs (ascending design indices) and
// units (indices into calib/selection's Units(d), ascending) of d: the rows, the
// centered values and the targets are copied, since centering and the
// target are per context and per column (docs/protocol.md §3). Means and
// Imputed keep the kept score columns' entries of d.
func (d *Design) Sub(ctxs, units []int) *Design {
	K := len(d.Attrs)
	s := &Design{Imputed: map[string]int{}}
	var cols []int
	for _, u := range units {
		if u < K {
			s.Attrs = append(s.Attrs, d.Attrs[u])
			cols = append(cols, 2*u, 2*u+1)
		} else {
			s.CtxProbes = append(s.CtxProbes, d.CtxProbes[u-K])
			cols = append(cols, 2*K+u-K)
		}
	}
	s.ScoreColumns = []string{"baseline"}
	s.Means = []float64{d.Means[0]}
	s.Imputed["baseline"] = d.Imputed["baseline"]
	for _, c := range cols {
		name := d.Columns[c]
		s.Columns = append(s.Columns, name)
		s.ScoreColumns = append(s.ScoreColumns, name)
		s.Means = append(s.Means, d.Means[1+c])
		s.Imputed[name] = d.Imputed[name]
	}
	q, qs := d.Q(), len(cols)
	s.Off = []int{0}
	for _, g := range ctxs {
		s.Contexts = append(s.Contexts, d.Contexts[g])
		s.Candidates = append(s.Candidates, d.Candidates[g])
		lo, hi := d.Off[g], d.Off[g+1]
		s.S0 = append(s.S0, d.S0[lo:hi]...)
		s.Human = append(s.Human, d.Human[lo:hi]...)
		s.V = append(s.V, d.V[lo:hi]...)
		s.YStar = append(s.YStar, d.YStar[lo:hi]...)
		for r := lo; r < hi; r++ {
			for _, c := range cols {
				s.J = append(s.J, d.J[r*q+c])
				s.JC = append(s.JC, d.JC[r*q+c])
			}
		}
		s.Off = append(s.Off, len(s.S0))
		if d.Pairs != nil {
			s.Pairs = append(s.Pairs, d.Pairs[g])
		}
	}
	if d.Pairs != nil && s.Pairs == nil {
		s.Pairs = [][]Pair{}
	}
	if s.J == nil {
		s.J, s.JC = make([]float64, 0, qs), make([]float64, 0, qs)
	}
	return s
}

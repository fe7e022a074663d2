package calib

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/prism-eval/prism/model"
)

// NewCalibrator fits method m on every context of d (global mode: every
// candidate) for deployment, and returns the calibrator with its numbers
// set; the caller adds the bank, the judge and the training source.
//
// rep is FitDesign's report on d with opts: it supplies π (rep.Order) and
// the nested-CV estimate. γ is chosen exactly as an outer fold chooses it
// (docs/protocol.md §5), with every context as the training set: the inner
// CV splits π into opts.Folds parts, and the highest mean
// out-of-inner-fold metric wins, exact ties to the largest γ. The final
// coefficients are the fit at that γ on all contexts, summed in π order,
// so the same inputs give the same file to the bit.
//
// The human-scale map (FitMonotone) is fitted on the final fit's in-sample
// corrected scores of every training candidate; when none exists
// HumanScale is nil and HumanScaleNote says why.
func NewCalibrator(ctx context.Context, d *Design, rep *Report, opts Options, m Method) (*Calibrator, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	if m <= Vanilla || m >= numMethods {
		return nil, fmt.Errorf("calibrator: method %v: want prism, alpha_prism, half or taylor", m)
	}
	res := rep.Methods.Get(m)
	if res == nil {
		return nil, fmt.Errorf("calibrator: the fit's report has no %s result (fit with the method enabled)", m)
	}
	if (m == Half || m == Taylor) && len(d.Attrs) == 0 {
		return nil, fmt.Errorf("calibrator: %s needs attribute probes; the data has only context probes", m)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	methods := []Method{m}
	if m == Taylor {
		methods = []Method{Half, Taylor}
	}
	c := &Calibrator{
		Kind: CalibratorKind, Schema: CalibratorSchema,
		Method: m.String(), Metric: opts.Metric, Centering: CenterWithinContext,
		Target:     "norm-matched: y* = (‖C s0‖ / ‖C y‖) · C y per context, 0 when the humans are constant in it (docs/protocol.md §3)",
		Columns:    slices.Clone(d.Columns),
		Attributes: slices.Clone(d.Attrs),
		Alpha:      1,
		Gamma: GammaChoice{Grid: slices.Clone(opts.Gammas), Folds: opts.Folds, Rule: gammaRule,
			Seed: opts.Seed, Order: slices.Clone(rep.Order)},
		CV: CVEstimate{Metric: rep.Metric, Folds: opts.Folds, Bootstrap: rep.Bootstrap, Seed: rep.Seed,
			Vanilla: Estimate{rep.Methods.Vanilla.Mean, rep.Methods.Vanilla.CI},
			Method:  Estimate{res.Mean, res.CI}},
	}
	if res.DiffVsVanilla != nil {
		c.CV.Diff = Estimate{res.DiffVsVanilla.Mean, res.DiffVsVanilla.CI}
	}
	c.ScoreColumns = c.scoreColumns()
	c.Training = trainingOf(d)
	for _, col := range c.ScoreColumns {
		c.Means = append(c.Means, d.Means[slices.Index(d.ScoreColumns, col)])
	}
	rl := newRule(d.Q(), len(d.Attrs))
	var pred []float64
	var err error
	if opts.Global {
		pred, err = finalGlobal(d, rep, opts, methods, c, rl)
	} else {
		pred, err = finalWithin(d, rep, opts, methods, c, rl)
	}
	if err != nil {
		return nil, err
	}
	switch m {
	case PRISM, AlphaPRISM:
		c.Alpha, c.Beta = rl.alpha, slices.Clone(rl.beta)
	default:
		c.Delta = slices.Clone(rl.delta)
	}
	if mm, err := FitMonotone(pred, d.Human); err != nil {
		c.HumanScaleNote = "no map to the human scale: " + err.Error()
	} else {
		c.HumanScale = mm
	}
	if err := c.check(""); err != nil {
		return nil, fmt.Errorf("calibrator: %w", err)
	}
	return c, nil
}

// finalWithin is the final fit of within-context mode: it leaves the rule
// in rl and returns the in-sample predictions of every design row.
func finalWithin(d *Design, rep *Report, opts Options, methods []Method, c *Calibrator, rl *rule) ([]float64, error) {
	o := opts
	o.Order = rep.Order
	order, _, err := ResolveOrder(d, o)
	if err != nil {
		return nil, err
	}
	f := newFitter(d, opts)
	f.methods = methods
	sel, cv, err := f.selectGammas(order)
	if err != nil {
		return nil, fmt.Errorf("calibrator: final fit: %w", err)
	}
	f.sumExcept(order, 0, 0)
	ps, err := f.paths()
	if err != nil {
		return nil, fmt.Errorf("calibrator: final fit: %w", err)
	}
	last := len(methods) - 1
	gamma := opts.Gammas[sel[last]]
	if err := ps[last].at(gamma, rl); err != nil {
		return nil, fmt.Errorf("calibrator: final fit at γ %g: %w", gamma, err)
	}
	c.Gamma.Value, c.Gamma.CV = gamma, cv[last]
	pred := make([]float64, d.Rows())
	for g := range d.Contexts {
		f.predict(g, rl, pred[d.Off[g]:d.Off[g+1]])
	}
	return pred, nil
}

// finalGlobal is the final fit of global mode; it also records the
// centering means.
func finalGlobal(d *Design, rep *Report, opts Options, methods []Method, c *Calibrator, rl *rule) ([]float64, error) {
	if opts.Metric != model.MetricSpearman {
		return nil, fmt.Errorf("global mode supports the spearman metric only")
	}
	c.Centering = CenterGlobal
	c.Target = "norm-matched: y* = (‖C s0‖ / ‖C y‖) · C y over all training candidates as one group (docs/protocol.md §3)"
	f := newGlobalFitter(d, opts)
	f.methods = methods
	o := opts
	o.Order = rep.Order
	order, err := unitOrder(f.ids, o)
	if err != nil {
		return nil, err
	}
	sel, cv, err := f.selectGammas(order)
	if err != nil {
		return nil, fmt.Errorf("calibrator: final fit: %w", err)
	}
	f.fitSums(order)
	ps, err := f.paths()
	if err != nil {
		return nil, fmt.Errorf("calibrator: final fit: %w", err)
	}
	last := len(methods) - 1
	gamma := opts.Gammas[sel[last]]
	if err := ps[last].at(gamma, f.rl); err != nil {
		return nil, fmt.Errorf("calibrator: final fit at γ %g: %w", gamma, err)
	}
	*rl = *f.rl
	c.Gamma.Value, c.Gamma.CV = gamma, cv[last]
	n, q, K := d.Rows(), d.Q(), len(d.Attrs)
	gc := &GlobalCentering{J: make([]float64, q), O: make([]float64, K), H: make([]float64, K)}
	// The means exactly as newGlobalFitter and centerOH computed them.
	for col := 0; col < q; col++ {
		var s float64
		for r := 0; r < n; r++ {
			s += d.J[r*q+col]
		}
		gc.J[col] = s / float64(n)
	}
	for k := 0; k < K; k++ {
		var so, sh float64
		for r := 0; r < n; r++ {
			j := d.J[r*q:]
			so += (j[2*k] + j[2*k+1]) / 2
			sh += j[2*k] - j[2*k+1]
		}
		gc.O[k], gc.H[k] = so/float64(n), sh/float64(n)
	}
	c.GlobalCentering = gc
	pred := make([]float64, n)
	for r := range pred {
		pred[r] = f.predict(r, rl)
	}
	return pred, nil
}

// trainingOf summarises the design's data.
func trainingOf(d *Design) Training {
	t := Training{Contexts: len(d.Contexts), Candidates: d.Rows(), Imputed: map[string]int{}, IDs: map[string][]string{},
		HumanMin: math.Inf(1), HumanMax: math.Inf(-1)}
	for k, v := range d.Imputed {
		t.Imputed[k] = v
	}
	for g, ctx := range d.Contexts {
		t.IDs[ctx] = slices.Clone(d.Candidates[g])
	}
	for _, y := range d.Human {
		t.HumanMin = math.Min(t.HumanMin, y)
		t.HumanMax = math.Max(t.HumanMax, y)
	}
	return t
}

// KeepUnits returns the score rows of the baseline, the neutral clauses
// and the given units only: attribute names (both signs) and context
// probes "ctx:NAME". It fails naming a unit no row has, so a calibrator
// built on a subset (prism select's choice) needs only those probes.
func KeepUnits(rows []model.ScoreRow, units []string, file string) ([]model.ScoreRow, error) {
	if file == "" {
		file = "scores"
	}
	want := map[string]bool{}
	for _, u := range units {
		u = strings.TrimSpace(u)
		if u == "" {
			continue
		}
		want[u] = true
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("no attributes given")
	}
	seen := map[string]bool{}
	var out []model.ScoreRow
	for _, r := range rows {
		kind, attr, _, err := model.ParseProbe(r.Probe)
		if err != nil {
			return nil, fmt.Errorf("%s: field \"probe\": %v", at(file, r.Line), err)
		}
		unit := attr
		if kind == model.ProbeContext {
			unit = "ctx:" + attr
		}
		switch kind {
		case model.ProbeAttr, model.ProbeContext:
			if !want[unit] {
				continue
			}
			seen[unit] = true
		}
		out = append(out, r)
	}
	for _, u := range slices.Sorted(maps.Keys(want)) {
		if !seen[u] {
			return nil, fmt.Errorf("%s: attribute %q: no score rows (the units are attribute names and ctx:NAME context probes)", file, u)
		}
	}
	return out, nil
}

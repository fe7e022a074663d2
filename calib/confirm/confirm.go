package confirm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/selection"
	"github.com/prism-eval/prism/calib/signal"

	"github.com/prism-eval/prism/model"
)

// The probe pools of the confirmation protocol (docs/protocol.md §13,
// paper Table 21), in report order.
const (
	PoolPrimary    = "primary"    // every unit that passes the exploration screen
	PoolForward    = "forward"    // forward selection on exploration, from every unit
	PoolAll        = "all"        // every unit, screened or not
	PoolProperties = "properties" // the passing attribute units (both columns each)
	PoolOneSided   = "one-sided"  // the passing context probes ctx:NAME (one column each)
)

// PoolNames lists the pools in report order; Options.Pools nil
// means all of them.
var PoolNames = []string{PoolPrimary, PoolForward, PoolAll, PoolProperties, PoolOneSided}

var poolLabels = map[string]string{
	PoolPrimary:    "all passing (primary)",
	PoolForward:    "forward selection",
	PoolAll:        "all units",
	PoolProperties: "properties only",
	PoolOneSided:   "one-sided instructions only",
}

// Options configure Confirm. Start from DefaultOptions.
type Options struct {
	// Options carries the metric, seed, bootstrap resamples, folds, γ grid,
	// π (Order, or Permutation of the fit's contexts by Seed), the rubric
	// baselines and the file names. Global and Taylor are refused.
	calib.Options
	// Benchmark names the data for the split (docs/protocol.md §13):
	// ConfirmSplit(Benchmark, context id). Required.
	Benchmark string
	// Pools are the pools to fit, from PoolNames; nil: all.
	Pools []string
	// Screen sets the bootstrap and seed of the exploration signal screen
	// (Signal); signal.DefaultOptions: 2,000 resamples, seed 42, as prism
	// screen.
	Screen signal.Options
	// MaxForward and MinGain stop forward selection (docs/protocol.md §9).
	MaxForward int
	MinGain    float64
}

// DefaultOptions returns the protocol's defaults: pairwise accuracy,
// seed 42, 2,000 paired resamples, 5 folds, the γ grid of §4, every pool,
// the screen of §8, forward selection to 20 units with a gain of +0.001.
// Benchmark is left empty: the caller names the data.
func DefaultOptions() Options {
	o := calib.DefaultOptions()
	o.Metric = model.MetricPairwise
	return Options{Options: o, Screen: signal.DefaultOptions(), MaxForward: 20, MinGain: 0.001}
}

// Report is the result of Confirm and the JSON document of
// `prism fit --protocol confirm --json` (docs/fit.md). Every interval is
// a percentile 95% interval over the same context-bootstrap draws of the
// eligible confirmation contexts; the fitted predictors are held fixed.
type Report struct {
	Protocol  string    `json:"protocol"`   // "confirm"
	Benchmark string    `json:"benchmark"`  // the split's benchmark name
	SplitRule string    `json:"split_rule"` // SplitRule
	Metric    string    `json:"metric"`     // pairwise or spearman
	Seed      uint64    `json:"seed"`       // π (without an order) and the bootstrap
	Bootstrap int       `json:"bootstrap"`  // paired resamples of the eligible confirmation contexts
	Folds     int       `json:"folds"`      // grouped CV folds on exploration
	GammaGrid []float64 `json:"gamma_grid"` // γ values, in the order of Fit.CV
	Split     Split     `json:"split"`
	// Order is π restricted to the exploration contexts: the order of the
	// grouped CV that chooses γ.
	Order   []string       `json:"order"`
	Units   []string       `json:"units"`   // every unit: attributes sorted, then ctx:NAME sorted
	Columns []string       `json:"columns"` // every Jacobian column
	Imputed map[string]int `json:"imputed"` // score column → cells filled with the exploration column mean
	Screen  Screen         `json:"screen"`
	// Vanilla is s0 on the confirmation contexts.
	Vanilla *Score  `json:"vanilla"`
	Pools   []*Pool `json:"pools"`
	// Baselines are the rubric baselines of Options.Baselines, fitted on
	// the exploration candidates (docs/protocol.md §12–13).
	Baselines []*Baseline `json:"baselines,omitempty"`
	// Primary names the row DiffVsPrimary is taken against: PRISM on the
	// primary pool; empty when that row does not exist.
	Primary string `json:"primary,omitempty"`
}

// Split is the exploration/confirmation split of the fit's contexts
// (those with at least two labelled candidates, byte order).
type Split struct {
	Exploration  []string `json:"exploration"`
	Confirmation []string `json:"confirmation"`
	// Eligible are the confirmation contexts the metric is defined on
	// (pairwise: with a pair of unequal human scores, or with comparison
	// labels a comparison); the means and the
	// bootstrap run over them.
	Eligible               []string `json:"eligible"`
	ExplorationCandidates  int      `json:"exploration_candidates"`
	ConfirmationCandidates int      `json:"confirmation_candidates"`
	// EvalPairs counts the pairs with unequal human scores within the
	// eligible confirmation contexts, or with comparison labels their
	// comparisons (the pairwise evaluation labels).
	EvalPairs int `json:"eval_pairs"`
}

// Screen is the signal screen on the exploration contexts
// (docs/protocol.md §8, §13).
type Screen struct {
	Contexts  int    `json:"contexts"` // exploration contexts with score rows, resampled by the screen
	Bootstrap int    `json:"bootstrap"`
	Seed      uint64 `json:"seed"`
	// Rule states the verdict: prism screen's.
	Rule   string         `json:"rule"`
	Units  []ScreenedUnit `json:"units"`
	Passed []string       `json:"passed"` // units with Pass, in unit order
}

// ScreenedUnit is one unit's screen on exploration: its probe/neutral RMS
// ratio with the 95% context-bootstrap interval (SignalUnit).
type ScreenedUnit struct {
	Name     string     `json:"name"`
	Ratio    float64    `json:"ratio"`
	CI       [2]float64 `json:"ci"`
	Pass     bool       `json:"pass"`
	TooFew   bool       `json:"too_few"`
	Contexts int        `json:"contexts"`
}

// MarshalJSON writes an undefined ratio (no neutral clauses, no data) as
// null.
func (u ScreenedUnit) MarshalJSON() ([]byte, error) {
	type alias struct {
		Name     string             `json:"name"`
		Ratio    calib.JSONFloat    `json:"ratio"`
		CI       [2]calib.JSONFloat `json:"ci"`
		Pass     bool               `json:"pass"`
		TooFew   bool               `json:"too_few"`
		Contexts int                `json:"contexts"`
	}
	return json.Marshal(alias{u.Name, calib.JSONFloat(u.Ratio), calib.JSONPair(u.CI), u.Pass, u.TooFew, u.Contexts})
}

// Score is one predictor's score on the eligible confirmation
// contexts: the mean of its per-context metric, the interval, and the
// paired differences on the same draws.
type Score struct {
	Mean       float64            `json:"mean"`
	CI         [2]float64         `json:"ci"`
	PerContext map[string]float64 `json:"per_context"`
	// DiffVsVanilla is this − Vanilla (nil for Vanilla); DiffVsPrimary is
	// this − PRISM on the primary pool (nil for that row, or when it does
	// not exist).
	DiffVsVanilla *calib.Diff `json:"diff_vs_vanilla,omitempty"`
	DiffVsPrimary *calib.Diff `json:"diff_vs_primary,omitempty"`
}

// Fit is one method fitted on every exploration context of a pool
// and scored on confirmation.
type Fit struct {
	Gamma   float64   `json:"gamma"`    // chosen by the grouped CV on exploration
	CV      []float64 `json:"cv"`       // CV score per γ of the grid
	CVScore float64   `json:"cv_score"` // the chosen γ's CV score
	Alpha   float64   `json:"alpha"`    // 1 except for α-PRISM
	// Coef is β per column (prism, alpha_prism) or δ per attribute (half).
	Coef map[string]float64 `json:"coef"`
	Score
}

// Pool is one probe pool's fits.
type Pool struct {
	Name       string `json:"name"`  // a PoolNames entry
	Label      string `json:"label"` // its row label
	Applicable bool   `json:"applicable"`
	// Reason says why a pool is not applicable (no unit in it).
	Reason  string   `json:"reason,omitempty"`
	Units   []string `json:"units"`
	Columns []string `json:"columns"`
	// Forward and ForwardStop are forward selection's steps on the
	// exploration contexts (pool forward only).
	Forward     []selection.ForwardStep `json:"forward,omitempty"`
	ForwardStop string                  `json:"forward_stop,omitempty"`
	PRISM       *Fit                    `json:"prism,omitempty"`
	AlphaPRISM  *Fit                    `json:"alpha_prism,omitempty"`
	Half        *Fit                    `json:"half,omitempty"` // only when the pool has attributes
}

// Fit returns the pool's fit of method m (nil when absent).
func (p *Pool) Fit(m calib.Method) *Fit {
	switch m {
	case calib.PRISM:
		return p.PRISM
	case calib.AlphaPRISM:
		return p.AlphaPRISM
	case calib.Half:
		return p.Half
	}
	return nil
}

// Baseline is a rubric baseline fitted on the exploration
// candidates and scored on confirmation (docs/protocol.md §12–13).
type Baseline struct {
	Name       string            `json:"name"`
	Kind       string            `json:"kind"`
	Criteria   []string          `json:"criteria"`
	Missing    map[string]int    `json:"missing"`
	OutOfScale int               `json:"out_of_scale"`
	Absent     int               `json:"absent"`
	Forest     *calib.ForestSpec `json:"forest,omitempty"`
	// Gamma is the ridge head's γ, chosen by the grouped CV on exploration.
	Gamma              float64 `json:"gamma,omitempty"`
	CallsPerCandidate  float64 `json:"calls_per_candidate,omitempty"`
	TokensPerCandidate float64 `json:"tokens_per_candidate,omitempty"`
	Score
}

// screenRule is Screen.Rule.
const screenRule = "passes when the 2.5% bound of the 95% percentile context-bootstrap interval of its probe/neutral RMS ratio exceeds 1, with displacements from at least 5 exploration contexts (prism screen's verdict)"

func (o *Options) check() error {
	if err := o.Options.Check(); err != nil {
		return err
	}
	switch {
	case o.Global:
		return errors.New("the confirmation protocol needs contexts; global mode is not supported")
	case o.Taylor:
		return errors.New("the confirmation protocol does not fit the diagonal Taylor correction")
	case o.Benchmark == "":
		return errors.New("the confirmation protocol needs a benchmark name for its split")
	case o.Screen.Bootstrap < 1:
		return fmt.Errorf("screen bootstrap resamples %d: want at least 1", o.Screen.Bootstrap)
	case o.MaxForward < 1:
		return fmt.Errorf("forward selection limit %d: want at least 1 unit", o.MaxForward)
	case math.IsNaN(o.MinGain) || math.IsInf(o.MinGain, 0):
		return fmt.Errorf("forward selection minimum gain %v: want a finite number", o.MinGain)
	}
	seen := map[string]bool{}
	for _, p := range o.Pools {
		if poolLabels[p] == "" {
			return fmt.Errorf("pool %q: want one of %s", p, strings.Join(PoolNames, ", "))
		}
		if seen[p] {
			return fmt.Errorf("pool %q given twice", p)
		}
		seen[p] = true
	}
	return nil
}

// Confirm runs the exploration/confirmation protocol of docs/protocol.md
// §13 (paper §A.5, Table 21) on score rows and labels: it splits the
// contexts with ConfirmSplit(opts.Benchmark, id); screens the units on
// the exploration contexts' score rows (Signal); for each pool, chooses γ
// by the grouped CV of §5 over the exploration contexts in π order and
// fits PRISM, α-PRISM and (with attributes) the half-difference on every
// exploration context; fits the rubric baselines on the exploration
// candidates; scores every predictor once on the confirmation contexts;
// and resamples the eligible confirmation contexts for paired intervals.
// Missing cells are filled with exploration column means. No
// confirmation label enters a fit, a screen or a choice.
//
// It fails when fewer than opts.Folds exploration contexts (one per CV
// fold) or no eligible confirmation context remain, naming the benchmark.
// A pool without units is reported as not applicable, not as an error.
func Confirm(ctx context.Context, rows []model.ScoreRow, labels []model.Label, opts Options) (*Report, []string, error) {
	if err := opts.check(); err != nil {
		return nil, nil, err
	}
	bench := opts.Benchmark
	explore := func(c string) bool { return !ConfirmSplit(bench, c) }
	bo := opts.BuildOptions()
	bo.Global, bo.MeanOver = false, explore
	d, warnings, err := calib.BuildDesign(rows, labels, bo)
	if err != nil {
		return nil, warnings, err
	}
	c := &confirmRun{opts: opts, d: d, explore: explore, primaryRow: -1}
	c.r = &Report{Protocol: "confirm", Benchmark: bench, SplitRule: SplitRule, Metric: opts.Metric, Seed: opts.Seed,
		Bootstrap: opts.Bootstrap, Folds: opts.Folds, GammaGrid: slices.Clone(opts.Gammas),
		Columns: slices.Clone(d.Columns), Imputed: d.Imputed}
	if err := c.split(); err != nil {
		return nil, warnings, err
	}
	order, w, err := calib.ResolveOrder(d, opts.Options)
	warnings = append(warnings, w...)
	if err != nil {
		return nil, warnings, err
	}
	c.train = slices.DeleteFunc(order, func(g int) bool { return !explore(d.Contexts[g]) })
	for _, g := range c.train {
		c.r.Order = append(c.r.Order, d.Contexts[g])
	}
	c.units, _ = selection.Units(d)
	c.r.Units = c.units
	if err := c.screen(ctx, rows); err != nil {
		return nil, warnings, err
	}
	if err := c.fitPools(ctx); err != nil {
		return nil, warnings, err
	}
	if err := c.baselines(ctx); err != nil {
		return nil, warnings, err
	}
	c.score()
	return c.r, warnings, nil
}

// confirmRun is one Confirm in progress: the design split into
// exploration and confirmation, and the rows of the bootstrap (Vanilla,
// every pool's fits, the baselines) with the scores they fill.
type confirmRun struct {
	opts    Options
	d       *calib.Design
	h       *calib.Holdout
	r       *Report
	explore func(context string) bool
	// expl and conf are the exploration and confirmation contexts, eligible
	// the confirmation contexts where the metric is defined, train the
	// exploration contexts in π order (design indices).
	expl, conf, eligible, train []int
	units                       []string        // selection units of the design
	pass                        map[string]bool // per unit, the exploration screen's verdict
	values                      [][]float64     // per bootstrap row, its values on eligible
	scores                      []*Score        // per bootstrap row, the score it fills
	primaryRow                  int             // the primary pool's PRISM row, -1 if none
}

// split divides the design's contexts by the hash split and checks that
// exploration can choose γ and confirmation can score.
func (c *confirmRun) split() error {
	d, opts, r := c.d, c.opts, c.r
	bench := opts.Benchmark
	lf := opts.LabelsFile
	if lf == "" {
		lf = "labels"
	}
	var expl, conf []int
	for g, ctx := range d.Contexts {
		n := d.Off[g+1] - d.Off[g]
		if c.explore(ctx) {
			expl = append(expl, g)
			r.Split.Exploration = append(r.Split.Exploration, ctx)
			r.Split.ExplorationCandidates += n
		} else {
			conf = append(conf, g)
			r.Split.Confirmation = append(r.Split.Confirmation, ctx)
			r.Split.ConfirmationCandidates += n
		}
	}
	if len(expl) < opts.Folds {
		return fmt.Errorf("%s: benchmark %q: %d exploration contexts with at least two labelled candidates (%d confirmation); the %d-fold grouped CV on exploration needs at least %d",
			lf, bench, len(expl), len(conf), opts.Folds, opts.Folds)
	}
	h := calib.NewHoldout(d, opts.Options)
	c.h = h
	var eligible []int
	for _, g := range conf {
		if h.Defined(g) {
			eligible = append(eligible, g)
			r.Split.Eligible = append(r.Split.Eligible, d.Contexts[g])
			if d.Pairs != nil {
				r.Split.EvalPairs += len(d.Pairs[g])
			} else {
				r.Split.EvalPairs += unequalPairs(d.Human[d.Off[g]:d.Off[g+1]])
			}
		}
	}
	if len(eligible) == 0 {
		return fmt.Errorf("%s: benchmark %q: none of the %d confirmation contexts has two candidates with unequal human scores; nothing to confirm on",
			lf, bench, len(conf))
	}
	if !slices.ContainsFunc(expl, func(g int) bool { return h.Defined(g) }) {
		return fmt.Errorf("%s: benchmark %q: no exploration context has two candidates with unequal human scores; γ cannot be chosen", lf, bench)
	}
	c.expl, c.conf, c.eligible = expl, conf, eligible
	return nil
}

// screen runs Signal on the exploration contexts' score rows and records
// each unit's verdict.
func (c *confirmRun) screen(ctx context.Context, rows []model.ScoreRow) error {
	opts, r := c.opts, c.r
	var erows []model.ScoreRow
	for i := range rows {
		if c.explore(rows[i].Context) {
			erows = append(erows, rows[i])
		}
	}
	so := opts.Screen
	so.ScoresFile = opts.ScoresFile
	sig, err := signal.Signal(ctx, erows, so)
	if err != nil {
		return fmt.Errorf("exploration screen: %w", err)
	}
	r.Screen = Screen{Contexts: sig.Contexts, Bootstrap: so.Bootstrap, Seed: so.Seed, Rule: screenRule, Passed: []string{}}
	c.pass = map[string]bool{}
	for _, u := range sig.Units {
		r.Screen.Units = append(r.Screen.Units, ScreenedUnit{Name: u.Name, Ratio: u.Ratio, CI: u.CI, Pass: u.Pass, TooFew: u.TooFew, Contexts: u.Contexts})
		c.pass[u.Name] = u.Pass
	}
	for _, u := range c.units {
		if c.pass[u] {
			r.Screen.Passed = append(r.Screen.Passed, u)
		}
	}
	return nil
}

// addRow adds a bootstrap row: values on eligible, filling score s.
func (c *confirmRun) addRow(s *Score, v []float64) {
	c.values = append(c.values, v)
	c.scores = append(c.scores, s)
}

// fitPools adds Vanilla's row, then fits every pool asked for, in report
// order, on exploration and adds its fits' rows.
func (c *confirmRun) fitPools(ctx context.Context) error {
	opts, r := c.opts, c.r
	c.r.Vanilla = &Score{}
	vv := make([]float64, len(c.eligible))
	for i, g := range c.eligible {
		vv[i] = c.h.VanillaValue(g)
	}
	c.addRow(r.Vanilla, vv)
	pools := opts.Pools
	if pools == nil {
		pools = PoolNames
	}
	for _, name := range PoolNames { // report order, whatever order they were asked in
		if !slices.Contains(pools, name) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		p := &Pool{Name: name, Label: poolLabels[name], Units: []string{}, Columns: []string{}}
		r.Pools = append(r.Pools, p)
		in, err := c.poolUnits(ctx, p)
		if err != nil {
			return err
		}
		if len(in) == 0 {
			continue
		}
		if err := c.addPool(p, in); err != nil {
			return err
		}
	}
	return nil
}

// poolUnits returns the units of pool p (indices into c.units), or none
// with p.Reason saying why.
func (c *confirmRun) poolUnits(ctx context.Context, p *Pool) (in []int, err error) {
	units, pass, name := c.units, c.pass, p.Name
	K := len(c.d.Attrs)
	switch name {
	case PoolPrimary, PoolProperties, PoolOneSided:
		for u, un := range units {
			if !pass[un] || (name == PoolProperties && u >= K) || (name == PoolOneSided && u < K) {
				continue
			}
			in = append(in, u)
		}
		if len(in) == 0 {
			switch name {
			case PoolPrimary:
				p.Reason = fmt.Sprintf("no unit passes the exploration screen (%d units screened)", len(units))
			case PoolProperties:
				p.Reason = fmt.Sprintf("no attribute unit passes the exploration screen (%d attributes)", K)
			default:
				p.Reason = fmt.Sprintf("no context probe (ctx:NAME) passes the exploration screen (%d context probes)", len(units)-K)
			}
		}
	case PoolAll:
		for u := range units {
			in = append(in, u)
		}
	case PoolForward:
		if in, err = forwardOnExploration(ctx, c.d, c.expl, c.train, p, c.opts); err != nil {
			return nil, err
		}
		if len(in) == 0 {
			p.Reason = "forward selection added no unit: " + p.ForwardStop
		}
	}
	return in, nil
}

// addPool fits pool p's units in on exploration and adds each fit's row.
func (c *confirmRun) addPool(p *Pool, in []int) error {
	name, units := p.Name, c.units
	p.Applicable = true
	fits, vals, err := fitPool(c.d, in, c.train, c.eligible, c.opts.Options)
	if err != nil {
		return fmt.Errorf("pool %s: %w", name, err)
	}
	dp := fits.design
	for _, u := range in {
		p.Units = append(p.Units, units[u])
	}
	p.Columns = slices.Clone(dp.Columns)
	for mi, m := range fits.methods {
		cf := fits.fits[mi]
		switch m {
		case calib.PRISM:
			p.PRISM = cf
			if name == PoolPrimary {
				c.primaryRow = len(c.values)
			}
		case calib.AlphaPRISM:
			p.AlphaPRISM = cf
		case calib.Half:
			p.Half = cf
		}
		c.addRow(&cf.Score, vals[mi])
	}
	return nil
}

// baselines fits the rubric baselines on the exploration candidates (π
// order), predicting the confirmation candidates, and adds their rows.
func (c *confirmRun) baselines(ctx context.Context) error {
	bls, err := c.h.Baselines(ctx, c.train, c.conf, c.eligible)
	if err != nil {
		return err
	}
	for _, bl := range bls {
		res := bl.Result
		cb := &Baseline{Name: bl.Name, Kind: res.Kind, Criteria: res.Criteria, Missing: res.Missing, OutOfScale: res.OutOfScale,
			Absent: res.Absent, Forest: res.Forest, Gamma: bl.Gamma, CallsPerCandidate: res.CallsPerCandidate, TokensPerCandidate: res.TokensPerCandidate}
		c.r.Baselines = append(c.r.Baselines, cb)
		c.addRow(&cb.Score, bl.Values)
	}
	return nil
}

// score fills every row's score: one set of draws for every row, so the
// same seed gives the same resampled contexts in both passes.
func (c *confirmRun) score() {
	opts, r, d, values, eligible, primaryRow := c.opts, c.r, c.d, c.values, c.eligible, c.primaryRow
	ci, diffV := calib.PairedBootstrap(values, 0, opts.Bootstrap, opts.Seed)
	var diffP [][2]float64
	if primaryRow >= 0 {
		_, diffP = calib.PairedBootstrap(values, primaryRow, opts.Bootstrap, opts.Seed)
		r.Primary = PoolPrimary + "/" + calib.PRISM.String()
	}
	for i, s := range c.scores {
		s.Mean, s.CI = calib.Mean(values[i]), ci[i]
		s.PerContext = make(map[string]float64, len(eligible))
		for k, g := range eligible {
			s.PerContext[d.Contexts[g]] = values[i][k]
		}
		if i != 0 {
			s.DiffVsVanilla = &calib.Diff{Mean: s.Mean - calib.Mean(values[0]), CI: diffV[i]}
		}
		if primaryRow >= 0 && i != primaryRow {
			s.DiffVsPrimary = &calib.Diff{Mean: s.Mean - calib.Mean(values[primaryRow]), CI: diffP[i]}
		}
	}
}

// unequalPairs counts the pairs of y with unequal values.
func unequalPairs(y []float64) int {
	n := 0
	for i := range y {
		for j := i + 1; j < len(y); j++ {
			if y[i] != y[j] {
				n++
			}
		}
	}
	return n
}

// poolFits is one pool's fitted methods.
type poolFits struct {
	design  *calib.Design // d restricted to the pool's columns (every context)
	methods []calib.Method
	fits    []*Fit
}

// fitPool fits the pool's columns units of d (calib.FitHoldout) and
// returns its design, methods and fits and, per method, the values on
// eligible.
func fitPool(d *calib.Design, units, train, eligible []int, opts calib.Options) (*poolFits, [][]float64, error) {
	dp, hf, err := calib.FitHoldout(d, units, train, eligible, opts)
	if err != nil {
		return nil, nil, err
	}
	out := &poolFits{design: dp}
	vals := make([][]float64, len(hf))
	for mi, h := range hf {
		out.methods = append(out.methods, h.Method)
		out.fits = append(out.fits, &Fit{Gamma: h.Gamma, CV: h.CV, CVScore: h.CVScore, Alpha: h.Alpha, Coef: h.Coef})
		vals[mi] = h.Values
	}
	return out, vals, nil
}

// forwardOnExploration runs forward selection (docs/protocol.md §9) over
// every unit with the nested CV of §5 on the exploration contexts alone:
// the outer and inner folds split the exploration contexts in π order
// (train, design indices of d). It records the steps in p and returns
// the chosen unit indices.
func forwardOnExploration(ctx context.Context, d *calib.Design, expl, train []int, p *Pool, opts Options) ([]int, error) {
	units, _ := selection.Units(d)
	everyUnit := make([]int, len(units))
	for u := range everyUnit {
		everyUnit[u] = u
	}
	de := d.Sub(expl, everyUnit)
	pos := make(map[int]int, len(expl)) // design index → index in de
	for i, g := range expl {
		pos[g] = i
	}
	order := make([]int, len(train))
	for i, g := range train {
		order[i] = pos[g]
	}
	s := calib.NewSelector(de, opts.Options, order)
	if len(s.Defined) == 0 {
		return nil, errors.New("forward selection: no exploration context has two candidates with unequal human scores")
	}
	_, cols := selection.Units(de)
	lookup := func(sets [][]int) ([]float64, error) {
		return s.EvalAll(ctx, len(sets), func(i int, buf []int) []int {
			for _, u := range sets[i] {
				buf = append(buf, cols[u]...)
			}
			slices.Sort(buf)
			return buf
		}, nil)
	}
	so := selection.Options{Options: opts.Options, Forward: true, MaxForward: opts.MaxForward, MinGain: opts.MinGain}
	sr := &selection.Report{}
	result := func(m float64) selection.SubsetResult { return selection.SubsetResult{Mean: m, Gain: m - s.Vanilla} }
	if err := selection.Forward(sr, units, so, lookup, result, s.Vanilla); err != nil {
		return nil, fmt.Errorf("forward selection: %w", err)
	}
	p.Forward, p.ForwardStop = sr.Forward, sr.ForwardStop
	if len(sr.Forward) == 0 {
		return nil, nil
	}
	var in []int
	for _, name := range sr.Forward[len(sr.Forward)-1].Units {
		in = append(in, slices.Index(units, name))
	}
	slices.Sort(in)
	return in, nil
}

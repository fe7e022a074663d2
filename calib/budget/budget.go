package budget

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/selection"

	"github.com/prism-eval/prism/model"
)

// DefaultTaus is the grid of stopping thresholds τ the budget curve
// follows the adaptive policy at (docs/protocol.md §16). τ is the expected
// number of other candidates of the context whose order the unasked
// probes would flip; each τ is fixed beforehand, none is chosen on data.
var DefaultTaus = []float64{0.01, 0.03, 0.1, 0.3, 0.5, 1, 1.5, 2, 3, 4}

// Options configure Evaluate. Start from DefaultOptions.
type Options struct {
	// Options carries the metric, π (Seed or Order), folds, γ grid,
	// bootstrap resamples and file names, as for Fit. Global is an error.
	calib.Options
	Taus      []float64 // stopping thresholds of the adaptive points, each ≥ 0
	Tolerance float64   // "reaches the full bank": mean ≥ full − Tolerance
}

// DefaultOptions returns the fit defaults, DefaultTaus and a
// tolerance of 0.005.
func DefaultOptions() Options {
	return Options{Options: calib.DefaultOptions(), Taus: slices.Clone(DefaultTaus), Tolerance: 0.005}
}

// Budget curve families (Point.Family).
const (
	FamilyVanilla         = "vanilla"              // the baseline call alone
	FamilyFull            = "full"                 // every probe call
	FamilyUnits           = "units"                // top-Size units (both signs) by training importance
	FamilyColumns         = "columns"              // top-Size columns (one sign of one attribute each)
	FamilyOneSign         = "one-sign"             // per attribute its more important sign
	FamilyOneWording      = "one-wording"          // first wording of each sign; Size columns (all: Size = q)
	FamilyAdaptive        = "adaptive"             // the adaptive policy at threshold Tau
	FamilyAdaptiveWording = "adaptive-one-wording" // the adaptive policy on the first wordings
)

// Report is the result of Evaluate and the JSON document of
// `prism budget --json` (docs/budget.md).
type Report struct {
	// Study names the workspace study evaluated (nil for scores from files).
	Study       *model.Study `json:"study,omitempty"`
	Metric      string       `json:"metric"`
	NContexts   int          `json:"n_contexts"`
	NCandidates int          `json:"n_candidates"`
	Folds       int          `json:"folds"`
	Seed        uint64       `json:"seed"`
	Bootstrap   int          `json:"bootstrap"`
	Order       []string     `json:"order"` // π
	Columns     []string     `json:"columns"`
	// BaseCalls and ColumnCalls are the judge calls one candidate spends
	// on the baseline and on each column (wordings × repeats, averaged
	// over candidates); FullCalls is their sum.
	BaseCalls   float64         `json:"baseline_calls"`
	ColumnCalls []float64       `json:"column_calls"`
	FullCalls   float64         `json:"full_calls"`
	Wordings    bool            `json:"one_wording_evaluated"` // the scores have several wordings per sign
	Tolerance   float64         `json:"tolerance"`
	Points      []Point         `json:"points"`
	Reach       []Reach         `json:"reach"`
	Note        string          `json:"note"`
	Policies    []*calib.Policy `json:"-"` // the adaptive policy of each outer fold (τ unset)
	FoldSizes   []int           `json:"fold_contexts"`
	full        int             // index of the full bank in Points
}

// Point is one policy on the curve: its mean judge calls per
// candidate, its out-of-fold mean with a 95% context-bootstrap interval,
// its paired difference from the full bank, and per outer fold its mean
// and calls.
type Point struct {
	Family     string     `json:"family"`
	Size       int        `json:"size,omitempty"` // static families: units or columns kept
	Tau        *float64   `json:"tau,omitempty"`  // adaptive families
	Calls      float64    `json:"calls"`          // mean judge calls per candidate, baseline included
	ProbeCalls float64    `json:"probe_calls"`    // Calls − baseline calls
	Fraction   float64    `json:"fraction"`       // ProbeCalls over the full bank's probe calls
	Mean       float64    `json:"mean"`
	CI         [2]float64 `json:"ci"`
	VsFull     float64    `json:"vs_full"` // Mean − the full bank's mean, same contexts
	VsFullCI   [2]float64 `json:"vs_full_ci"`
	FoldMeans  []float64  `json:"fold_means"`
	FoldCalls  []float64  `json:"fold_calls"`
}

// Label names a point for tables and figures.
func (p Point) Label() string {
	switch {
	case p.Tau != nil:
		return fmt.Sprintf("%s τ=%g", p.Family, *p.Tau)
	case p.Size > 0:
		return fmt.Sprintf("%s %d", p.Family, p.Size)
	}
	return p.Family
}

// Reach is, per family, the cheapest point (fewest probe calls)
// whose out-of-fold mean is within Tolerance of the full bank's, read off
// the curve; Point is −1 when none is.
type Reach struct {
	Family     string  `json:"family"`
	Point      int     `json:"point"`
	ProbeCalls float64 `json:"probe_calls,omitempty"`
	Fraction   float64 `json:"fraction,omitempty"`
	Mean       float64 `json:"mean,omitempty"`
	HalfOrLess bool    `json:"half_or_less"` // reached with at most half the full bank's probe calls
}

// budgetNote is the honesty statement every report carries.
const budgetNote = "every subset, order, imputation regression and residual spread is learned on the outer fold's training contexts only (γ by the same inner CV as the full bank); τ values are fixed beforehand; the reach table is read off the out-of-fold curve"

// Evaluate builds the design and evaluates the budget curve of
// docs/protocol.md §16 out of fold on the outer folds of π: Vanilla, the
// full bank, static subsets chosen per fold on its training contexts
// (top units, top columns, one sign per attribute, the first wording of
// every sign) and the adaptive policy at each τ of opts.Taus, on all
// wordings and on the first wording.
func Evaluate(ctx context.Context, rows []model.ScoreRow, labels []model.Label, opts Options) (*Report, []string, error) {
	if err := opts.check(); err != nil {
		return nil, nil, err
	}
	bo := opts.BuildOptions()
	bo.Global = false
	d, warnings, err := calib.BuildDesign(rows, labels, bo)
	if err != nil {
		return nil, warnings, err
	}
	lf := opts.LabelsFile
	if lf == "" {
		lf = "labels"
	}
	if err := calib.CheckFolds(lf, len(d.Contexts), opts.Folds); err != nil {
		return nil, warnings, err
	}
	if d.Q() == 0 {
		return nil, warnings, errors.New("the scores have no probe columns: nothing to budget")
	}
	order, w, err := calib.ResolveOrder(d, opts.Options)
	warnings = append(warnings, w...)
	if err != nil {
		return nil, warnings, err
	}
	s := calib.NewSelector(d, opts.Options, order)
	if len(s.Defined) == 0 {
		return nil, warnings, d.ErrPairwiseUndefined()
	}
	base, calls := calib.PolicyCalls(rows, d)
	bf, err := newBudgetFolds(s, calls, base)
	if err != nil {
		return nil, warnings, err
	}
	r := newReport(opts, d, order, s, base, calls)
	ev := &budgetCurve{d: d, s: s, r: r}
	if err := ev.static(ctx, bf); err != nil {
		return nil, warnings, err
	}

	// Adaptive on every wording.
	tr := calib.NewPolicyTrainer(d)
	if err := ev.adaptive(ctx, bf, tr, FamilyAdaptive, opts.Taus); err != nil {
		return nil, warnings, err
	}
	if r.Policies, err = bf.policies(tr); err != nil {
		return nil, warnings, err
	}

	// The first wording of every sign, when there are several.
	if one := firstWordings(rows); one != nil {
		note, err := ev.oneWording(ctx, one, labels, bo, order, opts)
		if err != nil {
			return nil, warnings, err
		}
		if note != "" {
			warnings = append(warnings, note)
		}
	}
	ev.finish(opts)
	return r, warnings, ctx.Err()
}

// check validates the options beyond calib.Options.Check.
func (opts *Options) check() error {
	if err := opts.Check(); err != nil {
		return err
	}
	if opts.Global {
		return errors.New("budget curves need contexts; global mode is not supported")
	}
	for _, t := range opts.Taus {
		if !(t >= 0) || math.IsInf(t, 0) {
			return fmt.Errorf("τ %v: want a finite value ≥ 0", t)
		}
	}
	if !(opts.Tolerance >= 0) || math.IsInf(opts.Tolerance, 0) {
		return fmt.Errorf("tolerance %v: want a finite value ≥ 0", opts.Tolerance)
	}
	return nil
}

// newReport starts the report of the design d: its sizes, options, call
// costs, π and fold sizes.
func newReport(opts Options, d *calib.Design, order []int, s *calib.Selector, base float64, calls []float64) *Report {
	r := &Report{Metric: opts.Metric, NContexts: len(d.Contexts), NCandidates: d.Rows(), Folds: opts.Folds,
		Seed: opts.Seed, Bootstrap: opts.Bootstrap, Columns: slices.Clone(d.Columns), BaseCalls: base,
		ColumnCalls: calls, Tolerance: opts.Tolerance, Note: budgetNote}
	r.FullCalls = base
	for _, c := range calls {
		r.FullCalls += c
	}
	for _, g := range order {
		r.Order = append(r.Order, d.Contexts[g])
	}
	for fo := range s.Folds() {
		r.FoldSizes = append(r.FoldSizes, len(s.Test(fo)))
	}
	return r
}

// static adds the ends (Vanilla, the full bank) and the static subsets
// chosen per fold on training importance: top units, top columns and
// one sign per attribute.
func (ev *budgetCurve) static(ctx context.Context, bf *budgetFolds) error {
	d, s, r := ev.d, ev.s, ev.r
	base := r.BaseCalls
	// Ends.
	van := make([]float64, len(d.Contexts))
	for g := range van {
		van[g] = s.VanillaValue(g)
	}
	ev.add(Point{Family: FamilyVanilla}, van, constCalls(len(d.Contexts), base))
	ev.add(Point{Family: FamilyFull}, bf.oofAll, constCalls(len(d.Contexts), r.FullCalls))
	r.full = 1

	// Static subsets chosen per fold on training importance.
	units, unitCols := selection.Units(d)
	for m := 1; m < len(units); m++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		vals, cl, err := bf.staticPoint(func(fo int) []int { return topUnits(bf, fo, unitCols, m) })
		if err != nil {
			return err
		}
		ev.add(Point{Family: FamilyUnits, Size: m}, vals, cl)
	}
	for m := 1; m < d.Q(); m++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		vals, cl, err := bf.staticPoint(func(fo int) []int { return bf.ranked(fo)[:m] })
		if err != nil {
			return err
		}
		ev.add(Point{Family: FamilyColumns, Size: m}, vals, cl)
	}
	if len(d.Attrs) > 0 {
		vals, cl, err := bf.staticPoint(func(fo int) []int { return oneSign(bf, fo, d) })
		if err != nil {
			return err
		}
		ev.add(Point{Family: FamilyOneSign, Size: len(oneSign(bf, 0, d))}, vals, cl)
	}
	return nil
}

// oneWording adds the points on the first wording of every sign (rows
// one): top columns, all of them and the adaptive policy. When the first
// wordings do not cover the same contexts and columns, it returns the
// warning that says so instead.
func (ev *budgetCurve) oneWording(ctx context.Context, one []model.ScoreRow, labels []model.Label, bo calib.BuildOptions, order []int, opts Options) (string, error) {
	d, s, r := ev.d, ev.s, ev.r
	d1, _, err := calib.BuildDesign(one, labels, bo)
	var s1 *calib.Selector
	if err == nil && slices.Equal(d1.Contexts, d.Contexts) && slices.Equal(d1.Columns, d.Columns) {
		s1 = calib.NewSelector(d1, opts.Options, order)
	}
	if s1 != nil && slices.Equal(s1.Defined, s.Defined) {
		r.Wordings = true
		base1, calls1 := calib.PolicyCalls(one, d1)
		bf1, err := newBudgetFolds(s1, calls1, base1)
		if err != nil {
			return "", err
		}
		ev1 := &budgetCurve{d: d1, s: s1, r: r, parent: ev}
		for m := 1; m < d1.Q(); m++ {
			vals, cl, err := bf1.staticPoint(func(fo int) []int { return bf1.ranked(fo)[:m] })
			if err != nil {
				return "", err
			}
			ev1.add(Point{Family: FamilyOneWording, Size: m}, vals, cl)
		}
		full1 := base1
		for _, c := range calls1 {
			full1 += c
		}
		ev1.add(Point{Family: FamilyOneWording, Size: d1.Q()}, bf1.oofAll, constCalls(len(d1.Contexts), full1))
		if err := ev1.adaptive(ctx, bf1, calib.NewPolicyTrainer(d1), FamilyAdaptiveWording, opts.Taus); err != nil {
			return "", err
		}
		return "", nil
	}
	return "the first-wording scores do not cover the same contexts and columns; the one-wording points are left out", nil
}

// budgetCurve collects points with per-context values and calls.
type budgetCurve struct {
	d      *calib.Design
	s      *calib.Selector
	r      *Report
	parent *budgetCurve // the curve whose vals a second design's points join
	vals   [][]float64  // per point, values over the defined contexts
}

func constCalls(n int, c float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = c
	}
	return out
}

// add appends a point from per-context values and per-context mean calls
// per candidate.
func (c *budgetCurve) add(p Point, vals, calls []float64) {
	root := c
	if c.parent != nil {
		root = c.parent
	}
	d := c.d
	def := make([]float64, len(c.s.Defined))
	for i, g := range c.s.Defined {
		def[i] = vals[g]
	}
	var tot float64
	for g := range d.Contexts {
		tot += calls[g] * float64(d.Off[g+1]-d.Off[g])
	}
	p.Calls = tot / float64(d.Rows())
	isDef := make([]bool, len(d.Contexts))
	for _, g := range c.s.Defined {
		isDef[g] = true
	}
	for fo := range c.s.Folds() {
		var m, cl float64
		var nm, nc int
		for _, g := range c.s.Test(fo) {
			if isDef[g] {
				m += vals[g]
				nm++
			}
			n := d.Off[g+1] - d.Off[g]
			cl += calls[g] * float64(n)
			nc += n
		}
		p.FoldMeans = append(p.FoldMeans, m/float64(max(nm, 1)))
		p.FoldCalls = append(p.FoldCalls, cl/float64(max(nc, 1)))
	}
	root.r.Points = append(root.r.Points, p)
	root.vals = append(root.vals, def)
}

// adaptive adds one point per τ.
func (c *budgetCurve) adaptive(ctx context.Context, bf *budgetFolds, tr *calib.PolicyTrainer, family string, taus []float64) error {
	for _, tau := range taus {
		if err := ctx.Err(); err != nil {
			return err
		}
		vals, cl, err := bf.adaptive(tr, tau, 0)
		if err != nil {
			return err
		}
		t := tau
		c.add(Point{Family: family, Tau: &t}, vals, cl)
	}
	return nil
}

// finish computes means, intervals, fractions and the reach table.
func (c *budgetCurve) finish(opts Options) {
	r := c.r
	ci, diff := calib.PairedBootstrap(c.vals, r.full, opts.Bootstrap, opts.Seed)
	fullProbe := r.FullCalls - r.BaseCalls
	for i := range r.Points {
		p := &r.Points[i]
		p.Mean = calib.Mean(c.vals[i])
		p.CI = ci[i]
		p.VsFullCI = diff[i]
		p.ProbeCalls = p.Calls - r.BaseCalls
		if fullProbe > 0 {
			p.Fraction = p.ProbeCalls / fullProbe
		}
	}
	full := r.Points[r.full].Mean
	for i := range r.Points {
		r.Points[i].VsFull = r.Points[i].Mean - full
	}
	var fams []string
	for _, p := range r.Points {
		if !slices.Contains(fams, p.Family) {
			fams = append(fams, p.Family)
		}
	}
	for _, f := range fams {
		best := -1
		for i, p := range r.Points {
			if p.Family != f || !(p.Mean >= full-opts.Tolerance) {
				continue
			}
			if best < 0 || p.ProbeCalls < r.Points[best].ProbeCalls {
				best = i
			}
		}
		rc := Reach{Family: f, Point: best}
		if best >= 0 {
			p := r.Points[best]
			rc.ProbeCalls, rc.Fraction, rc.Mean = p.ProbeCalls, p.Fraction, p.Mean
			rc.HalfOrLess = p.ProbeCalls <= fullProbe/2
		}
		r.Reach = append(r.Reach, rc)
	}
}

// topUnits returns fold fo's m most important units' columns; a unit's
// importance is the sum of its columns' |β_c|·sd_c.
func topUnits(bf *budgetFolds, fo int, unitCols [][]int, m int) []int {
	imp := make([]float64, len(unitCols))
	for u, cols := range unitCols {
		for _, c := range cols {
			imp[u] += math.Abs(bf.beta[fo][c]) * bf.sd[fo][c]
		}
	}
	idx := calib.LargestFirst(imp)
	var out []int
	for _, u := range idx[:m] {
		out = append(out, unitCols[u]...)
	}
	return out
}

// oneSign keeps, per attribute, the sign column with the larger training
// importance (the + column on an exact tie) and every context probe.
func oneSign(bf *budgetFolds, fo int, d *calib.Design) []int {
	var out []int
	imp := func(c int) float64 { return math.Abs(bf.beta[fo][c]) * bf.sd[fo][c] }
	for k := range d.Attrs {
		if imp(2*k+1) > imp(2*k) {
			out = append(out, 2*k+1)
		} else {
			out = append(out, 2*k)
		}
	}
	for c := 2 * len(d.Attrs); c < d.Q(); c++ {
		out = append(out, c)
	}
	return out
}

// firstWordings keeps, of every probe, the rows of its first wording
// (the smallest label, numerically when both are integers), or returns
// nil when no probe has two wordings.
func firstWordings(rows []model.ScoreRow) []model.ScoreRow {
	first := map[string]string{}
	several := false
	for i := range rows {
		p, w := rows[i].Probe, rows[i].Wording
		f, ok := first[p]
		switch {
		case !ok:
			first[p] = w
		case f != w:
			several = true
			if wordingLess(w, f) {
				first[p] = w
			}
		}
	}
	if !several {
		return nil
	}
	out := make([]model.ScoreRow, 0, len(rows)/2)
	for _, r := range rows {
		if first[r.Probe] == r.Wording {
			out = append(out, r)
		}
	}
	return out
}

func wordingLess(a, b string) bool {
	x, e1 := strconv.Atoi(a)
	y, e2 := strconv.Atoi(b)
	if e1 == nil && e2 == nil {
		return x < y
	}
	return a < b
}

package calib

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/prism-eval/prism/model"
)

// DefaultGammas is the relative penalty grid of docs/protocol.md §4.
var DefaultGammas = []float64{1e-3, 1e-2, 1e-1, 1, 10, 100, 1000}

// Options configure Fit. Start from DefaultOptions.
type Options struct {
	Metric    string    // model.MetricSpearman or model.MetricPairwise: drives selection and the headline
	Seed      uint64    // seeds π (when Order is nil) and the bootstrap
	Bootstrap int       // context-bootstrap resamples, ≥ 1
	Folds     int       // outer and inner folds, ≥ 2
	Gammas    []float64 // the γ grid, each > 0
	Order     []string  // the permutation π of the contexts; nil: Permutation(contexts, Seed)
	// Global treats the whole dataset as one group (docs/protocol.md §3) for data
	// without contexts: folds split candidates ("context/candidate" ids,
	// also in Order), and the metric is Spearman pooled over all of them.
	Global bool
	// Taylor adds the diagonal Taylor correction (docs/protocol.md §4, §D.1) as a
	// fourth fitted method, reported under "taylor".
	Taylor bool
	// RepeatCV, when above 1, runs the whole nested CV under RepeatCV
	// fold permutations, permutation k with seed Seed+k (k = 0 is the
	// report's own fit), and summarises them in Report.RepeatCV
	// (docs/protocol.md §5). Not with Order: a given π cannot be
	// repeated. 0 and 1: one permutation.
	RepeatCV int
	// Progress, when not nil, is called as the fit goes: after each outer
	// fold (with its inner CV) and after the bootstrap, done of total =
	// Folds + 1 steps (RepeatCV·(Folds + 1) with RepeatCV > 1). Calls
	// never overlap and done increases by one each time; folds finish in
	// any order.
	Progress func(done, total int)
	// Baselines are rubric-based methods (SAJA forest or ridge heads,
	// G-Eval) scored on the same outer folds and bootstrap draws as the
	// fitted methods and reported in Report.Baselines (docs/protocol.md
	// §12). They change no other number of the report.
	Baselines []Baseline
	// Comparisons, when not nil, are pairwise human labels that the
	// pairwise metric counts (BuildOptions.Comparisons) where Fit, selection.Select,
	// Budget and confirm.Confirm build their design; FitDesign reads a built
	// design's Pairs instead.
	Comparisons []model.Comparison

	ScoresFile, LabelsFile, OrderFile, ComparisonsFile string // names used in error messages
}

// DefaultOptions returns the protocol's defaults: Spearman, seed 42, 2,000
// resamples, 5 folds, the γ grid of docs/protocol.md §4.
func DefaultOptions() Options {
	return Options{
		Metric:    model.MetricSpearman,
		Seed:      42,
		Bootstrap: 2000,
		Folds:     5,
		Gammas:    slices.Clone(DefaultGammas),
	}
}

// Fit runs the PRISM protocol (docs/protocol.md §2–7 and the sweep of §9) on
// in-memory scores and labels: BuildDesign, then FitDesign. Warnings
// (ignored rows, skipped contexts, unused order entries) are returned for
// the caller to show.
func Fit(ctx context.Context, rows []model.ScoreRow, labels []model.Label, opts Options) (*Report, []string, error) {
	d, warnings, err := BuildDesign(rows, labels, opts.BuildOptions())
	if err != nil {
		return nil, warnings, err
	}
	r, w, err := FitDesign(ctx, d, opts)
	return r, append(warnings, w...), err
}

// FitDesign runs the nested cross-validation, the bootstrap, the profiles
// and the γ sweep on a built design; with Options.RepeatCV > 1, again
// under the further fold permutations (repeatFits).
func FitDesign(ctx context.Context, d *Design, opts Options) (*Report, []string, error) {
	if err := opts.Check(); err != nil {
		return nil, nil, err
	}
	lf := opts.LabelsFile
	if lf == "" {
		lf = "labels"
	}
	first := opts
	first.Progress = repeatProgress(opts, 0)
	if opts.Global {
		r, err := fitGlobal(ctx, d, first)
		if err == nil && opts.RepeatCV > 1 {
			r.RepeatCV, err = repeatFits(ctx, opts, r, func(o Options) (*Report, error) { return fitGlobal(ctx, d, o) })
		}
		if err != nil {
			return nil, nil, err
		}
		return r, nil, nil
	}
	if err := CheckFolds(lf, len(d.Contexts), opts.Folds); err != nil {
		return nil, nil, err
	}
	order, warnings, err := ResolveOrder(d, opts)
	if err != nil {
		return nil, nil, err
	}
	f := newFitter(d, first)
	r, err := f.fitOrder(ctx, order)
	if err == nil && opts.RepeatCV > 1 {
		// The fitter's per-context statistics serve every permutation:
		// only π and the seed change.
		r.RepeatCV, err = repeatFits(ctx, opts, r, func(o Options) (*Report, error) {
			order, _, err := ResolveOrder(d, o)
			if err != nil {
				return nil, err
			}
			fk := *f
			fk.opts = o
			return fk.fitOrder(ctx, order)
		})
	}
	if err != nil {
		return nil, warnings, err
	}
	return r, warnings, nil
}

// fitOrder is the within-context fit under π = order.
func (f *fitter) fitOrder(ctx context.Context, order []int) (*Report, error) {
	d := f.d
	r := newReport(d, f.opts)
	if f.pairwise {
		for _, p := range d.Pairs {
			r.Comparisons += len(p)
		}
	}
	for _, g := range order {
		r.Order = append(r.Order, d.Contexts[g])
	}
	if err := f.run(ctx, order, r); err != nil {
		return nil, err
	}
	return r, nil
}

func fitGlobal(ctx context.Context, d *Design, opts Options) (*Report, error) {
	r := newReport(d, opts)
	r.Global = true
	r.NContexts = 1
	if err := runGlobal(ctx, d, opts, r); err != nil {
		return nil, err
	}
	return r, nil
}

func newReport(d *Design, opts Options) *Report {
	return &Report{
		Metric:      opts.Metric,
		Seed:        opts.Seed,
		Bootstrap:   opts.Bootstrap,
		GammaGrid:   slices.Clone(opts.Gammas),
		NContexts:   len(d.Contexts),
		NCandidates: d.Rows(),
		Columns:     slices.Clone(d.Columns),
		Attributes:  slices.Clone(d.Attrs),
		Imputed:     d.Imputed,
		Profiles:    map[string]*Profile{},
		Sweep:       map[string]map[string]float64{},
	}
}

// BuildOptions are the BuildOptions of a design built for o.
func (o *Options) BuildOptions() BuildOptions {
	return BuildOptions{ScoresFile: o.ScoresFile, LabelsFile: o.LabelsFile, Global: o.Global,
		Comparisons: o.Comparisons, ComparisonsFile: o.ComparisonsFile}
}

// Check validates o (the fit, selection and budget options alike).
func (o *Options) Check() error {
	switch {
	case o.Metric != model.MetricSpearman && o.Metric != model.MetricPairwise:
		return fmt.Errorf("metric %q: want %s or %s", o.Metric, model.MetricSpearman, model.MetricPairwise)
	case o.Bootstrap < 1:
		return fmt.Errorf("bootstrap resamples %d: want at least 1", o.Bootstrap)
	case o.Folds < 2:
		return fmt.Errorf("folds %d: want at least 2", o.Folds)
	case len(o.Gammas) == 0:
		return fmt.Errorf("empty γ grid")
	case o.RepeatCV < 0:
		return fmt.Errorf("repeated CV over %d permutations: want at least 1", o.RepeatCV)
	case o.RepeatCV > 1 && o.Order != nil:
		return fmt.Errorf("repeated CV needs π drawn from the seed: not with a given order")
	}
	for _, g := range o.Gammas {
		if !(g > 0) || math.IsInf(g, 0) {
			return fmt.Errorf("γ %v: want a finite value > 0", g)
		}
	}
	return nil
}

// ResolveOrder returns π as design context indices: opts.Order when given
// (entries for contexts not in the design are dropped with a warning, and
// every design context must appear), else Permutation(contexts, Seed).
func ResolveOrder(d *Design, opts Options) ([]int, []string, error) {
	index := make(map[string]int, len(d.Contexts))
	for i, c := range d.Contexts {
		index[c] = i
	}
	ids := opts.Order
	if ids == nil {
		ids = Permutation(d.Contexts, opts.Seed)
	}
	of := opts.OrderFile
	if of == "" {
		of = "order"
	}
	var warnings []string
	seen := make([]bool, len(d.Contexts))
	order := make([]int, 0, len(d.Contexts))
	unused := 0
	for _, id := range ids {
		g, ok := index[id]
		if !ok {
			unused++
			continue
		}
		if seen[g] {
			return nil, nil, fmt.Errorf("%s: context %q appears twice", of, id)
		}
		seen[g] = true
		order = append(order, g)
	}
	if unused > 0 {
		warnings = append(warnings, fmt.Sprintf("%s: ignored %d ids that are not contexts of the fit", of, unused))
	}
	for g, ok := range seen {
		if !ok {
			return nil, nil, fmt.Errorf("%s: context %q of the fit is missing from the order", of, d.Contexts[g])
		}
	}
	return order, warnings, nil
}

// GammaKey formats γ as a key of Report.Sweep (strconv 'g', shortest form).
func GammaKey(g float64) string { return strconv.FormatFloat(g, 'g', -1, 64) }

// fitProgress counts a fit's steps for Options.Progress.
type fitProgress struct {
	mu          sync.Mutex
	fn          func(done, total int)
	done, total int
}

func newFitProgress(opts Options) *fitProgress {
	return &fitProgress{fn: opts.Progress, total: opts.Folds + 1}
}

// step reports one more finished step; fold goroutines call it
// concurrently.
func (p *fitProgress) step() {
	if p.fn == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.fn(p.done, p.total)
}

// RepeatCV summarises repeated nested cross-validation (Options.RepeatCV
// > 1, docs/protocol.md §5): the whole nested CV run again under
// Permutations fold permutations, permutation k with seed Seed+k for π
// and its bootstrap, exactly the fit of that seed. Permutation 0 is the
// report's own fit; its numbers stay the headline.
type RepeatCV struct {
	Permutations int       `json:"permutations"`
	Seeds        [2]uint64 `json:"seeds"` // the first and the last permutation's seed
	// Methods maps a method's name (Vanilla and each fitted method) to
	// its out-of-fold mean across the permutations.
	Methods map[string]*RepeatMethod `json:"methods"`
}

// RepeatMethod is one method's out-of-fold mean across fold permutations.
type RepeatMethod struct {
	Mean  float64   `json:"mean"`  // mean over the permutations, in permutation order
	Min   float64   `json:"min"`   // lowest over the permutations
	Max   float64   `json:"max"`   // highest over the permutations
	Means []float64 `json:"means"` // per permutation k (seed Seed+k)
	// Gain is the difference method − Vanilla across the permutations
	// (nil for Vanilla).
	Gain *RepeatGain `json:"gain_vs_vanilla,omitempty"`
}

// RepeatGain is a method's gain over Vanilla across fold permutations.
type RepeatGain struct {
	Mean  float64 `json:"mean"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Above int     `json:"ci_above_zero"` // permutations whose gain's 95% bootstrap interval lies above 0
	Below int     `json:"ci_below_zero"` // … lies below 0
}

// repeatAcc accumulates the permutations' method means, one report at a
// time: a report is read and dropped, so memory does not grow with the
// permutations beyond one number per method and permutation.
type repeatAcc struct {
	names   []string
	methods map[string]*RepeatMethod
	sum     map[string]float64 // Σ of the means, permutation order
	gainSum map[string]float64
}

func newRepeatAcc() *repeatAcc {
	return &repeatAcc{methods: map[string]*RepeatMethod{}, sum: map[string]float64{}, gainSum: map[string]float64{}}
}

// add reads one permutation's report.
func (a *repeatAcc) add(r *Report) {
	for _, m := range []Method{Vanilla, PRISM, AlphaPRISM, Half, Taylor} {
		res := r.Methods.Get(m)
		if res == nil {
			continue
		}
		name := m.String()
		rm := a.methods[name]
		if rm == nil {
			rm = &RepeatMethod{Min: math.Inf(1), Max: math.Inf(-1)}
			if m != Vanilla {
				rm.Gain = &RepeatGain{Min: math.Inf(1), Max: math.Inf(-1)}
			}
			a.methods[name] = rm
			a.names = append(a.names, name)
		}
		rm.Means = append(rm.Means, res.Mean)
		a.sum[name] += res.Mean
		rm.Min, rm.Max = math.Min(rm.Min, res.Mean), math.Max(rm.Max, res.Mean)
		if d := res.DiffVsVanilla; d != nil && rm.Gain != nil {
			g := rm.Gain
			a.gainSum[name] += d.Mean
			g.Min, g.Max = math.Min(g.Min, d.Mean), math.Max(g.Max, d.Mean)
			if d.CI[0] > 0 {
				g.Above++
			}
			if d.CI[1] < 0 {
				g.Below++
			}
		}
	}
}

// summary is the RepeatCV of the k permutations added, seeds from seed.
func (a *repeatAcc) summary(seed uint64, k int) *RepeatCV {
	for _, name := range a.names {
		rm := a.methods[name]
		rm.Mean = a.sum[name] / float64(k)
		if rm.Gain != nil {
			rm.Gain.Mean = a.gainSum[name] / float64(k)
		}
	}
	return &RepeatCV{Permutations: k, Seeds: [2]uint64{seed, seed + uint64(k-1)}, Methods: a.methods}
}

// repeatFits adds to r, the fit of permutation 0, the permutations 1 …
// RepeatCV−1: fitK fits the design again under options whose Seed is
// opts.Seed+k, without rubric baselines (they change no method's number)
// and reporting progress as steps of the whole run.
func repeatFits(ctx context.Context, opts Options, r *Report, fitK func(Options) (*Report, error)) (*RepeatCV, error) {
	acc := newRepeatAcc()
	acc.add(r)
	for k := 1; k < opts.RepeatCV; k++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		o := opts
		o.Seed, o.Baselines, o.Progress = opts.Seed+uint64(k), nil, repeatProgress(opts, k)
		rk, err := fitK(o)
		if err != nil {
			return nil, fmt.Errorf("repeated CV, permutation %d (seed %d): %w", k, o.Seed, err)
		}
		acc.add(rk)
	}
	return acc.summary(opts.Seed, opts.RepeatCV), nil
}

// repeatProgress reports permutation k's steps (Folds + 1 of them) as
// steps of all RepeatCV permutations; nil without Options.Progress.
func repeatProgress(opts Options, k int) func(done, total int) {
	fn := opts.Progress
	if fn == nil || opts.RepeatCV <= 1 {
		return fn
	}
	per := opts.Folds + 1
	return func(done, _ int) { fn(k*per+done, opts.RepeatCV*per) }
}

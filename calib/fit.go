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
	// Progress, when not nil, is called as the fit goes: after each outer
	// fold (with its inner CV) and after the bootstrap, done of total =
	// Folds + 1 steps. Calls never overlap and done increases by one each
	// time; folds finish in any order.
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
// and the γ sweep on a built design.
func FitDesign(ctx context.Context, d *Design, opts Options) (*Report, []string, error) {
	if err := opts.Check(); err != nil {
		return nil, nil, err
	}
	lf := opts.LabelsFile
	if lf == "" {
		lf = "labels"
	}
	if opts.Global {
		return fitGlobal(ctx, d, opts)
	}
	if err := CheckFolds(lf, len(d.Contexts), opts.Folds); err != nil {
		return nil, nil, err
	}
	order, warnings, err := ResolveOrder(d, opts)
	if err != nil {
		return nil, nil, err
	}
	f := newFitter(d, opts)
	r := newReport(d, opts)
	if f.pairwise {
		for _, p := range d.Pairs {
			r.Comparisons += len(p)
		}
	}
	for _, g := range order {
		r.Order = append(r.Order, d.Contexts[g])
	}
	if err := f.run(ctx, order, r); err != nil {
		return nil, warnings, err
	}
	return r, warnings, nil
}

func fitGlobal(ctx context.Context, d *Design, opts Options) (*Report, []string, error) {
	r := newReport(d, opts)
	r.Global = true
	r.NContexts = 1
	if err := runGlobal(ctx, d, opts, r); err != nil {
		return nil, nil, err
	}
	return r, nil, nil
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

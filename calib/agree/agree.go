package agree

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/prism-eval/prism/calib"
)

// Metric keys, as the report and its JSON name them.
const (
	KeySpearman       = "spearman"        // within-context, mean over contexts
	KeyKendall        = "kendall"         // within-context τ_b, mean over contexts
	KeyPairwise       = "pairwise"        // within-context pairwise accuracy
	KeyPearsonGlobal  = "pearson_global"  // over all candidates
	KeySpearmanGlobal = "spearman_global" // over all candidates
	KeyKendallGlobal  = "kendall_global"  // over all candidates
	KeyBias           = "bias"            // mean judge − human (shared scale)
	KeyMAE            = "mae"             // mean |judge − human| (shared scale)
	KeyKappa          = "kappa_quadratic" // quadratic-weighted Cohen's κ (integer shared scale)
	KeyAlphaInterval  = "alpha_interval"  // Krippendorff's α, interval (shared scale)
	KeyAlphaOrdinal   = "alpha_ordinal"   // Krippendorff's α, ordinal (shared scale)
)

// Headlines are the metrics a report can be sorted and paired by
// (--metric): the ones where higher is better on any scale.
var Headlines = []string{KeySpearman, KeyKendall, KeyPairwise, KeyPearsonGlobal, KeySpearmanGlobal, KeyKendallGlobal}

// Options are an agreement analysis's settings.
type Options struct {
	Metric       string // headline: one of Headlines
	Bootstrap    int    // context resamples (≥ 1)
	Seed         uint64 // of the resamples, as calib.PairedBootstrap seeds them
	SkipConstant bool   // leave out contexts where either side is constant instead of counting 0
	// Shared[j] says judge j scores on the labels' scale: bias, MAE and α
	// are reported for it (κ too when every value is an integer).
	Shared []bool
	// Workers bounds the goroutines of the bootstrap (0: GOMAXPROCS); the
	// numbers do not depend on it.
	Workers int
}

// DefaultOptions are prism fit's defaults: Spearman, 2,000 resamples,
// seed 42.
func DefaultOptions() Options { return Options{Metric: KeySpearman, Bootstrap: 2000, Seed: 42} }

// Estimate is a metric's value on the whole table, its percentile 95%
// bootstrap interval, and N, the contexts (within-context metrics) or
// candidates (the others) it was computed on.
type Estimate struct {
	Mean float64    `json:"mean"`
	CI   [2]float64 `json:"ci"`
	N    int        `json:"n"`
}

// Pair is the paired difference A − B of the headline metric, its
// interval taken over the per-resample differences on the same draws.
type Pair struct {
	A      string     `json:"a"`
	B      string     `json:"b"`
	Metric string     `json:"metric"`
	Mean   float64    `json:"mean"`
	CI     [2]float64 `json:"ci"`
}

// Result is an agreement analysis: per judge, per metric, an Estimate;
// the judges ordered by the headline (best first); every pair's
// difference.
type Result struct {
	Judges       map[string]map[string]Estimate `json:"judges"`
	Order        []string                       `json:"order"`
	Pairs        []Pair                         `json:"pairs"`
	Metric       string                         `json:"metric"`
	SkipConstant bool                           `json:"skip_constant"`
	Contexts     int                            `json:"contexts"`
	Candidates   int                            `json:"candidates"`
	Bootstrap    int                            `json:"bootstrap"`
	Seed         uint64                         `json:"seed"`
}

// Compute measures every judge of t against the labels. Each metric's
// interval and each pair's come from the same B context resamples: each
// draws len(t.Contexts) context indices with replacement as
// calib.PairedBootstrap draws them (i = ⌊x·n/2⁶⁴⌋, x the next Uint64 of
// rand.NewPCG(seed, 1)). On a resample a within-context metric is the mean
// of the drawn contexts' values where defined, and a global one is
// computed over the candidates of the drawn contexts (repeated as drawn).
// Intervals are Quantile7 at 0.025 and 0.975 of the finite resample values.
// A metric undefined on the whole table (a constant side) is left out.
func Compute(t *Table, opts Options) (*Result, error) {
	if !slices.Contains(Headlines, opts.Metric) {
		return nil, fmt.Errorf("metric %q: want one of %v", opts.Metric, Headlines)
	}
	if opts.Bootstrap < 1 {
		return nil, fmt.Errorf("bootstrap %d: want at least 1", opts.Bootstrap)
	}
	sets := make([]*judgeMetrics, len(t.Judges))
	for j := range t.Judges {
		sets[j] = newJudgeMetrics(t, j, opts)
	}
	n := len(t.Contexts)
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	point := make([][]float64, len(sets))
	for j, s := range sets {
		point[j] = s.eval(all)
	}
	stats := bootstrap(sets, n, opts)
	return assemble(t, opts, sets, point, stats), nil
}

// Draws are B context resamples of n contexts, drawn as
// calib.PairedBootstrap draws them.
func Draws(n, B int, seed uint64) [][]int {
	g := rand.NewPCG(seed, 1)
	out := make([][]int, B)
	flat := make([]int, n*B)
	for b := range out {
		d := flat[b*n : (b+1)*n]
		for k := range d {
			i, _ := bits.Mul64(g.Uint64(), uint64(n))
			d[k] = int(i)
		}
		out[b] = d
	}
	return out
}

// bootstrap evaluates every judge's metrics on every resample:
// stats[j][m][b]. Resamples are split among workers, each writing its own
// slots, so the values do not depend on the number of workers.
func bootstrap(sets []*judgeMetrics, n int, opts Options) [][][]float64 {
	draws := Draws(n, opts.Bootstrap, opts.Seed)
	stats := make([][][]float64, len(sets))
	for j, s := range sets {
		stats[j] = make([][]float64, len(s.names))
		for m := range stats[j] {
			stats[j][m] = make([]float64, len(draws))
		}
	}
	w := opts.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			for b := k; b < len(draws); b += w {
				for j, s := range sets {
					for m, v := range s.eval(draws[b]) {
						stats[j][m][b] = v
					}
				}
			}
		}(k)
	}
	wg.Wait()
	return stats
}

// assemble turns point values and resample values into the Result.
func assemble(t *Table, opts Options, sets []*judgeMetrics, point [][]float64, stats [][][]float64) *Result {
	r := &Result{Judges: map[string]map[string]Estimate{}, Metric: opts.Metric, SkipConstant: opts.SkipConstant,
		Contexts: len(t.Contexts), Candidates: t.Candidates(), Bootstrap: opts.Bootstrap, Seed: opts.Seed}
	head := make([]float64, len(sets))
	headStats := make([][]float64, len(sets))
	for j, s := range sets {
		est := map[string]Estimate{}
		head[j] = math.NaN()
		for m, name := range s.names {
			if math.IsNaN(point[j][m]) {
				continue
			}
			if name == opts.Metric {
				head[j], headStats[j] = point[j][m], slices.Clone(stats[j][m])
			}
			e := Estimate{Mean: point[j][m], CI: interval(stats[j][m]), N: s.count(m)}
			if math.IsNaN(e.CI[0]) { // every resample undefined: only with a tiny B
				e.CI = [2]float64{e.Mean, e.Mean}
			}
			est[name] = e
		}
		r.Judges[t.Judges[j]] = est
	}
	order := make([]int, len(sets))
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int { return compareDesc(head[a], head[b]) })
	for _, j := range order {
		r.Order = append(r.Order, t.Judges[j])
	}
	for x, a := range order {
		for _, b := range order[x+1:] {
			if headStats[a] == nil || headStats[b] == nil {
				continue
			}
			d := make([]float64, len(headStats[a]))
			for i := range d {
				d[i] = headStats[a][i] - headStats[b][i]
			}
			p := Pair{A: t.Judges[a], B: t.Judges[b], Metric: opts.Metric, Mean: head[a] - head[b], CI: interval(d)}
			if math.IsNaN(p.CI[0]) {
				p.CI = [2]float64{p.Mean, p.Mean}
			}
			r.Pairs = append(r.Pairs, p)
		}
	}
	return r
}

// compareDesc orders larger first, NaN last.
func compareDesc(a, b float64) int {
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a):
		return 1
	case math.IsNaN(b):
		return -1
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// interval is the percentile 95% interval (calib.Quantile7 at 0.025 and
// 0.975) of the finite values of s; NaN, NaN when none is finite.
func interval(s []float64) [2]float64 {
	f := make([]float64, 0, len(s))
	for _, v := range s {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			f = append(f, v)
		}
	}
	if len(f) == 0 {
		return [2]float64{math.NaN(), math.NaN()}
	}
	slices.Sort(f)
	return [2]float64{calib.Quantile7(0.025, f), calib.Quantile7(0.975, f)}
}

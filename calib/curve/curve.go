// Package curve answers "how many labels do I need?": a statistic of an
// analysis (a judge's agreement with the labels, PRISM's out-of-fold gain
// over Vanilla) as a function of the number of labelled contexts. At each
// size of a grid (5, 10, 20, … all) it draws several subsets of the
// contexts without replacement, seeded, recomputes the statistic on each,
// and reports the median and the 10th–90th percentile band across draws
// (docs/agree.md "Learning curve"). The band is the spread of what a team
// with that many labelled contexts could have measured, not a confidence
// interval of the full data's value.
package curve

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/prism-eval/prism/calib"
)

// Options are a curve's settings.
type Options struct {
	// Sizes are the numbers of contexts to draw (nil: DefaultSizes);
	// sizes above the contexts available are left out, and all of them
	// is always the last point.
	Sizes []int
	Draws int    // subsets drawn at each size below all (≥ 1)
	Seed  uint64 // of the draws
}

// DefaultOptions are 20 draws per size, seed 42, the default grid.
func DefaultOptions() Options { return Options{Draws: 20, Seed: 42} }

// Band is a statistic's median and its 10th and 90th percentiles
// (calib.Quantile7) across the draws where it was defined.
type Band struct {
	Median float64 `json:"median"`
	P10    float64 `json:"p10"`
	P90    float64 `json:"p90"`
}

// Point is the curve at one size: per series, its band, and how many of
// the draws defined it (a series no draw defined is absent).
type Point struct {
	Contexts int             `json:"contexts"`
	Draws    int             `json:"draws"`
	Series   map[string]Band `json:"series"`
	Defined  map[string]int  `json:"defined"`
}

// Curve is a learning curve: the series (judges, or Vanilla, PRISM and
// the gain) at each size, smallest first.
type Curve struct {
	Metric string   `json:"metric"`
	Series []string `json:"series"`
	Points []Point  `json:"points"`
	Total  int      `json:"total"` // contexts available
	Draws  int      `json:"draws"`
	Seed   uint64   `json:"seed"`
	// What says what each draw computes (the caption of the table and
	// the figure).
	What string `json:"what"`
}

// DefaultSizes is the grid 5, 10, 20, 40, … doubling below total, then
// total.
func DefaultSizes(total int) []int {
	var out []int
	for n := 5; n < total; n *= 2 {
		out = append(out, n)
	}
	return append(out, total)
}

// sizes is the grid of opts for total contexts: the sizes within
// [least, total), sorted and without repeats, then total.
func sizes(total, least int, opts Options) []int {
	grid := opts.Sizes
	if grid == nil {
		grid = DefaultSizes(total)
	}
	var out []int
	for _, n := range grid {
		if n >= least && n < total && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return append(out, total)
}

// Subsets are draws subsets of size of the indices 0…total−1, each
// without replacement and sorted; at size total, the one subset of all.
// The draws at a size come from rand.NewPCG(seed, size) by a partial
// Fisher–Yates shuffle, so they do not depend on the other sizes of the
// grid.
func Subsets(total, size, draws int, seed uint64) [][]int {
	if size >= total {
		all := make([]int, total)
		for i := range all {
			all[i] = i
		}
		return [][]int{all}
	}
	r := rand.New(rand.NewPCG(seed, uint64(size)))
	perm := make([]int, total)
	out := make([][]int, draws)
	for d := range out {
		for i := range perm {
			perm[i] = i
		}
		for i := 0; i < size; i++ {
			j := i + r.IntN(total-i)
			perm[i], perm[j] = perm[j], perm[i]
		}
		out[d] = slices.Sorted(slices.Values(perm[:size]))
	}
	return out
}

// Summarize is the band of the finite values of vals and their count.
func Summarize(vals []float64) (Band, int) {
	f := make([]float64, 0, len(vals))
	for _, v := range vals {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			f = append(f, v)
		}
	}
	if len(f) == 0 {
		return Band{math.NaN(), math.NaN(), math.NaN()}, 0
	}
	slices.Sort(f)
	return Band{Median: calib.Quantile7(0.5, f), P10: calib.Quantile7(0.1, f), P90: calib.Quantile7(0.9, f)}, len(f)
}

// Eval computes every series on one subset of contexts (sorted indices);
// a NaN is a series the subset does not define.
type Eval func(subset []int) ([]float64, error)

// Build draws the subsets of every size of opts (from least contexts up)
// and summarises eval's values on them. Draws run in order, one at a
// time: the curve depends on the seed alone.
func Build(c Curve, least int, opts Options, eval Eval) (*Curve, error) {
	if opts.Draws < 1 {
		return nil, fmt.Errorf("draws %d: want at least 1", opts.Draws)
	}
	if c.Total < least {
		return nil, fmt.Errorf("%d contexts: a learning curve needs at least %d", c.Total, least)
	}
	if len(c.Series) == 0 {
		return nil, errors.New("no series")
	}
	c.Draws, c.Seed = opts.Draws, opts.Seed
	for _, n := range sizes(c.Total, least, opts) {
		subs := Subsets(c.Total, n, opts.Draws, opts.Seed)
		vals := make([][]float64, len(c.Series))
		for _, s := range subs {
			v, err := eval(s)
			if err != nil {
				return nil, fmt.Errorf("%d contexts: %w", n, err)
			}
			for k := range c.Series {
				vals[k] = append(vals[k], v[k])
			}
		}
		p := Point{Contexts: n, Draws: len(subs), Series: map[string]Band{}, Defined: map[string]int{}}
		for k, name := range c.Series {
			// A series no draw defined has no band (and JSON no NaN).
			if b, n := Summarize(vals[k]); n > 0 {
				p.Series[name], p.Defined[name] = b, n
			}
		}
		c.Points = append(c.Points, p)
	}
	return &c, nil
}

package agree

import (
	"fmt"
	"slices"

	"github.com/prism-eval/prism/calib/curve"
)

// Curve is prism agree's learning curve: every judge's headline metric
// (opts.Metric) measured on subsets of n of t's contexts, as Compute
// measures it on all of them (a global metric over the subset's
// candidates), at each size of copts. Agreement has nothing fitted, so
// nothing is held out: the band is how far the agreement measured on n
// labelled contexts can fall from the one measured on all.
func Curve(t *Table, opts Options, copts curve.Options) (*curve.Curve, error) {
	if !slices.Contains(Headlines, opts.Metric) {
		return nil, fmt.Errorf("metric %q: want one of %v", opts.Metric, Headlines)
	}
	sets := make([]*judgeMetrics, len(t.Judges))
	at := make([]int, len(t.Judges))
	for j := range t.Judges {
		sets[j] = newJudgeMetrics(t, j, opts)
		at[j] = slices.Index(sets[j].names, opts.Metric)
	}
	c := curve.Curve{Metric: opts.Metric, Series: slices.Clone(t.Judges), Total: len(t.Contexts),
		What: "each judge's " + opts.Metric + " on the drawn contexts"}
	return curve.Build(c, 1, copts, func(subset []int) ([]float64, error) {
		out := make([]float64, len(sets))
		for j, s := range sets {
			out[j] = s.eval(subset)[at[j]]
		}
		return out, nil
	})
}

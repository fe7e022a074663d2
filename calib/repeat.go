package calib

import (
	"context"
	"fmt"
	"math"
)

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

package selection

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/prism-eval/prism/calib"

	"github.com/prism-eval/prism/model"
)

// MaxSubsetUnits is the largest bank whose subsets Select enumerates:
// 2^16 − 1 = 65,535 subsets, each a full nested cross-validation.
const MaxSubsetUnits = 16

// ErrTooManySubsets is returned (wrapped) when subset enumeration is asked
// for a bank of more than MaxSubsetUnits units.
var ErrTooManySubsets = errors.New("too many subsets")

// Options configure Select. Start from DefaultOptions.
type Options struct {
	// Options carries the metric, π (Seed or Order), folds, γ grid and
	// file names of the fit. Bootstrap and Taylor are not used; Global is
	// an error (selection needs contexts).
	calib.Options
	Subsets    bool    // enumerate every non-empty subset of units
	Forward    bool    // run forward selection
	MaxForward int     // forward selection stops at this many units
	MinGain    float64 // forward selection stops when the best addition gains less
	// Progress, when not nil, is called after every evaluated subset of
	// the enumeration with the count done and the total, serialized and in
	// increasing order, from the evaluating goroutines; it must return
	// quickly (hand the numbers to another goroutine), since the
	// evaluation waits for it.
	Progress func(done, total int)
}

// DefaultOptions returns docs/protocol.md §9's settings on the fit defaults:
// every subset, forward selection to at most 20 units with a minimum gain
// of +0.001.
func DefaultOptions() Options {
	return Options{Options: calib.DefaultOptions(), Subsets: true, Forward: true, MaxForward: 20, MinGain: 0.001}
}

// Report is the result of Select (docs/protocol.md §9, paper Fig. 4c,
// Tables 19 and 21) and the JSON document of `prism select --json`. Every
// mean is the out-of-fold mean over contexts of the within-context metric
// of PRISM (α = 1) with γ chosen by the inner CV, on the same folds; gains
// are differences from Vanilla's mean on the same contexts.
type Report struct {
	// Study names the workspace study selected on (nil for scores from files).
	Study       *model.Study `json:"study,omitempty"`
	Metric      string       `json:"metric"`
	NContexts   int          `json:"n_contexts"`
	NCandidates int          `json:"n_candidates"`
	Order       []string     `json:"order"` // π
	// Units are the selectable units: attributes (both columns) sorted by
	// name, then context probes "ctx:NAME" (one column each).
	Units    []string     `json:"units"`
	Vanilla  float64      `json:"vanilla"`           // Vanilla's mean
	Full     SubsetResult `json:"full"`              // all units
	Curve    []SizeStat   `json:"curve,omitempty"`   // per subset size, with Subsets
	Subsets  []Subset     `json:"subsets,omitempty"` // every non-empty subset, by size then unit order
	Omission []Omission   `json:"omission"`          // per unit: the full bank without it
	// OmissionRange is the [min, max] of the omission means (Table 19).
	OmissionRange [2]float64    `json:"omission_range"`
	Forward       []ForwardStep `json:"forward,omitempty"` // with Forward
	// ForwardStop says why forward selection stopped.
	ForwardStop string `json:"forward_stop,omitempty"`
}

// SubsetResult is one subset's out-of-fold mean and its gain over Vanilla.
type SubsetResult struct {
	Mean float64 `json:"mean"`
	Gain float64 `json:"gain"`
}

// Subset is one enumerated subset.
type Subset struct {
	Units []string `json:"units"`
	SubsetResult
}

// SizeStat summarises the subsets of one size: the median gain and the
// 10th and 90th percentiles across subsets (Quantile7), and how many
// subsets beat Vanilla (Table 19's last column). The band is a spread
// across subsets, not a confidence interval.
type SizeStat struct {
	Size         int     `json:"size"`
	Subsets      int     `json:"subsets"`
	Median       float64 `json:"median_gain"`
	P10          float64 `json:"p10_gain"`
	P90          float64 `json:"p90_gain"`
	AboveVanilla int     `json:"above_vanilla"`
}

// Omission is the full bank without one unit.
type Omission struct {
	Unit string `json:"unit"`
	SubsetResult
	Change float64 `json:"change"` // mean − the full bank's mean
}

// ForwardStep is one step of forward selection: the unit added, the
// units so far, their mean and gain, and the improvement over the step
// before (over Vanilla for the first).
type ForwardStep struct {
	Added string   `json:"added"`
	Units []string `json:"units"`
	SubsetResult
	Improvement float64 `json:"improvement"`
}

// Select builds the design (BuildDesign) and runs SelectDesign.
func Select(ctx context.Context, rows []model.ScoreRow, labels []model.Label, opts Options) (*Report, []string, error) {
	bo := opts.BuildOptions()
	bo.Global = false
	d, warnings, err := calib.BuildDesign(rows, labels, bo)
	if err != nil {
		return nil, warnings, err
	}
	r, w, err := SelectDesign(ctx, d, opts)
	return r, append(warnings, w...), err
}

// SelectDesign runs the probe selection of docs/protocol.md §9 on a design: with
// Subsets, every non-empty subset of units, each rerunning the nested
// selection of γ on the same folds, summarised per subset size; the
// omission table (the full bank without each unit); with Forward, forward
// selection from Vanilla, adding at each step the unit whose addition has
// the largest nested-CV mean (the first in unit order among exact ties),
// and stopping when that improves the current mean by less than MinGain
// or at MaxForward units.
//
// Enumeration of more than MaxSubsetUnits units is refused with
// ErrTooManySubsets; the omission table and forward selection do not
// enumerate and work on any bank.
func SelectDesign(ctx context.Context, d *calib.Design, opts Options) (*Report, []string, error) {
	if err := opts.Check(); err != nil {
		return nil, nil, err
	}
	if opts.Global {
		return nil, nil, errors.New("probe selection needs contexts; global mode is not supported")
	}
	units, cols := Units(d)
	U := len(units)
	if opts.Subsets && U > MaxSubsetUnits {
		return nil, nil, fmt.Errorf("%w: %d units give 2^%d − 1 subsets, past the cap of %d (%d units); select fewer units or skip the enumeration (omission and forward selection still run)",
			ErrTooManySubsets, U, U, 1<<MaxSubsetUnits-1, MaxSubsetUnits)
	}
	lf := opts.LabelsFile
	if lf == "" {
		lf = "labels"
	}
	if err := calib.CheckFolds(lf, len(d.Contexts), opts.Folds); err != nil {
		return nil, nil, err
	}
	order, warnings, err := calib.ResolveOrder(d, opts.Options)
	if err != nil {
		return nil, nil, err
	}
	s := calib.NewSelector(d, opts.Options, order)
	if len(s.Defined) == 0 {
		return nil, warnings, d.ErrPairwiseUndefined()
	}
	r := &Report{Metric: opts.Metric, NContexts: len(d.Contexts), NCandidates: d.Rows(), Units: units, Vanilla: s.Vanilla}
	for _, g := range order {
		r.Order = append(r.Order, d.Contexts[g])
	}
	columnsOf := func(set []int, buf []int) []int {
		for _, u := range set {
			buf = append(buf, cols[u]...)
		}
		slices.Sort(buf) // design column order, as the full fit has them
		return buf
	}
	result := func(m float64) SubsetResult { return SubsetResult{Mean: m, Gain: m - s.Vanilla} }
	all := make([]int, U)
	for u := range all {
		all[u] = u
	}

	// Enumeration: subsets as bit masks 1 … 2^U − 1.
	var byMask []float64
	if opts.Subsets && U > 0 {
		n := 1<<U - 1
		byMask, err = s.EvalAll(ctx, n, func(i int, buf []int) []int {
			return columnsOf(maskUnits(uint64(i+1), U), buf)
		}, opts.Progress)
		if err != nil {
			return nil, warnings, err
		}
		byMask = append([]float64{s.Vanilla}, byMask...) // index = mask
		r.Subsets, r.Curve = subsetTables(byMask, units, s.Vanilla)
	}
	// lookup evaluates unit sets, reusing the enumeration when there is one.
	lookup := func(sets [][]int) ([]float64, error) {
		if byMask != nil {
			out := make([]float64, len(sets))
			for i, set := range sets {
				var m uint64
				for _, u := range set {
					m |= 1 << u
				}
				out[i] = byMask[m]
			}
			return out, nil
		}
		return s.EvalAll(ctx, len(sets), func(i int, buf []int) []int { return columnsOf(sets[i], buf) }, nil)
	}

	if err := omission(r, units, all, lookup, result); err != nil {
		return nil, warnings, err
	}

	if opts.Forward {
		if err := Forward(r, units, opts, lookup, result, s.Vanilla); err != nil {
			return nil, warnings, err
		}
	}
	return r, warnings, nil
}

// omission sets the full bank's result and the omission table: the
// full bank without each unit, and the range of those means.
func omission(r *Report, units []string, all []int, lookup func([][]int) ([]float64, error), result func(float64) SubsetResult) error {
	sets := [][]int{all}
	for u := range units {
		sets = append(sets, slices.Delete(slices.Clone(all), u, u+1))
	}
	means, err := lookup(sets)
	if err != nil {
		return err
	}
	r.Full = result(means[0])
	for u, name := range units {
		m := means[1+u]
		r.Omission = append(r.Omission, Omission{Unit: name, SubsetResult: result(m), Change: m - r.Full.Mean})
		if u == 0 || m < r.OmissionRange[0] {
			r.OmissionRange[0] = m
		}
		if u == 0 || m > r.OmissionRange[1] {
			r.OmissionRange[1] = m
		}
	}
	return nil
}

// Forward runs forward selection into r.
func Forward(r *Report, units []string, opts Options, lookup func([][]int) ([]float64, error), result func(float64) SubsetResult, vanilla float64) error {
	var chosen []int
	current := vanilla
	in := make([]bool, len(units))
	r.ForwardStop = "every unit added"
	for len(chosen) < len(units) {
		if len(chosen) >= opts.MaxForward {
			r.ForwardStop = fmt.Sprintf("reached %d units", opts.MaxForward)
			return nil
		}
		var cand []int
		var sets [][]int
		for u := range units {
			if !in[u] {
				cand = append(cand, u)
				sets = append(sets, append(slices.Clone(chosen), u))
			}
		}
		means, err := lookup(sets)
		if err != nil {
			return err
		}
		best := 0
		for i := range means {
			if means[i] > means[best] {
				best = i
			}
		}
		if imp := means[best] - current; !(imp >= opts.MinGain) {
			r.ForwardStop = fmt.Sprintf("best addition (%s) improves by %+.4f, below %+.4f", units[cand[best]], imp, opts.MinGain)
			return nil
		}
		u := cand[best]
		chosen = append(chosen, u)
		in[u] = true
		step := ForwardStep{Added: units[u], SubsetResult: result(means[best]), Improvement: means[best] - current}
		for _, c := range chosen {
			step.Units = append(step.Units, units[c])
		}
		r.Forward = append(r.Forward, step)
		current = means[best]
	}
	return nil
}

// Units returns the units of d (attributes, then context probes)
// and each unit's design columns.
func Units(d *calib.Design) (names []string, cols [][]int) {
	for k, a := range d.Attrs {
		names = append(names, a)
		cols = append(cols, []int{2 * k, 2*k + 1})
	}
	for c, p := range d.CtxProbes {
		names = append(names, "ctx:"+p)
		cols = append(cols, []int{2*len(d.Attrs) + c})
	}
	return names, cols
}

// maskUnits lists the units (bits) of mask below U.
func maskUnits(mask uint64, U int) []int {
	out := make([]int, 0, bits.OnesCount64(mask))
	for u := 0; u < U; u++ {
		if mask&(1<<u) != 0 {
			out = append(out, u)
		}
	}
	return out
}

// subsetTables lists the enumerated subsets (by size, then in the order
// of their unit lists) and summarises the gains per size.
func subsetTables(byMask []float64, units []string, vanilla float64) ([]Subset, []SizeStat) {
	U := len(units)
	masks := make([]uint64, 0, len(byMask)-1)
	for m := uint64(1); m < uint64(len(byMask)); m++ {
		masks = append(masks, m)
	}
	slices.SortFunc(masks, func(a, b uint64) int {
		if ca, cb := bits.OnesCount64(a), bits.OnesCount64(b); ca != cb {
			return ca - cb
		}
		// Lexicographic in unit order: the lowest differing bit decides.
		low := bits.TrailingZeros64(a ^ b)
		if a&(1<<low) != 0 {
			return -1
		}
		return 1
	})
	subsets := make([]Subset, len(masks))
	gains := make([][]float64, U+1)
	above := make([]int, U+1)
	for i, m := range masks {
		s := Subset{SubsetResult: SubsetResult{Mean: byMask[m], Gain: byMask[m] - vanilla}}
		for _, u := range maskUnits(m, U) {
			s.Units = append(s.Units, units[u])
		}
		subsets[i] = s
		k := len(s.Units)
		gains[k] = append(gains[k], s.Gain)
		if s.Mean > vanilla {
			above[k]++
		}
	}
	var curve []SizeStat
	for k := 1; k <= U; k++ {
		g := gains[k]
		slices.Sort(g)
		curve = append(curve, SizeStat{Size: k, Subsets: len(g), Median: calib.Quantile7(0.5, g), P10: calib.Quantile7(0.1, g), P90: calib.Quantile7(0.9, g), AboveVanilla: above[k]})
	}
	return subsets, curve
}

package calib

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib/internal/calibtest"
)

// TestRepeatCVMatchesSeeds: with RepeatCV = 3 the report is, but for
// RepeatCV, the fit of the seed alone (permutation 0, bitwise), and
// permutation k's method means, gains and interval counts are exactly
// those of separate fits with seed 42+k; within-context (with Taylor) and
// global.
func TestRepeatCVMatchesSeeds(t *testing.T) {
	for _, global := range []bool{false, true} {
		rows, labels := calibtest.Synth(30, 8, 3, 17)
		d, _, err := BuildDesign(rows, labels, BuildOptions{Global: global})
		if err != nil {
			t.Fatal(err)
		}
		opts := DefaultOptions()
		opts.Bootstrap, opts.Global, opts.Taylor = 300, global, !global
		fit := func(o Options) *Report {
			t.Helper()
			r, _, err := FitDesign(context.Background(), d, o)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		single := fit(opts)
		if single.RepeatCV != nil {
			t.Fatalf("global %v: RepeatCV without repetition", global)
		}
		rep := opts
		rep.RepeatCV = 3
		r := fit(rep)
		rc := r.RepeatCV
		if rc == nil || rc.Permutations != 3 || rc.Seeds != [2]uint64{42, 44} {
			t.Fatalf("global %v: repeat_cv %+v", global, rc)
		}
		r.RepeatCV = nil
		if a, b := mustJSON(t, r), mustJSON(t, single); a != b {
			t.Errorf("global %v: permutation 0 differs from the single fit", global)
		}
		checkPermutations(t, rc, func(k int) *Report {
			o := opts
			o.Seed = opts.Seed + uint64(k)
			return fit(o)
		})
	}
}

// checkPermutations compares every permutation of rc to sep(k), the
// separate fit of its seed: means bitwise, then the summary recomputed.
func checkPermutations(t *testing.T, rc *RepeatCV, sep func(k int) *Report) {
	t.Helper()
	above, below := map[string]int{}, map[string]int{}
	for k := range rc.Permutations {
		rk := sep(k)
		for _, m := range []Method{Vanilla, PRISM, AlphaPRISM, Half, Taylor} {
			res, rm := rk.Methods.Get(m), rc.Methods[m.String()]
			if (res == nil) != (rm == nil) {
				t.Fatalf("%s: in the separate fit %v, in repeat_cv %v", m, res != nil, rm != nil)
			}
			if res == nil {
				continue
			}
			if math.Float64bits(rm.Means[k]) != math.Float64bits(res.Mean) {
				t.Errorf("%s permutation %d: mean %v, seed %d alone %v", m, k, rm.Means[k], rk.Seed, res.Mean)
			}
			if d := res.DiffVsVanilla; d != nil {
				if d.CI[0] > 0 {
					above[m.String()]++
				}
				if d.CI[1] < 0 {
					below[m.String()]++
				}
			}
		}
	}
	for name, rm := range rc.Methods {
		if len(rm.Means) != rc.Permutations {
			t.Errorf("%s: %d means", name, len(rm.Means))
		}
		if rm.Min != slices.Min(rm.Means) || rm.Max != slices.Max(rm.Means) {
			t.Errorf("%s: [min, max] [%v, %v] of %v", name, rm.Min, rm.Max, rm.Means)
		}
		if g := rm.Gain; g != nil && (g.Above != above[name] || g.Below != below[name]) {
			t.Errorf("%s: intervals above/below 0 %d/%d, separate fits %d/%d", name, g.Above, g.Below, above[name], below[name])
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRepeatSummaryByHand checks the summary's arithmetic on two methods
// over three made-up permutations.
func TestRepeatSummaryByHand(t *testing.T) {
	perm := func(v, p, lo, hi float64) *Report {
		return &Report{Methods: Methods{
			Vanilla: &MethodResult{Mean: v},
			PRISM:   &MethodResult{Mean: p, DiffVsVanilla: &Diff{Mean: p - v, CI: [2]float64{lo, hi}}},
		}}
	}
	acc := newRepeatAcc()
	acc.add(perm(0.5, 0.75, 0.125, 0.5))   // gain +0.25, interval above 0
	acc.add(perm(0.5, 0.25, -0.5, -0.125)) // gain −0.25, below 0
	acc.add(perm(0.5, 0.5, -0.25, 0.25))   // gain 0, covers 0
	rc := acc.summary(7, 3)
	if rc.Permutations != 3 || rc.Seeds != [2]uint64{7, 9} {
		t.Errorf("permutations %d, seeds %v", rc.Permutations, rc.Seeds)
	}
	v, p := rc.Methods["vanilla"], rc.Methods["prism"]
	if v.Mean != 0.5 || v.Min != 0.5 || v.Max != 0.5 || v.Gain != nil {
		t.Errorf("vanilla %+v", v)
	}
	// (0.75 + 0.25 + 0.5)/3 = 0.5; gains (0.25 − 0.25 + 0)/3 = 0.
	if p.Mean != 0.5 || p.Min != 0.25 || p.Max != 0.75 || !slices.Equal(p.Means, []float64{0.75, 0.25, 0.5}) {
		t.Errorf("prism %+v", p)
	}
	if g := p.Gain; g.Mean != 0 || g.Min != -0.25 || g.Max != 0.25 || g.Above != 1 || g.Below != 1 {
		t.Errorf("prism gain %+v", g)
	}
	if _, ok := rc.Methods["alpha_prism"]; ok {
		t.Error("a method the fit did not have is summarised")
	}
}

// TestRepeatCVOptions: fewer than one permutation and a given order are
// refused; progress counts the steps of every permutation, one at a time.
func TestRepeatCVOptions(t *testing.T) {
	rows, labels := calibtest.Synth(20, 6, 3, 5)
	opts := DefaultOptions()
	opts.Bootstrap = 50
	for _, bad := range []func(*Options){
		func(o *Options) { o.RepeatCV = -1 },
		func(o *Options) { o.RepeatCV, o.Order = 2, []string{"c00"} },
	} {
		o := opts
		bad(&o)
		if _, _, err := Fit(context.Background(), rows, labels, o); err == nil || !strings.Contains(err.Error(), "repeated CV") {
			t.Errorf("RepeatCV %d, order %v: error %v", o.RepeatCV, o.Order, err)
		}
	}
	var dones []int
	opts.RepeatCV = 2
	opts.Progress = func(done, total int) {
		if total != 2*(opts.Folds+1) {
			t.Errorf("total %d", total)
		}
		dones = append(dones, done)
	}
	if _, _, err := Fit(context.Background(), rows, labels, opts); err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}; !slices.Equal(dones, want) {
		t.Errorf("progress %v, want %v", dones, want)
	}
}

package selection

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib"

	"github.com/prism-eval/prism/calib/internal/calibtest"

	"github.com/prism-eval/prism/model"
)

func selectOf(t *testing.T, rows []model.ScoreRow, labels []model.Label, opts Options) *Report {
	t.Helper()
	r, _, err := Select(context.Background(), rows, labels, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSelectFullMatchesFit: the subset of every unit is the full PRISM
// fit, so its nested-CV mean must be Fit's PRISM mean on the same folds
// (the fold statistics are summed in the same order: equal to rounding),
// and Vanilla must agree too.
func TestSelectFullMatchesFit(t *testing.T) {
	for _, metric := range []string{model.MetricSpearman, model.MetricPairwise} {
		rows, labels := calibtest.Synth(25, 6, 4, 5)
		opts := DefaultOptions()
		opts.Metric = metric
		opts.Bootstrap = 50
		fit, _, err := calib.Fit(context.Background(), rows, labels, opts.Options)
		if err != nil {
			t.Fatal(err)
		}
		r := selectOf(t, rows, labels, opts)
		if !calibtest.Near(r.Full.Mean, fit.Methods.PRISM.Mean, 1e-12) || !calibtest.Near(r.Vanilla, fit.Methods.Vanilla.Mean, 1e-12) {
			t.Errorf("%s: select full %.15f vanilla %.15f; fit PRISM %.15f vanilla %.15f", metric,
				r.Full.Mean, r.Vanilla, fit.Methods.PRISM.Mean, fit.Methods.Vanilla.Mean)
		}
		if !slices.Equal(r.Order, fit.Order) {
			t.Errorf("%s: order differs from Fit's", metric)
		}
	}
}

// TestSelectTables checks the enumeration's bookkeeping on a 4-attribute
// study: 15 subsets, the curve's sizes, the omission rows are the size-3
// subsets, the size-4 row is the full bank, and forward selection starts
// with the best single unit and never adds a step that gains less than
// MinGain.
func TestSelectTables(t *testing.T) {
	rows, labels := calibtest.Synth(30, 6, 4, 9)
	r := selectOf(t, rows, labels, DefaultOptions())
	if len(r.Subsets) != 15 || len(r.Curve) != 4 || !slices.Equal(r.Units, []string{"a00", "a01", "a02", "a03"}) {
		t.Fatalf("%d subsets, %d curve rows, units %v", len(r.Subsets), len(r.Curve), r.Units)
	}
	wantCount := []int{4, 6, 4, 1} // C(4, k)
	bySet := map[string]SubsetResult{}
	for _, s := range r.Subsets {
		bySet[strings.Join(s.Units, ",")] = s.SubsetResult
		if !calibtest.Near(s.Gain, s.Mean-r.Vanilla, 1e-15) {
			t.Errorf("subset %v: gain %v ≠ mean − vanilla", s.Units, s.Gain)
		}
	}
	for k, c := range r.Curve {
		if c.Size != k+1 || c.Subsets != wantCount[k] || !(c.P10 <= c.Median && c.Median <= c.P90) {
			t.Errorf("curve row %+v", c)
		}
	}
	if got := r.Curve[3]; !calibtest.Near(got.Median, r.Full.Gain, 1e-15) || !calibtest.Near(got.P10, got.P90, 1e-15) {
		t.Errorf("size 4 row %+v, full gain %v", got, r.Full.Gain)
	}
	if s := r.Subsets[0]; !slices.Equal(s.Units, []string{"a00"}) || !slices.Equal(r.Subsets[4].Units, []string{"a00", "a01"}) {
		t.Errorf("subset order: %v, %v", s.Units, r.Subsets[4].Units)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for u, o := range r.Omission {
		rest := slices.Delete(slices.Clone(r.Units), u, u+1)
		if want := bySet[strings.Join(rest, ",")]; !calibtest.Near(o.Mean, want.Mean, 1e-15) || !calibtest.Near(o.Change, o.Mean-r.Full.Mean, 1e-15) {
			t.Errorf("omission of %s: %+v, subset %v has %+v", o.Unit, o, rest, want)
		}
		lo, hi = math.Min(lo, o.Mean), math.Max(hi, o.Mean)
	}
	if r.OmissionRange != [2]float64{lo, hi} {
		t.Errorf("omission range %v, want [%v %v]", r.OmissionRange, lo, hi)
	}
	if len(r.Forward) == 0 {
		t.Fatal("forward selection added nothing on a study whose probes carry signal")
	}
	bestSingle := r.Subsets[0]
	for _, s := range r.Subsets[:4] {
		if s.Mean > bestSingle.Mean {
			bestSingle = s
		}
	}
	if f := r.Forward[0]; f.Added != bestSingle.Units[0] || !calibtest.Near(f.Mean, bestSingle.Mean, 1e-15) {
		t.Errorf("forward step 1 %+v, best single %+v", f, bestSingle)
	}
	for i, f := range r.Forward {
		if f.Improvement < 0.001 || len(f.Units) != i+1 {
			t.Errorf("forward step %d: %+v", i+1, f)
		}
		slices.Sort(f.Units)
		if want := bySet[strings.Join(f.Units, ",")]; !calibtest.Near(f.Mean, want.Mean, 1e-15) {
			t.Errorf("forward step %d mean %v, the subset's %v", i+1, f.Mean, want.Mean)
		}
	}
	t.Logf("vanilla %.4f, full %.4f, omission %v, forward stop: %s", r.Vanilla, r.Full.Mean, r.OmissionRange, r.ForwardStop)
}

// TestSelectUselessUnit: a study with two informative attributes and one
// pure-noise attribute; forward selection adds the informative ones and
// omitting an informative attribute costs more than omitting the noise.
func TestSelectUselessUnit(t *testing.T) {
	rows, labels := calibtest.Synth(40, 8, 2, 21)
	// noise: both signs move at random, independent of everything.
	for i, n := 0, len(rows); i < n; i++ {
		if rows[i].Probe == "baseline" {
			b := rows[i]
			h := float64((i*7919)%13)/13 - 0.5
			rows = append(rows,
				model.ScoreRow{Context: b.Context, Candidate: b.Candidate, Probe: "zz:+", Score: b.Score + h},
				model.ScoreRow{Context: b.Context, Candidate: b.Candidate, Probe: "zz:-", Score: b.Score - h*0.5})
		}
	}
	r := selectOf(t, rows, labels, DefaultOptions())
	om := map[string]float64{}
	for _, o := range r.Omission {
		om[o.Unit] = o.Change
	}
	t.Logf("omission changes %v; forward %+v (%s)", om, r.Forward, r.ForwardStop)
	if !(om["a00"] < om["zz"]-0.01) {
		t.Errorf("omitting a00 changes the mean by %+.4f, omitting noise by %+.4f", om["a00"], om["zz"])
	}
	if len(r.Forward) == 0 || r.Forward[0].Added != "a00" {
		t.Errorf("forward %+v, want a00 first", r.Forward)
	}
}

// TestSelectDeterministic: the parallel enumeration gives the same report
// twice, and the progress callback counts every subset once, in order.
func TestSelectDeterministic(t *testing.T) {
	rows, labels := calibtest.Synth(20, 5, 5, 3)
	opts := DefaultOptions()
	var seen []int
	opts.Progress = func(done, total int) {
		if total != 31 {
			t.Errorf("progress total %d, want 31", total)
		}
		seen = append(seen, done)
	}
	a := selectOf(t, rows, labels, opts)
	opts.Progress = nil
	b := selectOf(t, rows, labels, opts)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Error("two runs differ")
	}
	for i, d := range seen {
		if d != i+1 {
			t.Fatalf("progress calls %v, want 1…31", seen)
		}
	}
	if len(seen) != 31 {
		t.Errorf("%d progress calls, want 31", len(seen))
	}
}

// TestSelectCap: 17 units refuse the enumeration with a clear error; the
// omission table and forward selection still run without it.
func TestSelectCap(t *testing.T) {
	rows, labels := calibtest.Synth(6, 3, 17, 1)
	_, _, err := Select(context.Background(), rows, labels, DefaultOptions())
	if !errors.Is(err, ErrTooManySubsets) || !strings.Contains(err.Error(), "17 units") {
		t.Fatalf("error %v, want ErrTooManySubsets naming 17 units", err)
	}
	opts := DefaultOptions()
	opts.Subsets = false
	opts.MaxForward = 2
	r := selectOf(t, rows, labels, opts)
	if len(r.Subsets) != 0 || len(r.Curve) != 0 || len(r.Omission) != 17 || len(r.Forward) > 2 {
		t.Errorf("%d subsets, %d curve rows, %d omissions, %d forward steps", len(r.Subsets), len(r.Curve), len(r.Omission), len(r.Forward))
	}
}

func TestSelectErrors(t *testing.T) {
	rows, labels := calibtest.Synth(3, 4, 2, 1)
	if _, _, err := Select(context.Background(), rows, labels, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "only 3 contexts") {
		t.Errorf("3 contexts: %v", err)
	}
	opts := DefaultOptions()
	opts.Global = true
	rows, labels = calibtest.Synth(10, 4, 2, 1)
	if _, _, err := Select(context.Background(), rows, labels, opts); err == nil || !strings.Contains(err.Error(), "global") {
		t.Errorf("global: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Select(ctx, rows, labels, DefaultOptions()); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}

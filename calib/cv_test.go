package calib

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib/internal/calibtest"
	"github.com/prism-eval/prism/model"
)

// TestTieRulePicksLargestGamma: with zero probe responses every γ gives
// β = 0 and bitwise equal CV scores, so the largest γ must win, whatever
// the grid's order.
func TestTieRulePicksLargestGamma(t *testing.T) {
	rows, labels := calibtest.Synth(10, 5, 2, 8)
	s0 := map[string]float64{}
	for _, r := range rows {
		if r.Probe == "baseline" {
			s0[r.Context+"/"+r.Candidate] = r.Score
		}
	}
	for i := range rows {
		rows[i].Score = s0[rows[i].Context+"/"+rows[i].Candidate]
	}
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Gammas = []float64{10, 1000, 0.1, 100}
	f := newFitter(d, opts)
	sel, cv, err := f.selectGammas(allContexts(d))
	if err != nil {
		t.Fatal(err)
	}
	for mi, m := range methodsFor(DefaultOptions()) {
		if g := opts.Gammas[sel[mi]]; g != 1000 {
			t.Errorf("%v: selected γ = %v among equal scores %v, want 1000", m, g, cv[mi])
		}
	}
}

// TestSelectionPrefersBetterGamma: on synthetic data with a strong,
// learnable correction, the largest γ (≈ Vanilla) must lose.
func TestSelectionPrefersBetterGamma(t *testing.T) {
	d := designOf(t, 20, 8, 3, 21)
	f := newFitter(d, DefaultOptions())
	sel, cv, err := f.selectGammas(allContexts(d))
	if err != nil {
		t.Fatal(err)
	}
	for mi, m := range methodsFor(DefaultOptions()) {
		best := cv[mi][sel[mi]]
		if slices.Max(cv[mi]) != best {
			t.Errorf("%v: selected score %v is not the maximum of %v", m, best, cv[mi])
		}
		if sel[mi] == len(DefaultGammas)-1 || best <= cv[mi][len(DefaultGammas)-1] {
			t.Errorf("%v: selected γ index %d with scores %v; a small γ should win", m, sel[mi], cv[mi])
		}
	}
}

func TestPairedBootstrap(t *testing.T) {
	values := [][]float64{
		{0.11, 0.52, 0.33, 0.94, 0.25, 0.46, 0.17, 0.68},
		{0.31, 0.62, 0.35, 1.04, 0.55, 0.47, 0.18, 0.99},
		{0.11, 0.52, 0.33, 0.94, 0.25, 0.46, 0.17, 0.68}, // equal to the reference row
	}
	ci, diff := PairedBootstrap(values, 0, 2000, 42)
	ci2, diff2 := PairedBootstrap(values, 0, 2000, 42)
	if !slices.Equal(ci, ci2) || !slices.Equal(diff, diff2) {
		t.Error("same seed, different intervals")
	}
	ci3, _ := PairedBootstrap(values, 0, 2000, 43)
	if slices.Equal(ci, ci3) {
		t.Error("seeds 42 and 43 give identical intervals")
	}
	for m, v := range values {
		mu := mean(v)
		if !(ci[m][0] < mu && mu < ci[m][1]) {
			t.Errorf("row %d: mean %v outside its interval %v", m, mu, ci[m])
		}
		if ci[m][0] < slices.Min(v) || ci[m][1] > slices.Max(v) {
			t.Errorf("row %d: interval %v outside the data range", m, ci[m])
		}
	}
	// Row 2 equals the reference: every paired difference is exactly 0.
	if diff[2] != [2]float64{0, 0} {
		t.Errorf("paired difference of identical rows = %v, want [0 0]", diff[2])
	}
	// Row 1 dominates row 0 context by context: the paired interval is ≥ 0,
	// while the unpaired intervals overlap.
	if diff[1][0] < 0 || ci[1][0] > ci[0][1] {
		t.Errorf("paired diff %v, intervals %v and %v", diff[1], ci[0], ci[1])
	}
	// One context: every resample is that context.
	ci, _ = PairedBootstrap([][]float64{{0.7}}, 0, 10, 1)
	if ci[0] != [2]float64{0.7, 0.7} {
		t.Errorf("single context interval %v", ci[0])
	}
}

// TestPairedBootstrapAllocs: allocations do not grow with the number of
// resamples (the buffers are sized once).
func TestPairedBootstrapAllocs(t *testing.T) {
	values := make([][]float64, 4)
	for m := range values {
		values[m] = make([]float64, 10)
		for i := range values[m] {
			values[m][i] = math.Sin(float64(m*10 + i))
		}
	}
	small := testing.AllocsPerRun(10, func() { PairedBootstrap(values, 0, 200, 42) })
	large := testing.AllocsPerRun(10, func() { PairedBootstrap(values, 0, 20000, 42) })
	if small != large {
		t.Errorf("allocs: %v at 200 resamples, %v at 20,000", small, large)
	}
}

var sinkCI [][2]float64

func BenchmarkPairedBootstrap2000(b *testing.B)  { benchBootstrap(b, 2000) }
func BenchmarkPairedBootstrap20000(b *testing.B) { benchBootstrap(b, 20000) }

func benchBootstrap(b *testing.B, B int) {
	values := make([][]float64, 4)
	for m := range values {
		values[m] = make([]float64, 100)
		for i := range values[m] {
			values[m][i] = math.Sin(float64(m*100 + i))
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		sinkCI, _ = PairedBootstrap(values, 0, B, 42)
	}
}

func fitSynth(t *testing.T, opts Options) (*Report, *Design) {
	t.Helper()
	rows, labels := calibtest.Synth(30, 8, 3, 17)
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := FitDesign(context.Background(), d, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r, d
}

func TestFitReport(t *testing.T) {
	opts := DefaultOptions()
	opts.Bootstrap = 500
	r, d := fitSynth(t, opts)
	r2, _ := fitSynth(t, opts)
	j1, _ := json.Marshal(r)
	j2, _ := json.Marshal(r2)
	if string(j1) != string(j2) {
		t.Error("two fits with the same options differ")
	}
	if r.NContexts != 30 || r.NCandidates != 240 || len(r.Columns) != 6 || len(r.Folds) != 5 {
		t.Errorf("sizes: %d contexts, %d candidates, %d columns, %d folds", r.NContexts, r.NCandidates, len(r.Columns), len(r.Folds))
	}
	// The order is the default permutation and the folds tile it.
	if !slices.Equal(r.Order, Permutation(d.Contexts, 42)) {
		t.Error("order is not Permutation(contexts, 42)")
	}
	var tiled []string
	for i, f := range r.Folds {
		if f.Fold != i+1 || len(f.TestContexts) != 6 {
			t.Errorf("fold %d: %+v", i, f.Fold)
		}
		tiled = append(tiled, f.TestContexts...)
	}
	if !slices.Equal(tiled, r.Order) {
		t.Error("test contexts do not tile the order")
	}
	for _, m := range []Method{Vanilla, PRISM, AlphaPRISM, Half} {
		res := r.Methods.Get(m)
		if len(res.PerContext) != 30 {
			t.Errorf("%v: %d per-context values", m, len(res.PerContext))
		}
		var s float64
		for _, c := range d.Contexts {
			s += res.PerContext[c]
		}
		if math.Abs(s/30-res.Mean) > 1e-12 {
			t.Errorf("%v: mean %v is not the mean of per_context %v", m, res.Mean, s/30)
		}
		if !(res.CI[0] <= res.Mean && res.Mean <= res.CI[1]) {
			t.Errorf("%v: mean %v outside CI %v", m, res.Mean, res.CI)
		}
		if (m == Vanilla) != (res.DiffVsVanilla == nil) {
			t.Errorf("%v: diff_vs_vanilla presence wrong", m)
		}
	}
	// The synthetic judge is fixable: PRISM must beat Vanilla clearly.
	if dv := r.Methods.PRISM.DiffVsVanilla; dv.CI[0] <= 0 {
		t.Errorf("PRISM − Vanilla = %v, CI %v; want CI above 0", dv.Mean, dv.CI)
	}
	// The selected result of each fold is the sweep's value at its γ: check
	// the mean over folds weighted by size against the per-context values.
	for _, m := range methodsFor(DefaultOptions()) {
		for _, f := range r.Folds {
			ff := f.byMethod(m)
			if !slices.Contains(r.GammaGrid, ff.Gamma) || len(ff.CV) != len(r.GammaGrid) {
				t.Errorf("%v fold %d: γ %v, cv %v", m, f.Fold, ff.Gamma, ff.CV)
			}
			if m == Half && len(ff.Beta) != len(r.Attributes) || m != Half && len(ff.Beta) != len(r.Columns) {
				t.Errorf("%v fold %d: %d β entries", m, f.Fold, len(ff.Beta))
			}
			if m != AlphaPRISM && ff.Alpha != 1 {
				t.Errorf("%v: α = %v", m, ff.Alpha)
			}
		}
	}
	if len(r.Sweep) != 7 || len(r.Sweep["1000"]) != 3 {
		t.Errorf("sweep %v", r.Sweep)
	}
	// At γ = 1000 every method is close to Vanilla.
	for m, v := range r.Sweep["1000"] {
		if math.Abs(v-r.Methods.Vanilla.Mean) > 0.05 {
			t.Errorf("sweep γ=1000 %s = %v, Vanilla %v", m, v, r.Methods.Vanilla.Mean)
		}
	}
}

// TestProfilesDirect recomputes fold 1's profile entries straight from the
// rows (RMS over all training candidates) and the reported β.
func TestProfilesDirect(t *testing.T) {
	opts := DefaultOptions()
	opts.Bootstrap = 10
	r, d := fitSynth(t, opts)
	q := d.Q()
	for fi, fold := range r.Folds {
		test := map[string]bool{}
		for _, c := range fold.TestContexts {
			test[c] = true
		}
		for k, attr := range d.Attrs {
			var so, se, sv float64
			n := 0
			for g, c := range d.Contexts {
				if test[c] {
					continue
				}
				for row := d.Off[g]; row < d.Off[g+1]; row++ {
					jp, jm := d.JC[row*q+2*k], d.JC[row*q+2*k+1]
					so += (jp + jm) * (jp + jm) / 4
					se += (jp - jm) * (jp - jm) / 4
					sv += d.V[row] * d.V[row]
					n++
				}
			}
			rms := func(s float64) float64 { return math.Sqrt(s / float64(n)) }
			bp, bm := fold.PRISM.Beta[attr+":+"], fold.PRISM.Beta[attr+":-"]
			wantA := (bp + bm) * rms(so) / rms(sv)
			wantE := (bp - bm) * rms(se) / rms(sv)
			p := r.Profiles[attr]
			if math.Abs(p.A.Folds[fi]-wantA) > 1e-12 || math.Abs(p.E.Folds[fi]-wantE) > 1e-12 {
				t.Errorf("%s fold %d: a, e = %v, %v; want %v, %v", attr, fi+1, p.A.Folds[fi], p.E.Folds[fi], wantA, wantE)
			}
		}
	}
	for attr, p := range r.Profiles {
		if p.A.Min > p.A.Mean || p.A.Mean > p.A.Max || p.A.SignStable > 5 || len(p.A.Folds) != 5 {
			t.Errorf("%s: %+v", attr, p.A)
		}
	}
}

func TestFitPairwiseAndOrder(t *testing.T) {
	opts := DefaultOptions()
	opts.Metric = model.MetricPairwise
	opts.Bootstrap = 100
	rows, labels := calibtest.Synth(12, 4, 2, 3)
	ctxs := []string{"c011", "c010", "c009", "c008", "c007", "c006", "c005", "c004", "c003", "c002", "c001", "c000", "extra"}
	opts.Order = ctxs
	r, w, err := Fit(context.Background(), rows, labels, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Order, ctxs[:12]) || !strings.Contains(strings.Join(w, ""), "ignored 1 ids") {
		t.Errorf("order %v, warnings %v", r.Order, w)
	}
	if !slices.Equal(r.Folds[0].TestContexts, []string{"c011", "c010", "c009"}) {
		t.Errorf("fold 1 tests %v", r.Folds[0].TestContexts)
	}
	if r.Metric != "pairwise" || r.Methods.Vanilla.Mean < 0 || r.Methods.Vanilla.Mean > 1 {
		t.Errorf("pairwise report: %s %v", r.Metric, r.Methods.Vanilla.Mean)
	}
	opts.Order = ctxs[1:]
	if _, _, err := Fit(context.Background(), rows, labels, opts); err == nil || !strings.Contains(err.Error(), `"c011"`) {
		t.Errorf("order missing a context: %v", err)
	}
}

func TestFitTooFewContexts(t *testing.T) {
	rows, labels := calibtest.Synth(4, 4, 1, 3)
	opts := DefaultOptions()
	opts.LabelsFile = "L.csv"
	_, _, err := Fit(context.Background(), rows, labels, opts)
	if err == nil || !strings.Contains(err.Error(), "L.csv") || !strings.Contains(err.Error(), "only 4 contexts") {
		t.Errorf("error %v", err)
	}
}

func TestFitCancelled(t *testing.T) {
	rows, labels := calibtest.Synth(10, 4, 1, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Fit(ctx, rows, labels, DefaultOptions()); err != context.Canceled {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

func TestBestGamma(t *testing.T) {
	grid := []float64{1e-3, 1e-2, 1e-1, 1, 10, 100, 1000}
	for _, tc := range []struct {
		cv   []float64
		want int
	}{
		{[]float64{0.1, 0.5, 0.3, 0.2, 0.1, 0, 0}, 1},
		// Exact ties go to the largest γ.
		{[]float64{0.5, 0.5, 0.3, 0.5, 0.1, 0, 0}, 3},
		{[]float64{0, 0, 0, 0, 0, 0, 0}, 6},
		// No tolerance: a score 1 ulp lower loses.
		{[]float64{0.5, 0.3, 0.3, 0.3, 0.3, 0.3, math.Nextafter(0.5, 0)}, 0},
	} {
		if got := bestGamma(tc.cv, grid); got != tc.want {
			t.Errorf("bestGamma(%v) = %d, want %d", tc.cv, got, tc.want)
		}
	}
}

// Options.Progress sees every outer fold and then the bootstrap, one step
// at a time, within-context (folds in parallel) and global (in order);
// the report is the same with and without it.
func TestFitProgress(t *testing.T) {
	for _, global := range []bool{false, true} {
		rows, labels := calibtest.Synth(40, 6, 3, 11)
		opts := DefaultOptions()
		opts.Bootstrap = 200
		opts.Global = global
		plain, _, err := Fit(context.Background(), rows, labels, opts)
		if err != nil {
			t.Fatal(err)
		}
		var dones, totals []int
		opts.Progress = func(done, total int) {
			dones, totals = append(dones, done), append(totals, total)
		}
		r, _, err := Fit(context.Background(), rows, labels, opts)
		if err != nil {
			t.Fatal(err)
		}
		want := []int{1, 2, 3, 4, 5, 6} // 5 folds, then the bootstrap
		if !slices.Equal(dones, want) {
			t.Errorf("global %v: progress %v, want %v", global, dones, want)
		}
		for _, tot := range totals {
			if tot != opts.Folds+1 {
				t.Errorf("global %v: total %d, want %d", global, tot, opts.Folds+1)
			}
		}
		if r.Methods.PRISM.Mean != plain.Methods.PRISM.Mean || r.Methods.PRISM.CI != plain.Methods.PRISM.CI {
			t.Errorf("global %v: a progress callback changed the fit", global)
		}
	}
}

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

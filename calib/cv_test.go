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

package calib

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"

	"github.com/prism-eval/prism/calib/internal/calibtest"

	"github.com/prism-eval/prism/calib/forest"

	"github.com/prism-eval/prism/model"
	"gonum.org/v1/gonum/mat"
)

// rubricScores builds a baseline's scores over the labelled candidates of
// labels: criterion c of a candidate is f(c, human, baseline s0 of rows).
func rubricScores(rows []model.ScoreRow, labels []model.Label, p int, f func(c int, human, s0 float64, rng *rand.Rand) float64) map[[2]string][]float64 {
	s0 := map[[2]string]float64{}
	for _, r := range rows {
		if r.Probe == "baseline" {
			s0[[2]string{r.Context, r.Candidate}] = r.Score
		}
	}
	rng := rand.New(rand.NewPCG(3, 9))
	out := map[[2]string][]float64{}
	for _, l := range labels {
		k := [2]string{l.Context, l.Candidate}
		v := make([]float64, p)
		for c := range v {
			v[c] = f(c, l.Human, s0[k], rng)
		}
		out[k] = v
	}
	return out
}

func criteria(p int) []string {
	out := make([]string, p)
	for c := range out {
		out[c] = string(rune('a'+c%26)) + string(rune('0'+c/26))
	}
	return out
}

// signalBaselines returns a forest and a ridge head on 4 criteria of which
// the first two carry the human score (rounded to a 1–9 scale), and a
// G-Eval on the same ratings.
func signalBaselines(rows []model.ScoreRow, labels []model.Label) []Baseline {
	scores := rubricScores(rows, labels, 4, func(c int, y, _ float64, rng *rand.Rand) float64 {
		v := 5 + rng.NormFloat64()
		if c < 2 {
			v = 5 + 2*y + 0.3*rng.NormFloat64()
		}
		return math.Max(1, math.Min(9, math.Round(v)))
	})
	scales := [][2]float64{{1, 9}, {1, 9}, {1, 9}, {1, 9}}
	fo := forest.DefaultOptions()
	fo.Trees = 50
	return []Baseline{
		{Name: "saja", Criteria: criteria(4), Scales: scales, Scores: scores, Forest: fo, CallsPerCandidate: 1},
		{Name: "saja_ridge", Kind: BaselineRidge, Criteria: criteria(4), Scores: scores},
		{Name: "geval", Kind: BaselineGEval, Criteria: criteria(4), Scales: scales, Scores: scores},
	}
}

func TestBaselineSignal(t *testing.T) {
	rows, labels := calibtest.Synth(30, 8, 3, 5)
	opts := DefaultOptions()
	opts.Bootstrap = 300
	opts.Baselines = signalBaselines(rows, labels)
	r, _, err := Fit(context.Background(), rows, labels, opts)
	if err != nil {
		t.Fatal(err)
	}
	van := r.Methods.Vanilla.Mean
	for _, name := range []string{"saja", "saja_ridge"} {
		b := r.Baselines[name]
		if b == nil {
			t.Fatalf("no result for %s", name)
		}
		t.Logf("%s: %.3f %v vs vanilla %.3f, prism %.3f; diff %+v, vs prism %+v, γ %v", name, b.Mean, b.CI, van, r.Methods.PRISM.Mean, *b.DiffVsVanilla, *b.DiffVsPRISM, b.Gammas)
		if !(b.Mean > van) || !(b.DiffVsVanilla.CI[0] > 0) {
			t.Errorf("%s: %.3f (diff CI %v) does not beat vanilla %.3f", name, b.Mean, b.DiffVsVanilla.CI, van)
		}
		if len(b.PerContext) != 30 {
			t.Errorf("%s: %d contexts", name, len(b.PerContext))
		}
		if math.Abs(b.DiffVsPRISM.Mean-(b.Mean-r.Methods.PRISM.Mean)) > 1e-15 {
			t.Errorf("%s: diff vs PRISM %v", name, b.DiffVsPRISM.Mean)
		}
	}
	if g := r.Baselines["saja_ridge"].Gammas; len(g) != opts.Folds {
		t.Errorf("ridge γ per fold: %v", g)
	}
	if f := r.Baselines["saja"].Forest; f == nil || f.Trees != 50 || f.Seed != 42 || r.Baselines["geval"].Forest != nil {
		t.Errorf("forest spec %+v", f)
	}
	if r.Baselines["saja"].CallsPerCandidate != 1 || r.Baselines["saja"].Kind != BaselineForest {
		t.Errorf("saja: %+v", r.Baselines["saja"])
	}
}

// TestBaselinesLeaveMethodsUnchanged: adding baselines changes no other
// number of the report, bit for bit.
func TestBaselinesLeaveMethodsUnchanged(t *testing.T) {
	for _, metric := range []string{model.MetricSpearman, model.MetricPairwise} {
		rows, labels := calibtest.Synth(20, 6, 3, 8)
		opts := DefaultOptions()
		opts.Metric = metric
		opts.Bootstrap = 200
		opts.Taylor = true
		plain, _, err := Fit(context.Background(), rows, labels, opts)
		if err != nil {
			t.Fatal(err)
		}
		opts.Baselines = signalBaselines(rows, labels)
		with, _, err := Fit(context.Background(), rows, labels, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(with.Baselines) != 3 {
			t.Fatalf("%s: %d baselines", metric, len(with.Baselines))
		}
		with.Baselines = nil
		if !reflect.DeepEqual(plain, with) {
			t.Errorf("%s: the report changed when baselines were added", metric)
		}
	}
}

// TestBaselineVanillaTwin: a G-Eval whose one criterion is s0 ranks as
// Vanilla in every context, so its values, interval and paired difference
// are Vanilla's exactly, and its difference from PRISM mirrors PRISM's
// from Vanilla.
func TestBaselineVanillaTwin(t *testing.T) {
	for _, global := range []bool{false, true} {
		rows, labels := calibtest.Synth(20, 6, 3, 4)
		opts := DefaultOptions()
		opts.Bootstrap = 500
		opts.Global = global
		scores := rubricScores(rows, labels, 1, func(_ int, _, s0 float64, _ *rand.Rand) float64 { return s0 })
		opts.Baselines = []Baseline{{Name: "twin", Kind: BaselineGEval, Criteria: []string{"s0"}, Scales: [][2]float64{{-100, 100}}, Scores: scores}}
		r, _, err := Fit(context.Background(), rows, labels, opts)
		if err != nil {
			t.Fatal(err)
		}
		b, v, p := r.Baselines["twin"], r.Methods.Vanilla, r.Methods.PRISM
		if b.Mean != v.Mean || b.CI != v.CI || !reflect.DeepEqual(b.PerContext, v.PerContext) {
			t.Errorf("global %v: twin %v %v, vanilla %v %v", global, b.Mean, b.CI, v.Mean, v.CI)
		}
		if b.DiffVsVanilla.Mean != 0 || b.DiffVsVanilla.CI != [2]float64{0, 0} {
			t.Errorf("global %v: twin − vanilla %+v, want 0 [0 0]", global, *b.DiffVsVanilla)
		}
		d, pd := b.DiffVsPRISM, p.DiffVsVanilla
		if math.Abs(d.Mean+pd.Mean) > 1e-15 || math.Abs(d.CI[0]+pd.CI[1]) > 1e-12 || math.Abs(d.CI[1]+pd.CI[0]) > 1e-12 {
			t.Errorf("global %v: twin − prism %+v, prism − vanilla %+v", global, *d, *pd)
		}
	}
}

// TestBaselineGEvalHand checks the G-Eval mapping and the training-mean
// imputation on a hand-computed example.
func TestBaselineGEvalHand(t *testing.T) {
	d := &Design{Contexts: []string{"g", "h"}, Candidates: [][]string{{"x", "y"}, {"u", "w"}}, Off: []int{0, 2, 4},
		S0: make([]float64, 4), Human: []float64{1, 2, 3, 4}}
	nan := math.NaN()
	b := Baseline{Name: "geval", Kind: BaselineGEval, Criteria: []string{"fluency", "coherence"}, Scales: [][2]float64{{1, 3}, {1, 5}},
		Scores: map[[2]string][]float64{
			{"g", "x"}: {2, 5},   // (0.5 + 1)/2 = 0.75
			{"g", "y"}: {3, nan}, // coherence missing: training mean
			{"h", "u"}: {1, 2},
			{"h", "w"}: {4, 4}, // fluency out of scale: training mean
		}}
	bd, err := prepareBaseline(d, b)
	if err != nil {
		t.Fatal(err)
	}
	if bd.res.Missing["fluency"] != 1 || bd.res.Missing["coherence"] != 1 || bd.res.OutOfScale != 1 || bd.res.Absent != 0 {
		t.Errorf("counts %+v", bd.res)
	}
	ctxs := func(units []int) []int { return contextRows(d, units) }
	sp := baselineSpace{rowsOf: ctxs}
	// Train on h (means: fluency 1, coherence 3), test g.
	if _, err := fitBaselineFold(context.Background(), bd, sp, d.Human, []int{1}, []int{0}, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	// Train on g (means: fluency 2.5, coherence 5), test h.
	if _, err := fitBaselineFold(context.Background(), bd, sp, d.Human, []int{0}, []int{1}, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	want := []float64{
		((2.0-1)/2 + (5.0-1)/4) / 2, // 0.75
		((3.0-1)/2 + (3.0-1)/4) / 2, // coherence imputed with h's 3
		((1.0-1)/2 + (2.0-1)/4) / 2,
		((2.5-1)/2 + (4.0-1)/4) / 2, // fluency imputed with g's 2.5
	}
	for i := range want {
		if bd.pred[i] != want[i] {
			t.Errorf("row %d: %v, want %v", i, bd.pred[i], want[i])
		}
	}
}

func TestBaselineMissingCounted(t *testing.T) {
	rows, labels := calibtest.Synth(10, 5, 2, 6)
	scores := rubricScores(rows, labels, 3, func(c int, y, _ float64, rng *rand.Rand) float64 { return math.Round(3 + y) })
	scores[[2]string{"c000", "m00"}][1] = math.NaN()
	scores[[2]string{"c001", "m01"}][2] = 99 // out of the 1–5 scale
	scores[[2]string{"c001", "m02"}][2] = math.Inf(1)
	delete(scores, [2]string{"c002", "m03"})
	for k, v := range scores { // keep the rest inside the scale
		for c := range v {
			if !math.IsNaN(v[c]) && !math.IsInf(v[c], 0) && v[c] != 99 {
				v[c] = math.Max(1, math.Min(5, v[c]))
			}
		}
		scores[k] = v
	}
	scales := [][2]float64{{1, 5}, {1, 5}, {1, 5}}
	opts := DefaultOptions()
	opts.Bootstrap = 50
	fo := forest.DefaultOptions()
	fo.Trees = 20
	opts.Baselines = []Baseline{{Name: "saja", Criteria: []string{"a", "b", "c"}, Scales: scales, Scores: scores, Forest: fo}}
	r, _, err := Fit(context.Background(), rows, labels, opts)
	if err != nil {
		t.Fatal(err)
	}
	b := r.Baselines["saja"]
	want := map[string]int{"a": 1, "b": 2, "c": 3}
	if !reflect.DeepEqual(b.Missing, want) || b.OutOfScale != 1 || b.Absent != 1 {
		t.Errorf("missing %v out of scale %d absent %d; want %v, 1, 1", b.Missing, b.OutOfScale, b.Absent, want)
	}
}

func TestBaselineErrors(t *testing.T) {
	rows, labels := calibtest.Synth(6, 4, 2, 6)
	scores := rubricScores(rows, labels, 2, func(c int, y, _ float64, _ *rand.Rand) float64 { return y })
	allNaN := rubricScores(rows, labels, 2, func(c int, y, _ float64, _ *rand.Rand) float64 {
		if c == 1 {
			return math.NaN()
		}
		return y
	})
	cr := []string{"a", "b"}
	for name, b := range map[string][]Baseline{
		"empty name":    {{Criteria: cr, Scores: scores}},
		"method name":   {{Name: "prism", Criteria: cr, Scores: scores}},
		"twice":         {{Name: "x", Criteria: cr, Scores: scores}, {Name: "x", Criteria: cr, Scores: scores}},
		"kind":          {{Name: "x", Kind: "svm", Criteria: cr, Scores: scores}},
		"no criteria":   {{Name: "x", Scores: scores}},
		"geval scales":  {{Name: "x", Kind: BaselineGEval, Criteria: cr, Scores: scores}},
		"scale count":   {{Name: "x", Criteria: cr, Scales: [][2]float64{{1, 5}}, Scores: scores}},
		"flat scale":    {{Name: "x", Criteria: cr, Scales: [][2]float64{{1, 5}, {3, 3}}, Scores: scores}},
		"row length":    {{Name: "x", Criteria: []string{"a"}, Scores: scores}},
		"empty column":  {{Name: "x", Criteria: cr, Scores: allNaN}},
		"forest option": {{Name: "x", Criteria: cr, Scores: scores, Forest: forest.Options{Trees: 3, MaxFeatures: 5}}},
	} {
		opts := DefaultOptions()
		opts.Bootstrap = 10
		opts.Baselines = b
		if _, _, err := Fit(context.Background(), rows, labels, opts); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

// TestBaselinesDeterministic: the same report for any GOMAXPROCS.
func TestBaselinesDeterministic(t *testing.T) {
	rows, labels := calibtest.Synth(20, 6, 3, 12)
	opts := DefaultOptions()
	opts.Bootstrap = 100
	opts.Baselines = signalBaselines(rows, labels)
	var reports []*Report
	for _, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		r, _, err := Fit(context.Background(), rows, labels, opts)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		reports = append(reports, r)
	}
	if !reflect.DeepEqual(reports[0], reports[1]) {
		t.Error("reports differ with GOMAXPROCS")
	}
}

func TestBaselineGlobal(t *testing.T) {
	rows, labels := calibtest.Synth(10, 8, 3, 5)
	opts := DefaultOptions()
	opts.Bootstrap = 100
	opts.Global = true
	opts.Baselines = signalBaselines(rows, labels)
	r, _, err := Fit(context.Background(), rows, labels, opts)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range r.Baselines {
		t.Logf("%s: %.3f %v vs vanilla %.3f", name, b.Mean, b.CI, r.Methods.Vanilla.Mean)
		if name != "geval" && !(b.Mean > r.Methods.Vanilla.Mean) {
			t.Errorf("%s: %.3f does not beat vanilla %.3f", name, b.Mean, r.Methods.Vanilla.Mean)
		}
		if _, ok := b.PerContext[GlobalContext]; !ok {
			t.Errorf("%s: per context %v", name, b.PerContext)
		}
	}
}

// BenchmarkFitForestBaseline times a whole SummEval-sized fit (100
// contexts × 16 candidates, 16 attributes) with a 28-criterion SAJA
// forest head (300 trees) on the 5 outer folds.
func BenchmarkFitForestBaseline(b *testing.B) {
	rows, labels := calibtest.Synth(100, 16, 16, 1)
	scores := rubricScores(rows, labels, 28, func(c int, y, _ float64, rng *rand.Rand) float64 {
		return math.Max(1, math.Min(10, math.Round(5.5+y*float64(c%4)/3+rng.NormFloat64())))
	})
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		b.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Baselines = []Baseline{{Name: "saja_granular", Criteria: criteria(28), Scores: scores}}
	b.ReportAllocs()
	for b.Loop() {
		r, _, err := FitDesign(context.Background(), d, opts)
		if err != nil {
			b.Fatal(err)
		}
		sinkReport = r
	}
}

func TestBaselineCancel(t *testing.T) {
	rows, labels := calibtest.Synth(20, 6, 3, 12)
	opts := DefaultOptions()
	opts.Bootstrap = 10
	opts.Baselines = signalBaselines(rows, labels)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Fit(ctx, rows, labels, opts); err == nil {
		t.Error("a cancelled fit returned no error")
	}
}

// TestBaselineForestSameFolds refits the forest head by hand on each
// outer fold's training contexts, as listed in the report, and finds the
// report's per-context values bit for bit.
func TestBaselineForestSameFolds(t *testing.T) {
	rows, labels := calibtest.Synth(15, 6, 2, 21)
	opts := DefaultOptions()
	opts.Bootstrap = 20
	bl := signalBaselines(rows, labels)[0]
	for k, v := range bl.Scores { // a few missing cells, to exercise the imputation
		if k[1] == "m01" {
			v[0] = math.NaN()
		}
	}
	opts.Baselines = []Baseline{bl}
	r, _, err := Fit(context.Background(), rows, labels, opts)
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := len(bl.Criteria)
	for _, fold := range r.Folds {
		test := map[string]bool{}
		for _, c := range fold.TestContexts {
			test[c] = true
		}
		var xtr, ytr []float64
		sum, cnt := make([]float64, p), make([]float64, p)
		for g, c := range d.Contexts { // design order
			if test[c] {
				continue
			}
			for i, cand := range d.Candidates[g] {
				for j, v := range bl.Scores[[2]string{c, cand}] {
					if !math.IsNaN(v) {
						sum[j] += v
						cnt[j]++
					}
				}
				ytr = append(ytr, d.Human[d.Off[g]+i])
			}
		}
		row := func(c, cand string) []float64 {
			out := make([]float64, p)
			for j, v := range bl.Scores[[2]string{c, cand}] {
				if math.IsNaN(v) {
					v = sum[j] / cnt[j]
				}
				out[j] = v
			}
			return out
		}
		for g, c := range d.Contexts {
			if !test[c] {
				for _, cand := range d.Candidates[g] {
					xtr = append(xtr, row(c, cand)...)
				}
			}
		}
		fo, err := forest.Fit(context.Background(), xtr, len(ytr), p, ytr, bl.Forest)
		if err != nil {
			t.Fatal(err)
		}
		for g, c := range d.Contexts {
			if !test[c] {
				continue
			}
			var pred []float64
			for _, cand := range d.Candidates[g] {
				pred = append(pred, fo.Predict(row(c, cand)))
			}
			if got, want := r.Baselines["saja"].PerContext[c], Spearman(pred, d.Human[d.Off[g]:d.Off[g+1]]); got != want {
				t.Errorf("fold %d context %s: %v, refit by hand %v", fold.Fold, c, got, want)
			}
		}
	}
}

// TestRidgeHeadSolve checks the ridge head against a direct solve of its
// normal equations.
func TestRidgeHeadSolve(t *testing.T) {
	rows, labels := calibtest.Synth(6, 5, 2, 3)
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	scores := rubricScores(rows, labels, 3, func(c int, y, _ float64, rng *rand.Rand) float64 { return float64(c+1)*y + rng.NormFloat64() })
	bd, err := prepareBaseline(d, Baseline{Name: "r", Kind: BaselineRidge, Criteria: criteria(3), Scores: scores})
	if err != nil {
		t.Fatal(err)
	}
	train := contextRows(d, []int{0, 2, 3, 5})
	h, err := bd.fitRidge(train, d.Human)
	if err != nil {
		t.Fatal(err)
	}
	const gamma = 0.1
	all := contextRows(d, []int{0, 1, 2, 3, 4, 5})
	pred := make([]float64, d.Rows())
	h.predictRows(bd, gamma, all, bd.fill(all, h.mu), pred)
	// Direct: centered X and y over train, (XᵀX + μI)β = Xᵀy.
	p := 3
	n := float64(len(train))
	mx, my := make([]float64, p), 0.0
	for _, r := range train {
		for c := 0; c < p; c++ {
			mx[c] += bd.x[r*p+c] / n
		}
		my += d.Human[r] / n
	}
	a, b := mat.NewDense(p, p, nil), mat.NewVecDense(p, nil)
	for _, r := range train {
		for c := 0; c < p; c++ {
			for e := 0; e < p; e++ {
				a.Set(c, e, a.At(c, e)+(bd.x[r*p+c]-mx[c])*(bd.x[r*p+e]-mx[e]))
			}
			b.SetVec(c, b.AtVec(c)+(bd.x[r*p+c]-mx[c])*(d.Human[r]-my))
		}
	}
	mu := gamma * (a.At(0, 0) + a.At(1, 1) + a.At(2, 2)) / float64(p)
	for c := 0; c < p; c++ {
		a.Set(c, c, a.At(c, c)+mu)
	}
	var beta mat.VecDense
	if err := beta.SolveVec(a, b); err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		want := my
		for c := 0; c < p; c++ {
			want += (bd.x[r*p+c] - mx[c]) * beta.AtVec(c)
		}
		if math.Abs(pred[r]-want) > 1e-9*(1+math.Abs(want)) {
			t.Errorf("row %d: %v, direct %v", r, pred[r], want)
		}
	}
}

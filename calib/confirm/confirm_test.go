package confirm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prism-eval/prism/calib"

	"github.com/prism-eval/prism/calib/internal/calibtest"

	"github.com/prism-eval/prism/calib/forest"

	"github.com/prism-eval/prism/model"
)

// The split's hash and side for a few ids, computed independently with
//
//	python3 -c 'import hashlib;[print(repr(b),repr(c),hashlib.sha256(b.encode()+b"\0"+c.encode()).hexdigest()[:16],int.from_bytes(hashlib.sha256(b.encode()+b"\0"+c.encode()).digest()[:8],"big")>=2**63) for b,c in [("summeval","M0"),("summeval","dm-test-8764fb95bfad8ee849274873a92fb8d6b400eee2"),("demo","bay-quotas"),("demo","heat-wave"),("hanna",""),("","x"),("ab","c"),("a","bc"),("topical-chat","t_0"),("bench","é")]]'
func TestConfirmSplitHand(t *testing.T) {
	for _, tc := range []struct {
		bench, id string
		hash      string // first 8 bytes, hex
		confirm   bool
	}{
		{"summeval", "M0", "a52e0854f04b85d7", true},
		{"summeval", "dm-test-8764fb95bfad8ee849274873a92fb8d6b400eee2", "aa287cd1abce85e9", true},
		{"demo", "bay-quotas", "34f7e38360bd2406", false},
		{"demo", "heat-wave", "83e771e2e8861670", true},
		{"hanna", "", "42810941a9f77b3d", false},
		{"", "x", "3c7e9bc930dc93f0", false},
		{"ab", "c", "6c032e631d39a14d", false},
		{"a", "bc", "40bb547d936bbd31", false}, // the 0x00 separator keeps ("ab","c") and ("a","bc") apart
		{"topical-chat", "t_0", "54517b2cd9edcd06", false},
		{"bench", "é", "742b214586228d0a", false},
	} {
		if got := fmt.Sprintf("%016x", SplitHash(tc.bench, tc.id)); got != tc.hash {
			t.Errorf("SplitHash(%q, %q) = %s, want %s", tc.bench, tc.id, got, tc.hash)
		}
		if got := ConfirmSplit(tc.bench, tc.id); got != tc.confirm {
			t.Errorf("ConfirmSplit(%q, %q) = %v, want %v", tc.bench, tc.id, got, tc.confirm)
		}
	}
}

// With benchmark "t", contexts g4 g5 g7 g10 g12 g14 are exploration and
// g0 g1 g2 … confirmation:
//
//	python3 -c 'import hashlib;print([("g%d"%i, hashlib.sha256(b"t\0g%d"%i).digest()[0]>=128) for i in range(15)])'
var (
	handExplore = []string{"g4", "g5", "g7", "g10", "g12", "g14"}
	handConfirm = []string{"g0", "g1", "g2"}
)

// handStudy is a small study under benchmark "t": one attribute a, one
// neutral clause, two runs. Exploration contexts have 4 candidates with
// pseudo-random scores; the confirmation contexts are set by hand:
//
//	g0: s0 1 1 2 3, human 1 2 2 0  (a reference tie and a predicted tie)
//	g1: human 5 5 5              (no unequal pair: not eligible)
//	g2: s0 3 2 1,  human 3 2 1
func handStudy() ([]model.ScoreRow, []model.Label) {
	var rows []model.ScoreRow
	var labels []model.Label
	add := func(ctx, cand string, s0, plus, minus, human float64, k int) {
		for run := 1; run <= 2; run++ {
			rs := fmt.Sprint(run)
			e := 0.01 * float64(run)
			rows = append(rows,
				model.ScoreRow{Context: ctx, Candidate: cand, Probe: "baseline", Score: s0, Run: rs},
				model.ScoreRow{Context: ctx, Candidate: cand, Probe: "a:+", Score: plus + e, Run: rs},
				model.ScoreRow{Context: ctx, Candidate: cand, Probe: "a:-", Score: minus - e, Run: rs},
				model.ScoreRow{Context: ctx, Candidate: cand, Probe: "neutral:n", Score: s0 + 0.001*float64(k%3), Run: rs})
		}
		labels = append(labels, model.Label{Context: ctx, Candidate: cand, Human: human})
	}
	for g, ctx := range handExplore {
		for i := 0; i < 4; i++ {
			a := math.Sin(float64(5*g+3*i+1) * 1.3)
			b := math.Cos(float64(7*g+2*i+1) * 0.7)
			add(ctx, fmt.Sprintf("x%d", i), 3+a, 3+a+0.6*b, 3+a-0.5*b, a+b, g+i)
		}
	}
	for i, s := range []float64{1, 1, 2, 3} {
		h := []float64{1, 2, 2, 0}[i]
		add("g0", fmt.Sprintf("x%d", i), s, s+0.3*float64(i), s-0.2*float64(i), h, i)
	}
	for i := 0; i < 3; i++ {
		add("g1", fmt.Sprintf("x%d", i), float64(i), float64(i)+1, float64(i)-1, 5, i)
	}
	for i, s := range []float64{3, 2, 1} {
		add("g2", fmt.Sprintf("x%d", i), s, s+0.1*float64(i*i), s-0.4, s, i)
	}
	return rows, labels
}

func handOptions() Options {
	o := DefaultOptions()
	o.Benchmark = "t"
	o.Bootstrap = 400
	o.Screen.Bootstrap = 200
	return o
}

func TestConfirmMetricHand(t *testing.T) {
	rows, labels := handStudy()
	o := handOptions()
	// A G-Eval baseline (no head) on one criterion with scale [0, 10]:
	// g0 rates 2 2 5 1 against humans 1 2 2 0: ½ + 1 + 1 + 1 + 1 over 5
	// pairs = 0.9; g2 rates 1 2 3 against 3 2 1: 0. Mean 0.45.
	ge := calib.Baseline{Name: "geval", Kind: calib.BaselineGEval, Criteria: []string{"overall"}, Scales: [][2]float64{{0, 10}}, Scores: map[[2]string][]float64{}}
	for i, v := range []float64{2, 2, 5, 1} {
		ge.Scores[[2]string{"g0", fmt.Sprintf("x%d", i)}] = []float64{v}
	}
	for i, v := range []float64{1, 2, 3} {
		ge.Scores[[2]string{"g2", fmt.Sprintf("x%d", i)}] = []float64{v}
	}
	for _, l := range labels {
		if _, ok := ge.Scores[[2]string{l.Context, l.Candidate}]; !ok && l.Context != "g1" {
			ge.Scores[[2]string{l.Context, l.Candidate}] = []float64{7}
		}
	}
	o.Baselines = []calib.Baseline{ge}
	r, _, err := Confirm(context.Background(), rows, labels, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Baselines) != 1 {
		t.Fatalf("%d baselines", len(r.Baselines))
	}
	if b := r.Baselines[0]; b.PerContext["g0"] != 0.9 || b.PerContext["g2"] != 0 || b.Mean != 0.45 || b.DiffVsVanilla == nil || b.Absent != 3 {
		t.Errorf("G-Eval on confirmation: %+v, want g0 0.9, g2 0, mean 0.45, 3 absent candidates (g1)", b)
	}
	s := r.Split
	if !slices.Equal(s.Exploration, sortedCopy(handExplore)) || !slices.Equal(s.Confirmation, sortedCopy(handConfirm)) {
		t.Fatalf("split %v / %v", s.Exploration, s.Confirmation)
	}
	if !slices.Equal(s.Eligible, []string{"g0", "g2"}) || s.EvalPairs != 5+3 {
		t.Fatalf("eligible %v, %d pairs; want g0 g2 and 8 pairs", s.Eligible, s.EvalPairs)
	}
	// g0 by hand: pairs with unequal humans (0,1) tie in s0: ½; (0,2) agree: 1;
	// (0,3), (1,3), (2,3) disagree: 0; (1,2) is a reference tie, omitted.
	// 1.5/5 = 0.3. g2: 1. The mean over eligible contexts: 0.65.
	if v := r.Vanilla.PerContext; len(v) != 2 || v["g0"] != 0.3 || v["g2"] != 1 {
		t.Fatalf("Vanilla per context %v, want g0 0.3, g2 1", v)
	}
	if r.Vanilla.Mean != 0.65 {
		t.Errorf("Vanilla mean %v, want 0.65", r.Vanilla.Mean)
	}
	// PRISM on g0 recomputed from its coefficients: ŷ = s0 − J̃β.
	p := r.Pools[slices.IndexFunc(r.Pools, func(p *Pool) bool { return p.Name == PoolAll })]
	bp, bm := p.PRISM.Coef["a:+"], p.PRISM.Coef["a:-"]
	s0 := []float64{1, 1, 2, 3}
	var jp, jm [4]float64
	var mp, mm float64
	for i, x := range s0 {
		// the run offsets ±0.01, ±0.02 average to ±0.015
		jp[i] = (x + 0.3*float64(i) + 0.015) - x
		jm[i] = x - (x - 0.2*float64(i) - 0.015)
		mp += jp[i] / 4
		mm += jm[i] / 4
	}
	pred := make([]float64, 4)
	for i, x := range s0 {
		pred[i] = x - ((jp[i]-mp)*bp + (jm[i]-mm)*bm)
	}
	want, _ := calib.PairwiseAccuracy(pred, []float64{1, 2, 2, 0})
	if got := p.PRISM.PerContext["g0"]; math.Abs(got-want) > 1e-12 {
		t.Errorf("PRISM g0 %v, recomputed %v (β %v, %v)", got, want, bp, bm)
	}
	if _, ok := p.PRISM.PerContext["g1"]; ok {
		t.Error("the ineligible context g1 has a PRISM value")
	}
}

func sortedCopy(s []string) []string { return slices.Sorted(slices.Values(s)) }

// confirmFixture is the cross-check study under benchmark "crosscheck"
// (11 exploration, 12 confirmation contexts), confirmed once per package.
var confirmFixture = sync.OnceValues(func() (*Report, error) {
	rows, labels, order, err := crossCheckFiles()
	if err != nil {
		return nil, err
	}
	o := crossCheckConfirmOptions(order)
	r, _, err := Confirm(context.Background(), rows, labels, o)
	return r, err
})

func crossCheckConfirmOptions(order []string) Options {
	o := DefaultOptions()
	o.Benchmark = "crosscheck"
	o.Order = order
	o.Bootstrap = 500
	o.Screen.Bootstrap = 200
	// A forest head on two made-up criteria (docs/protocol.md §12): one
	// follows the human score, one does not.
	_, labels, _, _ := crossCheckFiles()
	fo := forest.DefaultOptions()
	fo.Trees = 25
	b := calib.Baseline{Name: "saja", Kind: calib.BaselineForest, Criteria: []string{"c1", "c2"}, Forest: fo, Scores: map[[2]string][]float64{}}
	for i, l := range labels {
		b.Scores[[2]string{l.Context, l.Candidate}] = []float64{math.Round(2 * (l.Human + math.Sin(float64(i)))), math.Cos(float64(3 * i))}
	}
	o.Baselines = []calib.Baseline{b}
	return o
}

// exploredParts is everything of a report that exploration alone decides:
// the screen, and each pool's units, γ, CV scores, α and coefficients.
func exploredParts(t *testing.T, r *Report) string {
	t.Helper()
	type fit struct {
		Gamma, Alpha, CVScore float64
		CV                    []float64
		Coef                  map[string]float64
	}
	var parts []any
	parts = append(parts, r.Screen, r.Order, r.Split.Exploration)
	for _, p := range r.Pools {
		parts = append(parts, p.Name, p.Units, p.Forward, p.ForwardStop)
		for _, m := range []calib.Method{calib.PRISM, calib.AlphaPRISM, calib.Half} {
			if f := p.Fit(m); f != nil {
				parts = append(parts, fit{f.Gamma, f.Alpha, f.CVScore, f.CV, f.Coef})
			}
		}
	}
	b, err := json.Marshal(parts)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestConfirmExplorationOnly(t *testing.T) {
	base, err := confirmFixture()
	if err != nil {
		t.Fatal(err)
	}
	rows, labels, order, err := crossCheckFiles()
	if err != nil {
		t.Fatal(err)
	}
	run := func(change func(l *model.Label)) *Report {
		ls := slices.Clone(labels)
		for i := range ls {
			change(&ls[i])
		}
		r, _, err := Confirm(context.Background(), rows, ls, crossCheckConfirmOptions(order))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	// Reverse every confirmation label: nothing fitted or screened moves,
	// the confirmation scores do.
	conf := run(func(l *model.Label) {
		if ConfirmSplit("crosscheck", l.Context) {
			l.Human = -l.Human
		}
	})
	if a, b := exploredParts(t, base), exploredParts(t, conf); a != b {
		t.Errorf("changing confirmation labels changed the exploration fit:\n%s\n%s", a, b)
	}
	// Reversed labels turn each pair's credit c into 1 − c, so a predictor
	// fitted without confirmation labels scores exactly 1 − its value in
	// every context: Vanilla, every pool's fits and the forest head.
	pairs := [][2]*Score{{base.Vanilla, conf.Vanilla}, {&base.Baselines[0].Score, &conf.Baselines[0].Score}}
	for i, p := range base.Pools {
		for _, m := range []calib.Method{calib.PRISM, calib.AlphaPRISM, calib.Half} {
			if f := p.Fit(m); f != nil {
				pairs = append(pairs, [2]*Score{&f.Score, &conf.Pools[i].Fit(m).Score})
			}
		}
	}
	for k, pr := range pairs {
		for c, v := range pr[0].PerContext {
			if w := pr[1].PerContext[c]; math.Abs(w-(1-v)) > 1e-12 {
				t.Errorf("row %d context %s: %v with reversed confirmation labels, want 1 − %v", k, c, w, v)
			}
		}
	}
	if len(pairs) < 10 {
		t.Fatalf("%d rows compared", len(pairs))
	}
	if conf.Vanilla.Mean == base.Vanilla.Mean || conf.Pools[0].PRISM.Mean == base.Pools[0].PRISM.Mean {
		t.Errorf("reversed confirmation labels left the confirmation scores at %v, %v", conf.Vanilla.Mean, conf.Pools[0].PRISM.Mean)
	}
	// Change one exploration label: the fit sees it.
	expl := run(func(l *model.Label) {
		if l.Context == base.Split.Exploration[0] && l.Candidate == "x0" {
			l.Human += 3
		}
	})
	if a, b := exploredParts(t, base), exploredParts(t, expl); a == b {
		t.Error("changing an exploration label changed nothing of the exploration fit")
	}
	if expl.Vanilla.Mean != base.Vanilla.Mean {
		t.Errorf("an exploration label moved Vanilla's confirmation score: %v vs %v", expl.Vanilla.Mean, base.Vanilla.Mean)
	}
}

// The all-units pool is the calibrator prism fit --save would build from
// the exploration contexts alone: the same γ, α and coefficients, bit for
// bit.
func TestConfirmEqualsExplorationCalibrator(t *testing.T) {
	r, err := confirmFixture()
	if err != nil {
		t.Fatal(err)
	}
	rows, labels, _, err := crossCheckFiles()
	if err != nil {
		t.Fatal(err)
	}
	var er []model.ScoreRow
	var el []model.Label
	for _, x := range rows {
		if !ConfirmSplit("crosscheck", x.Context) {
			er = append(er, x)
		}
	}
	for _, l := range labels {
		if !ConfirmSplit("crosscheck", l.Context) {
			el = append(el, l)
		}
	}
	d, _, err := calib.BuildDesign(er, el, calib.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	opts := calib.DefaultOptions()
	opts.Metric = model.MetricPairwise
	opts.Order = r.Order
	opts.Bootstrap = 10
	rep, _, err := calib.FitDesign(context.Background(), d, opts)
	if err != nil {
		t.Fatal(err)
	}
	all := r.Pools[slices.IndexFunc(r.Pools, func(p *Pool) bool { return p.Name == PoolAll })]
	for _, m := range []calib.Method{calib.PRISM, calib.AlphaPRISM, calib.Half} {
		c, err := calib.NewCalibrator(context.Background(), d, rep, opts, m)
		if err != nil {
			t.Fatal(err)
		}
		f := all.Fit(m)
		if c.Gamma.Value != f.Gamma || c.Alpha != f.Alpha || !slices.Equal(c.Gamma.CV, f.CV) {
			t.Errorf("%v: calibrator γ %v α %v cv %v; confirm γ %v α %v cv %v", m, c.Gamma.Value, c.Alpha, c.Gamma.CV, f.Gamma, f.Alpha, f.CV)
		}
		names, coef := c.Columns, c.Beta
		if m == calib.Half {
			names, coef = c.Attributes, c.Delta
		}
		for i, n := range names {
			if f.Coef[n] != coef[i] {
				t.Errorf("%v %s: calibrator %v, confirm %v", m, n, coef[i], f.Coef[n])
			}
		}
	}
}

// Every interval comes from one set of draws of the eligible confirmation
// contexts: replaying PairedBootstrap's documented generator gives each
// row's interval and each paired difference's.
func TestConfirmBootstrapPaired(t *testing.T) {
	r, err := confirmFixture()
	if err != nil {
		t.Fatal(err)
	}
	n, B := len(r.Split.Eligible), r.Bootstrap
	g := rand.NewPCG(r.Seed, 1)
	draws := make([][]int, B)
	for b := range draws {
		draws[b] = make([]int, n)
		for k := range draws[b] {
			i, _ := bits.Mul64(g.Uint64(), uint64(n))
			draws[b][k] = int(i)
		}
	}
	valuesOf := func(s *Score) []float64 {
		v := make([]float64, n)
		for i, c := range r.Split.Eligible {
			v[i] = s.PerContext[c]
		}
		return v
	}
	interval := func(v, ref []float64) []float64 {
		st := make([]float64, B)
		for b, dr := range draws {
			var s, sr float64
			for _, i := range dr {
				s += v[i]
				if ref != nil {
					sr += ref[i]
				}
			}
			st[b] = s / float64(n)
			if ref != nil {
				st[b] -= sr / float64(n)
			}
		}
		slices.Sort(st)
		return []float64{calib.Quantile7(0.025, st), calib.Quantile7(0.975, st)}
	}
	van := valuesOf(r.Vanilla)
	prim := valuesOf(&r.Pools[0].PRISM.Score)
	if r.Pools[0].Name != PoolPrimary || r.Primary == "" {
		t.Fatalf("first pool %s, primary %q", r.Pools[0].Name, r.Primary)
	}
	calibtest.AssertClose(t, "vanilla ci", r.Vanilla.CI[:], interval(van, nil), 1e-12)
	checked := 0
	for _, p := range r.Pools {
		for _, m := range []calib.Method{calib.PRISM, calib.AlphaPRISM, calib.Half} {
			f := p.Fit(m)
			if f == nil {
				continue
			}
			v := valuesOf(&f.Score)
			name := p.Name + "/" + m.String()
			calibtest.AssertClose(t, name+" ci", f.CI[:], interval(v, nil), 1e-12)
			calibtest.AssertClose(t, name+" diff vs vanilla", f.DiffVsVanilla.CI[:], interval(v, van), 1e-12)
			if p.Name == PoolPrimary && m == calib.PRISM {
				if f.DiffVsPrimary != nil {
					t.Error("the primary row has a difference from itself")
				}
				continue
			}
			calibtest.AssertClose(t, name+" diff vs primary", f.DiffVsPrimary.CI[:], interval(v, prim), 1e-12)
			checked++
		}
	}
	if checked < 5 {
		t.Fatalf("only %d rows checked", checked)
	}
	// Paired, not independent: the all-units pool equals the primary one
	// here (every unit passes), so its difference is exactly zero.
	all := r.Pools[slices.IndexFunc(r.Pools, func(p *Pool) bool { return p.Name == PoolAll })]
	if d := all.PRISM.DiffVsPrimary; d.Mean != 0 || d.CI != [2]float64{} {
		t.Errorf("all units vs primary with identical pools: %+v, want exactly 0", d)
	}
}

func TestConfirmDeterministic(t *testing.T) {
	a, err := confirmFixture()
	if err != nil {
		t.Fatal(err)
	}
	rows, labels, order, err := crossCheckFiles()
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Confirm(context.Background(), rows, labels, crossCheckConfirmOptions(order))
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Fatal("two confirmations of the same input differ")
	}
}

func TestConfirmPools(t *testing.T) {
	rows, labels := handStudy()
	o := handOptions()
	o.Pools = []string{PoolOneSided, PoolAll} // asked out of order
	r, _, err := Confirm(context.Background(), rows, labels, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Pools) != 2 || r.Pools[0].Name != PoolAll || r.Pools[1].Name != PoolOneSided {
		t.Fatalf("pools %v, want all then one-sided", r.Pools)
	}
	one := r.Pools[1]
	if one.Applicable || !strings.Contains(one.Reason, "context probe") || one.PRISM != nil {
		t.Errorf("one-sided pool without context probes: %+v", one)
	}
	if r.Primary != "" || r.Pools[0].PRISM.DiffVsPrimary != nil {
		t.Error("a difference from a primary pool that was not fitted")
	}
	if !r.Pools[0].Applicable || !slices.Equal(r.Pools[0].Columns, []string{"a:+", "a:-"}) || r.Pools[0].Half == nil {
		t.Errorf("all-units pool: %+v", r.Pools[0])
	}
}

func TestConfirmErrors(t *testing.T) {
	rows, labels := handStudy()
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		change func(o *Options, rows *[]model.ScoreRow, labels *[]model.Label)
		want   string
	}{
		{"no benchmark", func(o *Options, _ *[]model.ScoreRow, _ *[]model.Label) { o.Benchmark = "" }, "benchmark name"},
		{"bad pool", func(o *Options, _ *[]model.ScoreRow, _ *[]model.Label) { o.Pools = []string{"best"} }, `pool "best"`},
		{"twice", func(o *Options, _ *[]model.ScoreRow, _ *[]model.Label) { o.Pools = []string{"all", "all"} }, "twice"},
		{"global", func(o *Options, _ *[]model.ScoreRow, _ *[]model.Label) { o.Global = true }, "global"},
		{"taylor", func(o *Options, _ *[]model.ScoreRow, _ *[]model.Label) { o.Taylor = true }, "Taylor"},
		{"metric", func(o *Options, _ *[]model.ScoreRow, _ *[]model.Label) { o.Metric = "kendall" }, "metric"},
		{"forward", func(o *Options, _ *[]model.ScoreRow, _ *[]model.Label) { o.MaxForward = 0 }, "forward"},
		{"few exploration", func(o *Options, _ *[]model.ScoreRow, l *[]model.Label) {
			*l = slices.DeleteFunc(slices.Clone(*l), func(x model.Label) bool { return x.Context == "g4" || x.Context == "g5" })
		}, `benchmark "t": 4 exploration contexts`},
		{"no eligible", func(o *Options, _ *[]model.ScoreRow, l *[]model.Label) {
			*l = slices.DeleteFunc(slices.Clone(*l), func(x model.Label) bool { return x.Context == "g0" || x.Context == "g2" })
		}, "none of the 1 confirmation contexts"},
	} {
		o := handOptions()
		rs, ls := slices.Clone(rows), slices.Clone(labels)
		tc.change(&o, &rs, &ls)
		_, _, err := Confirm(ctx, rs, ls, o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}

// crossCheckFiles reads the cross-check study without a testing.T (for
// the package-wide fixture).
func crossCheckFiles() ([]model.ScoreRow, []model.Label, []string, error) {
	var rows []model.ScoreRow
	var labels []model.Label
	var order []string
	var err error
	read := func(name string, f func(string) error) {
		if err == nil {
			err = f("../testdata/crosscheck/" + name)
		}
	}
	read("scores.csv", func(p string) (e error) { rows, e = readWith(p, model.ReadScoresCSV); return })
	read("labels.csv", func(p string) (e error) { labels, e = readWith(p, model.ReadLabelsCSV); return })
	read("order.txt", func(p string) (e error) { order, e = readWith(p, calib.ReadOrder); return })
	return rows, labels, order, err
}

// readWith opens path and parses it with read.
func readWith[T any](path string, read func(io.Reader, string) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(f, path)
}

// TestConfirmCrossCheck compares Confirm on the cross-check study with the
// independent Python reference (testdata/crosscheck/reference.py, key
// "confirm"): the split, the eligible contexts and evaluation pairs, π on
// exploration, and for the pools all, properties and one-sided (every unit
// passes this study's screen) each method's γ exactly and α, CV scores,
// coefficients and per-context confirmation accuracy to 1e-12; then
// Vanilla's and PRISM's intervals and their paired difference from the
// reference's replay of the bootstrap.
func TestConfirmCrossCheck(t *testing.T) {
	r, err := confirmFixture()
	if err != nil {
		t.Fatal(err)
	}
	type fit struct {
		Gamma, Alpha float64
		Coef, CV     []float64
		PerContext   map[string]float64 `json:"per_context"`
	}
	var want struct {
		Confirm struct {
			Benchmark                                  string
			Exploration, Confirmation, Eligible, Order []string
			EvalPairs                                  int `json:"eval_pairs"`
			Vanilla                                    map[string]float64
			Pools                                      map[string]map[string]json.RawMessage
			Bootstrap                                  struct {
				Resamples      int
				Seed           uint64
				VanillaCI      []float64 `json:"vanilla_ci"`
				PrismAllCI     []float64 `json:"prism_all_ci"`
				PrismAllDiffCI []float64 `json:"prism_all_diff_ci"`
			}
		}
	}
	rows, _, _, err := crossCheckFiles()
	if err != nil || len(rows) == 0 {
		t.Fatal(err)
	}
	f, err := os.Open("../testdata/crosscheck/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := json.NewDecoder(f).Decode(&want); err != nil {
		t.Fatal(err)
	}
	w := want.Confirm
	if w.Benchmark != r.Benchmark || !slices.Equal(w.Exploration, r.Split.Exploration) || !slices.Equal(w.Confirmation, r.Split.Confirmation) ||
		!slices.Equal(w.Eligible, r.Split.Eligible) || w.EvalPairs != r.Split.EvalPairs || !slices.Equal(w.Order, r.Order) {
		t.Fatalf("split: got %s %v %v %v %d %v\nreference %s %v %v %v %d %v", r.Benchmark, r.Split.Exploration, r.Split.Confirmation, r.Split.Eligible, r.Split.EvalPairs, r.Order,
			w.Benchmark, w.Exploration, w.Confirmation, w.Eligible, w.EvalPairs, w.Order)
	}
	if !slices.Equal(r.Screen.Passed, r.Units) {
		t.Fatalf("screen passed %v of %v; the pools below assume every unit passes", r.Screen.Passed, r.Units)
	}
	const tol = 1e-12
	perContext := func(what string, got, ref map[string]float64) {
		if len(got) != len(ref) || len(ref) == 0 {
			t.Errorf("%s: %d contexts, reference %d", what, len(got), len(ref))
		}
		for c, v := range ref {
			if math.Abs(got[c]-v) > tol {
				t.Errorf("%s %s: %.15g, reference %.15g", what, c, got[c], v)
			}
		}
	}
	perContext("vanilla", r.Vanilla.PerContext, w.Vanilla)
	checked := 0
	for name, ref := range w.Pools {
		i := slices.IndexFunc(r.Pools, func(p *Pool) bool { return p.Name == name })
		if i < 0 {
			t.Fatalf("no pool %s", name)
		}
		p := r.Pools[i]
		var cols []string
		if err := json.Unmarshal(ref["columns"], &cols); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(cols, p.Columns) {
			t.Errorf("pool %s: columns %v, reference %v", name, p.Columns, cols)
		}
		for _, m := range []calib.Method{calib.PRISM, calib.AlphaPRISM, calib.Half} {
			got := p.Fit(m)
			raw, ok := ref[m.String()]
			if (got == nil) != !ok {
				t.Fatalf("pool %s %v: fitted %v, in the reference %v", name, m, got != nil, ok)
			}
			if !ok {
				continue
			}
			var rf fit
			if err := json.Unmarshal(raw, &rf); err != nil {
				t.Fatal(err)
			}
			what := name + "/" + m.String()
			if got.Gamma != rf.Gamma {
				t.Errorf("%s: γ %v, reference %v (cv %v vs %v)", what, got.Gamma, rf.Gamma, got.CV, rf.CV)
			}
			if math.Abs(got.Alpha-rf.Alpha) > tol {
				t.Errorf("%s: α %v, reference %v", what, got.Alpha, rf.Alpha)
			}
			calibtest.AssertClose(t, what+" cv", got.CV, rf.CV, tol)
			names := p.Columns
			if m == calib.Half {
				names = slices.DeleteFunc(slices.Clone(p.Units), func(u string) bool { return strings.HasPrefix(u, "ctx:") })
			}
			coef := make([]float64, len(names))
			for k, n := range names {
				coef[k] = got.Coef[n]
			}
			calibtest.AssertClose(t, what+" coef", coef, rf.Coef, tol)
			perContext(what, got.PerContext, rf.PerContext)
			checked++
		}
	}
	if checked != 8 {
		t.Fatalf("%d fits compared, want 8 (3 + 3 + 2)", checked)
	}
	b := w.Bootstrap
	if b.Resamples != r.Bootstrap || b.Seed != r.Seed {
		t.Fatalf("bootstrap %d/%d, reference %d/%d", r.Bootstrap, r.Seed, b.Resamples, b.Seed)
	}
	all := r.Pools[slices.IndexFunc(r.Pools, func(p *Pool) bool { return p.Name == PoolAll })]
	calibtest.AssertClose(t, "vanilla ci", r.Vanilla.CI[:], b.VanillaCI, tol)
	calibtest.AssertClose(t, "all/prism ci", all.PRISM.CI[:], b.PrismAllCI, tol)
	calibtest.AssertClose(t, "all/prism − vanilla ci", all.PRISM.DiffVsVanilla.CI[:], b.PrismAllDiffCI, tol)
}

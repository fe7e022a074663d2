package agree

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
)

// TestBuildMissing: a candidate without a label, one scored by only one
// judge and a context left with a single candidate are all dropped, with
// warnings; the rest is laid out in byte order.
func TestBuildMissing(t *testing.T) {
	labels := []model.Label{
		{Context: "b", Candidate: "x", Human: 1}, {Context: "b", Candidate: "y", Human: 2}, {Context: "b", Candidate: "z", Human: 3},
		{Context: "a", Candidate: "x", Human: 2}, {Context: "a", Candidate: "y", Human: 1},
		{Context: "c", Candidate: "x", Human: 1}, {Context: "c", Candidate: "y", Human: math.NaN()},
	}
	j1 := map[Key]float64{{"b", "x"}: 1, {"b", "y"}: 2, {"b", "z"}: 3, {"a", "x"}: 5, {"a", "y"}: 4, {"a", "w"}: 9, {"c", "x"}: 1, {"c", "y"}: 2}
	j2 := map[Key]float64{{"b", "x"}: 3, {"b", "y"}: 2, {"a", "x"}: 1, {"a", "y"}: 2, {"c", "x"}: 1}
	tab, warns, err := Build(labels, []string{"j1", "j2"}, []map[Key]float64{j1, j2})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tab.Contexts, []string{"a", "b"}) {
		t.Fatalf("contexts %v, want [a b] (c has one labelled candidate)", tab.Contexts)
	}
	if !reflect.DeepEqual(tab.Human, [][]float64{{2, 1}, {1, 2}}) || !reflect.DeepEqual(tab.Pred[1], [][]float64{{1, 2}, {3, 2}}) {
		t.Fatalf("table %v / %v", tab.Human, tab.Pred)
	}
	joined := strings.Join(warns, "\n")
	for _, want := range []string{"judge j2 has no score for 1 of 6", "1 contexts have fewer than two"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings %q lack %q", joined, want)
		}
	}
	if _, _, err := Build(labels[5:], []string{"j1"}, []map[Key]float64{j1}); err == nil {
		t.Error("a table without a context of two candidates: no error")
	}
}

// randomTable is n contexts of 3 to 6 candidates on a 1–5 integer scale,
// judge j agreeing more with the labels the smaller j is.
func randomTable(n, judges int, seed uint64) *Table {
	g := rand.New(rand.NewPCG(seed, 2))
	t := &Table{Pred: make([][][]float64, judges)}
	for c := 0; c < n; c++ {
		t.Contexts = append(t.Contexts, string(rune('A'+c%26))+string(rune('a'+c/26)))
		k := 3 + g.IntN(4)
		h := make([]float64, k)
		for i := range h {
			h[i] = float64(1 + g.IntN(5))
		}
		t.Human = append(t.Human, h)
		for j := 0; j < judges; j++ {
			p := make([]float64, k)
			for i := range p {
				p[i] = math.Max(1, math.Min(5, h[i]+math.Round(g.NormFloat64()*float64(j+1)*0.7)))
			}
			t.Pred[j] = append(t.Pred[j], p)
		}
	}
	for j := 0; j < judges; j++ {
		t.Judges = append(t.Judges, "j"+string(rune('0'+j)))
	}
	return t
}

// TestComputeMatchesPairedBootstrap: where every context's Spearman is
// defined, the within-context intervals and the paired difference are
// calib.PairedBootstrap's on the same values, seed and B: the draws are
// the fit's.
func TestComputeMatchesPairedBootstrap(t *testing.T) {
	tab := randomTable(40, 2, 3)
	opts := DefaultOptions()
	opts.Bootstrap = 300
	res, err := Compute(tab, opts)
	if err != nil {
		t.Fatal(err)
	}
	vals := make([][]float64, 2)
	for j := range vals {
		for c := range tab.Contexts {
			vals[j] = append(vals[j], WithinSpearman(tab.Pred[j][c], tab.Human[c], false))
		}
	}
	ci, diff := calib.PairedBootstrap(vals, 1, opts.Bootstrap, opts.Seed)
	for j, name := range tab.Judges {
		if got := res.Judges[name][KeySpearman].CI; got != ci[j] {
			t.Errorf("%s spearman CI %v, PairedBootstrap %v", name, got, ci[j])
		}
	}
	if res.Order[0] != "j0" || len(res.Pairs) != 1 {
		t.Fatalf("order %v pairs %v: want j0 first (it agrees more)", res.Order, res.Pairs)
	}
	if got := res.Pairs[0].CI; math.Abs(got[0]-diff[0][0]) > 1e-12 || math.Abs(got[1]-diff[0][1]) > 1e-12 {
		t.Errorf("pair j0−j1 CI %v, PairedBootstrap %v", got, diff[0])
	}
}

// TestComputeReproducible: the same seed gives the same report whatever
// the number of workers; another seed other intervals.
func TestComputeReproducible(t *testing.T) {
	tab := randomTable(25, 3, 9)
	opts := DefaultOptions()
	opts.Bootstrap, opts.Shared = 200, []bool{true, true, false}
	opts.Workers = 1
	a, err := Compute(tab, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Workers = 3
	b, _ := Compute(tab, opts)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("1 and 3 workers differ")
	}
	opts.Seed++
	c, _ := Compute(tab, opts)
	if reflect.DeepEqual(a.Judges, c.Judges) {
		t.Fatal("another seed, same intervals")
	}
	if _, ok := a.Judges["j0"][KeyKappa]; !ok {
		t.Errorf("j0 shares the integer scale: no κ in %v", a.Judges["j0"])
	}
	if _, ok := a.Judges["j2"][KeyMAE]; ok {
		t.Errorf("j2 does not share the scale: MAE reported")
	}
	if len(a.Pairs) != 3 {
		t.Errorf("%d pairs, want 3", len(a.Pairs))
	}
	for _, e := range a.Judges["j1"] {
		if !(e.CI[0] <= e.Mean+1e-9 || e.CI[1] >= e.Mean-1e-9) || e.CI[0] > e.CI[1] {
			t.Errorf("interval %v around %v", e.CI, e.Mean)
		}
	}
}

// TestComputeSkipConstant: a context where the judge is constant counts 0
// by default and is left out with SkipConstant (N drops by one).
func TestComputeSkipConstant(t *testing.T) {
	tab := &Table{Contexts: []string{"a", "b", "c"}, Judges: []string{"j"},
		Human: [][]float64{{1, 2, 3}, {1, 2, 3}, {3, 1, 2}},
		Pred:  [][][]float64{{{1, 2, 3}, {2, 2, 2}, {3, 1, 2}}}}
	opts := DefaultOptions()
	opts.Bootstrap = 50
	res, _ := Compute(tab, opts)
	if e := res.Judges["j"][KeySpearman]; math.Abs(e.Mean-2.0/3) > 1e-12 || e.N != 3 {
		t.Errorf("default: spearman %v over %d, want 2/3 over 3", e.Mean, e.N)
	}
	if e := res.Judges["j"][KeyPairwise]; math.Abs(e.Mean-2.5/3) > 1e-12 {
		t.Errorf("default: pairwise %v, want (1+½+1)/3", e.Mean)
	}
	opts.SkipConstant = true
	res, _ = Compute(tab, opts)
	if e := res.Judges["j"][KeySpearman]; e.Mean != 1 || e.N != 2 {
		t.Errorf("skip: spearman %v over %d, want 1 over 2", e.Mean, e.N)
	}
	if !res.SkipConstant {
		t.Error("the report does not state SkipConstant")
	}
}

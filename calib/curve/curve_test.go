package curve

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/model"
)

func TestDefaultSizes(t *testing.T) {
	for _, tc := range []struct {
		total int
		want  []int
	}{
		{100, []int{5, 10, 20, 40, 80, 100}},
		{12, []int{5, 10, 12}},
		{10, []int{5, 10}},
		{5, []int{5}},
		{3, []int{3}},
	} {
		if got := DefaultSizes(tc.total); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("DefaultSizes(%d) = %v, want %v", tc.total, got, tc.want)
		}
	}
	// A given grid: out of range and repeated sizes dropped, all last.
	if got := sizes(30, 5, Options{Sizes: []int{40, 3, 10, 5, 10, 30}}); !reflect.DeepEqual(got, []int{5, 10, 30}) {
		t.Errorf("sizes = %v, want [5 10 30]", got)
	}
}

// Subsets are sorted, without repeats, of the size asked, the same for the
// same seed, other for another seed; at all, one subset of every index.
func TestSubsets(t *testing.T) {
	a := Subsets(50, 10, 8, 7)
	if len(a) != 8 {
		t.Fatalf("%d draws, want 8", len(a))
	}
	for _, s := range a {
		if len(s) != 10 || !slices.IsSorted(s) || len(slices.Compact(slices.Clone(s))) != 10 || s[0] < 0 || s[9] >= 50 {
			t.Errorf("subset %v: want 10 distinct sorted indices in [0, 50)", s)
		}
	}
	if !reflect.DeepEqual(a, Subsets(50, 10, 8, 7)) {
		t.Error("the same seed draws other subsets")
	}
	if reflect.DeepEqual(a, Subsets(50, 10, 8, 8)) {
		t.Error("another seed draws the same subsets")
	}
	if reflect.DeepEqual(a[0], a[1]) {
		t.Error("two draws are the same subset")
	}
	// Draws at a size do not depend on how many draws were asked.
	if !reflect.DeepEqual(Subsets(50, 10, 3, 7), a[:3]) {
		t.Error("the first draws change with the number of draws")
	}
	if all := Subsets(4, 4, 8, 7); !reflect.DeepEqual(all, [][]int{{0, 1, 2, 3}}) {
		t.Errorf("Subsets at all = %v", all)
	}
}

// Summarize: the median and the 10th and 90th percentiles of type 7
// (numpy.quantile's default), NaN left out: for 1…11, h = 10p, so 2, 6, 10.
func TestSummarize(t *testing.T) {
	v := []float64{math.NaN(), 11, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	b, n := Summarize(v)
	if n != 11 || b != (Band{Median: 6, P10: 2, P90: 10}) {
		t.Errorf("Summarize = %+v, %d; want {6 2 10}, 11", b, n)
	}
	// numpy.quantile([1, 2, 4, 8], [0.1, 0.5, 0.9]) = 1.3, 3, 6.8
	b, _ = Summarize([]float64{8, 1, 4, 2})
	if math.Abs(b.P10-1.3) > 1e-12 || b.Median != 3 || math.Abs(b.P90-6.8) > 1e-12 {
		t.Errorf("Summarize([1 2 4 8]) = %+v, want {3 1.3 6.8}", b)
	}
	if _, n := Summarize([]float64{math.NaN()}); n != 0 {
		t.Errorf("all NaN: %d defined", n)
	}
}

// Build evaluates every draw of every size once and summarises per series;
// a series no draw defines is absent from the point.
func TestBuild(t *testing.T) {
	calls := 0
	c, err := Build(Curve{Series: []string{"size", "never"}, Total: 12}, 1, Options{Sizes: []int{2, 6}, Draws: 4, Seed: 1},
		func(s []int) ([]float64, error) {
			calls++
			return []float64{float64(len(s)), math.NaN()}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 4+4+1 || len(c.Points) != 3 {
		t.Fatalf("%d calls, %d points; want 9 and 3", calls, len(c.Points))
	}
	for _, p := range c.Points {
		if b := p.Series["size"]; b.Median != float64(p.Contexts) || b.P10 != b.P90 {
			t.Errorf("point %d: band %+v", p.Contexts, b)
		}
		if _, ok := p.Series["never"]; ok || p.Defined["never"] != 0 {
			t.Errorf("point %d: an undefined series has a band", p.Contexts)
		}
	}
	if _, err := Build(Curve{Series: []string{"x"}, Total: 3}, 5, DefaultOptions(), nil); err == nil {
		t.Error("3 contexts for a curve that needs 5: no error")
	}
}

// synthDesign is n contexts × 6 candidates, two attributes: the judge's
// baseline is the human score plus a length bias that the "long" probe
// exposes, so PRISM has something to correct.
func synthDesign(t testing.TB, n int) *calib.Design {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	var rows []model.ScoreRow
	var labels []model.Label
	for c := range n {
		for k := range 6 {
			ctx, cand := fmt.Sprintf("c%03d", c), fmt.Sprintf("k%d", k)
			h, length := r.NormFloat64(), r.NormFloat64()
			labels = append(labels, model.Label{Context: ctx, Candidate: cand, Human: h})
			s0 := h + 1.5*length + 0.5*r.NormFloat64()
			for _, p := range []struct {
				probe string
				v     float64
			}{{"baseline", s0}, {"long:+", s0 + 0.8*length}, {"long:-", s0 - 0.8*length},
				{"tone:+", s0 + 0.1*r.NormFloat64()}, {"tone:-", s0 + 0.1*r.NormFloat64()}} {
				rows = append(rows, model.ScoreRow{Context: ctx, Candidate: cand, Probe: p.probe, Score: p.v})
			}
		}
	}
	d, _, err := calib.BuildDesign(rows, labels, calib.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Sub of every context is d; a sub-design's fit is the fit of the same
// contexts' rows built alone (the per-context quantities do not depend on
// the other contexts).
func TestSub(t *testing.T) {
	d := synthDesign(t, 12)
	all := make([]int, len(d.Contexts))
	for i := range all {
		all[i] = i
	}
	if s := Sub(d, all); !reflect.DeepEqual(s, d) {
		t.Error("Sub of every context differs from the design")
	}
	s := Sub(d, []int{1, 4, 5, 9, 11})
	if len(s.Contexts) != 5 || s.Contexts[1] != d.Contexts[4] || s.Rows() != 30 || s.Off[5] != 30 {
		t.Fatalf("sub-design: contexts %v, %d rows, off %v", s.Contexts, s.Rows(), s.Off)
	}
	q := d.Q()
	if s.J[6*q] != d.J[d.Off[4]*q] || s.YStar[6] != d.YStar[d.Off[4]] || s.V[29] != d.V[d.Off[12]-1] {
		t.Error("the sub-design's rows are not the contexts' rows of d")
	}
}

// The fit curve's last point (all contexts) is the full fit's out-of-fold
// means; the curve is the same for the same seed; sizes below the folds
// are left out.
func TestFitCurve(t *testing.T) {
	d := synthDesign(t, 24)
	fopts := calib.DefaultOptions()
	fopts.Bootstrap = 1
	opts := Options{Sizes: []int{3, 5, 10}, Draws: 4, Seed: 9}
	c, err := Fit(context.Background(), d, fopts, opts)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, p := range c.Points {
		got = append(got, p.Contexts)
	}
	if !reflect.DeepEqual(got, []int{5, 10, 24}) {
		t.Fatalf("sizes %v, want [5 10 24] (3 < 5 folds)", got)
	}
	full, _, err := calib.FitDesign(context.Background(), d, fopts)
	if err != nil {
		t.Fatal(err)
	}
	last := c.Points[2]
	v, p := full.Methods.Vanilla.Mean, full.Methods.PRISM.Mean
	if last.Draws != 1 || last.Series[SeriesVanilla].Median != v || last.Series[SeriesPRISM].Median != p || last.Series[SeriesGain].Median != p-v {
		t.Errorf("all contexts: %+v; want the full fit's Vanilla %v, PRISM %v", last.Series, v, p)
	}
	if !(p-v > 0.1) {
		t.Errorf("the synthetic length bias gives PRISM a gain of %v only", p-v)
	}
	again, err := Fit(context.Background(), d, fopts, opts)
	if err != nil || !reflect.DeepEqual(c, again) {
		t.Errorf("the curve is not reproducible from the seed (%v)", err)
	}
	if b := c.Points[0].Series[SeriesGain]; !(b.P10 <= b.Median && b.Median <= b.P90) {
		t.Errorf("band %+v not ordered", b)
	}
}

// Sub keeps the comparison labels of the contexts it keeps (the pairwise
// metric counts them), and a design without them stays without.
func TestSubKeepsPairs(t *testing.T) {
	d := synthDesign(t, 6)
	if Sub(d, []int{0, 2}).Pairs != nil {
		t.Error("a design without comparisons gained some")
	}
	d.Pairs = make([][]calib.Pair, len(d.Contexts))
	d.Pairs[2] = []calib.Pair{{Winner: 0, Loser: 1}}
	s := Sub(d, []int{1, 2})
	if len(s.Pairs) != 2 || s.Pairs[0] != nil || !reflect.DeepEqual(s.Pairs[1], d.Pairs[2]) {
		t.Errorf("sub-design pairs %v", s.Pairs)
	}
	if s := Sub(d, nil); s.Pairs == nil {
		t.Error("an empty sub-design of a design with comparisons lost them (its metric would count unequal labels)")
	}
}

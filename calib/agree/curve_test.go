package agree

import (
	"reflect"
	"testing"

	"github.com/prism-eval/prism/calib/curve"
)

// TestCurveHand: three contexts where the judge orders the labels alike,
// reversed and alike (Spearman 1, −1, 1). Every subset of two contexts is
// {1, −1} (mean 0) or {1, 1} (mean 1); at all three, 1/3 as Compute.
func TestCurveHand(t *testing.T) {
	tab := &Table{Contexts: []string{"a", "b", "c"}, Judges: []string{"j"},
		Human: [][]float64{{1, 2, 3}, {1, 2, 3}, {1, 2, 3}},
		Pred:  [][][]float64{{{1, 2, 3}, {3, 2, 1}, {4, 5, 6}}}}
	opts := DefaultOptions()
	c, err := Curve(tab, opts, curve.Options{Sizes: []int{1, 2}, Draws: 40, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Points) != 3 || c.Points[1].Contexts != 2 {
		t.Fatalf("points %+v", c.Points)
	}
	one, two, all := c.Points[0].Series["j"], c.Points[1].Series["j"], c.Points[2].Series["j"]
	// One context: 1 two times in three, −1 once; the 10th percentile of
	// 40 draws is −1 and the 90th is 1.
	if one.P10 != -1 || one.P90 != 1 || one.Median != 1 {
		t.Errorf("one context: %+v, want median 1, band [−1, 1]", one)
	}
	if two.P10 != 0 || two.P90 != 1 {
		t.Errorf("two contexts: %+v, want the band [0, 1]", two)
	}
	res, err := Compute(tab, Options{Metric: KeySpearman, Bootstrap: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if all.Median != res.Judges["j"][KeySpearman].Mean || all.P10 != all.Median {
		t.Errorf("all contexts: %+v, want Compute's %v", all, res.Judges["j"][KeySpearman].Mean)
	}
}

// The curve is reproducible from its seed and measures each judge on the
// same draws: on a random table, the last point is Compute's headline of
// every judge, and a global headline works as a within-context one.
func TestCurveJudges(t *testing.T) {
	tab := randomTable(30, 2, 11)
	tab.Judges = []string{"good", "poor"}
	for _, m := range []string{KeyKendall, KeyPearsonGlobal} {
		opts := Options{Metric: m, Bootstrap: 10, Seed: 1}
		c, err := Curve(tab, opts, curve.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		again, _ := Curve(tab, opts, curve.DefaultOptions())
		if !reflect.DeepEqual(c, again) {
			t.Errorf("%s: the curve is not reproducible", m)
		}
		res, _ := Compute(tab, opts)
		last := c.Points[len(c.Points)-1]
		for _, j := range tab.Judges {
			if last.Contexts != 30 || last.Series[j].Median != res.Judges[j][m].Mean {
				t.Errorf("%s %s at all: %+v, want %v", m, j, last.Series[j], res.Judges[j][m].Mean)
			}
		}
		if c.Points[0].Contexts != 5 {
			t.Errorf("first size %d, want 5", c.Points[0].Contexts)
		}
	}
	if _, err := Curve(tab, Options{Metric: KeyMAE}, curve.DefaultOptions()); err == nil {
		t.Error("MAE as a curve's headline: no error")
	}
}

package confirm

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib"

	"github.com/prism-eval/prism/calib/internal/calibtest"
	"github.com/prism-eval/prism/calib/internal/caltest"
	"github.com/prism-eval/prism/calib/selection"

	"github.com/prism-eval/prism/model"
)

// comparisonStudy is four contexts of three candidates (A, B, C) with one
// attribute: s0 of A, B, C is 3, 1, 1 in every context.
func comparisonStudy() ([]model.ScoreRow, []model.Label) {
	var rows []model.ScoreRow
	var labels []model.Label
	for g, ctx := range []string{"c1", "c2", "c3", "c4"} {
		for i, cand := range []string{"A", "B", "C"} {
			s0 := []float64{3, 1, 1}[i]
			z := float64((g+i)%3) - 1
			rows = append(rows,
				model.ScoreRow{Context: ctx, Candidate: cand, Probe: "baseline", Score: s0},
				model.ScoreRow{Context: ctx, Candidate: cand, Probe: "a:+", Score: s0 + z},
				model.ScoreRow{Context: ctx, Candidate: cand, Probe: "a:-", Score: s0 - z})
			labels = append(labels, model.Label{Context: ctx, Candidate: cand, Human: float64(i)})
		}
	}
	return rows, labels
}

// TestFitComparisonsHand checks the fit's pairwise metric on comparison
// labels against hand computation on Vanilla (ŷ = s0: A 3, B 1, C 1):
// c1 has the four comparisons of TestComparisonAccuracyHand (0.625), c2
// one that Vanilla gets right (1), c3 none (left out), c4 one of a
// candidate without a label (ignored: left out too). The mean is over
// contexts, (0.625 + 1)/2, not over comparisons (3.5/5).
func TestFitComparisonsHand(t *testing.T) {
	rows, labels := comparisonStudy()
	labels = labels[:len(labels)-1] // c4's C has no label
	comps := []model.Comparison{
		{Context: "c1", Winner: "A", Loser: "B", Line: 2},
		{Context: "c1", Winner: "A", Loser: "B", Line: 3},
		{Context: "c1", Winner: "C", Loser: "A", Line: 4},
		{Context: "c1", Winner: "B", Loser: "C", Line: 5},
		{Context: "c2", Winner: "A", Loser: "C", Line: 6},
		{Context: "c4", Winner: "C", Loser: "A", Line: 7},
		{Context: "c9", Winner: "A", Loser: "B", Line: 8},
	}
	opts := calib.DefaultOptions()
	opts.Metric, opts.Folds, opts.Bootstrap = model.MetricPairwise, 2, 50
	opts.Comparisons, opts.ComparisonsFile = comps, "comps.csv"
	rep, warnings, err := calib.Fit(context.Background(), rows, labels, opts)
	if err != nil {
		t.Fatal(err)
	}
	van := rep.Methods.Vanilla
	want := map[string]float64{"c1": 0.625, "c2": 1}
	if len(van.PerContext) != len(want) || van.PerContext["c1"] != want["c1"] || van.PerContext["c2"] != want["c2"] {
		t.Errorf("Vanilla per context %v, want %v", van.PerContext, want)
	}
	if van.Mean != (0.625+1)/2 {
		t.Errorf("Vanilla mean %v, want 0.8125", van.Mean)
	}
	if rep.Comparisons != 5 {
		t.Errorf("report counts %d comparisons, want 5 (c1's four and c2's one)", rep.Comparisons)
	}
	if !strings.Contains(strings.Join(warnings, "\n"), "comps.csv: ignored 2 of 7 comparisons") {
		t.Errorf("warnings %q: want the two comparisons outside the fit counted", warnings)
	}
	// Without comparisons every context has unequal human scores
	// (0 < 1 < 2) and Vanilla's pairwise accuracy is the usual one.
	opts.Comparisons = nil
	rep, _, err = calib.Fit(context.Background(), rows, labels, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Methods.Vanilla.PerContext) != 4 || rep.Comparisons != 0 {
		t.Errorf("without comparisons: %d contexts, %d comparisons; want 4, 0", len(rep.Methods.Vanilla.PerContext), rep.Comparisons)
	}
}

// TestComparisonsErrors: a comparison of a candidate with itself or with
// an empty id names its line; no usable comparison makes the pairwise
// fit fail saying so.
func TestComparisonsErrors(t *testing.T) {
	rows, labels := comparisonStudy()
	for _, tc := range []struct {
		comps []model.Comparison
		want  string
	}{
		{[]model.Comparison{{Context: "c1", Winner: "A", Loser: "A", Line: 4}}, `comps.csv:4: field "loser": "A" is also the winner`},
		{[]model.Comparison{{Context: "c1", Winner: "", Loser: "A", Line: 2}}, `comps.csv:2: field "context"/"winner"/"loser": empty id`},
		{[]model.Comparison{{Context: "c9", Winner: "A", Loser: "B", Line: 2}}, "no context of the fit has a human comparison"},
	} {
		opts := calib.DefaultOptions()
		opts.Metric, opts.Folds, opts.Bootstrap = model.MetricPairwise, 2, 10
		opts.Comparisons, opts.ComparisonsFile = tc.comps, "comps.csv"
		_, _, err := calib.Fit(context.Background(), rows, labels, opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("comparisons %v: error %v, want %q", tc.comps, err, tc.want)
		}
	}
}

// allPairs are comparisons of every pair of unequal human scores, the
// higher one the winner.
func allPairs(labels []model.Label) []model.Comparison {
	var out []model.Comparison
	for i, a := range labels {
		for _, b := range labels[i+1:] {
			switch {
			case a.Context != b.Context || a.Human == b.Human:
			case a.Human > b.Human:
				out = append(out, model.Comparison{Context: a.Context, Winner: a.Candidate, Loser: b.Candidate})
			default:
				out = append(out, model.Comparison{Context: a.Context, Winner: b.Candidate, Loser: a.Candidate})
			}
		}
	}
	return out
}

// TestComparisonsOfEveryPairAreTodaysPairwise: with comparisons equal to
// every pair of unequal human scores, the fit (γ choice, every method's
// values, intervals and sweep), the selection and the transfer check are
// those of pairwise accuracy on the labels, number for number.
func TestComparisonsOfEveryPairAreTodaysPairwise(t *testing.T) {
	rows, labels := calibtest.Synth(30, 5, 3, 11)
	for i := range labels { // ties in the labels: pairs left out
		labels[i].Human = math.Round(labels[i].Human)
	}
	opts := calib.DefaultOptions()
	opts.Metric, opts.Bootstrap = model.MetricPairwise, 300
	plain, _, err := calib.Fit(context.Background(), rows, labels, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Comparisons = allPairs(labels)
	withC, _, err := calib.Fit(context.Background(), rows, labels, opts)
	if err != nil {
		t.Fatal(err)
	}
	if withC.Comparisons != len(opts.Comparisons) || withC.Comparisons == 0 {
		t.Errorf("report counts %d comparisons, want %d", withC.Comparisons, len(opts.Comparisons))
	}
	withC.Comparisons = 0
	a, _ := json.Marshal(plain)
	b, _ := json.Marshal(withC)
	if string(a) != string(b) {
		t.Errorf("fit on every unequal pair as comparisons differs from pairwise accuracy:\n%s\n%s", a, b)
	}

	so := selection.Options{Options: opts, Forward: true}
	so.Comparisons = nil
	s1, _, err := selection.Select(context.Background(), rows, labels, so)
	if err != nil {
		t.Fatal(err)
	}
	so.Comparisons = opts.Comparisons
	s2, _, err := selection.Select(context.Background(), rows, labels, so)
	if err != nil {
		t.Fatal(err)
	}
	a, _ = json.Marshal(s1)
	b, _ = json.Marshal(s2)
	if string(a) != string(b) {
		t.Errorf("selection differs:\n%s\n%s", a, b)
	}

	d, rep := caltest.FitForCalibrator(t, rows, labels, opts)
	c := caltest.NewCal(t, d, rep, opts, calib.PRISM)
	t1, err := c.Apply(rows, labels, calib.ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t2, err := c.Apply(rows, labels, calib.ApplyOptions{Comparisons: opts.Comparisons})
	if err != nil {
		t.Fatal(err)
	}
	if *t1.Transfer != *t2.Transfer {
		t.Errorf("transfer check differs: %+v vs %+v", *t1.Transfer, *t2.Transfer)
	}
}

// TestConfirmComparisonsOfEveryPair: the confirmatory protocol on
// comparisons of every unequal pair is its pairwise report, the count of
// evaluation pairs included.
func TestConfirmComparisonsOfEveryPair(t *testing.T) {
	rows, labels := calibtest.Synth(40, 4, 3, 13)
	for i := range labels {
		labels[i].Human = math.Round(labels[i].Human)
	}
	o := DefaultOptions()
	o.Benchmark, o.Bootstrap, o.Screen.Bootstrap = "t", 100, 50
	plain, _, err := Confirm(context.Background(), rows, labels, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Comparisons = allPairs(labels)
	withC, _, err := Confirm(context.Background(), rows, labels, o)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(plain)
	b, _ := json.Marshal(withC)
	if string(a) != string(b) || plain.Split.EvalPairs == 0 {
		t.Errorf("confirm on every unequal pair as comparisons differs:\n%s\n%s", a, b)
	}
}

// TestTransferComparisonsHand: the transfer check of a pairwise
// calibrator on comparison labels, by hand on the baseline (A 3, B 1,
// C 1): c1 0.625, c2 1, the others without comparisons left out.
func TestTransferComparisonsHand(t *testing.T) {
	rows, labels := comparisonStudy()
	opts := calib.DefaultOptions()
	opts.Metric, opts.Folds, opts.Bootstrap = model.MetricPairwise, 2, 20
	d, rep := caltest.FitForCalibrator(t, rows, labels, opts)
	c := caltest.NewCal(t, d, rep, opts, calib.PRISM)
	comps := []model.Comparison{
		{Context: "c1", Winner: "A", Loser: "B"}, {Context: "c1", Winner: "A", Loser: "B"},
		{Context: "c1", Winner: "C", Loser: "A"}, {Context: "c1", Winner: "B", Loser: "C"},
		{Context: "c2", Winner: "A", Loser: "C"},
	}
	s, err := c.Apply(rows, labels, calib.ApplyOptions{Comparisons: comps})
	if err != nil {
		t.Fatal(err)
	}
	tr := s.Transfer
	if tr == nil || tr.Contexts != 2 || tr.Baseline.Mean != 0.8125 {
		t.Fatalf("transfer %+v: want 2 contexts, baseline 0.8125", tr)
	}
}

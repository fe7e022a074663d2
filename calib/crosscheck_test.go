package calib

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/prism-eval/prism/calib/internal/calibtest"

	"github.com/prism-eval/prism/model"
)

// TestCrossCheck compares Fit with an independent pure-Python
// implementation of docs/protocol.md §2–6 (testdata/crosscheck/reference.py, run
// as its header says to produce expected.json) on a small synthetic study
// with repeats, two wordings, a context probe, a missing cell, unequal
// context sizes and tied human scores: the selected γ of every method and
// fold must be identical, and the inner CV scores, α and per-context
// out-of-fold values must agree to 1e-12.
func TestCrossCheck(t *testing.T) {
	rows, labels, order, open := crossCheckInput(t)
	var want struct {
		Columns []string
		Methods map[string]struct {
			PerContext map[string]float64 `json:"per_context"`
			Folds      []struct {
				Gamma, Alpha float64
				CV           []float64
			}
		}
	}
	if err := json.NewDecoder(open("expected.json")).Decode(&want); err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Order = order
	opts.Bootstrap = 100
	r, _, err := Fit(context.Background(), rows, labels, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Columns, want.Columns) {
		t.Fatalf("columns %v, reference %v", r.Columns, want.Columns)
	}
	const tol = 1e-12
	for _, m := range []Method{Vanilla, PRISM, AlphaPRISM, Half} {
		w := want.Methods[m.String()]
		got := r.Methods.Get(m).PerContext
		if len(got) != len(w.PerContext) || len(got) == 0 {
			t.Fatalf("%v: %d contexts, reference %d", m, len(got), len(w.PerContext))
		}
		for c, v := range w.PerContext {
			if math.Abs(got[c]-v) > tol {
				t.Errorf("%v %s: %.15g, reference %.15g", m, c, got[c], v)
			}
		}
		if m == Vanilla {
			continue
		}
		for f, wf := range w.Folds {
			ff := r.Folds[f].byMethod(m)
			if ff.Gamma != wf.Gamma {
				t.Errorf("%v fold %d: γ %v, reference %v (cv %v vs %v)", m, f+1, ff.Gamma, wf.Gamma, ff.CV, wf.CV)
			}
			if math.Abs(ff.Alpha-wf.Alpha) > tol {
				t.Errorf("%v fold %d: α %v, reference %v", m, f+1, ff.Alpha, wf.Alpha)
			}
			calibtest.AssertClose(t, m.String()+" cv", ff.CV, wf.CV, tol)
		}
	}
}

// crossCheckInput reads the cross-check study (testdata/crosscheck) and
// returns an opener for its other files.
func crossCheckInput(t *testing.T) (rows []model.ScoreRow, labels []model.Label, order []string, open func(string) *os.File) {
	t.Helper()
	open = func(name string) *os.File {
		f, err := os.Open("testdata/crosscheck/" + name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	rows, err := model.ReadScoresCSV(open("scores.csv"), "scores.csv")
	if err != nil {
		t.Fatal(err)
	}
	labels, err = model.ReadLabelsCSV(open("labels.csv"), "labels.csv")
	if err != nil {
		t.Fatal(err)
	}
	order, err = ReadOrder(open("order.txt"), "order.txt")
	if err != nil {
		t.Fatal(err)
	}
	return rows, labels, order, open
}

package calib

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/prism-eval/prism/calib/internal/calibtest"

	"github.com/prism-eval/prism/model"
)

// TestBuildDesignHand checks averaging, imputation, the Jacobian, centering
// and the target on a two-candidate context computed by hand.
func TestBuildDesignHand(t *testing.T) {
	rows := []model.ScoreRow{
		calibtest.SR("g", "x", "baseline", 4), calibtest.SR("g", "x", "baseline", 6), // repeats: s0(x) = 5
		calibtest.SR("g", "x", "len:+", 7), calibtest.SR("g", "x", "len:+", 8), // wordings: s+(x) = 7.5
		calibtest.SR("g", "x", "len:-", 3),
		calibtest.SR("g", "x", "neutral:calm", 100), // control, not a column
		calibtest.SR("g", "y", "baseline", 1),
		calibtest.SR("g", "y", "len:+", 2),
		{Context: "g", Candidate: "y", Probe: "len:-", Missing: true}, // imputed: mean of s−(x) = 3
		calibtest.SR("g", "y", "ctx:expert", 4),
		// ctx:expert of x has no row: imputed with 4.
	}
	labels := []model.Label{{Context: "g", Candidate: "y", Human: 1}, {Context: "g", Candidate: "x", Human: 3}}
	d, w, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != 0 {
		t.Errorf("warnings %v", w)
	}
	wantCols := []string{"len:+", "len:-", "ctx:expert"}
	if strings.Join(d.Columns, ",") != strings.Join(wantCols, ",") {
		t.Fatalf("columns %v, want %v", d.Columns, wantCols)
	}
	for col, n := range map[string]int{"baseline": 0, "len:+": 0, "len:-": 1, "ctx:expert": 1} {
		if d.Imputed[col] != n {
			t.Errorf("imputed[%s] = %d, want %d", col, d.Imputed[col], n)
		}
	}
	// Rows: x then y (byte order).
	// x: s0 5, Δ+ = 7.5−5 = 2.5, Δ− = 5−3 = 2, ctx = 4−5 = −1
	// y: s0 1, Δ+ = 2−1 = 1,     Δ− = 1−3 = −2, ctx = 4−1 = 3
	// centered: v = (2, −2); J̃ = ((0.75, 2, −2), (−0.75, −2, 2))
	// C y = (1, −1), ‖v‖/‖Cy‖ = √8/√2 = 2, y* = (2, −2).
	calibtest.AssertClose(t, "S0", d.S0, []float64{5, 1}, 0)
	calibtest.AssertClose(t, "V", d.V, []float64{2, -2}, 0)
	calibtest.AssertClose(t, "JC", d.JC, []float64{0.75, 2, -2, -0.75, -2, 2}, 1e-15)
	calibtest.AssertClose(t, "YStar", d.YStar, []float64{2, -2}, 1e-15)
}

func TestBuildDesignTargetNorm(t *testing.T) {
	rows, labels := calibtest.Synth(4, 6, 2, 11)
	for i := range labels { // context c001: constant humans
		if labels[i].Context == "c001" {
			labels[i].Human = 3
		}
	}
	d, _, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for g, c := range d.Contexts {
		var vv, yy, sy, sv float64
		for r := d.Off[g]; r < d.Off[g+1]; r++ {
			vv += d.V[r] * d.V[r]
			yy += d.YStar[r] * d.YStar[r]
			sy += d.YStar[r]
			sv += d.V[r]
		}
		if math.Abs(sy) > 1e-12 || math.Abs(sv) > 1e-12 {
			t.Errorf("%s: not centered: Σy* = %v, Σv = %v", c, sy, sv)
		}
		want := vv
		if c == "c001" {
			want = 0
		}
		if math.Abs(yy-want) > 1e-12*math.Max(1, want) {
			t.Errorf("%s: ‖y*‖² = %v, want %v", c, yy, want)
		}
	}
}

func TestBuildDesignErrors(t *testing.T) {
	base := func() ([]model.ScoreRow, []model.Label) {
		rows := []model.ScoreRow{
			{Context: "g", Candidate: "a", Probe: "baseline", Score: 1, Line: 2},
			{Context: "g", Candidate: "a", Probe: "len:+", Score: 2, Line: 3},
			{Context: "g", Candidate: "a", Probe: "len:-", Score: 0, Line: 4},
			{Context: "g", Candidate: "b", Probe: "baseline", Score: 2, Line: 5},
			{Context: "g", Candidate: "b", Probe: "len:+", Score: 2, Line: 6},
			{Context: "g", Candidate: "b", Probe: "len:-", Score: 2, Line: 7},
		}
		labels := []model.Label{{Context: "g", Candidate: "a", Human: 1, Line: 2}, {Context: "g", Candidate: "b", Human: 2, Line: 3}}
		return rows, labels
	}
	for _, tc := range []struct {
		name   string
		edit   func([]model.ScoreRow, []model.Label) ([]model.ScoreRow, []model.Label)
		substr []string
	}{
		{"no baseline", func(r []model.ScoreRow, l []model.Label) ([]model.ScoreRow, []model.Label) {
			return []model.ScoreRow{r[1], r[2], r[4], r[5]}, l
		}, []string{"S.csv", `"probe"`, "baseline"}},
		{"one sign", func(r []model.ScoreRow, l []model.Label) ([]model.ScoreRow, []model.Label) {
			return []model.ScoreRow{r[0], r[1], r[3], r[4]}, l
		}, []string{"S.csv:3", `"probe"`, `"len"`, "len:-"}},
		{"unscored label", func(r []model.ScoreRow, l []model.Label) ([]model.ScoreRow, []model.Label) {
			return r, append(l, model.Label{Context: "g", Candidate: "z", Human: 1, Line: 9})
		}, []string{"L.csv:9", `"candidate"`, `"z"`, "no scores"}},
		{"duplicate label", func(r []model.ScoreRow, l []model.Label) ([]model.ScoreRow, []model.Label) {
			return r, append(l, model.Label{Context: "g", Candidate: "a", Human: 1, Line: 7})
		}, []string{"L.csv:7", "line 2", "duplicate"}},
		{"bad probe", func(r []model.ScoreRow, l []model.Label) ([]model.ScoreRow, []model.Label) {
			r[2].Probe = "len"
			return r, l
		}, []string{"S.csv:4", `"probe"`}},
		{"NaN score", func(r []model.ScoreRow, l []model.Label) ([]model.ScoreRow, []model.Label) {
			r[2].Score = math.NaN()
			return r, l
		}, []string{"S.csv:4", `"score"`}},
		{"column all missing", func(r []model.ScoreRow, l []model.Label) ([]model.ScoreRow, []model.Label) {
			r[2].Missing, r[5].Missing = true, true
			return r, l
		}, []string{"S.csv", `"len:-"`, "no score"}},
	} {
		rows, labels := tc.edit(base())
		_, _, err := BuildDesign(rows, labels, BuildOptions{ScoresFile: "S.csv", LabelsFile: "L.csv"})
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, s := range tc.substr {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, s)
			}
		}
	}
}

func TestBuildDesignWarnings(t *testing.T) {
	rows, labels := calibtest.Synth(3, 4, 1, 2)
	// Drop every label of c002 but one, and add scores of an unlabelled candidate.
	var kept []model.Label
	for _, l := range labels {
		if l.Context != "c002" || l.Candidate == "m00" {
			kept = append(kept, l)
		}
	}
	rows = append(rows, calibtest.SR("c000", "ghost", "baseline", 1), calibtest.SR("c000", "ghost", "a00:+", 1))
	d, w, err := BuildDesign(rows, kept, BuildOptions{ScoresFile: "S.csv", LabelsFile: "L.csv"})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Contexts) != 2 {
		t.Errorf("contexts %v, want c000 and c001", d.Contexts)
	}
	all := strings.Join(w, "\n")
	// 3 candidates of c002 (3 rows each) + ghost (2 rows) are unlabelled.
	for _, s := range []string{"ignored 11 score rows of 4 candidates", "skipped 1 contexts", "c002"} {
		if !strings.Contains(all, s) {
			t.Errorf("warnings %q lack %q", all, s)
		}
	}
}

// Rubric ratings (rubric:RUBRIC/CRITERION, docs/rubrics.md) stored beside
// a bank's scores are no column: the design is the same with or without.
func TestBuildDesignIgnoresRubricRows(t *testing.T) {
	rows, all := calibtest.Synth(6, 5, 3, 7)
	labels := all[1:] // one unlabelled candidate: its rows are counted in a warning
	d0, w0, err := BuildDesign(rows, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	with := append([]model.ScoreRow(nil), rows...)
	for _, l := range all {
		with = append(with, calibtest.SR(l.Context, l.Candidate, model.RubricProbe("saja-broad", "accuracy"), 3),
			model.ScoreRow{Context: l.Context, Candidate: l.Candidate, Probe: model.RubricProbe("saja-broad", "safety"), Missing: true})
	}
	d1, w1, err := BuildDesign(with, labels, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w0) == 0 || !reflect.DeepEqual(d0, d1) || !reflect.DeepEqual(w0, w1) {
		t.Errorf("rubric rows changed the design: columns %v vs %v, warnings %q vs %q", d0.ScoreColumns, d1.ScoreColumns, w0, w1)
	}
}

package calib

import (
	"fmt"
	"math"
	"testing"
)

func TestSpearman(t *testing.T) {
	const tol = 1e-12
	for _, tc := range []struct {
		name string
		x, y []float64
		want float64
	}{
		// scipy.stats.spearmanr([1,2,3,4,5], [5,6,7,8,7]) = 0.8207826816681233
		// (the example of scipy's documentation).
		{"scipy doc example", []float64{1, 2, 3, 4, 5}, []float64{5, 6, 7, 8, 7}, 0.8207826816681233},
		// By hand: ranks x = (1, 2.5, 2.5, 4), y = (1, 2, 3, 4), r̄ = 2.5;
		// Σdxdy = 4.5, Σdx² = 4.5, Σdy² = 5 → 4.5/√22.5.
		{"tie in x", []float64{1, 2, 2, 3}, []float64{1, 2, 3, 4}, 4.5 / math.Sqrt(22.5)},
		{"monotone", []float64{0.1, 5, 7, 100}, []float64{1, 2, 3, 4}, 1},
		{"reversed", []float64{4, 3, 2, 1}, []float64{1, 2, 3, 4}, -1},
		{"constant x", []float64{2, 2, 2}, []float64{1, 2, 3}, 0},
		{"constant y", []float64{1, 2, 3}, []float64{5, 5, 5}, 0},
		{"single", []float64{1}, []float64{2}, 0},
		{"empty", nil, nil, 0},
		// By hand: ranks x = (1.5, 1.5, 3.5, 3.5), y = (1, 2, 3, 4):
		// Σdxdy = 1·1.5+1·.5+1·.5+1·1.5 = 4, Σdx² = 4, Σdy² = 5 → 4/√20.
		{"two ties", []float64{0, 0, 1, 1}, []float64{1, 2, 3, 4}, 4 / math.Sqrt(20)},
	} {
		got := Spearman(tc.x, tc.y)
		if math.Abs(got-tc.want) > tol {
			t.Errorf("%s: Spearman = %.17g, want %.17g", tc.name, got, tc.want)
		}
		if back := Spearman(tc.y, tc.x); math.Abs(back-got) > tol {
			t.Errorf("%s: not symmetric: %v vs %v", tc.name, back, got)
		}
	}
}

func TestMidRanks(t *testing.T) {
	for _, tc := range []struct{ x, want []float64 }{
		{[]float64{3, 1, 3, 2}, []float64{3.5, 1, 3.5, 2}},
		{[]float64{5, 5, 5}, []float64{2, 2, 2}},
		{[]float64{-1, 2, 0}, []float64{1, 3, 2}},
	} {
		got := make([]float64, len(tc.x))
		MidRanks(got, tc.x, make([]int, len(tc.x)))
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("MidRanks(%v) = %v, want %v", tc.x, got, tc.want)
				break
			}
		}
	}
	// Beyond the insertion-sort size the library sort must agree: the ranks
	// of 0..n−1 reversed are n..1.
	n := 50
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(n - i)
	}
	got := make([]float64, n)
	MidRanks(got, x, make([]int, n))
	for i := range got {
		if got[i] != float64(n-i) {
			t.Fatalf("rank of x[%d] = %v, want %d", i, got[i], n-i)
		}
	}
}

func TestPairwiseAccuracy(t *testing.T) {
	for _, tc := range []struct {
		name        string
		pred, human []float64
		want        float64
		ok          bool
	}{
		// Pairs (0,1), (0,2) ordered right, (1,2) tied by pred: (1+1+½)/3.
		{"half credit", []float64{1, 2, 2}, []float64{1, 2, 3}, 2.5 / 3, true},
		// Human tie (0,1) does not count; (0,2), (1,2) both reversed.
		{"human tie skipped", []float64{3, 2, 1}, []float64{1, 1, 2}, 0, true},
		{"perfect", []float64{10, 20, 30, 40}, []float64{1, 2, 3, 4}, 1, true},
		{"constant humans", []float64{1, 2, 3}, []float64{4, 4, 4}, 0, false},
		{"all predicted tied", []float64{0, 0}, []float64{1, 2}, 0.5, true},
	} {
		got, ok := PairwiseAccuracy(tc.pred, tc.human)
		if ok != tc.ok || math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%s: PairwiseAccuracy = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestQuantile7(t *testing.T) {
	ten := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tc := range []struct {
		p    float64
		x    []float64
		want float64
	}{
		{0.25, []float64{1, 2, 3, 4}, 1.75}, // numpy.percentile([1,2,3,4], 25)
		{0.5, []float64{1, 2, 3, 4}, 2.5},
		{0.025, ten, 1.225}, // h = 9·0.025 = 0.225
		{0.975, ten, 9.775}, // h = 8.775
		{0, ten, 1},
		{1, ten, 10},
		{0.3, []float64{7}, 7},
	} {
		if got := Quantile7(tc.p, tc.x); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Quantile7(%v, %v) = %v, want %v", tc.p, tc.x, got, tc.want)
		}
	}
}

func ExampleSpearman() {
	pred := []float64{0.2, 0.1, 0.4, 0.4}
	human := []float64{2, 1, 3, 4}
	fmt.Printf("%.4f\n", Spearman(pred, human))
	// Output: 0.9487
}

func ExamplePairwiseAccuracy() {
	acc, ok := PairwiseAccuracy([]float64{1, 2, 2}, []float64{1, 2, 3})
	fmt.Printf("%.4f %v\n", acc, ok)
	// Output: 0.8333 true
}

// TestComparisonAccuracyHand: one context, three candidates, four
// comparisons with a repeated pair and a predicted tie.
func TestComparisonAccuracyHand(t *testing.T) {
	pred := []float64{3, 1, 1} // A, B, C: B and C tie
	pairs := []Pair{
		{0, 1}, // A > B: ordered so, 1
		{0, 1}, // A > B again: 1
		{2, 0}, // C > A: predicted the other way, 0
		{1, 2}, // B > C: predicted tie, ½
	}
	acc, ok := ComparisonAccuracy(pred, pairs)
	if !ok || acc != 2.5/4 {
		t.Errorf("ComparisonAccuracy = %v, %v; want 0.625, true", acc, ok)
	}
	if _, ok := ComparisonAccuracy(pred, nil); ok {
		t.Error("no comparisons: want ok false")
	}
}

// TestTooFew: the shared minimum-count guard says nothing with enough and
// writes the caller's format otherwise; CheckFolds keeps the fit's text.
func TestTooFew(t *testing.T) {
	if got := TooFew(5, 5, "%d of %d"); got != "" {
		t.Errorf("enough: %q", got)
	}
	if got := TooFew(4, 5, "too few: %d usable contexts, needs %d"); got != "too few: 4 usable contexts, needs 5" {
		t.Errorf("too few: %q", got)
	}
	err := CheckFolds("labels.csv", 3, 5)
	want := "labels.csv: only 3 contexts with at least two labelled candidates; need at least 5 (one per fold)"
	if err == nil || err.Error() != want {
		t.Errorf("CheckFolds: %v, want %q", err, want)
	}
	if err := CheckFolds("labels.csv", 5, 5); err != nil {
		t.Errorf("CheckFolds with enough: %v", err)
	}
}

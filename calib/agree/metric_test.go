package agree

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/prism-eval/prism/calib"
)

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("%s = %.15g, want %.15g", what, got, want)
	}
}

// TestWithinHand: pred [1,2,2,4] against human [1,3,2,2]. Spearman 0.5 and
// τ_b 0.4 are scipy 1.10.1's stats.spearmanr and stats.kendalltau
// (testdata/reference.py prints every reference value of these tests); by
// hand, the mid-ranks (1, 2.5, 2.5, 4) and (1, 4, 2.5, 2.5) less 2.5 give
// Σdxdy = 2.25 over √(4.5·4.5) = 0.5 likewise. Pairwise by hand: of the
// five pairs with unequal labels, (0,1) (0,2) (0,3) agree, (1,2) ties in
// pred (½), (1,3) disagrees: 3.5/5 = 0.7; (2,3) ties in the labels and is
// skipped.
func TestWithinHand(t *testing.T) {
	p, h := []float64{1, 2, 2, 4}, []float64{1, 3, 2, 2}
	for _, skip := range []bool{false, true} {
		near(t, "spearman", WithinSpearman(p, h, skip), 0.5)
		near(t, "kendall", WithinKendall(p, h, skip), 0.4)
		near(t, "pairwise", WithinPairwise(p, h, skip), 0.7)
	}
}

// TestWithinConstant: a constant side counts 0 (the fit's rule,
// docs/protocol.md §6) or is undefined with skipConstant; pairwise with a
// constant prediction gives every pair half credit (½), and with constant
// labels has no pair to count.
func TestWithinConstant(t *testing.T) {
	flat, up := []float64{2, 2, 2}, []float64{1, 2, 3}
	near(t, "spearman flat pred", WithinSpearman(flat, up, false), 0)
	near(t, "spearman flat human", WithinSpearman(up, flat, false), 0)
	near(t, "kendall flat pred", WithinKendall(flat, up, false), 0)
	near(t, "pairwise flat pred", WithinPairwise(flat, up, false), 0.5)
	for name, v := range map[string]float64{
		"spearman skip":           WithinSpearman(flat, up, true),
		"kendall skip":            WithinKendall(up, flat, true),
		"pairwise skip flat pred": WithinPairwise(flat, up, true),
		"pairwise flat human":     WithinPairwise(up, flat, false),
	} {
		if !math.IsNaN(v) {
			t.Errorf("%s = %v, want NaN (left out)", name, v)
		}
	}
}

// TestWithinTwoCandidates: with two candidates every metric is ±1 or the
// pair's credit (JudgeBench's one pair per context).
func TestWithinTwoCandidates(t *testing.T) {
	h := []float64{0, 1}
	for _, c := range []struct {
		pred          []float64
		rho, tau, acc float64
	}{
		{[]float64{1, 2}, 1, 1, 1},
		{[]float64{2, 1}, -1, -1, 0},
		{[]float64{1, 1}, 0, 0, 0.5},
	} {
		near(t, "spearman", WithinSpearman(c.pred, h, false), c.rho)
		near(t, "kendall", WithinKendall(c.pred, h, false), c.tau)
		near(t, "pairwise", WithinPairwise(c.pred, h, false), c.acc)
	}
}

// TestGlobalScipy: reference values of scipy 1.10.1 (testdata/reference.py) (stats.pearsonr,
// stats.spearmanr, stats.kendalltau with its default τ-b) on twelve values
// with ties on both sides.
func TestGlobalScipy(t *testing.T) {
	x := []float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8}
	y := []float64{2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5}
	near(t, "pearson", Pearson(x, y), 0.0997990075972155)
	near(t, "spearman", SpearmanGlobal(x, y), 0.141579686364016)
	near(t, "kendall", KendallGlobal(x, y), 0.171096477707289)
	if v := Pearson([]float64{1, 1}, []float64{1, 2}); !math.IsNaN(v) {
		t.Errorf("pearson of a constant = %v, want NaN", v)
	}
	if v := KendallGlobal([]float64{1, 2}, []float64{3, 3}); !math.IsNaN(v) {
		t.Errorf("kendall of a constant = %v, want NaN", v)
	}
}

// TestKendallGlobalMatchesPairCount: Knight's O(n log n) τ_b equals
// calib.KendallTauB's pair count on random data with many ties.
func TestKendallGlobalMatchesPairCount(t *testing.T) {
	g := rand.New(rand.NewPCG(7, 1))
	for trial := 0; trial < 50; trial++ {
		n := 2 + g.IntN(60)
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = float64(g.IntN(5)), float64(g.IntN(4))
		}
		want, ok := calib.KendallTauB(x, y)
		got := KendallGlobal(x, y)
		if !ok {
			if !math.IsNaN(got) {
				t.Fatalf("trial %d: got %v, want NaN", trial, got)
			}
			continue
		}
		if math.Abs(got-want) > 1e-12 {
			t.Fatalf("trial %d: Knight %v, pair count %v (x %v y %v)", trial, got, want, x, y)
		}
	}
}

// TestSharedScale: κ 0.780487804878049 is sklearn 1.2.1's
// cohen_kappa_score(a, b, weights="quadratic") (every category 1…5
// occurs, so its index weights equal value weights). α are Krippendorff's
// coincidence-matrix formulas computed in Python (testdata/reference.py
// reproduces the 0.815 ordinal and 0.849 interval of Krippendorff 2011's
// four-coder example with missing values before computing these). Bias and
// MAE by hand: differences a−b are 0,−1,0,0,1,1,0,−1,−1,0,0,2: sum 1, sum
// of absolute values 7.
func TestSharedScale(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5, 3, 2, 4, 1, 5, 3, 3}
	b := []float64{1, 3, 3, 4, 4, 2, 2, 5, 2, 5, 3, 1}
	near(t, "kappa", QuadraticKappa(a, b), 0.780487804878049)
	near(t, "alpha interval", AlphaInterval(a, b), 0.78942014242116)
	near(t, "alpha ordinal", AlphaOrdinal(a, b), 0.795142054086904)
	near(t, "bias", Bias(a, b), 1.0/12)
	near(t, "mae", MAE(a, b), 7.0/12)
	fa := []float64{1.5, 2, 3.25, 4, 4.5, 2.5}
	fb := []float64{1, 2.5, 3, 4.5, 4, 2}
	near(t, "alpha interval, fractional", AlphaInterval(fa, fb), 0.920754716981132)
	near(t, "alpha ordinal, fractional", AlphaOrdinal(fa, fb), 0.882978723404255)
}

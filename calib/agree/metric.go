package agree

import (
	"math"
	"slices"

	"github.com/prism-eval/prism/calib"
)

// WithinSpearman is the within-context Spearman correlation of one
// context (calib.Spearman: the Pearson correlation of mid-ranks). When
// either side is constant (or fewer than two candidates) the fit counts
// it as 0 (docs/protocol.md §6); with skipConstant it is NaN, undefined,
// and the context is left out of the judge's mean.
func WithinSpearman(pred, human []float64, skipConstant bool) float64 {
	if constant(pred) || constant(human) {
		return undefinedOrZero(skipConstant)
	}
	return calib.Spearman(pred, human)
}

// WithinKendall is Kendall's τ_b of one context (calib.KendallTauB):
//
//	τ_b = (C − D) / √((n₀ − n_x)(n₀ − n_y)),
//
// C and D the concordant and discordant pairs, n₀ = n(n−1)/2, n_x and n_y
// the pairs tied in pred and in human. A constant side counts 0, or NaN
// with skipConstant, as WithinSpearman.
func WithinKendall(pred, human []float64, skipConstant bool) float64 {
	if constant(pred) || constant(human) {
		return undefinedOrZero(skipConstant)
	}
	tau, _ := calib.KendallTauB(pred, human)
	return tau
}

// WithinPairwise is the pairwise accuracy of one context
// (calib.PairwiseAccuracy): over the pairs with unequal labels, 1 when
// pred orders the pair as the labels do, ½ when pred ties, 0 otherwise,
// averaged. It is NaN (left out, as the fit leaves it out) when no pair
// has unequal labels, and with skipConstant also when pred is constant
// (where it would be ½).
func WithinPairwise(pred, human []float64, skipConstant bool) float64 {
	if skipConstant && constant(pred) {
		return math.NaN()
	}
	acc, ok := calib.PairwiseAccuracy(pred, human)
	if !ok {
		return math.NaN()
	}
	return acc
}

func undefinedOrZero(skip bool) float64 {
	if skip {
		return math.NaN()
	}
	return 0
}

// constant reports whether x holds fewer than two distinct values.
func constant(x []float64) bool {
	for _, v := range x[min(1, len(x)):] {
		if v != x[0] {
			return false
		}
	}
	return true
}

// Pearson is the Pearson correlation of x and y,
//
//	r = Σ (x_i − x̄)(y_i − ȳ) / √(Σ (x_i − x̄)² · Σ (y_i − ȳ)²),
//
// NaN when either side is constant.
func Pearson(x, y []float64) float64 {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

// SpearmanGlobal is the Spearman correlation over all candidates: the
// Pearson correlation of their mid-ranks (calib.MidRanks), NaN when
// either side is constant.
func SpearmanGlobal(x, y []float64) float64 {
	return Pearson(midRanks(x), midRanks(y))
}

func midRanks(x []float64) []float64 {
	r := make([]float64, len(x))
	calib.MidRanks(r, x, make([]int, len(x)))
	return r
}

// Bias is the mean of pred − human: how much higher the judge scores than
// the humans on their shared scale.
func Bias(pred, human []float64) float64 {
	var s float64
	for i := range pred {
		s += pred[i] - human[i]
	}
	return s / float64(len(pred))
}

// MAE is the mean of |pred − human| on the shared scale.
func MAE(pred, human []float64) float64 {
	var s float64
	for i := range pred {
		s += math.Abs(pred[i] - human[i])
	}
	return s / float64(len(pred))
}

// QuadraticKappa is Cohen's κ with quadratic weights of two integer
// ratings on the scale lo…hi:
//
//	κ_w = 1 − Σ_ij w_ij O_ij / Σ_ij w_ij E_ij,   w_ij = (i − j)²,
//
// O the observed joint counts and E = (row totals ⊗ column totals)/n the
// counts expected by chance. Since Σ w O = Σ_u (a_u − b_u)² and
// Σ w E = (1/n) Σ_u Σ_v (a_u − b_v)², it is computed from the ratings'
// moments: Σ w E = n·(var_a + var_b + (ā − b̄)²) with population
// variances. NaN when both raters are constant at the same value (no
// disagreement is possible).
func QuadraticKappa(a, b []float64) float64 {
	n := float64(len(a))
	var obs float64
	for i := range a {
		d := a[i] - b[i]
		obs += d * d
	}
	ma, va := meanVar(a)
	mb, vb := meanVar(b)
	exp := n * (va + vb + (ma-mb)*(ma-mb))
	if exp == 0 {
		return math.NaN()
	}
	return 1 - obs/exp
}

// meanVar is the mean and population variance of x.
func meanVar(x []float64) (mean, v float64) {
	for _, t := range x {
		mean += t
	}
	mean /= float64(len(x))
	for _, t := range x {
		v += (t - mean) * (t - mean)
	}
	return mean, v / float64(len(x))
}

// AlphaInterval is Krippendorff's α with the interval metric for two
// coders (judge and humans) who both rate every unit:
//
//	α = 1 − D_o / D_e,
//	D_o = (1/N) Σ_u (a_u − b_u)²,
//	D_e = (1/(n(n−1))) Σ_{i≠j} (v_i − v_j)² = 2·SS/(n − 1),
//
// over the n = 2N pooled values v with sum of squares SS about their
// mean (Krippendorff 2011, "Computing Krippendorff's alpha-reliability",
// with m_u = 2 values in every unit). NaN when all values are equal.
func AlphaInterval(a, b []float64) float64 {
	N := len(a)
	var do float64
	for i := range a {
		d := a[i] - b[i]
		do += d * d
	}
	do /= float64(N)
	pooled := append(slices.Clone(a), b...)
	_, v := meanVar(pooled)
	n := float64(2 * N)
	de := 2 * v * n / (n - 1)
	if de == 0 {
		return math.NaN()
	}
	return 1 - do/de
}

// AlphaOrdinal is Krippendorff's α with the ordinal metric for two coders
// rating every unit. The ordinal distance of values c ≤ k is
// δ²(c, k) = (Σ_{g=c}^{k} n_g − (n_c + n_k)/2)², n_g the frequency of
// value g among the pooled 2N values. That sum equals R(k) − R(c), R the
// pooled mid-rank of a value (calib.MidRanks), so ordinal α is interval α
// of the mid-ranks of the pooled values.
func AlphaOrdinal(a, b []float64) float64 {
	r := midRanks(append(slices.Clone(a), b...))
	return AlphaInterval(r[:len(a)], r[len(a):])
}

package calib

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// PairedBootstrap returns percentile 95% intervals (Quantile7 at 0.025 and
// 0.975) of the mean of each row of values, and of the paired difference
// mean(values[m]) − mean(values[ref]), over B context-bootstrap resamples
// (docs/protocol.md §6). values[m][i] is method m's metric on context i; every row
// covers the same contexts, and each resample draws n = len(values[0])
// context indices with replacement, shared by all rows, as
// i = ⌊x · n / 2⁶⁴⌋ with x = Uint64() of Go's rand.NewPCG(seed, 1),
// resample after resample. No refitting. diff[ref] is left zero.
//
// The memory is allocated once, so the number of allocations does not grow
// with B. PairedBootstrap panics if rows differ in length, are empty, or
// B < 1.
func PairedBootstrap(values [][]float64, ref int, B int, seed uint64) (ci, diff [][2]float64) {
	M := len(values)
	if M == 0 || len(values[0]) == 0 || B < 1 {
		panic("calib: PairedBootstrap needs values and B ≥ 1")
	}
	n := len(values[0])
	for _, v := range values {
		if len(v) != n {
			panic("calib: PairedBootstrap rows differ in length")
		}
	}
	means := make([]float64, 2*M*B) // per method B means, then B differences
	sums := make([]float64, M)
	byCtx := make([]float64, n*M) // values transposed: one context's methods side by side
	for m, v := range values {
		for i, x := range v {
			byCtx[i*M+m] = x
		}
	}
	g := rand.NewPCG(seed, 1)
	for b := 0; b < B; b++ {
		clear(sums)
		for k := 0; k < n; k++ {
			i, _ := bits.Mul64(g.Uint64(), uint64(n))
			row := byCtx[int(i)*M : int(i)*M+M]
			for m, x := range row {
				sums[m] += x
			}
		}
		for m := range values {
			means[m*B+b] = sums[m] / float64(n)
		}
		for m := range values {
			means[(M+m)*B+b] = means[m*B+b] - means[ref*B+b]
		}
	}
	ci, diff = percentileIntervals(means, M, B, ref)
	return ci, diff
}

// percentileIntervals reads the percentile 95% intervals (Quantile7 at
// 0.025 and 0.975) off a bootstrap's statistics, laid out as the two
// bootstraps above lay them out: stats[m*B : (m+1)*B] are row m's B
// resampled values and stats[(M+m)*B : (M+m+1)*B] its B differences from
// row ref. It sorts each block in place. diff[ref] is left zero.
func percentileIntervals(stats []float64, M, B, ref int) (ci, diff [][2]float64) {
	ci, diff = make([][2]float64, M), make([][2]float64, M)
	for m := 0; m < M; m++ {
		ci[m] = percentileInterval(stats[m*B : (m+1)*B])
		if m != ref {
			diff[m] = percentileInterval(stats[(M+m)*B : (M+m+1)*B])
		}
	}
	return ci, diff
}

// percentileInterval sorts s and returns its Quantile7 at 0.025 and 0.975.
func percentileInterval(s []float64) [2]float64 {
	slices.Sort(s)
	return [2]float64{Quantile7(0.025, s), Quantile7(0.975, s)}
}

// Quantile7 returns the p-quantile of sorted x by linear interpolation
// between order statistics (Hyndman & Fan type 7, numpy's default):
// with h = (n−1)·p, Q = x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]).
//
// Quantile7 panics if x is empty or p is outside [0, 1]; x must be sorted
// in increasing order.
func Quantile7(p float64, x []float64) float64 {
	if len(x) == 0 {
		panic("calib: Quantile7 of empty slice")
	}
	if !(p >= 0 && p <= 1) {
		panic("calib: Quantile7 p out of [0, 1]")
	}
	h := float64(len(x)-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i >= len(x)-1 {
		return x[len(x)-1]
	}
	return x[i] + (h-lo)*(x[i+1]-x[i])
}

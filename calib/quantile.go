package calib

import "math"

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

package calib

import "math"

// KendallTauB returns Kendall's τ_b of x and y over the pairs i < j where
// both are finite:
//
//	τ_b = (C − D) / √((n₀ − n_x)(n₀ − n_y))
//
// with C and D the concordant and discordant pairs, n₀ = m(m−1)/2 for the
// m usable items, n_x the pairs tied in x and n_y those tied in y. ok is
// false (τ undefined) when either side is constant or fewer than two
// items are usable. It panics if the lengths differ.
func KendallTauB(x, y []float64) (tau float64, ok bool) {
	if len(x) != len(y) {
		panic("calib: KendallTauB length mismatch")
	}
	var c, d, tx, ty, m float64
	for i := range x {
		if !finite(x[i]) || !finite(y[i]) {
			continue
		}
		m++
		for j := i + 1; j < len(x); j++ {
			if !finite(x[j]) || !finite(y[j]) {
				continue
			}
			sx, sy := sign(x[i]-x[j]), sign(y[i]-y[j])
			switch {
			case sx == 0 && sy == 0:
				tx++
				ty++
			case sx == 0:
				tx++
			case sy == 0:
				ty++
			case sx == sy:
				c++
			default:
				d++
			}
		}
	}
	n0 := m * (m - 1) / 2
	den := (n0 - tx) * (n0 - ty)
	if m < 2 || den <= 0 {
		return 0, false
	}
	return (c - d) / math.Sqrt(den), true
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func sign(v float64) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// corrSums accumulates the pooled correlation of within-group centered
// pairs: Σ x̃ỹ, Σ x̃², Σ ỹ² and the cells N. Because every group is
// centered, the pooled Pearson correlation is Σx̃ỹ / √(Σx̃² · Σỹ²), and
// the sums of whole contexts add up, which is what the context bootstrap
// resamples.
type corrSums struct{ xy, xx, yy, n float64 }

func (s *corrSums) add(o corrSums) { s.xy += o.xy; s.xx += o.xx; s.yy += o.yy; s.n += o.n }

// addCentered centers the cells of x and y where both are finite (one
// group: one context and unit) and adds them.
func (s *corrSums) addCentered(x, y []float64) {
	var mx, my, n float64
	for i := range x {
		if finite(x[i]) && finite(y[i]) {
			mx += x[i]
			my += y[i]
			n++
		}
	}
	if n < 2 {
		return
	}
	mx /= n
	my /= n
	for i := range x {
		if finite(x[i]) && finite(y[i]) {
			dx, dy := x[i]-mx, y[i]-my
			s.xy += dx * dy
			s.xx += dx * dx
			s.yy += dy * dy
		}
	}
	s.n += n
}

// corr is the pooled correlation; ok is false when a side has no spread.
func (s corrSums) corr() (float64, bool) {
	if s.xx <= 0 || s.yy <= 0 {
		return 0, false
	}
	return s.xy / math.Sqrt(s.xx*s.yy), true
}

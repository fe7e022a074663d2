package calib

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// monotoneRule is written into every map: how it was fitted and how it is
// read.
const monotoneRule = "isotonic regression of the human scores on the in-sample corrected scores of every training candidate (pool-adjacent-violators, weighted by candidate count; equal corrected scores pooled first; adjacent blocks with equal means merged, so knot values strictly increase); knots at each block's mean corrected score; linear between knots; beyond the first and last knot, linear with the slope of the nearest segment"

// MonotoneMap maps corrected scores to the human scale: a strictly
// increasing piecewise-linear function through the knots (X[i], Y[i]),
// extended linearly beyond the ends (docs/calibrator.md). Because it is
// strictly increasing it keeps every order and tie of the corrected
// scores, so within-context ranks and agreement are unchanged.
type MonotoneMap struct {
	X    []float64 `json:"x"` // knot abscissae: corrected scores, strictly increasing
	Y    []float64 `json:"y"` // knot values on the human scale, strictly increasing
	Rule string    `json:"rule"`
	// Min and Max bound the training corrected scores: a value outside
	// [Min, Max] is extrapolated.
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// FitMonotone fits the map of corrected scores x to human scores y by
// isotonic regression (monotoneRule). It fails when fewer than two blocks
// remain: the corrected scores do not increase with the human scores at
// all, and no increasing map exists.
//
// FitMonotone panics if x and y differ in length.
func FitMonotone(x, y []float64) (*MonotoneMap, error) {
	if len(x) != len(y) {
		panic("calib: FitMonotone lengths differ")
	}
	n := len(x)
	if n == 0 {
		return nil, errors.New("no training candidates")
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	// Sort by x, ties by y then index, so the input order never matters.
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmpFloat(x[a], x[b]); c != 0 {
			return c
		}
		if c := cmpFloat(y[a], y[b]); c != 0 {
			return c
		}
		return a - b
	})
	// Blocks: (Σx, Σy, weight); equal x pooled first.
	type block struct{ sx, sy, w float64 }
	var bs []block
	for k := 0; k < n; {
		i := idx[k]
		b := block{}
		for k < n && x[idx[k]] == x[i] {
			b.sx += x[idx[k]]
			b.sy += y[idx[k]]
			b.w++
			k++
		}
		bs = append(bs, b)
		// Pool while the previous block's mean is not below this one's.
		for len(bs) > 1 {
			p, c := bs[len(bs)-2], bs[len(bs)-1]
			if p.sy/p.w < c.sy/c.w {
				break
			}
			bs = bs[:len(bs)-2]
			bs = append(bs, block{p.sx + c.sx, p.sy + c.sy, p.w + c.w})
		}
	}
	if len(bs) < 2 {
		return nil, errors.New("the corrected scores of the training data do not increase with the human scores (isotonic regression leaves one block)")
	}
	m := &MonotoneMap{Rule: monotoneRule, Min: x[idx[0]], Max: x[idx[n-1]]}
	for _, b := range bs {
		m.X = append(m.X, b.sx/b.w)
		m.Y = append(m.Y, b.sy/b.w)
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// check validates a map read from a file.
func (m *MonotoneMap) check() error {
	if len(m.X) < 2 || len(m.X) != len(m.Y) {
		return fmt.Errorf("%d knot abscissae and %d values: want two or more of each", len(m.X), len(m.Y))
	}
	for i := range m.X {
		if math.IsNaN(m.X[i]) || math.IsInf(m.X[i], 0) || math.IsNaN(m.Y[i]) || math.IsInf(m.Y[i], 0) {
			return fmt.Errorf("knot %d is not finite", i+1)
		}
		if i > 0 && !(m.X[i] > m.X[i-1] && m.Y[i] > m.Y[i-1]) {
			return fmt.Errorf("knots %d and %d do not strictly increase", i, i+1)
		}
	}
	return nil
}

// At maps a corrected score to the human scale. Between knots it
// interpolates linearly; beyond them it continues the nearest segment.
func (m *MonotoneMap) At(x float64) float64 {
	n := len(m.X)
	// The segment: i with X[i] ≤ x < X[i+1], clamped to the end segments.
	i, _ := slices.BinarySearch(m.X, x)
	// BinarySearch returns the first index with X[i] ≥ x.
	switch {
	case i < n && m.X[i] == x:
		return m.Y[i]
	case i == 0:
		i = 1
	case i == n:
		i = n - 1
	}
	x0, x1, y0, y1 := m.X[i-1], m.X[i], m.Y[i-1], m.Y[i]
	y := y0 + (x-x0)*((y1-y0)/(x1-x0))
	// Rounding must not carry a value past a knot's: that could reverse
	// the order of two scores on either side of it.
	if x > x0 {
		y = math.Max(y, y0)
	}
	if x < x1 {
		y = math.Min(y, y1)
	}
	return y
}

// Extrapolates reports whether x lies outside the training corrected
// scores.
func (m *MonotoneMap) Extrapolates(x float64) bool { return x < m.Min || x > m.Max }

package widgets

import (
	"math"
	"strings"
)

// DotRow draws one row of a dot chart on the axis [lo, hi] in w cells: │
// in the cell holding ref (Vanilla's level) and marks[i] in the cell
// holding vals[i], later marks drawn over earlier ones, except that a cell
// holding the values of two or more different marks shows several (when
// several is not 0), so that no value hides another. Cells are those of
// GainBar: cell i covers [lo + i·c, lo + (i+1)·c) with c = (hi − lo)/w,
// values outside the axis go to the end cells, NaN values and a NaN ref
// are not drawn. It returns "" for w ≤ 0 or an empty axis, and panics if
// marks and vals differ in length.
//
// Hand-made: Bubbles has no chart; a dot chart needs several marks and a
// reference on one shared axis per row.
func DotRow(vals []float64, marks []rune, ref, lo, hi float64, w int, several rune) string {
	if len(vals) != len(marks) {
		panic("ui: DotRow: marks and values differ in length")
	}
	if w <= 0 || !(hi > lo) {
		return ""
	}
	c := (hi - lo) / float64(w)
	cellOf := func(x float64) int {
		return min(max(int(math.Floor((x-lo)/c)), 0), w-1)
	}
	row := []rune(strings.Repeat("·", w))
	if !math.IsNaN(ref) {
		row[cellOf(ref)] = '│'
	}
	drawn := make(map[int]rune, len(vals))
	for i, v := range vals {
		if math.IsNaN(v) {
			continue
		}
		c := cellOf(v)
		if m, ok := drawn[c]; ok && m != marks[i] && several != 0 {
			drawn[c] = several
		} else {
			drawn[c] = marks[i]
		}
		row[c] = drawn[c]
	}
	return string(row)
}

// ValueAxis is the axis of a set of values: the smallest and largest
// finite ones widened by a twentieth of the span on each side, or ±0.01
// around the value when they are all equal, or [−0.01, 0.01] with none.
func ValueAxis(vals ...float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	switch {
	case lo > hi:
		return -0.01, 0.01
	case lo == hi:
		return lo - 0.01, hi + 0.01
	}
	pad := (hi - lo) / 20
	return lo - pad, hi + pad
}

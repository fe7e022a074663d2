package widgets

import (
	"math"
	"strings"
)

// GainBar draws one row of the subset-size curve (paper Fig. 4c) on the
// axis [lo, hi] in w cells: ─ over the cells from the one holding p10 to
// the one holding p90, ● in the cell holding the median, and │ in the
// cell holding 0 (Vanilla's gain) unless the median is there. Cell i
// covers [lo + i·c, lo + (i+1)·c) with c = (hi − lo)/w; values outside
// the axis are drawn in the end cells. A NaN median draws only the
// marker. It returns "" for w ≤ 0 or an empty axis (hi ≤ lo).
//
// Hand-made: Bubbles' progress bar draws one fraction from 0; this row is
// a range (p10–p90) with a point and a zero marker on a signed axis.
func GainBar(median, p10, p90, lo, hi float64, w int) string {
	if w <= 0 || !(hi > lo) {
		return ""
	}
	c := (hi - lo) / float64(w)
	cellOf := func(x float64) int {
		return min(max(int(math.Floor((x-lo)/c)), 0), w-1)
	}
	row := []rune(strings.Repeat(" ", w))
	if !math.IsNaN(median) {
		for i := cellOf(p10); i <= cellOf(p90); i++ {
			row[i] = '─'
		}
	}
	if lo <= 0 && 0 < hi {
		row[cellOf(0)] = '│'
	}
	if !math.IsNaN(median) {
		row[cellOf(median)] = '●'
	}
	return string(row)
}

// GainAxis is the axis of a set of gains: it always holds 0, and the
// smallest and largest finite values, widened by a twentieth of the span
// on each side so the end values do not sit on the frame. With no spread
// it returns [−0.01, 0.01].
func GainAxis(vals ...float64) (lo, hi float64) {
	for _, v := range vals {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if hi-lo == 0 {
		return -0.01, 0.01
	}
	pad := (hi - lo) / 20
	return lo - pad, hi + pad
}

package widgets

import (
	"math"
	"strconv"
	"strings"
)

// RatioBar draws a probe/neutral RMS ratio with its interval [lo, hi] on
// an axis [0, axisMax] in w cells: █ below the interval, ▓ from its lower
// end to the ratio, ░ from the ratio to its upper end, and a │ marker in
// the cell holding 1, the ratio of a probe that moves scores no more than
// a neutral clause. Cell i covers [i, i+1)·axisMax/w and takes the glyph
// of its midpoint. A NaN ratio draws an empty axis with the marker.
//
// Hand-made: Bubbles' progress bar draws one fraction from 0, with no
// interval, no second shade and no reference marker inside the bar.
func RatioBar(ratio, lo, hi, axisMax float64, w int) string {
	if w <= 0 {
		return ""
	}
	if !(axisMax > 0) {
		axisMax = 2
	}
	cell := axisMax / float64(w)
	one := int(math.Floor(1 / cell))
	var b strings.Builder
	for i := range w {
		mid := (float64(i) + 0.5) * cell
		switch {
		case i == one:
			b.WriteRune('│')
		case mid < lo && mid < ratio:
			b.WriteRune('█')
		case mid < ratio:
			b.WriteRune('▓')
		case mid < hi:
			b.WriteRune('░')
		default:
			b.WriteRune(' ')
		}
	}
	return b.String()
}

// RatioAxis is the axis maximum for a set of ratios and interval upper
// ends: at least 2 (so the marker at 1 sits mid-bar when nothing moves),
// else the largest finite value rounded up to a step that reads well
// (a half up to 6, a whole number up to 20, then 5, 10, …), so that every
// value lies on the axis: a ratio of 12.8 is drawn on an axis to 13, not
// past the end of one to 6.
func RatioAxis(vals ...float64) float64 {
	top := 2.0
	for _, v := range vals {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			top = max(top, v)
		}
	}
	step := 0.5
	switch {
	case top > 100:
		step = math.Pow(10, math.Floor(math.Log10(top))-1)
	case top > 20:
		step = 5
	case top > 6:
		step = 1
	}
	return math.Ceil(top/step) * step
}

// RatioTicks labels the axis of RatioBar(…, axisMax, w) in w cells: 0 at
// the first cell, 1 at the marker's cell and axisMax ending at the last
// cell ("0       1       2"); a label that would run into another is
// left out.
func RatioTicks(axisMax float64, w int) string {
	if w <= 0 {
		return ""
	}
	if !(axisMax > 0) {
		axisMax = 2
	}
	row := []rune(strings.Repeat(" ", w))
	free := func(at, n int) bool {
		if at < 0 || at+n > w {
			return false
		}
		for i := max(at-1, 0); i < min(at+n+1, w); i++ {
			if row[i] != ' ' {
				return false
			}
		}
		return true
	}
	put := func(at int, label string) {
		if r := []rune(label); free(at, len(r)) {
			copy(row[at:], r)
		}
	}
	put(0, "0")
	top := strconv.FormatFloat(axisMax, 'g', -1, 64)
	put(w-len(top), top)
	put(int(math.Floor(1/(axisMax/float64(w)))), "1")
	return string(row)
}

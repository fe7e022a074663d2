package ui

import (
	"math"
	"strings"
)

// ratioBar draws a probe/neutral RMS ratio with its interval [lo, hi] on
// an axis [0, axisMax] in w cells: █ below the interval, ▓ from its lower
// end to the ratio, ░ from the ratio to its upper end, and a │ marker in
// the cell holding 1, the ratio of a probe that moves scores no more than
// a neutral clause. Cell i covers [i, i+1)·axisMax/w and takes the glyph
// of its midpoint. A NaN ratio draws an empty axis with the marker.
//
// Hand-made: Bubbles' progress bar draws one fraction from 0, with no
// interval, no second shade and no reference marker inside the bar.
func ratioBar(ratio, lo, hi, axisMax float64, w int) string {
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

// ratioAxis is the axis maximum for a set of ratios and interval upper
// ends: at least 2 (so the marker at 1 sits mid-bar when nothing moves),
// else the largest finite value rounded up to a half, at most 6 (a
// ratio beyond fills the bar; the number beside it tells the rest).
func ratioAxis(vals ...float64) float64 {
	top := 2.0
	for _, v := range vals {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			top = max(top, v)
		}
	}
	return min(math.Ceil(top*2)/2, 6)
}

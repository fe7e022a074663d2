package widgets

import (
	"math"
	"strings"
)

// DeltaHist counts the displacements Δ = s(probe) − s0 of one attribute
// and sign in bins of width DeltaBin over [−span, span]; values outside
// are clamped into the end bins. Fixed bins keep adding a result O(1) and
// a frame's cost independent of how many results have arrived.
type DeltaHist struct {
	span   float64
	bins   []int
	n      int
	sum    float64
	absMax float64 // largest |Δ| seen, for the display range
}

const DeltaBin = 0.25

func NewDeltaHist(span float64) *DeltaHist {
	span = max(span, 1)
	return &DeltaHist{span: span, bins: make([]int, int(math.Ceil(2*span/DeltaBin))+1)}
}

// Add counts one displacement. NaN and infinities are ignored.
func (h *DeltaHist) Add(d float64) {
	if math.IsNaN(d) || math.IsInf(d, 0) {
		return
	}
	i := int(math.Round((d + h.span) / DeltaBin))
	h.bins[min(max(i, 0), len(h.bins)-1)]++
	h.n++
	h.sum += d
	h.absMax = max(h.absMax, math.Abs(d))
}

// AbsMax is the largest |Δ| seen (0 when empty), for the display range.
func (h *DeltaHist) AbsMax() float64 { return h.absMax }

// N is the number of displacements counted.
func (h *DeltaHist) N() int { return h.n }

// Mean is the mean displacement (0 when empty).
func (h *DeltaHist) Mean() float64 {
	if h.n == 0 {
		return 0
	}
	return h.sum / float64(h.n)
}

// binCenter is the Δ value bin i counts.
func (h *DeltaHist) binCenter(i int) float64 { return float64(i)*DeltaBin - h.span }

// SparkLevels are the eight block heights of a sparkline, lowest first.
// The sparkline is hand-made: Bubbles has no chart or sparkline widget.
var SparkLevels = []rune("▁▂▃▄▅▆▇█")

// Spark draws the histogram over [−r, r] as w cells (r is the display
// range the caller shares between Δ+ and Δ−). Each cell is the count of the
// bins whose centres fall in it, scaled so the fullest cell is █; an empty
// cell is a space, so zero and one count look different. Integer
// displacements (integer scores) get one cell per value, −r…r, centred
// in w when 2r+1 ≤ w, so no empty cells fall between neighbouring values.
// An empty histogram draws w '·'.
func (h *DeltaHist) Spark(w int, r float64) string {
	if w <= 0 {
		return ""
	}
	if h.n == 0 {
		return strings.Repeat("·", w)
	}
	r = max(r, DeltaBin)
	cellsN, integral := w, true
	for i, c := range h.bins {
		if c > 0 && h.binCenter(i) != math.Round(h.binCenter(i)) {
			integral = false
		}
	}
	ir := int(math.Round(r))
	if integral && float64(ir) == r && 2*ir+1 <= w {
		cellsN = 2*ir + 1
	}
	cells := make([]int, cellsN)
	for i, c := range h.bins {
		if c == 0 {
			continue
		}
		x := h.binCenter(i)
		var j int
		if cellsN == w {
			j = int(math.Floor((x + r) / (2 * r) * float64(w)))
		} else {
			j = int(math.Round(x)) + ir
		}
		cells[min(max(j, 0), cellsN-1)] += c
	}
	top := 0
	for _, c := range cells {
		top = max(top, c)
	}
	var b strings.Builder
	pad := w - cellsN
	b.WriteString(strings.Repeat(" ", pad/2))
	for _, c := range cells {
		if c == 0 {
			b.WriteByte(' ')
			continue
		}
		lvl := (c*len(SparkLevels) - 1) / top // 1…top → 0…7
		b.WriteRune(SparkLevels[min(lvl, len(SparkLevels)-1)])
	}
	b.WriteString(strings.Repeat(" ", pad-pad/2))
	return b.String()
}

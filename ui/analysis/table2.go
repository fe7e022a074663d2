package analysis

import (
	"math"
	"strconv"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/figures"
)

// The paper's Table 2 as the Fit tab and the Compare tab show it when a
// report has rubric baselines: its rows and its CSV are the export's
// (figures.Table2, figures.Table2CSV); here is what the tabs add to them.

// OverlapMark stands for two or more marks in one cell of an axis (the
// Fit tab's γ sweep, the Compare tab's judges).
const OverlapMark = '*'

// MarkedMethod is a rubric-free method of Table 2 with its mark in the
// γ sweep.
type MarkedMethod struct {
	figures.MethodLabel
	Mark rune
}

// Methods are the rubric-free rows of the method tables, in report
// order, with their labels and their marks in the γ sweep.
var Methods = marked(map[calib.Method]rune{calib.Vanilla: '│', calib.PRISM: 'P', calib.AlphaPRISM: 'α', calib.Half: 'H', calib.Taylor: 'T'})

func marked(marks map[calib.Method]rune) []MarkedMethod {
	out := make([]MarkedMethod, len(figures.Table2Methods))
	for i, m := range figures.Table2Methods {
		out[i] = MarkedMethod{m, marks[m.M]}
	}
	return out
}

// CountText prints a count per candidate: an integer as one, else two
// decimals; "–" when not known (0).
func CountText(v float64) string {
	switch {
	case v <= 0 || math.IsNaN(v):
		return "–"
	case v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// TokensText prints tokens per candidate, rounded; "–" when not known.
func TokensText(v float64) string {
	if v <= 0 || math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

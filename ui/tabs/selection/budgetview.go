package selection

import (
	"fmt"
	"math"
	"strings"

	"github.com/prism-eval/prism/calib/budget"

	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// budgetView draws a budget curve (budget.Report, docs/budget.md) as
// a text chart: mean agreement (rows) against judge calls per candidate
// (columns), one mark per policy (the letters of budgetMarks), a dotted
// line at the full bank's mean less the tolerance, then per family the
// cheapest point within it (probe calls as a share of the full bank's,
// the out-of-fold mean, and the range of the outer folds' means). The
// Select tab builds one for each frame, sized to its pane.
type budgetView struct {
	rep           *budget.Report
	st            *styles.Styles
	width, height int
}

// budgetMarks are the chart's letters per family, drawn in this order
// (later marks cover earlier ones in a shared cell).
var budgetMarks = []struct {
	family string
	mark   byte
}{
	{budget.FamilyOneWording, 'w'},
	{budget.FamilyColumns, 'c'},
	{budget.FamilyUnits, 'u'},
	{budget.FamilyOneSign, 's'},
	{budget.FamilyAdaptiveWording, 'a'},
	{budget.FamilyAdaptive, 'A'},
	{budget.FamilyVanilla, 'V'},
	{budget.FamilyFull, 'F'},
}

// labelW is the width of the chart's mean labels: "0.4155 ".
const labelW = 7

// budgetShort names the families in the reach lines.
var budgetShort = map[string]string{
	budget.FamilyUnits: "units", budget.FamilyColumns: "columns", budget.FamilyOneSign: "one sign",
	budget.FamilyOneWording: "1 wording", budget.FamilyAdaptive: "adaptive", budget.FamilyAdaptiveWording: "adaptive 1w",
}

// lines are the chart and the reach lines, at most height lines of at
// most width cells.
// BudgetName names a family as the reach lines do ("" for Vanilla and
// the full bank, which have none).
func BudgetName(family string) string { return budgetShort[family] }

func (v *budgetView) lines() []string {
	r := v.rep
	if r == nil || len(r.Points) == 0 || v.width < 20 {
		return nil
	}
	below := v.reachLines()
	rows := v.height - len(below)
	if rows < 4 {
		return below[:min(len(below), max(v.height, 0))]
	}
	return append(v.chart(rows), below...)
}

// fullMean is the mean of the full bank's point.
func fullMean(r *budget.Report) float64 {
	var full budget.Point
	for _, p := range r.Points {
		if p.Family == budget.FamilyFull {
			full = p
		}
	}
	return full.Mean
}

// reachLines are the lines under the chart: the calls axis, the legend
// and per family the cheapest point within the tolerance.
func (v *budgetView) reachLines() []string {
	r, st := v.rep, v.st
	cw := v.width - labelW
	var below []string
	below = append(below, st.Muted.Render(widgets.Fit(fmt.Sprintf("%*s0%*s calls per candidate", labelW, "", cw-len(" calls per candidate")-1, fmt.Sprintf("%.4g", r.FullCalls)), v.width)))
	legend := "V vanilla F full u units c columns s one sign w 1 wording A adaptive a adaptive 1w"
	below = append(below, widgets.WrapStyled(st.Muted, legend+fmt.Sprintf(" ┄ full−%g", r.Tolerance), v.width)...)
	below = append(below, st.Label.Render(widgets.Fit(fmt.Sprintf("%-11s %-6s %6s  %-6s  %s", "cheapest", "point", "probe", "mean", "folds"), v.width)))
	for _, c := range r.Reach {
		if c.Family == budget.FamilyVanilla || c.Family == budget.FamilyFull {
			continue
		}
		name := budgetShort[c.Family]
		if c.Point < 0 {
			below = append(below, widgets.Fit(fmt.Sprintf("%-11s never within %g", name, r.Tolerance), v.width))
			continue
		}
		p := r.Points[c.Point]
		s := st.Text
		if c.HalfOrLess {
			s = st.Good
		}
		below = append(below, s.Render(widgets.Fit(fmt.Sprintf("%-11s %-6s %5.1f%%  %s  [%.3f, %.3f]",
			name, strings.TrimPrefix(p.Label(), p.Family+" "), 100*p.Fraction, mean4(p.Mean), minFloat(p.FoldMeans), maxFloat(p.FoldMeans)), v.width)))
	}
	return append(below, widgets.WrapStyled(st.Muted, "out of fold; policies learned on training folds only", v.width)...)
}

// chart is the chart's rows lines: a mark per point, mean (rows)
// against calls (columns), and the dotted tolerance line.
func (v *budgetView) chart(rows int) []string {
	r, st := v.rep, v.st
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range r.Points {
		lo, hi = math.Min(lo, p.Mean), math.Max(hi, p.Mean)
	}
	ref := fullMean(r) - r.Tolerance
	lo, hi = math.Min(lo, ref), math.Max(hi, ref)
	if hi == lo {
		hi = lo + 1e-3
	}
	cw := v.width - labelW
	grid := make([][]byte, rows)
	for i := range grid {
		grid[i] = []byte(strings.Repeat(" ", cw))
	}
	y := func(m float64) int { return int(math.Round((hi - m) / (hi - lo) * float64(rows-1))) }
	x := func(c float64) int {
		if r.FullCalls <= 0 {
			return 0
		}
		return min(int(math.Round(c/r.FullCalls*float64(cw-1))), cw-1)
	}
	refRow := y(ref)
	for i := range grid[refRow] {
		grid[refRow][i] = ':'
	}
	for _, bm := range budgetMarks {
		for _, p := range r.Points {
			if p.Family == bm.family {
				grid[y(p.Mean)][max(x(p.Calls), 0)] = bm.mark
			}
		}
	}
	out := make([]string, 0, v.height)
	for i, row := range grid {
		label := strings.Repeat(" ", labelW)
		switch i {
		case 0:
			label = fmt.Sprintf("%-*s", labelW, mean4(hi))
		case refRow:
			label = fmt.Sprintf("%-*s", labelW, mean4(ref))
		case rows - 1:
			label = fmt.Sprintf("%-*s", labelW, mean4(lo))
		}
		line := strings.ReplaceAll(string(row), ":", "┄")
		out = append(out, st.Muted.Render(label)+st.Label.Render(line))
	}
	return out
}

func minFloat(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		m = math.Min(m, v)
	}
	return m
}

func maxFloat(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	return m
}

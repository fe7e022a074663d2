package ui

import (
	"fmt"
	"math"
	"strings"

	"github.com/prism-eval/prism/calib/selection"

	"charm.land/lipgloss/v2"

	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// selectTab is the Selection tab (docs/protocol.md §9): on the left the
// subset-size curve (median gain over Vanilla per subset size with its
// 10th–90th percentile band, paper Fig. 4c); on the right the omission
// table (Table 19) and the forward-selection path (Table 21).
// selectctl.go runs the selection and follows it.
type selectTab struct {
	// The selection in flight, its progress, and why the last one failed.
	jobState[*selection.Report]

	key      studyKey // the answers rep was computed from
	rep      *selection.Report
	warnings []string
	judge    string   // the judge a run would use, for the hint
	current  studyKey // the answers a run would use now

	// budget is the budget curve b shows in the left pane (budgetcmd.go).
	budget budgetState

	focusRight    bool
	scroll        int
	width, height int
}

func (v *selectTab) SetSize(w, h int) { v.width, v.height = w, h }

func (v *selectTab) Focus(right bool) { v.focusRight = right }

// Move scrolls the focused pane's tables.
func (v *selectTab) Move(delta int) { v.scroll = max(v.scroll+delta, 0) }

func (v *selectTab) leftWidth() int { return max(v.width/2, 40) }

func (v *selectTab) View(a *App) string {
	st := a.styles
	v.judge = a.selectJudge()
	v.current, _ = a.currentKey()
	lw := v.leftWidth()
	rw := v.width - lw
	innerH := v.height - widgets.PaneChromeH - 1
	left := widgets.Pane(st, !v.focusRight, lw, v.height, v.curveTitle(), widgets.Block(v.curveLines(st, lw-widgets.PaneChromeW), lw-widgets.PaneChromeW, innerH))
	if v.budget.show {
		left = widgets.Pane(st, !v.focusRight, lw, v.height, v.budgetTitle(), widgets.Block(v.budgetLines(st, lw-widgets.PaneChromeW, innerH), lw-widgets.PaneChromeW, innerH))
	}
	right := v.tableLines(st, rw-widgets.PaneChromeW)
	if v.focusRight {
		v.scroll = min(v.scroll, max(len(right)-innerH, 0))
		right = right[v.scroll:]
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, left,
		widgets.Pane(st, v.focusRight, rw, v.height, "Omission · forward selection", widgets.Block(right, rw-widgets.PaneChromeW, innerH)))
}

func (v *selectTab) curveTitle() string {
	if r := v.rep; r != nil {
		return fmt.Sprintf("Subset-size curve · %s · %d contexts · %d units", r.Metric, r.NContexts, len(r.Units))
	}
	return "Subset-size curve"
}

func (v *selectTab) budgetTitle() string {
	if r := v.budget.rep; r != nil {
		return fmt.Sprintf("Budget curve · %s · %d contexts · full bank %.4g calls per candidate", r.Metric, r.NContexts, r.FullCalls)
	}
	return "Budget curve"
}

// budgetLines draws the budget evaluation's status and the curve.
func (v *selectTab) budgetLines(st *styles.Styles, w, h int) []string {
	b := &v.budget
	var lines []string
	if b.job != nil {
		lines = append(lines, st.Title.Render("evaluating budgets…"), st.Muted.Render("static subsets and the adaptive policy, nested CV"), "")
	}
	if b.err != nil {
		lines = append(lines, widgets.WrapStyled(st.Bad, b.err.Error(), w)...)
	}
	if b.rep == nil {
		if b.job == nil && b.err == nil {
			lines = append(lines, st.Muted.Render("no budget curve yet"))
		}
		return lines
	}
	if b.key != v.current {
		lines = append(lines, widgets.WrapStyled(st.Warn, "computed on other answers: b b reevaluates", w)...)
	}
	b.view.rep, b.view.st = b.rep, st
	b.view.SetSize(w, h-len(lines))
	return append(lines, b.view.lines()...)
}

// curveLines draws the status and, per subset size, the gain band.
func (v *selectTab) curveLines(st *styles.Styles, w int) []string {
	var lines []string
	if v.job != nil {
		lines = append(lines, st.Title.Render("selecting…"))
		if v.total > 0 {
			bw := max(w-24, 4)
			fill := v.done * bw / v.total
			lines = append(lines, fmt.Sprintf("%s %d/%d subsets",
				st.Good.Render(strings.Repeat("█", fill))+st.Muted.Render(strings.Repeat("░", bw-fill)), v.done, v.total))
		} else {
			lines = append(lines, st.Muted.Render("reading answers, building the design"))
		}
		lines = append(lines, "")
	}
	if v.err != nil {
		lines = append(lines, widgets.WrapStyled(st.Bad, v.err.Error(), w)...)
	}
	r := v.rep
	if r == nil {
		if v.job == nil && v.err == nil {
			lines = append(lines, widgets.WrapStyled(st.Muted, fmt.Sprintf(
				"r runs the selection on judge %s's stored answers for this bank version: every subset of units, the omission table and forward selection, each a nested cross-validation.", v.judge), w)...)
		}
		return lines
	}
	lines = append(lines, "Vanilla   "+mean4(r.Vanilla),
		fmt.Sprintf("full bank %s (%s over Vanilla)", mean4(r.Full.Mean), gain4(r.Full.Gain)))
	if v.key != v.current {
		lines = append(lines, widgets.WrapStyled(st.Warn, fmt.Sprintf("computed on judge %s, bank %s; the bank or judge has changed since: r reruns",
			v.key.Judge, shortHash(v.key.BankHash)), w)...)
	}
	for _, wn := range v.warnings {
		lines = append(lines, widgets.WrapStyled(st.Warn, wn, w)...)
	}
	if len(r.Curve) == 0 {
		return append(lines, st.Muted.Render("no subset enumeration (more than 16 units)"))
	}
	// Columns: size, subsets, the band, the median, and when wide enough
	// the percentiles and how many subsets beat Vanilla.
	wide := w >= 70
	fixed := 3 + 6 + 8
	if wide {
		fixed += 19 + 7
	}
	bw := max(w-fixed, 8)
	vals := []float64{}
	for _, c := range r.Curve {
		vals = append(vals, c.P10, c.P90, c.Median)
	}
	lo, hi := widgets.GainAxis(vals...)
	head := fmt.Sprintf("%2s %5s %-*s %7s", "k", "n", bw, "gain: ● median ─ p10–p90 │ 0", "median")
	if wide {
		head += fmt.Sprintf(" %-18s %6s", "[p10, p90]", ">van.")
	}
	lines = append(lines, "", st.Label.Render(widgets.Fit(head, w)))
	for _, c := range r.Curve {
		bar := widgets.GainBar(c.Median, c.P10, c.P90, lo, hi, bw)
		ln := fmt.Sprintf("%2d %5d %s %7s", c.Size, c.Subsets, st.Label.Render(bar), gain4(c.Median))
		if wide {
			ln += fmt.Sprintf(" %-18s %6d", "["+gain4(c.P10)+", "+gain4(c.P90)+"]", c.AboveVanilla)
		}
		lines = append(lines, ln)
	}
	lines = append(lines, st.Muted.Render(widgets.Fit(fmt.Sprintf("%9s%-*s%s", "", bw-6, gain4(lo), gain4(hi)), w)))
	return lines
}

// tableLines draws the omission table and the forward-selection path.
func (v *selectTab) tableLines(st *styles.Styles, w int) []string {
	r := v.rep
	if r == nil {
		return []string{st.Muted.Render("no selection yet")}
	}
	lines := studyLines(st, r.Study, w)
	nameW := 4
	for _, u := range r.Units {
		nameW = max(nameW, lipgloss.Width(u)+2) // forward rows prefix "+ "
	}
	nameW = min(nameW, max(w-17, 6))
	wide := w >= nameW+1+7+1+8+1+8
	row := func(name, mean, gain, change string) string {
		if wide {
			return fmt.Sprintf("%-*s %7s %8s %8s", nameW, widgets.Clip(name, nameW), mean, gain, change)
		}
		return fmt.Sprintf("%-*s %7s %8s", nameW, widgets.Clip(name, nameW), mean, change)
	}
	lines = append(lines, st.Title.Render("without one unit"), st.Label.Render(row("unit", "mean", "gain", "change")))
	for _, o := range r.Omission {
		s := st.Text
		if o.Change > 0 {
			s = st.Warn // the bank does better without it
		}
		lines = append(lines, s.Render(row(o.Unit, mean4(o.Mean), gain4(o.Gain), gain4(o.Change))))
	}
	lines = append(lines, st.Muted.Render(fmt.Sprintf("range [%s, %s]", mean4(r.OmissionRange[0]), mean4(r.OmissionRange[1]))), "")
	if len(r.Forward) == 0 && r.ForwardStop == "" {
		return lines
	}
	lines = append(lines, st.Title.Render("forward selection"))
	if len(r.Forward) > 0 {
		lines = append(lines, st.Label.Render(row("+ unit", "mean", "gain", "step")))
	}
	for _, f := range r.Forward {
		lines = append(lines, row("+ "+f.Added, mean4(f.Mean), gain4(f.Gain), gain4(f.Improvement)))
	}
	if r.ForwardStop != "" {
		lines = append(lines, widgets.WrapStyled(st.Muted, "stop: "+r.ForwardStop, w)...)
	}
	return lines
}

// mean4 prints a mean with 4 decimals, or "—".
func mean4(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	return fmt.Sprintf("%.4f", f)
}

// gain4 prints a gain with its sign and 4 decimals, or "—".
func gain4(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	return fmt.Sprintf("%+.4f", f)
}

package selection

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

var mean4, gain4 = widgets.Mean4, widgets.Gain4

// View draws the tab; it reads the current study to say when a result
// is of other answers, and changes nothing.
func (v *Tab) View() string {
	st := v.svc.Styles()
	current, ok := v.svc.Key()
	judge := v.svc.Judge()
	if ok {
		judge = current.Judge // the Run form's, which a selection would use
	}
	lw, rw := v.leftWidth(), v.rightWidth()
	innerH := v.innerHeight()
	left := widgets.Pane(st, !v.focusRight, lw, v.height, v.curveTitle(), widgets.Block(v.curveLines(st, lw-widgets.PaneChromeW, current, judge), lw-widgets.PaneChromeW, innerH))
	if v.budget.show {
		left = widgets.Pane(st, !v.focusRight, lw, v.height, v.budgetTitle(), widgets.Block(v.budgetLines(st, lw-widgets.PaneChromeW, innerH, current), lw-widgets.PaneChromeW, innerH))
	}
	right := v.tableLines(st, rw-widgets.PaneChromeW)
	if v.focusRight {
		right = v.scroll.Visible(right)
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, left,
		widgets.Pane(st, v.focusRight, rw, v.height, "Omission · forward selection", widgets.Block(right, rw-widgets.PaneChromeW, innerH)))
}

func (v *Tab) curveTitle() string {
	if r := v.rep; r != nil {
		return fmt.Sprintf("Subset-size curve · %s · %d contexts · %d units", r.Metric, r.NContexts, len(r.Units))
	}
	return "Subset-size curve"
}

func (v *Tab) budgetTitle() string {
	if r := v.budget.rep; r != nil {
		return fmt.Sprintf("Budget curve · %s · %d contexts · full bank %.4g calls per candidate", r.Metric, r.NContexts, r.FullCalls)
	}
	return "Budget curve"
}

// budgetLines draws the budget evaluation's status and the curve.
func (v *Tab) budgetLines(st *styles.Styles, w, h int, current study.Key) []string {
	b := &v.budget
	var lines []string
	if b.Job != nil {
		lines = append(lines, st.Title.Render("evaluating budgets…"), st.Muted.Render("static subsets and the adaptive policy, nested CV"), "")
	}
	if b.Err != nil {
		lines = append(lines, widgets.WrapStyled(st.Bad, b.Err.Error(), w)...)
	}
	if b.rep == nil {
		if b.Job == nil && b.Err == nil {
			lines = append(lines, st.Muted.Render("no budget curve yet"))
		}
		return lines
	}
	if b.key != current {
		lines = append(lines, widgets.WrapStyled(st.Warn, "computed on other answers: b b reevaluates", w)...)
	}
	chart := budgetView{rep: b.rep, st: st, width: w, height: h - len(lines)}
	return append(lines, chart.lines()...)
}

// curveLines draws the status and, per subset size, the gain band;
// judge names the judge a selection would use, in the hint.
func (v *Tab) curveLines(st *styles.Styles, w int, current study.Key, judge string) []string {
	lines := v.progressLines(st, w)
	r := v.rep
	if r == nil {
		if v.sel.Job == nil && v.sel.Err == nil {
			lines = append(lines, widgets.WrapStyled(st.Muted, fmt.Sprintf(
				"r runs the selection on judge %s's stored answers for this bank version: every subset of units, the omission table and forward selection, each a nested cross-validation.", judge), w)...)
		}
		return lines
	}
	lines = append(lines, "Vanilla   "+mean4(r.Vanilla),
		fmt.Sprintf("full bank %s (%s over Vanilla)", mean4(r.Full.Mean), gain4(r.Full.Gain)))
	if v.key != current {
		lines = append(lines, widgets.WrapStyled(st.Warn, fmt.Sprintf("computed on judge %s, bank %s; the bank or judge has changed since: r reruns",
			v.key.Judge, widgets.ShortHash(v.key.BankHash)), w)...)
	}
	for _, wn := range v.warnings {
		lines = append(lines, widgets.WrapStyled(st.Warn, wn, w)...)
	}
	if len(r.Curve) == 0 {
		return append(lines, st.Muted.Render("no subset enumeration (more than 16 units)"))
	}
	return append(lines, v.curveRows(st, w)...)
}

// progressLines are the selection's progress and its last error.
func (v *Tab) progressLines(st *styles.Styles, w int) []string {
	var lines []string
	if v.sel.Job != nil {
		lines = append(lines, st.Title.Render("selecting…"))
		if v.sel.Total > 0 {
			bw := max(w-24, 4)
			fill := v.sel.Done * bw / v.sel.Total
			lines = append(lines, fmt.Sprintf("%s %d/%d subsets",
				st.Good.Render(strings.Repeat("█", fill))+st.Muted.Render(strings.Repeat("░", bw-fill)), v.sel.Done, v.sel.Total))
		} else {
			lines = append(lines, st.Muted.Render("reading answers, building the design"))
		}
		lines = append(lines, "")
	}
	if v.sel.Err != nil {
		lines = append(lines, widgets.WrapStyled(st.Bad, v.sel.Err.Error(), w)...)
	}
	return lines
}

// curveRows are the curve's table. Columns: size, subsets, the band,
// the median, and when wide enough the percentiles and how many subsets
// beat Vanilla.
func (v *Tab) curveRows(st *styles.Styles, w int) []string {
	r := v.rep
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
	lines := []string{"", st.Label.Render(widgets.Fit(head, w))}
	for _, c := range r.Curve {
		bar := widgets.GainBar(c.Median, c.P10, c.P90, lo, hi, bw)
		ln := fmt.Sprintf("%2d %5d %s %7s", c.Size, c.Subsets, st.Label.Render(bar), gain4(c.Median))
		if wide {
			ln += fmt.Sprintf(" %-18s %6d", "["+gain4(c.P10)+", "+gain4(c.P90)+"]", c.AboveVanilla)
		}
		lines = append(lines, ln)
	}
	return append(lines, st.Muted.Render(widgets.Fit(fmt.Sprintf("%9s%-*s%s", "", bw-6, gain4(lo), gain4(hi)), w)))
}

// tableLines draws the omission table and the forward-selection path.
func (v *Tab) tableLines(st *styles.Styles, w int) []string {
	r := v.rep
	if r == nil {
		return []string{st.Muted.Render("no selection yet")}
	}
	var lines []string
	if r.Study != nil {
		lines = widgets.FitStyled(st.Muted, r.Study.Short(), w)
	}
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

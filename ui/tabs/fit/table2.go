package fit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/figures"
	"github.com/prism-eval/prism/ui/analysis"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// The columns of the Fit tab's Table 2, after the row's label.
const (
	t2Mean = iota
	t2CI
	t2DVan
	t2DVanCI
	t2DPRISM
	t2DPRISMCI
	t2Calls
	t2Tokens
	t2Cols
)

var (
	t2Heads  = [t2Cols]string{"mean", "95% CI", "Δ vs Van", "95% CI", "Δ vs PRISM", "95% CI", "calls", "tokens"}
	t2Widths = [t2Cols]int{7, 18, 8, 18, 10, 18, 5, 7}
	t2Left   = [t2Cols]bool{t2CI: true, t2DVanCI: true, t2DPRISMCI: true}
	// t2Drop is the order in which columns leave a narrow pane: the
	// interval of Δ vs PRISM first, then the budget, Δ vs PRISM, the
	// interval of Δ vs Vanilla and Δ vs Vanilla; the mean and its
	// interval stay.
	t2Drop = []int{t2DPRISMCI, t2Tokens, t2Calls, t2DPRISM, t2DVanCI, t2DVan}
)

// t2Cells are a row's cells in column order.
func t2Cells(row figures.T2Row) [t2Cols]string {
	var c [t2Cols]string
	c[t2Mean], c[t2CI] = widgets.Mean4(row.Res.Mean), widgets.CI(row.Res.CI)
	if d := row.Res.DiffVsVanilla; d != nil {
		c[t2DVan], c[t2DVanCI] = widgets.Gain4(d.Mean), widgets.DiffCI(d.CI)
	}
	if d := row.VsPRISM; d != nil {
		c[t2DPRISM], c[t2DPRISMCI] = widgets.Gain4(d.Mean), widgets.DiffCI(d.CI)
	}
	c[t2Calls], c[t2Tokens] = analysis.CountText(row.Budget.CallsPerCandidate), analysis.TokensText(row.Budget.TokensPerCandidate)
	return c
}

// t2Columns chooses the columns that fit w after a label of labelW: all
// of them when they fit, else without those t2Drop names first. The
// budget columns are left out when no row knows its budget.
func t2Columns(rows []figures.T2Row, labelW, w int) [t2Cols]bool {
	var show [t2Cols]bool
	for i := range show {
		show[i] = true
	}
	show[t2Calls] = slices.ContainsFunc(rows, func(r figures.T2Row) bool { return r.Budget.CallsPerCandidate > 0 })
	show[t2Tokens] = slices.ContainsFunc(rows, func(r figures.T2Row) bool { return r.Budget.TokensPerCandidate > 0 })
	width := func() int {
		n := labelW
		for i, on := range show {
			if on {
				n += 1 + t2Widths[i]
			}
		}
		return n
	}
	for _, c := range t2Drop {
		if width() <= w {
			break
		}
		show[c] = false
	}
	return show
}

// t2Line lays out a label and cells in the shown columns, trailing blanks
// trimmed.
func t2Line(label string, labelW int, cells [t2Cols]string, show [t2Cols]bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s", labelW, label)
	for i, on := range show {
		if !on {
			continue
		}
		if t2Left[i] {
			fmt.Fprintf(&b, " %-*s", t2Widths[i], cells[i])
		} else {
			fmt.Fprintf(&b, " %*s", t2Widths[i], cells[i])
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// Table2Lines draws the method table as the paper's Table 2 when the
// report has rubric baselines: the rubric-based rows, then the
// rubric-free ones, each with its mean and interval, the paired
// difference from Vanilla, a rubric row's from PRISM, and the calls and
// tokens per candidate its answers took; columns leave a narrow pane in
// t2Drop's order. Under it, the missing rubric cells that were imputed.
func Table2Lines(st *styles.Styles, r *calib.Report, w int) []string {
	rows := figures.Table2(r)
	labelW := 12
	for _, row := range rows {
		labelW = max(labelW, 2+len([]rune(row.Label)))
	}
	show := t2Columns(rows, labelW, w)
	var head [t2Cols]string
	copy(head[:], t2Heads[:])
	lines := []string{"", st.Label.Render(widgets.Fit(t2Line("method", labelW, head, show), w))}
	group := ""
	for _, row := range rows {
		if row.Group != group {
			group = row.Group
			lines = append(lines, st.Title.Render(widgets.Fit(group, w)))
		}
		lines = append(lines, rowStyle(st, row.Res).Render(widgets.Fit(t2Line("  "+row.Label, labelW, t2Cells(row), show), w)))
	}
	var budget []string
	for _, c := range []int{t2Calls, t2Tokens} {
		if show[c] {
			budget = append(budget, t2Heads[c])
		}
	}
	if len(budget) > 0 {
		lines = append(lines, st.Muted.Render(widgets.Fit(strings.Join(budget, ", ")+" per candidate, from the judge's stored answers (– not known)", w)))
	}
	for _, row := range rows {
		if row.Base == nil {
			continue
		}
		if m := calib.MissingText(row.Base); m != "" {
			lines = append(lines, widgets.WrapStyled(st.Text, row.Label+": "+m, w)...)
		}
	}
	return lines
}

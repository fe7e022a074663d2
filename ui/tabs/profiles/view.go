package profiles

import (
	"fmt"
	"strings"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/ui/analysis"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

func (v *Tab) View() string {
	st := v.svc.Styles()
	w := v.width - widgets.PaneChromeW
	innerH := v.height - widgets.PaneChromeH - 1
	rep := v.fit.Report
	title := "Profiles"
	if rep != nil {
		sort := "by name"
		if v.byMagnitude {
			sort = "by magnitude"
		}
		title = fmt.Sprintf("Profiles · PRISM · %d folds · %s", len(rep.Folds), sort)
	}
	if rep == nil || len(v.attrs) == 0 {
		msg := "no fit yet: f fits on the stored answers (also on the Fit tab)"
		if rep != nil {
			msg = "the fit has no attributes"
		}
		return widgets.Pane(st, true, v.width, v.height, title, widgets.Block(widgets.WrapStyled(st.Muted, msg, w), w, innerH))
	}
	head := analysis.StudyLines(st, rep.Study, w)
	k, ok := v.svc.Key()
	if stale := v.fit.Stale(k, ok, v.svc.Versions(), v.settings); stale != "" {
		head = append(head, widgets.WrapStyled(st.Warn, stale, w)...)
	}
	detail := v.detailLines(st, w)
	listH := max(innerH-len(head)-len(detail)-1, 3)
	list := v.listLines(st, w, listH)
	body := append(append(append(head, list...), ""), detail...)
	return widgets.Pane(st, true, v.width, v.height, title, widgets.Block(body, w, innerH))
}

// nameW is the width of the attribute column.
func (v *Tab) nameW(w int) int {
	n := 9
	for _, a := range v.attrs {
		n = max(n, len([]rune(a)))
	}
	return min(n, max(w/5, 9))
}

// listLines draws the header, the rows around the cursor and the axes.
func (v *Tab) listLines(st *styles.Styles, w, h int) []string {
	r := v.fit.Report
	nw := v.nameW(w)
	// name, two bars with their means, the sign stability of each, in
	// columns that say whose it is.
	bw := max((w-nw-2*(1+1+8)-2*(1+8))/2, 6)
	var as, es []float64
	for _, p := range r.Profiles {
		as = append(as, p.A.Min, p.A.Max, p.A.Mean)
		es = append(es, p.E.Min, p.E.Max, p.E.Mean)
	}
	alo, ahi := widgets.GainAxis(as...)
	elo, ehi := widgets.GainAxis(es...)
	// The bars' headers shorten to their coefficient's name on a narrow
	// pane, so that the columns after them keep their place.
	ah, eh := "a_k directional", "e_k shared"
	if len(ah) > bw {
		ah = "a_k"
	}
	if len(eh) > bw {
		eh = "e_k"
	}
	head := fmt.Sprintf("%-*s %-*s %8s %-*s %8s %8s %8s", nw, "attribute", bw, ah, "mean", bw, eh, "mean", "a stable", "e stable")
	lines := []string{st.Label.Render(widgets.Fit(head, w))}
	rows := h - 2
	first := min(max(v.cursor-rows+1, 0), max(len(v.attrs)-rows, 0))
	for i := first; i < len(v.attrs) && i < first+rows; i++ {
		a := v.attrs[i]
		p := r.Profiles[a]
		n := len(p.A.Folds)
		row := fmt.Sprintf("%-*s %s %8s %s %8s %8s %8s", nw, widgets.Clip(a, nw),
			widgets.GainBar(p.A.Mean, p.A.Min, p.A.Max, alo, ahi, bw), widgets.Fixed4(p.A.Mean),
			widgets.GainBar(p.E.Mean, p.E.Min, p.E.Max, elo, ehi, bw), widgets.Fixed4(p.E.Mean),
			fmt.Sprintf("%d/%d", p.A.SignStable, n), fmt.Sprintf("%d/%d", p.E.SignStable, n))
		row = widgets.Fit(row, w)
		switch {
		case i == v.cursor:
			row = st.Selected.Render(row)
		case p.A.SignStable < n || p.E.SignStable < n:
			row = st.Warn.Render(row) // a fold disagrees with the mean's sign
		default:
			row = st.Text.Render(row)
		}
		lines = append(lines, row)
	}
	axis := fmt.Sprintf("%-*s %-*s %8s %-*s", nw, "", bw, widgets.Fixed4(alo)+" … "+widgets.Fixed4(ahi), "", bw, widgets.Fixed4(elo)+" … "+widgets.Fixed4(ehi))
	return append(lines, st.Muted.Render(widgets.Fit(axis, w)))
}

// StatText is the values of one profile statistic, all in one precision
// (widgets.Fixed4): a fold value too small for 4 decimals is +0.0000,
// and its sign is in the sign-stable count.
func StatText(name string, s calib.ProfileStat) string {
	folds := make([]string, len(s.Folds))
	for i, f := range s.Folds {
		folds[i] = widgets.Fixed4(f)
	}
	return fmt.Sprintf("%s mean %s  min %s  max %s  sign-stable %d/%d  folds %s",
		name, widgets.Fixed4(s.Mean), widgets.Fixed4(s.Min), widgets.Fixed4(s.Max), s.SignStable, len(s.Folds), strings.Join(folds, " "))
}

// detailLines are the exact values of the selected attribute.
func (v *Tab) detailLines(st *styles.Styles, w int) []string {
	a := v.Selected()
	p := v.fit.Report.Profiles[a]
	lines := []string{st.Title.Render(widgets.Fit(a, w))}
	for _, text := range []string{StatText("a_k", p.A), StatText("e_k", p.E)} {
		for _, ln := range widgets.WrapSpaces(text, w) {
			lines = append(lines, st.Text.Render(ln))
		}
	}
	return lines
}

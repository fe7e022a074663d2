package ui

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/tab"
	"github.com/prism-eval/prism/ui/widgets"
)

// profTab is the Profiles tab (docs/protocol.md §7, paper Fig. 4a and 9): per
// attribute, the directional a_k and the shared e_k of the PRISM fit as a
// forest plot: the mean over outer folds as ●, the fold range as ─, zero
// as │. It shows the report of the Fit tab's last fit. The forest plot
// is hand-made (dotRow): Bubbles has no chart widget.
type profTab struct {
	rep         *calib.Report
	attrs       []string // in display order
	byMagnitude bool     // sort by |mean a_k| + |mean e_k|, largest first
	cursor      int
	stale       string // why rep no longer fits the study, or ""

	width, height int
}

func (v *profTab) SetSize(w, h int) { v.width, v.height = w, h }

func (v *profTab) Move(delta int) {
	v.cursor = min(max(v.cursor+delta, 0), max(len(v.attrs)-1, 0))
}

// setReport shows a new report, keeping the sort.
func (v *profTab) setReport(r *calib.Report) {
	v.rep = r
	v.attrs = v.attrs[:0]
	if r == nil { // no fit (a judge without probes): nothing to profile
		return
	}
	for a := range r.Profiles {
		v.attrs = append(v.attrs, a)
	}
	v.order()
}

// order sorts the attributes by name, or by magnitude (ties by name).
func (v *profTab) order() {
	slices.Sort(v.attrs)
	if v.byMagnitude && v.rep != nil {
		mag := func(a string) float64 {
			p := v.rep.Profiles[a]
			return math.Abs(p.A.Mean) + math.Abs(p.E.Mean)
		}
		slices.SortStableFunc(v.attrs, func(x, y string) int { return cmp.Compare(mag(y), mag(x)) })
	}
	v.Move(0)
}

// selected is the attribute under the cursor, or "".
func (v *profTab) selected() string {
	if v.cursor < len(v.attrs) {
		return v.attrs[v.cursor]
	}
	return ""
}

func (v *profTab) View(a *App) string {
	st := a.styles
	v.stale = a.fitStale()
	w := v.width - widgets.PaneChromeW
	innerH := v.height - widgets.PaneChromeH - 1
	title := "Profiles"
	if v.rep != nil {
		sort := "by name"
		if v.byMagnitude {
			sort = "by magnitude"
		}
		title = fmt.Sprintf("Profiles · PRISM · %d folds · %s", len(v.rep.Folds), sort)
	}
	if v.rep == nil || len(v.attrs) == 0 {
		msg := "no fit yet: f fits on the stored answers (also on the Fit tab)"
		if v.rep != nil {
			msg = "the fit has no attributes"
		}
		return widgets.Pane(st, true, v.width, v.height, title, widgets.Block(widgets.WrapStyled(st.Muted, msg, w), w, innerH))
	}
	head := studyLines(st, v.rep.Study, w)
	if v.stale != "" {
		head = append(head, widgets.WrapStyled(st.Warn, v.stale, w)...)
	}
	detail := v.detailLines(st, w)
	listH := max(innerH-len(head)-len(detail)-1, 3)
	list := v.listLines(st, w, listH)
	body := append(append(append(head, list...), ""), detail...)
	return widgets.Pane(st, true, v.width, v.height, title, widgets.Block(body, w, innerH))
}

// profileNameW is the width of the attribute column.
func (v *profTab) nameW(w int) int {
	n := 9
	for _, a := range v.attrs {
		n = max(n, len([]rune(a)))
	}
	return min(n, max(w/5, 9))
}

// listLines draws the header, the rows around the cursor and the axes.
func (v *profTab) listLines(st *styles.Styles, w, h int) []string {
	r := v.rep
	nw := v.nameW(w)
	// name, two bars with their means, the sign stability of each.
	bw := max((w-nw-2*(1+1+8)-1-9)/2, 6)
	var as, es []float64
	for _, p := range r.Profiles {
		as = append(as, p.A.Min, p.A.Max, p.A.Mean)
		es = append(es, p.E.Min, p.E.Max, p.E.Mean)
	}
	alo, ahi := widgets.GainAxis(as...)
	elo, ehi := widgets.GainAxis(es...)
	head := fmt.Sprintf("%-*s %-*s %8s %-*s %8s %9s", nw, "attribute", bw, "a_k directional", "mean", bw, "e_k shared", "mean", "stable")
	lines := []string{st.Label.Render(widgets.Fit(head, w))}
	rows := h - 2
	first := min(max(v.cursor-rows+1, 0), max(len(v.attrs)-rows, 0))
	for i := first; i < len(v.attrs) && i < first+rows; i++ {
		a := v.attrs[i]
		p := r.Profiles[a]
		n := len(p.A.Folds)
		row := fmt.Sprintf("%-*s %s %8s %s %8s %9s", nw, widgets.Clip(a, nw),
			widgets.GainBar(p.A.Mean, p.A.Min, p.A.Max, alo, ahi, bw), widgets.Fixed4(p.A.Mean),
			widgets.GainBar(p.E.Mean, p.E.Min, p.E.Max, elo, ehi, bw), widgets.Fixed4(p.E.Mean),
			fmt.Sprintf("%d/%d %d/%d", p.A.SignStable, n, p.E.SignStable, n))
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

// profileStatText is the values of one profile statistic, all in one
// precision (fixed4): a fold value too small for 4 decimals is +0.0000,
// and its sign is in the sign-stable count.
func profileStatText(name string, s calib.ProfileStat) string {
	folds := make([]string, len(s.Folds))
	for i, f := range s.Folds {
		folds[i] = widgets.Fixed4(f)
	}
	return fmt.Sprintf("%s mean %s  min %s  max %s  sign-stable %d/%d  folds %s",
		name, widgets.Fixed4(s.Mean), widgets.Fixed4(s.Min), widgets.Fixed4(s.Max), s.SignStable, len(s.Folds), strings.Join(folds, " "))
}

// detailLines are the exact values of the selected attribute.
func (v *profTab) detailLines(st *styles.Styles, w int) []string {
	a := v.selected()
	p := v.rep.Profiles[a]
	lines := []string{st.Title.Render(widgets.Fit(a, w))}
	for _, text := range []string{profileStatText("a_k", p.A), profileStatText("e_k", p.E)} {
		for _, ln := range widgets.WrapSpaces(text, w) {
			lines = append(lines, st.Text.Render(ln))
		}
	}
	return lines
}

// Keys are the Profiles tab's own bindings; f, m and t act on the
// Fit tab's fit, which this tab shows.
func (v *profTab) Keys(a *App) []key.Binding {
	k := a.keys
	return []key.Binding{k.Refit, k.Metric, k.SortProfiles}
}

func (v *profTab) Badge(*App) string { return "" }
func (v *profTab) Editing() bool     { return false }

// Update handles the Profiles tab's keys; its report arrives with the
// Fit tab's (fitTab.onDone).
func (v *profTab) Update(a *App, msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tab.MoveMsg:
		v.Move(msg.Delta)
	case tea.KeyPressMsg:
		if key.Matches(msg, a.keys.SortProfiles) {
			v.byMagnitude = !v.byMagnitude
			v.order()
			return nil
		}
		return a.fit.optionKey(a, msg)
	}
	return nil
}

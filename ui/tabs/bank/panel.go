package bank

import (
	"fmt"
	"strings"

	"github.com/prism-eval/prism/ui/ratio"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// bankPanel is what the Bank tab's signal panel shows: the latest
// report of the current dataset, judge and bank version, and a screen in
// flight.
type bankPanel struct {
	shown     bool        // a workspace is open
	sig       *bankSignal // nil until computed
	computing bool
	screening *screening
}

// panel gathers the panel's state.
func (v *Tab) panel() bankPanel {
	p := bankPanel{shown: v.svc.Store() != nil, computing: v.sigBusy, screening: v.screening}
	if s, ok := v.current(); ok {
		p.sig = &s
	}
	return p
}

// signalLines draws the panel in w cells: per unit its ratio to the
// neutral clauses with the 95% interval and the screen's verdict (pass
// when the interval's lower end exceeds 1; "too few" and the number of
// contexts, without interval or bar, below signal.MinContexts), the
// pooled row, on wide panes the ratio bar of the Run tab, the rule and
// how the wordings were pooled.
func (p bankPanel) signalLines(st *styles.Styles, w int) []string {
	title := "Signal screen · ratio vs neutral [95% CI]"
	if p.sig != nil && p.sig.view != nil && p.sig.source != "" {
		title += " · " + p.sig.source
	}
	lines := []string{st.Title.Render(widgets.Fit(title, w))}
	if sc := p.screening; sc != nil {
		msg := fmt.Sprintf("screening %d contexts × %d runs…", len(sc.contexts), ScreenRuns)
		if sc.prog.Total > 0 {
			msg = fmt.Sprintf("screening %d contexts × %d runs: %d/%d", len(sc.contexts), ScreenRuns, sc.prog.Done, sc.prog.Total)
		}
		lines = append(lines, st.Warn.Render(widgets.Fit(msg, w)))
	}
	switch {
	case p.sig == nil && p.computing:
		return append(lines, st.Muted.Render("computing…"))
	case p.sig == nil:
		return append(lines, st.Muted.Render(widgets.Fit(fmt.Sprintf("s screens this bank on %d contexts × %d runs", ScreenContexts, ScreenRuns), w)))
	case p.sig.err != nil:
		return append(lines, widgets.WrapStyled(st.Bad, p.sig.err.Error(), w)...)
	case p.sig.view == nil:
		return append(lines, widgets.WrapStyled(st.Muted, "no answers of this judge for this bank version yet; s screens it", w)...)
	}
	return append(lines, ratioLines(st, p.sig.view, w)...)
}

// ratioLines are the panel's rows of v in w cells: each unit's, the
// pooled one, the bars' axis on a wide pane and the pooling note.
func ratioLines(st *styles.Styles, v *ratio.View, w int) []string {
	nameW := len("pooled")
	for _, r := range v.Rows {
		nameW = max(nameW, len(r.Name))
	}
	nameW = min(nameW, 16)
	fixed := nameW + 1 + 5 + 1 + 14 + 1 + 7
	barW := min(w-fixed-1, 30)
	vals := []float64{v.Pooled.Ratio, v.Pooled.Hi}
	for _, r := range v.Rows {
		vals = append(vals, r.Ratio, r.Hi)
	}
	axis := widgets.RatioAxis(vals...)
	var lines []string
	for _, r := range v.Rows {
		lines = append(lines, ratioLine(st, r, nameW, barW, axis))
	}
	lines = append(lines, ratioLine(st, v.Pooled, nameW, barW, axis))
	if barW >= 8 {
		// The bars' axis: labelled ticks under the bar column, as the Run
		// tab's ratio panel names its axis in its header.
		pad := strings.Repeat(" ", nameW+1+5+1+14+1+4+8-len("fail"))
		lines = append(lines, st.Muted.Render(widgets.Fit(pad+widgets.RatioTicks(axis, barW), w)),
			st.Muted.Render(widgets.Fit(pad+"ratio to neutral, │ = 1", w)))
	}
	// The rule, whole: the screen's sample in the title (12 contexts ×
	// 2 runs) is not the contexts a verdict needs.
	lines = append(lines, widgets.WrapStyled(st.Muted, ratio.VerdictRule(), w)...)
	return append(lines, st.Muted.Render(widgets.Fit(v.PoolingText(), w)))
}

// ratioLine is one unit's row: name, ratio, interval, verdict and, when
// barW allows, its bar on axis.
func ratioLine(st *styles.Styles, r ratio.Row, nameW, barW int, axis float64) string {
	ci, verdict := "", st.Muted.Render("no data")
	switch {
	case r.HasSignal && r.TooFew: // no interval, no verdict
		ci, verdict = fmt.Sprintf("(%d contexts)", r.Contexts), st.Muted.Render("too few")
	case r.HasSignal:
		ci = "[" + widgets.Num(r.Lo) + ", " + widgets.Num(r.Hi) + "]"
		verdict = st.Bad.Render("fail")
		if r.Pass {
			verdict = st.Good.Render("pass")
		}
	}
	ln := fmt.Sprintf("%-*s %5s %-14s %s", nameW, widgets.Clip(r.Name, nameW), widgets.Num(r.Ratio), ci, verdict)
	if barW >= 8 && r.HasSignal && !r.TooFew {
		ln += strings.Repeat(" ", 8-len("fail")) + st.Muted.Render(widgets.RatioBar(r.Ratio, r.Lo, r.Hi, axis, barW))
	}
	return ln
}

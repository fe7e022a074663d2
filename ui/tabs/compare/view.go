package compare

import (
	"errors"
	"fmt"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// JudgeMark is the letter of the i-th judge on the shared axes.
func JudgeMark(i int) rune { return rune('A' + i%26) }

func (v *Tab) View() string {
	st := v.svc.Styles()
	w := v.width - widgets.PaneChromeW
	innerH := v.height - widgets.PaneChromeH - 1
	lines := v.lines(st, w, v.Stale())
	title := "Compare judges"
	if len(v.fits) > 0 {
		title += " · " + v.fitWith.Metric
	}
	return widgets.Pane(st, true, v.width, v.height, title, widgets.Block(v.scroll.Visible(lines), w, innerH))
}

// lines are the tab's whole content, w wide: the status, the agreement,
// the method tables and the profiles.
func (v *Tab) lines(st *styles.Styles, w int, stale string) []string {
	var lines []string
	if v.busy {
		lines = append(lines, st.Title.Render("fitting every judge…"))
	}
	if v.err != nil {
		lines = append(lines, widgets.WrapStyled(st.Bad, v.err.Error(), w)...)
	}
	if stale != "" && len(v.fits) > 0 {
		lines = append(lines, widgets.WrapStyled(st.Warn, stale, w)...)
	}
	lines = append(lines, v.agreeLines(st, w)...)
	var ok []JudgeFit
	for i, f := range v.fits {
		if errors.Is(f.Err, calib.ErrNoProbes) {
			continue // measured above, nothing to fit
		}
		if f.Err != nil {
			lines = append(lines, widgets.WrapStyled(st.Warn, fmt.Sprintf("%c %s: %v", JudgeMark(i), f.Label(), f.Err), w)...)
			continue
		}
		ok = append(ok, JudgeFit{Judge: fmt.Sprintf("%c %s", JudgeMark(i), f.Label()), Rep: f.Rep})
		if s := f.Rep.Study; s != nil {
			lines = append(lines, st.Muted.Render(widgets.Fit(fmt.Sprintf("%c %s", JudgeMark(i), s.Short()[1]), w)))
		}
	}
	if len(ok) < 2 {
		return append(lines, v.hintLines(st, len(ok), w)...)
	}
	lines = append(lines, methodLines(st, ok, w)...)
	return append(lines, profileLines(st, ok, w)...)
}

// hintLines say why there is no comparison, with ok judges fitted, and
// how to make one.
func (v *Tab) hintLines(st *styles.Styles, ok, w int) []string {
	switch {
	case v.busy:
	case v.agree != nil && len(v.agree.Res.Order) >= 2:
		return widgets.WrapStyled(st.Muted, fmt.Sprintf(
			"the method tables and profiles compare judges with probe answers: %d here. Probing a judge (Run tab, s) adds it.", ok), w)
	case len(v.fits) == 0 && v.gen == 0:
		return widgets.WrapStyled(st.Muted,
			"c fits every judge of the workspace with answers on this dataset and bank version, with the Fit tab's metric, and compares them; every judge's agreement with the labels is measured too, probes or not.", w)
	default:
		have := "no judge has"
		for _, f := range v.fits {
			if f.Err == nil {
				have = "only judge " + f.Label() + " has"
			}
		}
		return widgets.WrapStyled(st.Muted, have+
			" answers on this dataset and bank version. A second judge makes a comparison: run another model or the expected-score mode (Run tab, e), or import scores (prism import scores); then c.", w)
	}
	return nil
}

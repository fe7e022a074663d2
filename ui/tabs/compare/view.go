package compare

import (
	"errors"
	"fmt"
	"slices"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/ui/analysis"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// JudgeMark is the letter of the i-th judge on the shared axes.
func JudgeMark(i int) rune { return rune('A' + i%26) }

// direction says whether the judges' means agree in sign: "agree" when
// all are on the same side of 0, "differ" when some are on each side,
// "" when fewer than two are non-zero. (Not "shared": e_k is the shared
// correction, whatever the signs of the judges.)
func direction(means []float64) string {
	pos, neg := 0, 0
	for _, m := range means {
		switch {
		case m > 0:
			pos++
		case m < 0:
			neg++
		}
	}
	switch {
	case pos > 0 && neg > 0:
		return "differ"
	case pos+neg >= 2:
		return "agree"
	}
	return ""
}

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
			lines = append(lines, widgets.WrapStyled(st.Warn, fmt.Sprintf("%c %s: %v", JudgeMark(i), f.Judge, f.Err), w)...)
			continue
		}
		ok = append(ok, JudgeFit{Judge: fmt.Sprintf("%c %s", JudgeMark(i), f.Judge), Rep: f.Rep})
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
				have = "only judge " + f.Judge + " has"
			}
		}
		return widgets.WrapStyled(st.Muted, have+
			" answers on this dataset and bank version. A second judge makes a comparison: run another model or the expected-score mode (Run tab, e), or import scores (prism import scores); then c.", w)
	}
	return nil
}

// profileLines are the profiles: per attribute the judges' means on one
// axis for a_k and one for e_k, whether their signs agree, and under it
// per judge the numbers: the mean over the outer folds and the fold
// range.
func profileLines(st *styles.Styles, ok []JudgeFit, w int) []string {
	var attrs []string
	for _, f := range ok {
		for a := range f.Rep.Profiles {
			if !slices.Contains(attrs, a) {
				attrs = append(attrs, a)
			}
		}
	}
	slices.Sort(attrs)
	nw := 9
	for _, a := range attrs {
		nw = max(nw, len([]rune(a)))
	}
	nw = min(nw, 12)
	const signW = 6 // "agree", "differ"
	bw := max((w-nw-2*(1+1+signW))/2, 6)
	var as, es []float64
	for _, f := range ok {
		for _, p := range f.Rep.Profiles {
			as, es = append(as, p.A.Mean), append(es, p.E.Mean)
		}
	}
	alo, ahi := widgets.GainAxis(as...)
	elo, ehi := widgets.GainAxis(es...)
	lines := []string{"", st.Title.Render(widgets.Fit(fmt.Sprintf("profiles: fold means, a letter per judge (%c: several in one cell), │ zero", analysis.OverlapMark), w)),
		st.Muted.Render(widgets.Fit("per judge: mean over the outer folds [fold min, fold max]", w))}
	lines = append(lines, st.Label.Render(widgets.Fit(fmt.Sprintf("%-*s %-*s %-*s %-*s %s", nw, "attribute", bw, "a_k", signW, "signs", bw, "e_k", "signs"), w)))
	for _, a := range attrs {
		var am, em []float64
		var marks []rune
		var nums []string
		for i, f := range ok {
			p, has := f.Rep.Profiles[a]
			if !has {
				continue
			}
			am, em, marks = append(am, p.A.Mean), append(em, p.E.Mean), append(marks, JudgeMark(i))
			nums = append(nums, fmt.Sprintf("%-*s %-*s %s", nw, "  "+widgets.ClipMiddle(f.Judge, nw-2),
				bw+1+signW, widgets.FoldRange(p.A.Mean, p.A.Min, p.A.Max), widgets.FoldRange(p.E.Mean, p.E.Min, p.E.Max)))
		}
		row := fmt.Sprintf("%-*s %s %-*s %s %s", nw, widgets.Clip(a, nw),
			widgets.DotRow(am, marks, 0, alo, ahi, bw, analysis.OverlapMark), signW, direction(am),
			widgets.DotRow(em, marks, 0, elo, ehi, bw, analysis.OverlapMark), direction(em))
		s := st.Text
		if direction(am) == "differ" || direction(em) == "differ" {
			s = st.Warn
		}
		lines = append(lines, s.Render(widgets.Fit(row, w)))
		for _, n := range nums {
			lines = append(lines, st.Muted.Render(widgets.Fit(n, w)))
		}
	}
	return append(lines, st.Muted.Render(widgets.Fit(fmt.Sprintf("%-*s %-*s %-*s %s", nw, "axes", bw, widgets.Fixed4(alo)+" … "+widgets.Fixed4(ahi), signW, "", widgets.Fixed4(elo)+" … "+widgets.Fixed4(ehi)), w)))
}

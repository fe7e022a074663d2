package fit

import (
	"fmt"

	"github.com/prism-eval/prism/calib/agree"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// agreeMetrics are the metrics in prism agree's column order, with the
// labels the Fit tab gives them.
var agreeMetrics = []struct{ key, label string }{
	{agree.KeySpearman, "Spearman"},
	{agree.KeyKendall, "Kendall τ-b"},
	{agree.KeyPairwise, "pairwise acc."},
	{agree.KeyPearsonGlobal, "Pearson"},
	{agree.KeySpearmanGlobal, "Spearman"},
	{agree.KeyKendallGlobal, "Kendall τ-b"},
	{agree.KeyBias, "bias"},
	{agree.KeyMAE, "MAE"},
	{agree.KeyKappa, "κ quadratic"},
	{agree.KeyAlphaInterval, "α interval"},
	{agree.KeyAlphaOrdinal, "α ordinal"},
}

// within reports whether metric key is a mean over contexts.
func within(key string) bool {
	return key == agree.KeySpearman || key == agree.KeyKendall || key == agree.KeyPairwise
}

// agreeTableLines are one judge's metrics: a row per metric with its
// value, 95% interval and N, within-context metrics first, the headline
// marked.
func agreeTableLines(st *styles.Styles, r *agree.Result, judge string, w int) []string {
	est := r.Judges[judge]
	lines := []string{st.Label.Render(widgets.Fit(fmt.Sprintf("%-22s %7s %-18s %s", "metric", "mean", "95% CI", "N"), w))}
	group := ""
	for _, m := range agreeMetrics {
		e, ok := est[m.key]
		if !ok {
			continue
		}
		g, n := "over all candidates", fmt.Sprintf("%d candidates", e.N)
		if within(m.key) {
			g, n = "within context (mean over contexts)", fmt.Sprintf("%d contexts", e.N)
		}
		if g != group {
			group = g
			lines = append(lines, st.Title.Render(widgets.Fit(g, w)))
		}
		label := "  " + m.label
		if m.key == r.Metric {
			label += " *"
		}
		s := st.Text
		if m.key == r.Metric {
			s = st.Label
		}
		lines = append(lines, s.Render(widgets.Fit(fmt.Sprintf("%-22s %7s %-18s %s", label, widgets.Mean4(e.Mean), widgets.CI(e.CI), n), w)))
	}
	return lines
}

// agreeNoteLines say how an agreement was computed.
func agreeNoteLines(st *styles.Styles, r *agree.Result, w int) []string {
	constant := "a context where the judge or the labels are constant counts 0 (as the fit counts it)"
	if r.SkipConstant {
		constant = "contexts where the judge or the labels are constant are left out"
	}
	return widgets.WrapStyled(st.Muted, fmt.Sprintf("%d contexts, %d candidates with a label and a score; %d context-bootstrap resamples, seed %d; %s.",
		r.Contexts, r.Candidates, r.Bootstrap, r.Seed, constant), w)
}

// agreeLines are the agreement of a judge without probe answers: why
// there is no fit, stale's warning, the table, and how to get a fit.
func (v *Tab) agreeLines(st *styles.Styles, stale string, w int) []string {
	ag, judge := v.fit.Agree, v.fit.Key.Judge
	lines := widgets.WrapStyled(st.Text, fmt.Sprintf("judge %s has baseline answers but no probe answers, so there is nothing to fit. Its agreement with the labels, as prism agree measures it (* the headline, m switches it):",
		judge), w)
	if stale != "" {
		lines = append(lines, widgets.WrapStyled(st.Warn, stale, w)...)
	}
	for _, wn := range v.warnings {
		lines = append(lines, widgets.WrapStyled(st.Warn, wn, w)...)
	}
	lines = append(lines, "")
	lines = append(lines, agreeTableLines(st, ag.Res, judge, w)...)
	lines = append(lines, "")
	lines = append(lines, agreeNoteLines(st, ag.Res, w)...)
	lines = append(lines, widgets.WrapStyled(st.Muted, "To correct the judge, probe it: run the bank under this judge's name (Run tab, s), then f fits PRISM.", w)...)
	return lines
}

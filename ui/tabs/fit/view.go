package fit

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/ui/analysis"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// sweepWidth is the width of the sweep's pane when it has one: Table 2's
// wider rows leave it less.
func (v *Tab) sweepWidth() int {
	if r := v.fit.Report; r != nil && len(r.Baselines) > 0 {
		return max(v.width/3, 40)
	}
	return max(v.width*2/5, 40)
}

func (v *Tab) View() string {
	st := v.svc.Styles()
	stale, judge := v.Stale(), v.judge()
	innerH := v.height - widgets.PaneChromeH - 1
	if !v.split() {
		w := v.width - widgets.PaneChromeW
		lines := append(v.tableLines(st, stale, judge, w), v.sweepLines(st, w)...)
		return widgets.Pane(st, true, v.width, v.height, v.title(), widgets.Block(v.scroll.Visible(lines), w, innerH))
	}
	rw := v.sweepWidth()
	lw := v.width - rw
	left := v.tableLines(st, stale, judge, lw-widgets.PaneChromeW)
	return lipgloss.JoinHorizontal(lipgloss.Top,
		widgets.Pane(st, true, lw, v.height, v.title(), widgets.Block(v.scroll.Visible(left), lw-widgets.PaneChromeW, innerH)),
		widgets.Pane(st, false, rw, v.height, "γ sweep (Fig. 4b)", widgets.Block(v.sweepLines(st, rw-widgets.PaneChromeW), rw-widgets.PaneChromeW, innerH)))
}

func (v *Tab) title() string {
	if r := v.fit.Report; r != nil {
		return fmt.Sprintf("Fit · %s · %d contexts · %d candidates", r.Metric, r.NContexts, r.NCandidates)
	}
	if ag := v.fit.Agree; ag != nil {
		return fmt.Sprintf("Fit · agreement, no probes · %s · %d contexts · %d candidates", ag.Res.Metric, ag.Res.Contexts, ag.Res.Candidates)
	}
	return "Fit · " + v.metric()
}

// progressText says where the fit in flight is: the outer folds done
// (each with its inner CV), then the bootstrap.
func (v *Tab) progressText() string {
	done, total := v.job.Done, v.job.Total
	folds := max(total-1, 0)
	switch {
	case total == 0:
		return "fitting… (nested cross-validation, then the bootstrap)"
	case done < folds:
		return fmt.Sprintf("fitting… outer fold %d of %d done (nested cross-validation)", done, folds)
	case done == folds:
		return fmt.Sprintf("fitting… %d outer folds done; bootstrap", folds)
	}
	return "fitting… done"
}

// MethodRow is one row of the method table without baselines; the test
// compares it with calib.Fit's report.
func MethodRow(label string, res *calib.MethodResult) string {
	d, dci := "", ""
	if res.DiffVsVanilla != nil {
		d, dci = widgets.Gain4(res.DiffVsVanilla.Mean), widgets.DiffCI(res.DiffVsVanilla.CI)
	}
	return fmt.Sprintf("%-12s %7s %-18s %8s %s", label, widgets.Mean4(res.Mean), widgets.CI(res.CI), d, dci)
}

// rowStyle is a method row's style: green when the whole interval of its
// gain over Vanilla is above 0.
func rowStyle(st *styles.Styles, res *calib.MethodResult) lipgloss.Style {
	if res.DiffVsVanilla != nil && res.DiffVsVanilla.CI[0] > 0 {
		return st.Good
	}
	return st.Text
}

// tableLines draws the status, then the report (or the agreement in its
// place, or the hint of f naming judge) with stale's warning.
func (v *Tab) tableLines(st *styles.Styles, stale, judge string, w int) []string {
	var lines []string
	if v.job.Job != nil {
		lines = append(lines, st.Title.Render(widgets.Fit(v.progressText(), w)))
	}
	lines = append(lines, v.exportLines(st, w)...)
	lines = append(lines, v.saveLines(st, w)...)
	if v.status != "" {
		s := st.Good
		if v.statusErr {
			s = st.Bad
		}
		lines = append(lines, widgets.WrapStyled(s, v.status, w)...)
	}
	if err := v.job.Err; err != nil {
		lines = append(lines, widgets.WrapStyled(st.Bad, err.Error(), w)...)
	}
	r := v.fit.Report
	if r == nil && v.fit.Agree != nil {
		return append(lines, v.agreeLines(st, stale, w)...)
	}
	if r == nil {
		if v.job.Job == nil && v.job.Err == nil {
			lines = append(lines, widgets.WrapStyled(st.Muted, fmt.Sprintf(
				"f fits PRISM on judge %s's stored answers for this bank version (%s; m switches the metric): nested cross-validation over contexts, 2,000 bootstrap resamples.", judge, v.metric()), w)...)
		}
		return lines
	}
	return append(lines, v.reportLines(st, r, stale, w)...)
}

// reportLines draw the study, stale's warning and the fit's, the method
// table, γ per fold and the imputed cells.
func (v *Tab) reportLines(st *styles.Styles, r *calib.Report, stale string, w int) []string {
	lines := analysis.StudyLines(st, r.Study, w)
	lines = append(lines, st.Muted.Render(widgets.Fit(fmt.Sprintf("%d columns · %d resamples · seed %d", len(r.Columns), r.Bootstrap, r.Seed), w)))
	if stale != "" {
		lines = append(lines, widgets.WrapStyled(st.Warn, stale, w)...)
	}
	for _, wn := range v.warnings {
		lines = append(lines, widgets.WrapStyled(st.Warn, wn, w)...)
	}
	if len(r.Baselines) > 0 {
		lines = append(lines, Table2Lines(st, r, w)...)
	} else {
		lines = append(lines, "", st.Label.Render(widgets.Fit(fmt.Sprintf("%-12s %7s %-18s %8s %s", "method", "mean", "95% CI", "Δ vs Van", "95% CI"), w)))
		for _, fm := range analysis.Methods {
			if res := r.Methods.Get(fm.M); res != nil {
				lines = append(lines, rowStyle(st, res).Render(widgets.Fit(MethodRow(fm.Label, res), w)))
			}
		}
	}
	lines = append(lines, foldLines(st, r, w)...)
	lines = append(lines, "")
	return append(lines, widgets.WrapStyled(st.Text, "imputed cells (column mean): "+imputedText(r), w)...)
}

// foldLines are the γ each method chose in each outer fold (inner CV),
// and α-PRISM's α.
func foldLines(st *styles.Styles, r *calib.Report, w int) []string {
	lines := []string{"", st.Title.Render("γ per outer fold (inner CV)")}
	head := fmt.Sprintf("%-12s", "method")
	for _, f := range r.Folds {
		head += fmt.Sprintf(" %7s", fmt.Sprintf("fold %d", f.Fold))
	}
	lines = append(lines, st.Label.Render(widgets.Fit(head, w)))
	for _, fm := range analysis.Methods[1:] {
		if r.Methods.Get(fm.M) == nil {
			continue
		}
		row := fmt.Sprintf("%-12s", fm.Label)
		for i := range r.Folds {
			row += fmt.Sprintf(" %7s", fmt.Sprintf("%g", foldFitOf(&r.Folds[i], fm.M).Gamma))
		}
		lines = append(lines, widgets.Fit(row, w))
		if fm.M == calib.AlphaPRISM {
			row := fmt.Sprintf("%-12s", "  α")
			for i := range r.Folds {
				row += fmt.Sprintf(" %7.3f", r.Folds[i].AlphaPRISM.Alpha)
			}
			lines = append(lines, st.Muted.Render(widgets.Fit(row, w)))
		}
	}
	return lines
}

// foldFitOf is the fit of method m in fold f (Vanilla has none).
func foldFitOf(f *calib.Fold, m calib.Method) *calib.FoldFit {
	switch m {
	case calib.PRISM:
		return &f.PRISM
	case calib.AlphaPRISM:
		return &f.AlphaPRISM
	case calib.Half:
		return &f.Half
	case calib.Taylor:
		return f.Taylor
	}
	return nil
}

// imputedText lists the score columns with filled cells, or "none".
func imputedText(r *calib.Report) string {
	var parts []string
	for _, c := range append([]string{"baseline"}, r.Columns...) {
		if n := r.Imputed[c]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", c, n))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// sweepLines draws the γ sweep: per γ, each fitted method's out-of-fold
// mean at that fixed γ as a mark on one axis, Vanilla's mean as │, and
// at the right PRISM's mean, under the column's label.
func (v *Tab) sweepLines(st *styles.Styles, w int) []string {
	r := v.fit.Report
	if r == nil || len(r.Sweep) == 0 {
		return nil
	}
	var lines []string
	if !v.split() {
		lines = append(lines, "", st.Title.Render("γ sweep (Fig. 4b)"))
	}
	van := r.Methods.Vanilla.Mean
	vals := []float64{van}
	var legend []string
	for _, fm := range analysis.Methods[1:] {
		if r.Methods.Get(fm.M) != nil {
			legend = append(legend, string(fm.Mark)+" "+fm.Label)
			for _, g := range r.GammaGrid {
				vals = append(vals, r.Sweep[calib.GammaKey(g)][fm.M.String()])
			}
		}
	}
	lines = append(lines, widgets.WrapStyled(st.Muted, "mean at a fixed γ: "+strings.Join(legend, " · ")+
		fmt.Sprintf(" · %c several in one cell · │ Vanilla ", analysis.OverlapMark)+widgets.Mean4(van), w)...)
	lo, hi := widgets.ValueAxis(vals...)
	bw := max(w-6-1-8, 8)
	// The number at the right of a row is PRISM's mean at that γ.
	lines = append(lines, st.Label.Render(widgets.Fit(fmt.Sprintf("%-6s %-*s %7s", "γ", bw, "", "PRISM"), w)))
	for _, g := range r.GammaGrid {
		at := r.Sweep[calib.GammaKey(g)]
		var ms []rune
		var vs []float64
		for _, fm := range analysis.Methods[1:] {
			if r.Methods.Get(fm.M) != nil {
				ms, vs = append(ms, fm.Mark), append(vs, at[fm.M.String()])
			}
		}
		lines = append(lines, fmt.Sprintf("%-6s %s %7s", fmt.Sprintf("%g", g), st.Label.Render(widgets.DotRow(vs, ms, van, lo, hi, bw, analysis.OverlapMark)), widgets.Mean4(at[calib.PRISM.String()])))
	}
	lines = append(lines, st.Muted.Render(widgets.Fit(fmt.Sprintf("%7s%-*s%s", "", bw-6, widgets.Mean4(lo), widgets.Mean4(hi)), w)))
	return lines
}

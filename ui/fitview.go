package ui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/study"
	"github.com/prism-eval/prism/model"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// fitTab is the Fit tab (docs/protocol.md §2–7, paper Table 2 and Fig. 4b):
// the methods' mean metric with its 95% interval and the paired difference
// from Vanilla, the γ chosen in each outer fold, the imputed cells, and
// the γ sweep as a dot chart. fitctl.go runs the fit and follows it.
type fitTab struct {
	// The fit in flight (its progress counts outer folds, then the
	// bootstrap) and why the last fit failed.
	jobState[fitResult]

	pairwise   bool     // the metric: pairwise accuracy instead of Spearman
	taylor     bool     // fit the diagonal Taylor correction too
	key        studyKey // the answers rep was computed from
	rep        *calib.Report
	source     string           // names the study rep was fitted on
	rows       []model.ScoreRow // its rubric rows and one baseline row a run (fitResult.rows)
	warnings   []string
	status     string // the last export's or calibrator save's outcome
	statusErr  bool
	exportIn   *textinput.Model // the export directory asked for after e, or nil
	saveIn     *textinput.Model // the calibrator's path asked for after S, or nil
	saveMethod calib.Method     // the method whose calibrator S saves
	d          *calib.Design    // the design rep was fitted on
	fitOpts    calib.Options    // the options rep was fitted with
	answers    int              // App.versions.Of(key) when the fit started
	rubrics    int              // App.versions.Of(key.Rubric()) when the fit started
	judge      string           // the judge a fit would use, for the hint
	stale      string           // why rep no longer fits the study, or ""
	stored     *study.Stored    // where rep came from when it was read from the workspace, or nil
	agree      *agreement       // key's agreement when its study has no probes (rep is then nil)

	scroll        int
	width, height int
}

func (v *fitTab) SetSize(w, h int) { v.width, v.height = w, h }

// Move scrolls the tab.
func (v *fitTab) Move(delta int) { v.scroll = max(v.scroll+delta, 0) }

func (v *fitTab) metric() string {
	if v.pairwise {
		return model.MetricPairwise
	}
	return model.MetricSpearman
}

// options are the options of the tab's fits.
func (v *fitTab) options() calib.Options { return fitOptions(v.metric(), v.taylor) }

// split reports whether the sweep gets a pane of its own.
func (v *fitTab) split() bool { return v.width >= 120 }

func (v *fitTab) View(a *App) string {
	st := a.styles
	v.judge = a.selectJudge()
	v.stale = a.fitStale()
	innerH := v.height - widgets.PaneChromeH - 1
	if !v.split() {
		lines := append(v.tableLines(st, v.width-widgets.PaneChromeW), v.sweepLines(st, v.width-widgets.PaneChromeW)...)
		v.scroll = min(v.scroll, max(len(lines)-innerH, 0))
		return widgets.Pane(st, true, v.width, v.height, v.title(), widgets.Block(lines[v.scroll:], v.width-widgets.PaneChromeW, innerH))
	}
	rw := max(v.width*2/5, 40)
	if v.rep != nil && len(v.rep.Baselines) > 0 {
		rw = max(v.width/3, 40) // Table 2's wider rows get more of the width
	}
	lw := v.width - rw
	left := v.tableLines(st, lw-widgets.PaneChromeW)
	v.scroll = min(v.scroll, max(len(left)-innerH, 0))
	return lipgloss.JoinHorizontal(lipgloss.Top,
		widgets.Pane(st, true, lw, v.height, v.title(), widgets.Block(left[v.scroll:], lw-widgets.PaneChromeW, innerH)),
		widgets.Pane(st, false, rw, v.height, "γ sweep (Fig. 4b)", widgets.Block(v.sweepLines(st, rw-widgets.PaneChromeW), rw-widgets.PaneChromeW, innerH)))
}

func (v *fitTab) title() string {
	if r := v.rep; r != nil {
		return fmt.Sprintf("Fit · %s · %d contexts · %d candidates", r.Metric, r.NContexts, r.NCandidates)
	}
	if ag := v.agree; ag != nil {
		return fmt.Sprintf("Fit · agreement, no probes · %s · %d contexts · %d candidates", ag.res.Metric, ag.res.Contexts, ag.res.Candidates)
	}
	return "Fit · " + v.metric()
}

// progressText says where the fit in flight is: the outer folds done
// (each with its inner CV), then the bootstrap.
func (v *fitTab) progressText() string {
	folds := max(v.total-1, 0)
	switch {
	case v.total == 0:
		return "fitting… (nested cross-validation, then the bootstrap)"
	case v.done < folds:
		return fmt.Sprintf("fitting… outer fold %d of %d done (nested cross-validation)", v.done, folds)
	case v.done == folds:
		return fmt.Sprintf("fitting… %d outer folds done; bootstrap", folds)
	}
	return "fitting… done"
}

// fitMethods are the rows of the Table 2-style table, in report order.
var fitMethods = []struct {
	m     calib.Method
	label string
	mark  rune // in the sweep chart
}{
	{calib.Vanilla, "Vanilla", '│'},
	{calib.PRISM, "PRISM", 'P'},
	{calib.AlphaPRISM, "α-PRISM", 'α'},
	{calib.Half, "Half-diff", 'H'},
	{calib.Taylor, "Diag. Taylor", 'T'},
}

// ciText prints an interval of means ("[0.1234, 0.5678]").
func ciText(ci [2]float64) string { return "[" + mean4(ci[0]) + ", " + mean4(ci[1]) + "]" }

// diffCIText prints an interval of differences, signed.
func diffCIText(ci [2]float64) string { return "[" + gain4(ci[0]) + ", " + gain4(ci[1]) + "]" }

// methodRow is one row of the Table 2-style table; the test compares it
// with calib.Fit's report.
func methodRow(label string, res *calib.MethodResult) string {
	d, dci := "", ""
	if res.DiffVsVanilla != nil {
		d, dci = gain4(res.DiffVsVanilla.Mean), diffCIText(res.DiffVsVanilla.CI)
	}
	return fmt.Sprintf("%-12s %7s %-18s %8s %s", label, mean4(res.Mean), ciText(res.CI), d, dci)
}

// rowStyle is a method row's style: green when the whole interval of its
// gain over Vanilla is above 0.
func rowStyle(st *styles.Styles, res *calib.MethodResult) lipgloss.Style {
	if res.DiffVsVanilla != nil && res.DiffVsVanilla.CI[0] > 0 {
		return st.Good
	}
	return st.Text
}

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
func t2Cells(row t2Row) [t2Cols]string {
	var c [t2Cols]string
	c[t2Mean], c[t2CI] = mean4(row.res.Mean), ciText(row.res.CI)
	if d := row.res.DiffVsVanilla; d != nil {
		c[t2DVan], c[t2DVanCI] = gain4(d.Mean), diffCIText(d.CI)
	}
	if d := row.vsPRISM; d != nil {
		c[t2DPRISM], c[t2DPRISMCI] = gain4(d.Mean), diffCIText(d.CI)
	}
	c[t2Calls], c[t2Tokens] = countText(row.budget.CallsPerCandidate), tokensText(row.budget.TokensPerCandidate)
	return c
}

// t2Columns chooses the columns that fit w after a label of labelW: all
// of them when they fit, else without those t2Drop names first. The
// budget columns are left out when no row knows its budget.
func t2Columns(rows []t2Row, labelW, w int) [t2Cols]bool {
	var show [t2Cols]bool
	for i := range show {
		show[i] = true
	}
	show[t2Calls] = slices.ContainsFunc(rows, func(r t2Row) bool { return r.budget.CallsPerCandidate > 0 })
	show[t2Tokens] = slices.ContainsFunc(rows, func(r t2Row) bool { return r.budget.TokensPerCandidate > 0 })
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

// table2Lines draws the method table as the paper's Table 2 when the
// report has rubric baselines: the rubric-based rows, then the
// rubric-free ones, each with its mean and interval, the paired
// difference from Vanilla, a rubric row's from PRISM, and the calls and
// tokens per candidate its answers took; columns leave a narrow pane in
// t2Drop's order. Under it, the missing rubric cells that were imputed.
func table2Lines(st *styles.Styles, r *calib.Report, w int) []string {
	rows := table2(r)
	labelW := 12
	for _, row := range rows {
		labelW = max(labelW, 2+len([]rune(row.label)))
	}
	show := t2Columns(rows, labelW, w)
	var head [t2Cols]string
	copy(head[:], t2Heads[:])
	lines := []string{"", st.Label.Render(widgets.Fit(t2Line("method", labelW, head, show), w))}
	group := ""
	for _, row := range rows {
		if row.group != group {
			group = row.group
			lines = append(lines, st.Title.Render(widgets.Fit(group, w)))
		}
		lines = append(lines, rowStyle(st, row.res).Render(widgets.Fit(t2Line("  "+row.label, labelW, t2Cells(row), show), w)))
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
		if row.base == nil {
			continue
		}
		if m := calib.MissingText(row.base); m != "" {
			lines = append(lines, widgets.WrapStyled(st.Text, row.label+": "+m, w)...)
		}
	}
	return lines
}

// tableLines draws the status, the method table, γ per fold and the
// imputed cells.
func (v *fitTab) tableLines(st *styles.Styles, w int) []string {
	var lines []string
	if v.job != nil {
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
	if v.err != nil {
		lines = append(lines, widgets.WrapStyled(st.Bad, v.err.Error(), w)...)
	}
	r := v.rep
	if r == nil && v.agree != nil {
		return append(lines, v.fitAgreeLines(st, w)...)
	}
	if r == nil {
		if v.job == nil && v.err == nil {
			lines = append(lines, widgets.WrapStyled(st.Muted, fmt.Sprintf(
				"f fits PRISM on judge %s's stored answers for this bank version (%s; m switches the metric): nested cross-validation over contexts, 2,000 bootstrap resamples.", v.judge, v.metric()), w)...)
		}
		return lines
	}
	lines = append(lines, studyLines(st, r.Study, w)...)
	lines = append(lines, st.Muted.Render(widgets.Fit(fmt.Sprintf("%d columns · %d resamples · seed %d", len(r.Columns), r.Bootstrap, r.Seed), w)))
	if v.stale != "" {
		lines = append(lines, widgets.WrapStyled(st.Warn, v.stale, w)...)
	}
	for _, wn := range v.warnings {
		lines = append(lines, widgets.WrapStyled(st.Warn, wn, w)...)
	}
	if len(r.Baselines) > 0 {
		lines = append(lines, table2Lines(st, r, w)...)
	} else {
		lines = append(lines, "", st.Label.Render(widgets.Fit(fmt.Sprintf("%-12s %7s %-18s %8s %s", "method", "mean", "95% CI", "Δ vs Van", "95% CI"), w)))
		for _, fm := range fitMethods {
			if res := r.Methods.Get(fm.m); res != nil {
				lines = append(lines, rowStyle(st, res).Render(widgets.Fit(methodRow(fm.label, res), w)))
			}
		}
	}
	lines = append(lines, "", st.Title.Render("γ per outer fold (inner CV)"))
	head := fmt.Sprintf("%-12s", "method")
	for _, f := range r.Folds {
		head += fmt.Sprintf(" %7s", fmt.Sprintf("fold %d", f.Fold))
	}
	lines = append(lines, st.Label.Render(widgets.Fit(head, w)))
	for _, fm := range fitMethods[1:] {
		if r.Methods.Get(fm.m) == nil {
			continue
		}
		row := fmt.Sprintf("%-12s", fm.label)
		for i := range r.Folds {
			row += fmt.Sprintf(" %7s", fmt.Sprintf("%g", foldFitOf(&r.Folds[i], fm.m).Gamma))
		}
		lines = append(lines, widgets.Fit(row, w))
		if fm.m == calib.AlphaPRISM {
			row := fmt.Sprintf("%-12s", "  α")
			for i := range r.Folds {
				row += fmt.Sprintf(" %7.3f", r.Folds[i].AlphaPRISM.Alpha)
			}
			lines = append(lines, st.Muted.Render(widgets.Fit(row, w)))
		}
	}
	lines = append(lines, "")
	lines = append(lines, widgets.WrapStyled(st.Text, "imputed cells (column mean): "+imputedText(r), w)...)
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
func (v *fitTab) sweepLines(st *styles.Styles, w int) []string {
	r := v.rep
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
	for _, fm := range fitMethods[1:] {
		if r.Methods.Get(fm.m) != nil {
			legend = append(legend, string(fm.mark)+" "+fm.label)
			for _, g := range r.GammaGrid {
				vals = append(vals, r.Sweep[calib.GammaKey(g)][fm.m.String()])
			}
		}
	}
	lines = append(lines, widgets.WrapStyled(st.Muted, "mean at a fixed γ: "+strings.Join(legend, " · ")+
		fmt.Sprintf(" · %c several in one cell · │ Vanilla ", overlapMark)+mean4(van), w)...)
	lo, hi := widgets.ValueAxis(vals...)
	bw := max(w-6-1-8, 8)
	// The number at the right of a row is PRISM's mean at that γ.
	lines = append(lines, st.Label.Render(widgets.Fit(fmt.Sprintf("%-6s %-*s %7s", "γ", bw, "", "PRISM"), w)))
	for _, g := range r.GammaGrid {
		at := r.Sweep[calib.GammaKey(g)]
		var ms []rune
		var vs []float64
		for _, fm := range fitMethods[1:] {
			if r.Methods.Get(fm.m) != nil {
				ms, vs = append(ms, fm.mark), append(vs, at[fm.m.String()])
			}
		}
		lines = append(lines, fmt.Sprintf("%-6s %s %7s", fmt.Sprintf("%g", g), st.Label.Render(widgets.DotRow(vs, ms, van, lo, hi, bw, overlapMark)), mean4(at[calib.PRISM.String()])))
	}
	lines = append(lines, st.Muted.Render(widgets.Fit(fmt.Sprintf("%7s%-*s%s", "", bw-6, mean4(lo), mean4(hi)), w)))
	return lines
}

package compare

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/prism-eval/prism/calib"
	"github.com/prism-eval/prism/calib/agree"
	"github.com/prism-eval/prism/calib/figures"
	"github.com/prism-eval/prism/ui/analysis"
	"github.com/prism-eval/prism/ui/styles"
	"github.com/prism-eval/prism/ui/widgets"
)

// cmpRow is a row of the judges' method tables: res is a judge's
// result in it, or nil.
type cmpRow struct {
	group, label string
	res          func(r *calib.Report) *calib.MethodResult
}

// methodRows are the rows of the method tables: with rubric baselines
// (names), every judge's in Table 2's order (SAJA, then G-Eval), then
// the rubric-free methods.
func methodRows(ok []JudgeFit, names []string) []cmpRow {
	var rows []cmpRow
	if len(names) > 0 {
		union := &calib.Report{Baselines: map[string]*calib.BaselineResult{}}
		for _, f := range ok {
			maps.Copy(union.Baselines, f.Rep.Baselines)
		}
		for _, n := range union.BaselineNames() {
			rows = append(rows, cmpRow{group: figures.GroupRubric, label: "  " + calib.BaselineLabel(n, union.Baselines[n].Kind),
				res: func(r *calib.Report) *calib.MethodResult {
					if b := r.Baselines[n]; b != nil {
						return &b.MethodResult
					}
					return nil
				}})
		}
	}
	for _, fm := range analysis.Methods {
		label := widgets.Clip(fm.Label, 10)
		if len(names) > 0 {
			label = "  " + fm.Label
		}
		rows = append(rows, cmpRow{group: figures.GroupFree, label: label, res: func(r *calib.Report) *calib.MethodResult { return r.Methods.Get(fm.M) }})
	}
	return rows
}

// methodLines are the judges' method tables side by side: per method
// each judge's mean and difference from Vanilla. A judge's column is as
// wide as its name when the row has room; a longer name is cut in its
// middle. When a judge has rubric baselines, the rows are grouped as
// Table 2: each judge's rubric-based rows (its own SAJA and G-Eval
// ratings; — for a judge without them), then the rubric-free methods.
func methodLines(st *styles.Styles, ok []JudgeFit, w int) []string {
	var names []string
	for _, f := range ok {
		for _, n := range f.Rep.BaselineNames() {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	rows := methodRows(ok, names)
	labelW := 10
	if len(names) > 0 {
		for _, row := range rows {
			labelW = max(labelW, len([]rune(row.label)))
		}
	}
	colW := 16 // "0.6917 +0.0304" and two spaces
	for _, f := range ok {
		colW = max(colW, min(len([]rune(f.Judge)), (w-labelW)/len(ok)-1))
	}
	head := fmt.Sprintf("%-*s", labelW, "method")
	for _, f := range ok {
		head += fmt.Sprintf(" %-*s", colW, widgets.ClipMiddle(f.Judge, colW))
	}
	lines := []string{st.Label.Render(widgets.Fit(head, w))}
	group := ""
	for _, cr := range rows {
		if !slices.ContainsFunc(ok, func(f JudgeFit) bool { return cr.res(f.Rep) != nil }) {
			continue
		}
		if len(names) > 0 && cr.group != group {
			group = cr.group
			lines = append(lines, st.Title.Render(widgets.Fit(group, w)))
		}
		row := fmt.Sprintf("%-*s", labelW, cr.label)
		for _, f := range ok {
			res := cr.res(f.Rep)
			cell := "—"
			if res != nil {
				cell = widgets.Mean4(res.Mean)
				if res.DiffVsVanilla != nil {
					cell += " " + widgets.Gain4(res.DiffVsVanilla.Mean)
				}
			}
			row += fmt.Sprintf(" %-*s", colW, cell)
		}
		lines = append(lines, widgets.Fit(row, w))
	}
	if len(names) > 0 {
		lines = append(lines, st.Muted.Render(widgets.Fit("per judge: mean, Δ vs its Vanilla; rubric rows from its own rubric ratings (— none)", w)))
	}
	return lines
}

// agreeLines are the agreement section: every judge, with probes or
// without, on the headline metric with its 95% interval and, under the
// best judge, its paired difference from the best on the same resamples
// (prism agree's pairs). Judges without probe answers, which the method
// tables below cannot show, are named.
func (v *Tab) agreeLines(st *styles.Styles, w int) []string {
	if v.aerr != nil {
		return widgets.WrapStyled(st.Warn, "agreement with the labels: "+v.aerr.Error(), w)
	}
	if v.agree == nil {
		return nil
	}
	r := v.agree.Res
	names := map[string]string{}
	var bare []string
	for i, f := range v.fits {
		names[f.Judge] = fmt.Sprintf("%c %s", JudgeMark(i), f.Label())
		if errors.Is(f.Err, calib.ErrNoProbes) {
			bare = append(bare, names[f.Judge])
		}
	}
	cellsW := 1 + 8 + 1 + 18 // the judge's metric and interval
	if len(r.Order) > 1 {
		cellsW += 1 + 8 + 1 + 18 // and its difference from the best
	}
	nw := 10
	for _, n := range names {
		nw = max(nw, len([]rune(n)))
	}
	nw = max(min(nw, w-cellsW), 6)
	best := r.Order[0]
	head := fmt.Sprintf("%-*s %8s %s", nw, "judge", r.Metric, "95% CI")
	note := fmt.Sprintf("%d contexts, %d candidates; %d context resamples.", r.Contexts, r.Candidates, r.Bootstrap)
	if len(r.Order) > 1 {
		head = fmt.Sprintf("%-*s %8s %-18s %8s %s", nw, "judge", r.Metric, "95% CI", "Δ vs "+names[best][:1], "95% CI")
		note = fmt.Sprintf("Δ: the judge − %s on the same %d context resamples; %d contexts, %d candidates every judge scored.",
			names[best], r.Bootstrap, r.Contexts, r.Candidates)
	}
	lines := []string{st.Title.Render(widgets.Fit("agreement with the labels (prism agree; no probes needed)", w)), st.Label.Render(widgets.Fit(head, w))}
	for _, j := range r.Order {
		e, ok := r.Judges[j][r.Metric]
		row := fmt.Sprintf("%-*s %8s", nw, widgets.ClipMiddle(names[j], nw), "—")
		if ok {
			row = fmt.Sprintf("%-*s %8s %-18s", nw, widgets.ClipMiddle(names[j], nw), widgets.Mean4(e.Mean), widgets.CI(e.CI))
		}
		for _, p := range r.Pairs {
			if p.A == best && p.B == j {
				row += " " + pairCells(p)
			}
		}
		lines = append(lines, st.Text.Render(widgets.Fit(strings.TrimRight(row, " "), w)))
	}
	if len(bare) > 0 {
		note += " No probe answers (agreement only): " + strings.Join(bare, ", ") + "."
	}
	lines = append(lines, widgets.WrapStyled(st.Muted, note, w)...)
	for _, wn := range v.agree.Warnings {
		lines = append(lines, widgets.WrapStyled(st.Warn, wn, w)...)
	}
	return append(lines, "")
}

// pairCells are the difference B − A of a pair (the judge B below the
// best judge A) and its interval, signed ("+0.0000", never "-0.0000").
func pairCells(p agree.Pair) string {
	return fmt.Sprintf("%8s [%s, %s]", widgets.Fixed4(-p.Mean), widgets.Fixed4(-p.CI[1]), widgets.Fixed4(-p.CI[0]))
}
